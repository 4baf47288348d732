package git

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// refEdit changes the refs of a bare repository the way pushes do and
// returns how many commits it made that no ref reached before, or -1 when
// it may have taken commits out of the selection (a force push, a
// deleted ref).
type refEdit func(t *testing.T, dir string, rng *rand.Rand) int

// awsKey returns a fresh key that the built-in rules find.
func awsKey(rng *rand.Rand) string {
	const b32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	var b strings.Builder
	b.WriteString("AKIA")
	for range 16 {
		b.WriteByte(b32[rng.IntN(len(b32))])
	}
	return b.String()
}

// someFile is a new file for a commit: a secret one time in two.
func someFile(rng *rand.Rand) map[string]string {
	name := fmt.Sprintf("pushed/f%d.txt", rng.IntN(1000))
	if rng.IntN(2) == 0 {
		return map[string]string{name: "aws_access_key_id = " + awsKey(rng) + "\n"}
	}
	return map[string]string{name: fmt.Sprintf("plain text %d\n", rng.Int())}
}

func refsOf(t *testing.T, dir, prefix string) []string {
	return strings.Fields(gitIn(t, dir, nil, "for-each-ref", "--format=%(refname)", prefix))
}

func pick[T any](rng *rand.Rand, s []T) T { return s[rng.IntN(len(s))] }

var refEdits = map[string]refEdit{
	"push onto a branch": func(t *testing.T, dir string, rng *rand.Rand) int {
		ref := pick(rng, refsOf(t, dir, "refs/heads/"))
		n := 1 + rng.IntN(3)
		tip := gitIn(t, dir, nil, "rev-parse", ref)
		for i := range n {
			tip = commitOnto(t, dir, tip, fmt.Sprint("pushed ", i), someFile(rng))
		}
		gitIn(t, dir, nil, "update-ref", ref, tip)
		return n
	},
	"a new branch from an old commit": func(t *testing.T, dir string, rng *rand.Rand) int {
		ids := strings.Fields(gitIn(t, dir, nil, "rev-list", "--all"))
		c := commitOnto(t, dir, pick(rng, ids), "branched", someFile(rng))
		gitIn(t, dir, nil, "update-ref", fmt.Sprintf("refs/heads/b%d", rng.IntN(1e6)), c)
		return 1
	},
	"a tag on an old commit": func(t *testing.T, dir string, rng *rand.Rand) int {
		ids := strings.Fields(gitIn(t, dir, nil, "rev-list", "--all"))
		name := fmt.Sprintf("t%d", rng.IntN(1e6))
		if rng.IntN(2) == 0 {
			gitIn(t, dir, nil, "tag", "-a", "-m", "annotated", name, pick(rng, ids))
		} else {
			gitIn(t, dir, nil, "update-ref", "refs/tags/"+name, pick(rng, ids))
		}
		return 0
	},
	"a merge of two branches": func(t *testing.T, dir string, rng *rand.Rand) int {
		heads := refsOf(t, dir, "refs/heads/")
		a, b := pick(rng, heads), pick(rng, heads)
		ta, tb := gitIn(t, dir, nil, "rev-parse", a), gitIn(t, dir, nil, "rev-parse", b)
		if ta == tb {
			return 0
		}
		c := commitOnto(t, dir, ta, "merged", someFile(rng))
		tree := gitIn(t, dir, nil, "rev-parse", c+"^{tree}")
		m := gitIn(t, dir, nil, "commit-tree", tree, "-p", ta, "-p", tb, "-m", "merge")
		gitIn(t, dir, nil, "update-ref", a, m)
		return 1
	},
	"a force push": func(t *testing.T, dir string, rng *rand.Rand) int {
		ref := pick(rng, refsOf(t, dir, "refs/heads/"))
		base := gitIn(t, dir, nil, "rev-parse", ref+"~1")
		gitIn(t, dir, nil, "update-ref", ref, commitOnto(t, dir, base, "rewritten", someFile(rng)))
		return -1
	},
	"a deleted ref": func(t *testing.T, dir string, rng *rand.Rand) int {
		refs := refsOf(t, dir, "refs/tags/")
		head := gitIn(t, dir, nil, "symbolic-ref", "HEAD")
		for _, r := range refsOf(t, dir, "refs/heads/") {
			if r != head {
				refs = append(refs, r)
			}
		}
		if len(refs) == 0 {
			return 0
		}
		gitIn(t, dir, nil, "update-ref", "-d", pick(rng, refs))
		return -1
	},
}

// TestIncrementalRecordFollowsPushes: after every kind of push, in random
// sequences, a scan of every ref from the store reports what a full scan
// reports, counts the same commits, and, after a push that only adds
// commits, walks and scans only those.
func TestIncrementalRecordFollowsPushes(t *testing.T) {
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range refEdits {
			if !yield(k) {
				return
			}
		}
	})
	for _, noFindings := range []bool{false, true} {
		t.Run(fmt.Sprintf("nofindings=%v", noFindings), func(t *testing.T) {
			dir := generatedRepo(t)
			det := builtinDetector(t)
			cache := &Cache{Dir: t.TempDir(), NoFindings: noFindings}
			rng := rand.New(rand.NewPCG(3, uint64(len(names))))
			steps := 24
			if testing.Short() {
				steps = 7
			}
			mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
			for step := range steps {
				name := pick(rng, names)
				added := refEdits[name](t, dir, rng)
				want := mustScan(t, dir, det, Options{}, scan.Options{})
				got := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
				what := fmt.Sprintf("step %d, %s", step, name)
				sameFindings(t, what, got, want)
				if got.st.Commits != want.st.Commits || len(got.warns) > 0 {
					t.Errorf("%s: %d commits, the full scan %d; warnings %v", what, got.st.Commits, want.st.Commits, got.warns)
				}
				if added < 0 {
					continue
				}
				rescanned := int64(0)
				if noFindings {
					rescanned = int64(len(slices.Compact(commitsOf(t, want))))
				}
				if scanned := got.st.Commits - got.st.Cached; scanned > int64(added)+rescanned {
					t.Errorf("%s: %d commits scanned, %d new (and %d with findings scanned again)", what, scanned, added, rescanned)
				}
				// The new commits, those scanned again, and their parents.
				if got.st.Walked > 3*(int64(added)+rescanned) {
					t.Errorf("%s: the walk read %d commits of %d, %d new", what, got.st.Walked, got.st.Commits, added)
				}
			}
		})
	}
}

// commitsOf returns the commits of a scan's findings, sorted.
func commitsOf(t *testing.T, r scanRun) []string {
	var out []string
	for _, f := range r.findings {
		_, rest, _ := strings.Cut(f, `"commit":"`)
		id, _, _ := strings.Cut(rest, `"`)
		if id == "" {
			t.Fatalf("a finding without a commit: %s", f)
		}
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// TestIncrementalRecordDamage: a record that does not check out is a
// warning and a whole walk; a record whose segments are gone, or one left
// from an earlier scan (a scan killed between its segment and its
// record), costs the shortcut and never a finding.
func TestIncrementalRecordDamage(t *testing.T) {
	dir := generatedRepo(t)
	det := builtinDetector(t)
	cache := &Cache{Dir: t.TempDir()}
	rng := rand.New(rand.NewPCG(9, 9))
	first := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
	file := filepath.Join(first.st.Store, recordName)
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	scanFull := func(what string, warned bool) {
		t.Helper()
		want := mustScan(t, dir, det, Options{}, scan.Options{})
		got := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
		sameFindings(t, what, got, want)
		hasWarning := slices.ContainsFunc(got.warns, func(w string) bool { return strings.HasPrefix(w, "store: ") })
		if got.st.Commits != want.st.Commits || got.st.Walked < got.st.Commits || hasWarning != warned {
			t.Errorf("%s: %d commits (full scan %d), walked %d, warnings %v", what, got.st.Commits, want.st.Commits, got.st.Walked, got.warns)
		}
		again := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
		sameFindings(t, what+", again", again, want)
		if again.st.Walked != 0 || again.st.Cached != again.st.Commits {
			t.Errorf("%s, again: walked %d, %d of %d commits from the store", what, again.st.Walked, again.st.Cached, again.st.Commits)
		}
	}
	damage := fileDamages(good, rng)
	damage["another key"] = func() []byte {
		b := slices.Clone(good[:len(good)-32])
		b[len(recordMagic)+2] ^= 1
		return append(b, sumOf(b)...)
	}
	tries := 3
	if testing.Short() {
		tries = 1
	}
	for _, name := range []string{"truncated", "a byte changed", "another key"} {
		for range tries {
			if err := os.WriteFile(file, damage[name](), 0o600); err != nil {
				t.Fatal(err)
			}
			scanFull("a record "+name, true)
		}
	}
	// The segments it names gone (merged by another scan): no warning.
	segs, _ := filepath.Glob(filepath.Join(first.st.Store, "*"+segmentExt))
	for _, s := range segs {
		os.Remove(s)
	}
	scanFull("a record of segments gone", false)

	// A record left by an earlier scan: its selection is still a true one.
	old, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tries + 1 {
		refEdits["push onto a branch"](t, dir, rng)
		refEdits["a new branch from an old commit"](t, dir, rng)
		mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
		if err := os.WriteFile(file, old, 0o600); err != nil {
			t.Fatal(err)
		}
		want := mustScan(t, dir, det, Options{}, scan.Options{})
		got := mustScan(t, dir, det, Options{Cache: cache}, scan.Options{})
		sameFindings(t, fmt.Sprintf("an old record (%d)", i), got, want)
		if got.st.Commits != want.st.Commits || len(got.warns) > 0 {
			t.Errorf("an old record (%d): %d commits, the full scan %d, warnings %v", i, got.st.Commits, want.st.Commits, got.warns)
		}
	}
}

// FuzzDecodeRecord: a record's decoder takes any bytes without a panic,
// and what it accepts encodes to a record that decodes the same.
func FuzzDecodeRecord(f *testing.F) {
	var key [32]byte
	copy(key[:], "a settings key for the fuzz test")
	f.Add(encodeRecord(key, odb.SHA1Size, &selRecord{}))
	f.Add(encodeRecord(key, odb.SHA1Size, &selRecord{
		commits: 46219,
		tips:    []odb.ID{{1}, {2, 3}},
		segs:    []string{"0000000000000001-00.seg", "attic-0000000000000002-00.seg"},
		rescan:  []odb.ID{{7}},
	}))
	f.Fuzz(func(t *testing.T, data []byte) {
		var k [32]byte
		if off := len(recordMagic) + 2; len(data) >= off+32 {
			copy(k[:], data[off:])
		}
		r, err := decodeRecord(data, k, odb.SHA1Size)
		if err != nil {
			return
		}
		again, err := decodeRecord(encodeRecord(k, odb.SHA1Size, r), k, odb.SHA1Size)
		if err != nil || fmt.Sprint(again) != fmt.Sprint(r) {
			t.Fatalf("re-encoded: %v\n%v\n%v", err, r, again)
		}
	})
}

// TestIncrementalRecordOfRevisions: a scan of what HEAD reaches (the CI
// recipe's) uses and writes the record as a scan of every ref does, a
// scan of every ref after it walks only the other branches, and a range
// leaves the record alone; each reports what a full scan reports.
func TestIncrementalRecordOfRevisions(t *testing.T) {
	dir := generatedRepo(t)
	det := builtinDetector(t)
	cache := &Cache{Dir: t.TempDir()}
	rng := rand.New(rand.NewPCG(4, 4))
	check := func(what string, revs []string, maxWalked int64) {
		t.Helper()
		want := mustScan(t, dir, det, Options{Revisions: revs}, scan.Options{})
		got := mustScan(t, dir, det, Options{Revisions: revs, Cache: cache}, scan.Options{})
		sameFindings(t, what, got, want)
		if got.st.Commits != want.st.Commits || len(got.warns) > 0 {
			t.Errorf("%s: %d commits, the full scan %d; warnings %v", what, got.st.Commits, want.st.Commits, got.warns)
		}
		if maxWalked >= 0 && got.st.Walked > maxWalked {
			t.Errorf("%s: the walk read %d commits of %d, want %d at most", what, got.st.Walked, got.st.Commits, maxWalked)
		}
	}
	for range 3 {
		refEdits["a new branch from an old commit"](t, dir, rng)
	}
	head := []string{"HEAD"}
	check("HEAD, first", head, -1)
	check("HEAD, again", head, 0)
	branch := gitIn(t, dir, nil, "symbolic-ref", "HEAD")
	tip := gitIn(t, dir, nil, "rev-parse", "HEAD")
	for i := range 2 {
		tip = commitOnto(t, dir, tip, fmt.Sprint("pushed ", i), someFile(rng))
	}
	gitIn(t, dir, nil, "update-ref", branch, tip)
	check("HEAD after a push of 2", head, 3*2)
	if n := len(strings.Fields(gitIn(t, dir, nil, "rev-list", "--all", "--not", "HEAD"))); n == 0 {
		t.Fatal("no commit off HEAD's history: the test needs other branches")
	} else {
		check("every ref after HEAD", nil, 3*int64(n))
	}
	check("every ref, again", nil, 0)
	check("HEAD after every ref", head, -1)
	check("HEAD, once more", head, 0)
	check("a range", []string{"HEAD~5..HEAD"}, -1)
	check("HEAD after a range", head, 0)
}
