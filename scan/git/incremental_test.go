package git

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/git/internal/histgen"
	"github.com/spindle-go/spindle/scan/internal/gitrepo"
	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

// The incremental tests check one property from every side: a scan that
// takes what it can from a store reports exactly what a scan of every
// commit reports, whatever the store holds (a prefix of the history, a
// range, other shards, commits a force push or a branch deletion left
// unreachable, other settings' results, a killed scan's leftovers,
// damage), and it scans only what the store lacks.

// builtinDetector is the built-in rule set, decoding as gitleaks does.
func builtinDetector(t testing.TB) scan.Detector {
	t.Helper()
	d, err := rules.CompileWith(rules.Default(), rules.Settings{GitleaksDecoding: true})
	if err != nil {
		t.Fatal(err)
	}
	return scan.Rules(d)
}

// scanRun is what one scan reported: every finding, whole, as JSON (the
// report's content, in the report's order), its stats and warnings.
type scanRun struct {
	findings []string
	st       Stats
	warns    []string
	err      error
}

func runScan(t testing.TB, dir string, det scan.Detector, opts Options, sopts scan.Options) scanRun {
	t.Helper()
	var (
		mu  sync.Mutex
		out scanRun
	)
	sopts.Detector = det
	if sopts.Workers == 0 {
		sopts.Workers = 2
	}
	sopts.OnFinding = func(f report.Finding) {
		b, err := json.Marshal(f)
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		out.findings = append(out.findings, string(b))
		mu.Unlock()
	}
	sopts.OnWarning = func(w scan.Warning) {
		mu.Lock()
		out.warns = append(out.warns, w.Error())
		mu.Unlock()
	}
	if opts.Cache != nil {
		c := *opts.Cache
		c.OnWarning = func(err error) {
			mu.Lock()
			out.warns = append(out.warns, "store: "+err.Error())
			mu.Unlock()
		}
		opts.Cache = &c
	}
	out.st, out.err = Scan(context.Background(), dir, opts, sopts)
	slices.Sort(out.findings)
	return out
}

// mustScan is runScan that fails the test on an error.
func mustScan(t testing.TB, dir string, det scan.Detector, opts Options, sopts scan.Options) scanRun {
	t.Helper()
	r := runScan(t, dir, det, opts, sopts)
	if r.err != nil {
		t.Fatalf("scan %v: %v", opts.Revisions, r.err)
	}
	return r
}

// sameFindings fails the test unless got reports want's findings.
func sameFindings(t testing.TB, what string, got, want scanRun) {
	t.Helper()
	if slices.Equal(got.findings, want.findings) && got.st.Findings == want.st.Findings {
		return
	}
	var only, missing []string
	for _, f := range got.findings {
		if !slices.Contains(want.findings, f) {
			only = append(only, f)
		}
	}
	for _, f := range want.findings {
		if !slices.Contains(got.findings, f) {
			missing = append(missing, f)
		}
	}
	t.Errorf("%s: %d findings (counted %d), the full scan %d (counted %d)\nonly here: %v\nmissing: %v",
		what, len(got.findings), got.st.Findings, len(want.findings), want.st.Findings, only, missing)
}

// gitIn runs git in dir with fixed identities and dates.
func gitIn(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_AUTHOR_DATE=2026-02-03T04:05:06Z",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_COMMITTER_DATE=2026-02-03T04:05:06Z")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("git %v: %v\n%s", args, err, stderr)
	}
	return strings.TrimSpace(string(out))
}

// commitOnto makes a commit in the bare repository dir whose parent is
// parent and whose tree is parent's plus files, and returns its id.
func commitOnto(t testing.TB, dir, parent, msg string, files map[string]string) string {
	t.Helper()
	index := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	gitIn(t, dir, index, "read-tree", parent+"^{tree}")
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		blob := filepath.Join(t.TempDir(), "blob")
		os.WriteFile(blob, []byte(files[name]), 0o644)
		id := gitIn(t, dir, nil, "hash-object", "-w", blob)
		gitIn(t, dir, index, "update-index", "--add", "--cacheinfo", "100644,"+id+","+name)
	}
	tree := gitIn(t, dir, index, "write-tree")
	return gitIn(t, dir, nil, "commit-tree", tree, "-p", parent, "-m", msg)
}

// generatedRepo writes histgen's small history (merges, renames,
// deletions, planted secrets) in a temporary directory.
func generatedRepo(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := filepath.Join(t.TempDir(), "gen.git")
	if _, err := histgen.Generate(dir, histgen.Small); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkRandomSplits scans random prefixes and ranges of dir's history
// into a store, then the whole history from it, several times over, each
// time against a scan of every commit.
func checkRandomSplits(t *testing.T, dir string, det scan.Detector, seed uint64, rounds int) {
	full := mustScan(t, dir, det, Options{}, scan.Options{})
	if len(full.findings) == 0 {
		t.Fatal("the history has no findings")
	}
	ids := strings.Fields(gitIn(t, dir, nil, "rev-list", "--all"))
	rng := rand.New(rand.NewPCG(seed, 7))
	for round := range rounds {
		cache := &Cache{Dir: t.TempDir()}
		for step := range 1 + rng.IntN(3) {
			var revs []string
			a, b := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
			switch rng.IntN(3) {
			case 0:
				revs = []string{a} // a prefix: a and its history
			case 1:
				revs = []string{b + ".." + a} // a range
			default:
				revs = []string{a, b}
			}
			part := mustScan(t, dir, det, Options{Revisions: revs, Cache: cache}, scan.Options{})
			plain := mustScan(t, dir, det, Options{Revisions: revs}, scan.Options{})
			sameFindings(t, fmt.Sprintf("round %d step %d, %v from the store", round, step, revs), part, plain)
		}
		got := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
		sameFindings(t, fmt.Sprintf("round %d: the rest", round), got, full)
		again := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
		sameFindings(t, fmt.Sprintf("round %d: again", round), again, full)
		if again.st.Cached != again.st.Commits || again.st.Changes != 0 || len(again.warns) > 0 {
			t.Errorf("round %d: a second scan took %d of %d commits from the store, diffed %d changes, warned %v",
				round, again.st.Cached, again.st.Commits, again.st.Changes, again.warns)
		}
		if got.st.Cached == 0 && round == 0 {
			t.Logf("round %d: the splits stored nothing the whole scan used", round)
		}
	}
}

// TestIncrementalScenarios: every parity scenario (moves, renames,
// cherry-picks, reverts, binaries, merges with conflict resolutions and
// an octopus, several roots, slides, odd names, large files, copies and
// submodules), scanned in random splits, reports what one full scan
// reports.
func TestIncrementalScenarios(t *testing.T) {
	det := builtinDetector(t)
	for i, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			r := repoFor(t, s)
			checkRandomSplits(t, r.dir, det, uint64(i), 3)
		})
	}
}

// TestIncrementalGeneratedHistory: the same on a generated history of
// hundreds of commits with merges, renames and deletions.
func TestIncrementalGeneratedHistory(t *testing.T) {
	dir := generatedRepo(t)
	rounds := 4
	if testing.Short() {
		rounds = 2
	}
	checkRandomSplits(t, dir, builtinDetector(t), 1, rounds)
}

// TestIncrementalRealHistory: the same on caddy's history, when its
// bundle is there (not in -short).
func TestIncrementalRealHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("a real history: not in -short")
	}
	bundle := os.Getenv("SPINDLE_CADDY_BUNDLE")
	if bundle == "" {
		bundle = "/work/shared/repos/caddy.bundle"
	}
	if _, err := os.Stat(bundle); err != nil {
		t.Skipf("no caddy bundle: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "caddy.git")
	gitIn(t, t.TempDir(), nil, "clone", "-q", "--mirror", bundle, dir)
	checkRandomSplits(t, dir, builtinDetector(t), 2, 2)
}

// TestIncrementalAfterRewrites: after a force push that rewrites the tip
// (a new secret on it, the old tip's unreachable), after a branch with a
// secret is deleted, and after a branch is added, a scan from the store
// reports what a full scan reports, and scans only the new commits.
func TestIncrementalAfterRewrites(t *testing.T) {
	dir := generatedRepo(t)
	det := builtinDetector(t)
	cache := &Cache{Dir: t.TempDir()}
	check := func(what string, wantScanned int64) {
		t.Helper()
		full := mustScan(t, dir, det, Options{}, scan.Options{})
		got := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
		sameFindings(t, what, got, full)
		if scanned := got.st.Commits - got.st.Cached; wantScanned >= 0 && scanned != wantScanned {
			t.Errorf("%s: %d commits scanned, want %d", what, scanned, wantScanned)
		}
	}
	check("first scan", -1)
	check("nothing new", 0)

	secret := "aws_access_key_id = AKIA" + "QYLPMN5HHHFPZAM2\n"
	// A force push: main loses its last three commits and gets two new
	// ones, one with a secret.
	base := gitIn(t, dir, nil, "rev-parse", "main~3")
	c1 := commitOnto(t, dir, base, "rewritten 1", map[string]string{"rewrite/a.txt": "one\n"})
	c2 := commitOnto(t, dir, c1, "rewritten 2", map[string]string{"rewrite/a.txt": "one\n" + secret})
	gitIn(t, dir, nil, "update-ref", "refs/heads/main", c2)
	gitIn(t, dir, nil, "update-ref", "-d", "refs/tags/v1")
	check("after a force push", 2)

	// A branch with a secret, scanned, then deleted.
	side := commitOnto(t, dir, base, "side secret", map[string]string{"side.env": secret})
	gitIn(t, dir, nil, "update-ref", "refs/heads/doomed", side)
	check("with a new branch", 1)
	gitIn(t, dir, nil, "update-ref", "-d", "refs/heads/doomed")
	check("after the branch is deleted", 0)

	// The old tip again (a force push back): its commits are in the store.
	gitIn(t, dir, nil, "update-ref", "refs/heads/restored", side)
	check("with the branch back", 0)
}

// TestIncrementalWithoutHEAD: in a repository whose HEAD names a branch
// that does not exist (a mirror of a project that renamed its default branch),
// the store is named from the walk's first commit, which the walk must
// finish before the commits are admitted: the scans with the store
// report what a full scan reports, and the second answers from it.
func TestIncrementalWithoutHEAD(t *testing.T) {
	dir := generatedRepo(t)
	gitIn(t, dir, nil, "symbolic-ref", "HEAD", "refs/heads/gone")
	det := builtinDetector(t)
	cache := &Cache{Dir: t.TempDir()}
	full := mustScan(t, dir, det, Options{}, scan.Options{})
	if len(full.findings) == 0 || full.st.Commits == 0 {
		t.Fatalf("the full scan found %d findings in %d commits", len(full.findings), full.st.Commits)
	}
	first := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
	sameFindings(t, "first scan", first, full)
	second := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
	sameFindings(t, "second scan", second, full)
	if second.st.Cached != second.st.Commits {
		t.Errorf("second scan: %d of %d commits from the store", second.st.Cached, second.st.Commits)
	}
}

// TestIncrementalShards: shards written to one store make the whole
// scan's store, and a shard read from a store reports what that shard
// reports without one.
func TestIncrementalShards(t *testing.T) {
	dir := generatedRepo(t)
	det := builtinDetector(t)
	full := mustScan(t, dir, det, Options{}, scan.Options{})
	cache := &Cache{Dir: t.TempDir()}
	const n = 3
	for i := range n {
		sh := scan.Shard{Index: i, Count: n}
		got := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{Shard: sh})
		want := mustScan(t, dir, det, Options{}, scan.Options{Shard: sh})
		sameFindings(t, fmt.Sprintf("shard %d/%d", i, n), got, want)
		if again := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{Shard: sh}); again.st.Cached != again.st.Commits {
			t.Errorf("shard %d/%d again: %d of %d commits from the store", i, n, again.st.Cached, again.st.Commits)
		} else {
			sameFindings(t, fmt.Sprintf("shard %d/%d again", i, n), again, want)
		}
	}
	got := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
	sameFindings(t, "every shard stored", got, full)
	if got.st.Cached != got.st.Commits {
		t.Errorf("the shards stored %d of %d commits", got.st.Cached, got.st.Commits)
	}
}

// TestIncrementalSettingsKey: a store written with other rules, other
// decoding, other archive settings or another selection of changes is
// not read: each scan reports what a full scan with its settings reports.
func TestIncrementalSettingsKey(t *testing.T) {
	dir := generatedRepo(t)
	cache := &Cache{Dir: t.TempDir()}
	builtin := builtinDetector(t)
	one, err := rules.Parse([]byte("[[rules]]\nid = \"aws\"\nregex = '''AKIA[A-Z0-9]{16}'''\nkeywords = [\"akia\"]\n"), "one.toml")
	if err != nil {
		t.Fatal(err)
	}
	oneRule, err := rules.Compile(one)
	if err != nil {
		t.Fatal(err)
	}
	noDecode, err := rules.CompileWith(rules.Default(), rules.Settings{GitleaksDecoding: true, MaxDecodeDepth: -1})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		det   scan.Detector
		opts  Options
		sopts scan.Options
	}{
		{"built-in rules", builtin, Options{}, scan.Options{}},
		{"one rule", scan.Rules(oneRule), Options{}, scan.Options{}},
		{"no decoding", scan.Rules(noDecode), Options{}, scan.Options{}},
		{"no archives", builtin, Options{}, scan.Options{ArchiveDepth: scan.NoArchives}},
		{"a size limit", builtin, Options{}, scan.Options{MaxFileSize: 100}},
		{"no renames", builtin, Options{LogOpts: []string{"--all", "--no-renames"}}, scan.Options{}},
		{"every status", builtin, Options{LogOpts: []string{"--all"}}, scan.Options{}},
	}
	for _, c := range cases {
		o := c.opts
		want := mustScan(t, dir, c.det, o, c.sopts)
		o.Cache = cache
		for round := range 2 {
			got := mustScan(t, dir, c.det, o, c.sopts)
			sameFindings(t, fmt.Sprintf("%s, round %d", c.name, round), got, want)
			if wantCached := int64(round) * got.st.Commits; got.st.Cached != wantCached {
				t.Errorf("%s, round %d: %d of %d commits from the store, want %d", c.name, round, got.st.Cached, got.st.Commits, wantCached)
			}
		}
	}
	stores, err := ListStores(cache.Dir)
	if err != nil || len(stores) != maxKeys {
		t.Errorf("%d keys kept (%v), want the %d most recent", len(stores), err, maxKeys)
	}
	for _, s := range stores {
		if s.Problem != nil || s.Clean+s.Found == 0 || s.Repository == "" {
			t.Errorf("store %+v", s)
		}
	}
}

// TestIncrementalRedactStoresNoSecret: with NoFindings the store holds no
// secret and no finding, the commits with findings are scanned again each
// time, and the findings are the full scan's.
func TestIncrementalRedactStoresNoSecret(t *testing.T) {
	dir := generatedRepo(t)
	det := builtinDetector(t)
	full := mustScan(t, dir, det, Options{}, scan.Options{})
	cache := &Cache{Dir: t.TempDir(), NoFindings: true}
	mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
	got := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
	sameFindings(t, "no findings stored", got, full)
	if got.st.Cached == 0 || got.st.Cached == got.st.Commits {
		t.Errorf("%d of %d commits from the store: want the clean ones only", got.st.Cached, got.st.Commits)
	}
	var secrets []string
	for _, f := range full.findings {
		var rf report.Finding
		json.Unmarshal([]byte(f), &rf)
		secrets = append(secrets, rf.Secret)
	}
	filepath.WalkDir(cache.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				t.Errorf("%s holds a secret", p)
			}
		}
		return nil
	})
}

// TestIncrementalStoreDamage: a store truncated at any length, with any
// byte changed, from another key, or of another format, is a warning and
// a full scan, and is written again whole.
func TestIncrementalStoreDamage(t *testing.T) {
	dir := generatedRepo(t)
	det := builtinDetector(t)
	full := mustScan(t, dir, det, Options{}, scan.Options{})
	cache := &Cache{Dir: t.TempDir()}
	first := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
	segs, _ := filepath.Glob(filepath.Join(first.st.Store, "*"+segmentExt))
	if len(segs) != 1 {
		t.Fatalf("segments %v", segs)
	}
	good, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	damage := fileDamages(good, rng)
	maps.Copy(damage, map[string]func() []byte{
		"empty":       func() []byte { return nil },
		"not a store": func() []byte { return []byte("hello, world\n") },
		"another key": func() []byte {
			b := slices.Clone(good[:len(good)-32])
			b[len(storeMagic)+2] ^= 1
			return append(b, sumOf(b)...)
		},
		"an older format": func() []byte {
			b := slices.Clone(good[:len(good)-32])
			b[len(storeMagic)] = 0
			return append(b, sumOf(b)...)
		},
	})
	for name, build := range damage {
		for try := range 3 {
			ents, _ := os.ReadDir(first.st.Store)
			for _, e := range ents {
				os.Remove(filepath.Join(first.st.Store, e.Name()))
			}
			if err := os.WriteFile(segs[0], build(), 0o600); err != nil {
				t.Fatal(err)
			}
			got := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
			sameFindings(t, name, got, full)
			if got.st.Cached != 0 || !slices.ContainsFunc(got.warns, func(w string) bool { return strings.HasPrefix(w, "store: ") }) {
				t.Errorf("%s (%d): %d commits from the store, warnings %v", name, try, got.st.Cached, got.warns)
			}
			again := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
			sameFindings(t, name+", written again", again, full)
			if again.st.Cached != again.st.Commits || len(again.warns) > 0 {
				t.Errorf("%s (%d): after the rewrite %d of %d commits from the store, warnings %v", name, try, again.st.Cached, again.st.Commits, again.warns)
			}
		}
	}
}

// fileDamages returns ways to damage a file whose content is good: cut at a
// random length, or a random byte changed.
func fileDamages(good []byte, rng *rand.Rand) map[string]func() []byte {
	return map[string]func() []byte{
		"truncated": func() []byte { return good[:rng.IntN(len(good))] },
		"a byte changed": func() []byte {
			b := slices.Clone(good)
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
			return b
		},
	}
}

func sumOf(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

// TestIncrementalInterruptedAndConcurrent: scans stopped at random points
// (their store is what they leave) and scans run two at a time on one
// store never make a later scan report less than the full scan.
func TestIncrementalInterruptedAndConcurrent(t *testing.T) {
	dir := generatedRepo(t)
	det := builtinDetector(t)
	full := mustScan(t, dir, det, Options{}, scan.Options{})
	cache := &Cache{Dir: t.TempDir()}
	ids := strings.Fields(gitIn(t, dir, nil, "rev-list", "--all"))
	rng := rand.New(rand.NewPCG(11, 3))
	rounds := 8
	if testing.Short() {
		rounds = 4
	}
	for round := range rounds {
		// Stop a scan after a random number of findings.
		stopAt := rng.IntN(len(full.findings))
		ctx, cancel := context.WithCancel(context.Background())
		var n int
		_, err := Scan(ctx, dir, Options{Revisions: []string{ids[rng.IntN(len(ids))]}, Cache: cache}, scan.Options{
			Detector: det, Workers: 2,
			OnFinding: func(report.Finding) {
				if n++; n > stopAt {
					cancel()
				}
			},
		})
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		// Two at once, on random parts of the history.
		var wg sync.WaitGroup
		runs := make([]scanRun, 2)
		revs := [][]string{nil, {ids[rng.IntN(len(ids))]}}
		for i := range runs {
			wg.Go(func() {
				runs[i] = runScan(t, dir, det, Options{Revisions: revs[i], Cache: cache}, scan.Options{Workers: 1})
			})
		}
		wg.Wait()
		for i, r := range runs {
			if r.err != nil {
				t.Fatal(r.err)
			}
			if i == 0 {
				sameFindings(t, fmt.Sprintf("round %d, concurrent full scan", round), r, full)
			}
		}
		got := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
		sameFindings(t, fmt.Sprintf("round %d", round), got, full)
		if len(got.warns) > 0 {
			t.Errorf("round %d: warnings %v", round, got.warns)
		}
	}
	segs, _ := filepath.Glob(filepath.Join(mustScan(t, dir, det, Options{Cache: cache}, scan.Options{}).st.Store, "*"))
	if len(segs) > maxSegments+1 {
		t.Errorf("%d files in the store: %v", len(segs), segs)
	}
}

// TestIncrementalIgnoresAndBaselines: .gitleaksignore entries and
// baselines apply to stored findings as to new ones (they are applied
// after the store), so editing them needs no new scan.
func TestIncrementalIgnoresAndBaselines(t *testing.T) {
	dir := generatedRepo(t)
	det := builtinDetector(t)
	cache := &Cache{Dir: t.TempDir()}
	all := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
	var fps []string
	for i, f := range all.findings {
		if i%3 == 0 {
			var rf report.Finding
			json.Unmarshal([]byte(f), &rf)
			fps = append(fps, rf.Fingerprint)
		}
	}
	os.WriteFile(filepath.Join(dir, ".gitleaksignore"), []byte(strings.Join(fps, "\n")+"\n"), 0o644)
	want := mustScan(t, dir, det, Options{}, scan.Options{})
	got := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
	sameFindings(t, "with a .gitleaksignore", got, want)
	if got.st.Cached != got.st.Commits || got.st.Ignored != want.st.Ignored || want.st.Ignored == 0 {
		t.Errorf("%d of %d from the store, %d ignored, the full scan %d", got.st.Cached, got.st.Commits, got.st.Ignored, want.st.Ignored)
	}
}

// TestIncrementalDoesNotStoreWhatAWarningConcerns: a commit whose blob is
// missing is scanned (with its warning) by every scan, never stored.
func TestIncrementalDoesNotStoreWhatAWarningConcerns(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", tok(1)+"\n")
	r.commit("one")
	r.write("b.txt", tok(2)+"\n")
	r.commit("two")
	blob := r.git("rev-parse", "HEAD:b.txt")
	os.Remove(filepath.Join(r.dir, ".git", "objects", blob[:2], blob[2:]))
	det := detector(t)
	cache := &Cache{Dir: t.TempDir()}
	for i := range 2 {
		got := runScan(t, r.dir, det, Options{Cache: cache}, scan.Options{})
		if got.err != nil || got.st.Commits != 2 || got.st.Cached != int64(i) || len(got.warns) != 1 {
			t.Errorf("scan %d: %v, %d of %d commits from the store, warnings %v", i, got.err, got.st.Cached, got.st.Commits, got.warns)
		}
	}
}

// TestRepositoryIsFoundOnce: a Repository finds and opens its repository
// once, whatever its methods then do.
func TestRepositoryIsFoundOnce(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", tok(1)+"\n")
	r.commit("one")
	r.write("b.txt", tok(2)+"\n")
	var finds int
	orig := findRepo
	findRepo = func(path string) (*gitrepo.Repo, error) { finds++; return orig(path) }
	defer func() { findRepo = orig }()
	repo, err := Open(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if repo.Top() == "" || repo.RemoteURL() != "" {
		t.Errorf("top %q, remote %q", repo.Top(), repo.RemoteURL())
	}
	sopts := scan.Options{Detector: detector(t)}
	if _, err := repo.Scan(context.Background(), Options{Cache: &Cache{Dir: t.TempDir()}}, sopts); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Staged(context.Background(), sopts); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Unstaged(context.Background(), sopts); err != nil {
		t.Fatal(err)
	}
	if finds != 1 {
		t.Errorf("the repository was found %d times", finds)
	}
}
