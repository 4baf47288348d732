package git

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/git/internal/histgen"
	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testRules has one rule, for tokens like tok_0123456789abcdef.
const testRules = `
[[rules]]
id = "test-token"
description = "test token"
regex = '''tok_[0-9a-f]{16}'''
keywords = ["tok_"]
`

func detector(t testing.TB) scan.Detector {
	t.Helper()
	cfg, err := rules.Parse([]byte(testRules), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := rules.Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return scan.Rules(d)
}

func tok(i int) string { return fmt.Sprintf("tok_%016x", i) }

// repo builds a repository commit by commit, with fixed names and dates so
// that ids are the same on every run.
type repo struct {
	t    testing.TB
	dir  string
	tick int
	ids  map[string]string // commit message -> id
}

func newRepo(t testing.TB) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &repo{t: t, dir: t.TempDir(), ids: map[string]string{}}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	out, err := r.try(args...)
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

// try runs git and returns its output and error, for commands that may
// fail on purpose (a merge with conflicts).
func (r *repo) try(args ...string) (string, error) {
	r.t.Helper()
	r.tick++
	date := fmt.Sprintf("2026-01-02T03:04:%02dZ", r.tick%60)
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (r *repo) write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.git("add", path)
}

func (r *repo) commit(msg string) string {
	r.t.Helper()
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	id := r.git("rev-parse", "HEAD")
	r.ids[msg] = id
	return id
}

// hit is what the tests compare: the commit (by message), file, line and
// secret, and whether the merge tag is on.
type hit struct {
	commit, file string
	line         int
	secret       string
	merge        bool
}

func (r *repo) scan(t *testing.T, opts Options) ([]hit, Stats, []scan.Warning) {
	t.Helper()
	var (
		mu    sync.Mutex
		hits  []hit
		warns []scan.Warning
	)
	byID := map[string]string{}
	for m, id := range r.ids {
		byID[id] = m
	}
	st, err := Scan(context.Background(), r.dir, opts, scan.Options{
		Detector: detector(t),
		Workers:  2,
		OnFinding: func(f report.Finding) {
			mu.Lock()
			defer mu.Unlock()
			if want := f.Commit + ":" + f.File + ":" + f.RuleID + ":" + fmt.Sprint(f.Line); f.Fingerprint != want {
				t.Errorf("fingerprint %q, want %q", f.Fingerprint, want)
			}
			if f.Author != "Ada" || f.Email != "ada@example.com" || !strings.HasPrefix(f.Date, "2026-01-02T03:04:") || !strings.HasSuffix(f.Date, "Z") {
				t.Errorf("metadata %q %q %q", f.Author, f.Email, f.Date)
			}
			if f.Message != byID[f.Commit] {
				t.Errorf("message %q, want %q", f.Message, byID[f.Commit])
			}
			hits = append(hits, hit{byID[f.Commit], f.File, f.Line, f.Secret, slices.Contains(f.Tags, report.TagMerge)})
		},
		OnWarning: func(w scan.Warning) { mu.Lock(); warns = append(warns, w); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})
	return hits, st, warns
}

func sortHits(h []hit) []hit {
	slices.SortFunc(h, func(a, b hit) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return h
}

// TestHistoryAttributesEachSecretToTheCommitThatAddedIt covers the ways a
// line comes and goes: added, moved by an edit above it, renamed, deleted,
// re-added, copied to two paths at once, brought in by a merge, and made
// by a merge itself.
func TestHistoryAttributesEachSecretToTheCommitThatAddedIt(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "first\nkey="+tok(1)+"\n")
	r.commit("add")
	r.write("a.txt", "inserted\nfirst\nkey="+tok(1)+"\nmore\n")
	r.commit("edit above") // the secret moves to line 3; not reported again
	r.git("mv", "a.txt", "b.txt")
	r.commit("rename") // a pure rename adds nothing
	r.git("rm", "-q", "b.txt")
	r.commit("delete")
	r.write("c.txt", "key="+tok(1)+"\n")
	r.write("dup1.txt", "x="+tok(2)+"\n")
	r.write("dup2.txt", "x="+tok(2)+"\n")
	r.commit("re-add") // the same secret again, and one blob at two paths
	r.write("c.txt", "key="+tok(1)+"\nkey2="+tok(3)+"\n")
	r.commit("second line")

	r.git("checkout", "-q", "-b", "feature", "HEAD~1")
	r.write("f.txt", "one\n"+tok(4)+"\n")
	r.commit("feature")
	r.write("conflict.txt", "theirs\n")
	r.commit("feature conflict")
	r.git("checkout", "-q", "main")
	r.write("conflict.txt", "ours\n")
	r.commit("main conflict")
	if out, err := r.try("merge", "-q", "feature"); err == nil || !strings.Contains(out, "CONFLICT") {
		t.Fatalf("merge: %v, want a conflict:\n%s", err, out)
	}
	r.write("conflict.txt", "resolved with "+tok(5)+"\n")
	r.commit("merge") // the resolution adds a secret neither side had

	// A commit reachable from a tag only.
	r.git("checkout", "-q", "--orphan", "lonely")
	r.git("rm", "-rq", "--cached", ".")
	r.git("clean", "-fdq")
	r.write("tagged.txt", tok(6)+"\n")
	r.commit("tagged only")
	r.git("tag", "t1")
	r.git("checkout", "-q", "main")
	r.git("branch", "-D", "lonely")

	hits, st, warns := r.scan(t, Options{})
	want := sortHits([]hit{
		{"add", "a.txt", 2, tok(1), false},
		{"re-add", "c.txt", 1, tok(1), false},
		{"re-add", "dup1.txt", 1, tok(2), false},
		{"re-add", "dup2.txt", 1, tok(2), false},
		{"second line", "c.txt", 2, tok(3), false},
		{"feature", "f.txt", 2, tok(4), false},
		{"merge", "conflict.txt", 1, tok(5), true},
		{"tagged only", "tagged.txt", 1, tok(6), false},
	})
	if !slices.Equal(hits, want) {
		t.Errorf("findings\n%v\nwant\n%v", hits, want)
	}
	if len(warns) > 0 || st.Shallow {
		t.Errorf("warnings %v, shallow %v", warns, st.Shallow)
	}
	if st.Findings != int64(len(want)) || st.Commits < 10 {
		t.Errorf("stats: %d findings in %d commits", st.Findings, st.Commits)
	}

	// A range: what main added since "delete".
	hits, _, _ = r.scan(t, Options{Revisions: []string{r.ids["delete"] + "..main"}})
	want = sortHits([]hit{
		{"re-add", "c.txt", 1, tok(1), false},
		{"re-add", "dup1.txt", 1, tok(2), false},
		{"re-add", "dup2.txt", 1, tok(2), false},
		{"second line", "c.txt", 2, tok(3), false},
		{"feature", "f.txt", 2, tok(4), false},
		{"merge", "conflict.txt", 1, tok(5), true},
	})
	if !slices.Equal(hits, want) {
		t.Errorf("range: findings\n%v\nwant\n%v", hits, want)
	}
	// gitleaks' --log-opts form, quotes and all.
	opts, err := SplitLogOpts(`--no-merges "` + r.ids["second line"] + `"`)
	if err != nil {
		t.Fatal(err)
	}
	hits, _, _ = r.scan(t, Options{LogOpts: opts})
	want = sortHits([]hit{
		{"add", "a.txt", 2, tok(1), false},
		{"re-add", "c.txt", 1, tok(1), false},
		{"re-add", "dup1.txt", 1, tok(2), false},
		{"re-add", "dup2.txt", 1, tok(2), false},
		{"second line", "c.txt", 2, tok(3), false},
	})
	if !slices.Equal(hits, want) {
		t.Errorf("--log-opts: findings\n%v\nwant\n%v", hits, want)
	}
}

func TestHistoryArchivesLFSAndSubmodules(t *testing.T) {
	r := newRepo(t)
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("inner/conf.txt")
	w.Write([]byte("line\npass=" + tok(7) + "\n"))
	zw.Close()
	r.write("dist/bundle.zip", zb.String())
	r.write("big.bin", "version https://git-lfs.github.com/spec/v1\noid sha256:"+strings.Repeat("ab", 32)+"\nsize 12\n")
	r.commit("assets")
	hits, _, _ := r.scan(t, Options{})
	want := []hit{{"assets", "dist/bundle.zip!inner/conf.txt", 2, tok(7), false}}
	if !slices.Equal(hits, want) {
		t.Errorf("findings %v, want %v", hits, want)
	}
}

func TestHistoryShallowAndMissingObjects(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", tok(1)+"\n")
	r.commit("one")
	r.write("a.txt", tok(1)+"\n"+tok(2)+"\n")
	r.commit("two")
	r.write("b.txt", tok(3)+"\n")
	r.commit("three")

	shallow := filepath.Join(t.TempDir(), "shallow")
	r.git("clone", "-q", "--depth", "1", "file://"+r.dir, shallow)
	s := &repo{t: t, dir: shallow, ids: r.ids}
	hits, st, warns := s.scan(t, Options{})
	// The boundary commit has no parent here: it adds its whole tree.
	want := sortHits([]hit{{"three", "a.txt", 1, tok(1), false}, {"three", "a.txt", 2, tok(2), false}, {"three", "b.txt", 1, tok(3), false}})
	if !slices.Equal(hits, want) || !st.Shallow || len(warns) != 1 || !errors.Is(warns[0].Err, ErrShallow) {
		t.Errorf("shallow: findings %v, shallow %v, warnings %v", hits, st.Shallow, warns)
	}

	// A blob gone from the object store: a warning naming it, the rest
	// scanned.
	blob := r.git("rev-parse", "HEAD:b.txt")
	if err := os.Remove(filepath.Join(r.dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	hits, _, warns = r.scan(t, Options{})
	want = sortHits([]hit{{"one", "a.txt", 1, tok(1), false}, {"two", "a.txt", 2, tok(2), false}})
	if !slices.Equal(hits, want) {
		t.Errorf("missing blob: findings %v, want %v", hits, want)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Error(), blob) {
		t.Errorf("missing blob: warnings %v, want one naming %s", warns, blob)
	}
}

func TestNotARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	_, err := Scan(context.Background(), t.TempDir(), Options{}, scan.Options{Detector: detector(t)})
	if !errors.Is(err, ErrNotRepository) {
		t.Errorf("err %v, want ErrNotRepository", err)
	}
}

func TestStagedAndUnstaged(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "x\n")
	r.commit("init")
	r.write("a.txt", "x\nstaged="+tok(1)+"\n") // staged
	if err := os.WriteFile(filepath.Join(r.dir, "a.txt"), []byte("x\nstaged="+tok(1)+"\nunstaged="+tok(2)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.write("new.txt", tok(3)+"\n")
	for _, tt := range []struct {
		name string
		run  func(context.Context, string, scan.Options) (Stats, error)
		want []string
	}{
		{"staged", Staged, []string{"a.txt:2:" + tok(1), "new.txt:1:" + tok(3)}},
		{"unstaged", Unstaged, []string{"a.txt:3:" + tok(2)}},
	} {
		var got []string
		var mu sync.Mutex
		_, err := tt.run(context.Background(), r.dir, scan.Options{Detector: detector(t), OnFinding: func(f report.Finding) {
			mu.Lock()
			got = append(got, fmt.Sprintf("%s:%d:%s", f.File, f.Line, f.Secret))
			mu.Unlock()
			if f.Commit != "" || f.Fingerprint != fmt.Sprintf("%s:%s:%d", f.File, f.RuleID, f.Line) {
				t.Errorf("%s: commit %q fingerprint %q", tt.name, f.Commit, f.Fingerprint)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Sharding by commit splits the work without changing what is found: the
// union of n shards' findings is the whole scan's, each finding in exactly
// one shard.
func TestShardsCoverTheHistoryExactly(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := filepath.Join(t.TempDir(), "gen.git")
	if _, err := histgen.Generate(dir, histgen.Small); err != nil {
		t.Fatal(err)
	}
	cfg := rules.Default()
	det, err := rules.Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	whole := shardFingerprints(t, dir, scan.Rules(det), scan.Shard{})
	if len(whole) == 0 {
		t.Fatal("the generated history has no findings")
	}
	checkShardsUnite(t, dir, scan.Rules(det), whole, 1, 2, 3, 7)
}

// shardFingerprints scans the history at dir, one shard of it, and
// returns the fingerprints of its findings, sorted.
func shardFingerprints(t *testing.T, dir string, det scan.Detector, s scan.Shard) []string {
	t.Helper()
	var mu sync.Mutex
	var fps []string
	_, err := Scan(context.Background(), dir, Options{}, scan.Options{Detector: det, Shard: s,
		OnFinding: func(f report.Finding) { mu.Lock(); fps = append(fps, f.Fingerprint); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(fps)
	return fps
}

// checkShardsUnite checks that, for each count, the shards' findings
// together are whole, the findings of the whole scan.
func checkShardsUnite(t *testing.T, dir string, det scan.Detector, whole []string, counts ...int) {
	t.Helper()
	for _, n := range counts {
		var union []string
		for i := range n {
			union = append(union, shardFingerprints(t, dir, det, scan.Shard{Index: i, Count: n})...)
		}
		slices.Sort(union)
		if !slices.Equal(union, whole) {
			t.Errorf("%d shards: %d findings %v, the whole scan %d", n, len(union), union, len(whole))
		}
	}
}

// TestShardsOfMovedLines: a commit that moves and re-indents a secret's
// line adds it again (as git's patch shows), and so does a cherry-pick of
// that commit on another branch; every shard count finds exactly what one
// scan finds, whichever shard each commit falls in.
func TestShardsOfMovedLines(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "one\n"+tok(1)+"\nthree\nfour\nfive\n")
	r.commit("add")
	r.git("branch", "side")
	r.write("a.txt", "one\nthree\nfour\nfive\n    "+tok(1)+"\n")
	r.commit("move")
	r.git("checkout", "-q", "side")
	r.write("b.txt", "b\n")
	r.commit("side")
	r.git("cherry-pick", r.ids["move"])
	r.ids["cherry"] = r.git("rev-parse", "HEAD")
	r.git("checkout", "-q", "main")
	det := detector(t)
	whole := shardFingerprints(t, r.dir, det, scan.Shard{})
	for _, c := range []string{r.ids["add"] + ":a.txt:test-token:2", r.ids["move"] + ":a.txt:test-token:5", r.ids["cherry"] + ":a.txt:test-token:5"} {
		if !slices.Contains(whole, c) {
			t.Errorf("whole scan: no %s in %v", c, whole)
		}
	}
	checkShardsUnite(t, r.dir, det, whole, 2, 3, 4)
}

// TestCommitAllowlists: an allowlist that names a commit drops that
// commit's findings, and only that commit's (the same change made again
// by another commit is still reported), as in gitleaks.
func TestCommitAllowlists(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "x\n")
	r.commit("base")
	r.git("branch", "side")
	r.write("a.txt", "x\n"+tok(1)+"\n")
	first := r.commit("on main")
	r.git("checkout", "-q", "side")
	r.git("cherry-pick", first)
	picked := r.git("rev-parse", "HEAD")
	cfg, err := rules.Parse([]byte(testRules+"\n[[allowlists]]\ncommits = [\""+first+"\"]\n"), "t.toml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := rules.Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var mu sync.Mutex
	_, err = Scan(context.Background(), r.dir, Options{}, scan.Options{Detector: scan.Rules(d),
		OnFinding: func(f report.Finding) { mu.Lock(); got = append(got, f.Commit); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{picked}) {
		t.Errorf("findings in %v, want only the cherry-pick %s", got, picked)
	}
}

// TestALongLineIsOneLine: a commit adds a minified line of a megabyte,
// several chunks long, that holds "gitleaks:allow" near its start and a
// token near its end. gitleaks scans the added lines as one fragment, so
// the allow covers the token (the whole line is its line); so does this
// scan. The same line without the allow is reported.
func TestALongLineIsOneLine(t *testing.T) {
	r := newRepo(t)
	pad := strings.Repeat("var a=1;", 1<<17) // 1 MiB
	r.write("allowed.min.js", "/* gitleaks:allow */"+pad+tok(1)+";\n")
	r.write("plain.min.js", "/* minified */"+pad+tok(2)+";\n")
	r.commit("minified")
	found, warns, _, err := scanAll(t, func(ctx context.Context, o scan.Options) (Stats, error) { return Scan(ctx, r.dir, Options{}, o) })
	if err != nil || len(warns) > 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	if want := []string{"plain.min.js:1:" + tok(2)}; !slices.Equal(found, want) {
		t.Errorf("found %v, want %v", found, want)
	}
}

// TestLongEncodedRunsAreDecoded: decoding as gitleaks does, a commit that
// adds one line of base64 longer than the decoding budget of a chunked
// scan (96 KiB) has the token inside it found, as gitleaks finds it: the
// added lines are in memory and scanned whole.
func TestLongEncodedRunsAreDecoded(t *testing.T) {
	cfg, err := rules.Parse([]byte(testRules), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	det, err := rules.CompileWith(cfg, rules.Settings{GitleaksDecoding: true})
	if err != nil {
		t.Fatal(err)
	}
	r := newRepo(t)
	text := strings.Repeat("filler line of text\n", 4000) + "key " + tok(7) + "\n" + strings.Repeat("more filler\n", 2000)
	line := base64.StdEncoding.EncodeToString([]byte(text))
	if len(line) < 128<<10 {
		t.Fatalf("the run is %d bytes: the test needs one longer than the chunked budget", len(line))
	}
	r.write("blob.b64", "data: "+line+"\n")
	r.commit("encoded")
	var found []string
	_, err = Scan(context.Background(), r.dir, Options{}, scan.Options{Detector: scan.Rules(det), Workers: 2,
		OnFinding: func(f report.Finding) {
			found = append(found, fmt.Sprintf("%s:%d:%s:%v", f.File, f.Line, f.Secret, f.Tags))
		}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"blob.b64:1:" + tok(7) + ":[decoded:base64 decode-depth:1]"}; !slices.Equal(found, want) {
		t.Errorf("found %v, want %v", found, want)
	}
}
