package git

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/git/internal/histgen"
	"github.com/spindle-go/spindle/scan/report"
)

// newRepoFormat is newRepo for a repository whose objects are named by
// format ("sha1" or "sha256").
func newRepoFormat(t testing.TB, format string) *repo {
	t.Helper()
	r := newRepo(t)
	os.RemoveAll(filepath.Join(r.dir, ".git"))
	r.git("init", "-q", "-b", "main", "--object-format="+format)
	return r
}

// commitNames maps each commit id of r to what names it in either
// object format: its subject and committer time.
func commitNames(r *repo) map[string]string {
	names := map[string]string{}
	for _, line := range strings.Split(r.git("log", "--all", "--format=%H %ct %s"), "\n") {
		id, rest, _ := strings.Cut(line, " ")
		names[id] = rest
	}
	return names
}

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// TestSHA256HistoryReadsAsSHA1 builds every parity scenario twice, in a
// SHA-1 and in a SHA-256 repository (loose objects, then packed with a
// reverse index and a commit-graph), and checks that the two scans find
// the same lines in the same commits, that the SHA-256 scan names its
// commits by 64 hex digits, that it finds what git's own patches hold,
// and, with gitleaks installed, what gitleaks finds (through git).
func TestSHA256HistoryReadsAsSHA1(t *testing.T) {
	det, config := parityDetector(t)
	bin, _ := gitleaksBinary()
	for i, s := range scenarios {
		if strings.Contains(s.name, "submodules") {
			continue // its gitlink is written as a 40-digit id
		}
		if testing.Short() && i >= 3 {
			break // the first three (moves, renames, cherry-picks) in -short
		}
		t.Run(s.name, func(t *testing.T) {
			r1, r256 := newRepoFormat(t, "sha1"), newRepoFormat(t, "sha256")
			s.build(r1)
			s.build(r256)
			n1, n256 := commitNames(r1), commitNames(r256)
			for _, packed := range []bool{false, true} {
				if packed {
					for _, r := range []*repo{r1, r256} {
						r.git("-c", "pack.writeReverseIndex=true", "gc", "-q")
						r.git("commit-graph", "write", "--reachable")
					}
				}
				f1, m1 := historyKeys(t, det, r1.dir, Options{})
				f256, m256 := historyKeys(t, det, r256.dir, Options{})
				rename := func(ks []key, names map[string]string) []key {
					out := make([]key, len(ks))
					for i, k := range ks {
						k.Commit = names[k.Commit]
						out[i] = k
					}
					return sortKeys(out)
				}
				for _, k := range append(f256, m256...) {
					if !hex64.MatchString(k.Commit) {
						t.Fatalf("commit id %q: want 64 hex digits", k.Commit)
					}
				}
				a, b := rename(append(f1, m1...), n1), rename(append(f256, m256...), n256)
				if only1, only256 := diffKeys(a, b); len(only1)+len(only256) > 0 || len(a) == 0 {
					t.Errorf("packed=%v: %d findings in SHA-1, %d in SHA-256; only SHA-1 %v; only SHA-256 %v", packed, len(a), len(b), only1, only256)
				}
				want := referenceFindings(t, det, r256.dir)
				if onlyS, onlyG := diffKeys(f256, want); len(onlyS)+len(onlyG) > 0 {
					t.Errorf("packed=%v: against git log -p: spindle only %v; git only %v", packed, onlyS, onlyG)
				}
				if bin != "" && config != "" {
					gl := gitleaksFindings(t, bin, config, r256.dir)
					if onlyS, onlyG := diffKeys(f256, gl); len(onlyS)+len(onlyG) > 0 {
						t.Errorf("packed=%v: against gitleaks: spindle only %v; gitleaks only %v", packed, onlyS, onlyG)
					}
				}
			}
		})
	}
}

// TestSHA256StagedAndUnstaged scans the index against HEAD and the work
// tree against the index in a SHA-256 repository and in a SHA-1 one with
// the same files: the same findings (a file edited in the work tree is
// hashed as git hashes it, with SHA-256, to see that it changed).
func TestSHA256StagedAndUnstaged(t *testing.T) {
	det, _ := parityDetector(t)
	scanKeys := func(dir string, staged bool) []key { return worktreeKeys(t, det, dir, staged) }
	var results [2][2][]key
	for i, format := range []string{"sha1", "sha256"} {
		r := newRepoFormat(t, format)
		r.write("a.txt", "one\n"+secretLine(0)+"\n")
		r.write("dir/b.txt", "two\n")
		r.commit("base")
		r.write("a.txt", "one\n"+secretLine(0)+"\n"+secretLine(1)+"\n")
		r.write("dir/c.txt", secretLine(2)+"\n")
		// An unstaged edit: written after the index was.
		os.WriteFile(filepath.Join(r.dir, "dir", "b.txt"), []byte("two\n"+secretLine(3)+"\n"), 0o644)
		results[i][0], results[i][1] = scanKeys(r.dir, true), scanKeys(r.dir, false)
	}
	for j, what := range []string{"staged", "unstaged"} {
		if len(results[0][j]) == 0 {
			t.Errorf("%s: no findings", what)
		}
		if o1, o2 := diffKeys(results[0][j], results[1][j]); len(o1)+len(o2) > 0 {
			t.Errorf("%s: only SHA-1 %v; only SHA-256 %v", what, o1, o2)
		}
	}
}

// TestSplitIndexStagedAndPreCommit: --staged and --pre-commit scans of a
// repository whose index is split find what they find in the same
// repository with its index in one file, and what git's own patches
// (git diff --cached, git diff) hold.
func TestSplitIndexStagedAndPreCommit(t *testing.T) {
	det, _ := parityDetector(t)
	scanKeys := func(dir string, staged bool) []key { return worktreeKeys(t, det, dir, staged) }
	var results [2][2][]key
	for i, split := range []bool{false, true} {
		r := newRepo(t)
		for j := range 12 {
			r.write(fmt.Sprintf("d%d/f%d.txt", j%3, j), filler(6, fmt.Sprint(j)))
		}
		r.commit("base")
		if split {
			r.git("update-index", "--split-index")
		}
		r.write("d0/f0.txt", filler(6, "0")+secretLine(0)+"\n")
		r.write("d1/new.txt", secretLine(1)+"\n")
		r.git("rm", "-q", "d2/f2.txt")
		os.WriteFile(filepath.Join(r.dir, "d1", "f1.txt"), []byte(filler(6, "1")+secretLine(2)+"\n"), 0o644)
		if split {
			if m, _ := filepath.Glob(filepath.Join(r.dir, ".git", "sharedindex.*")); len(m) == 0 {
				t.Fatal("no shared index written")
			}
		}
		results[i][0], results[i][1] = scanKeys(r.dir, true), scanKeys(r.dir, false)
		if len(results[i][0]) != 2 || len(results[i][1]) != 1 {
			t.Errorf("split %v: staged %v, unstaged %v; want 2 and 1 findings", split, results[i][0], results[i][1])
		}
	}
	for j, what := range []string{"staged", "unstaged"} {
		if o1, o2 := diffKeys(results[0][j], results[1][j]); len(o1)+len(o2) > 0 {
			t.Errorf("%s: only in one file %v; only split %v", what, o1, o2)
		}
	}
}

// TestReftableHistoryScans scans the histories of the reftable
// repositories git 2.47 made (gitrepo's testdata, SHA-1 and SHA-256):
// every commit the refs reach, no warning.
func TestReftableHistoryScans(t *testing.T) {
	det, _ := parityDetector(t)
	for _, name := range []string{"sha1", "sha256"} {
		var warnings []scan.Warning
		st, err := Scan(context.Background(), filepath.Join("..", "internal", "gitrepo", "testdata", "reftable", name+".git"), Options{},
			scan.Options{Detector: det, ArchiveDepth: scan.NoArchives, OnFinding: func(report.Finding) {},
				OnWarning: func(w scan.Warning) { warnings = append(warnings, w) }})
		if err != nil || st.Commits != 3 || len(warnings) > 0 {
			t.Errorf("%s: %d commits, %v, warnings %v", name, st.Commits, err, warnings)
		}
	}
}

// TestDamagedCommitGraphLosesNothing flips bytes of the commit data of a
// commit-graph (tree ids, parents, dates) and scans: the graph fails its
// checksum and is not used, the walk reads the commits themselves, and
// the findings are those of the history without a graph (a graph whose
// tree ids were believed lost 52 of 123 secrets). A warning says the
// graph was not used; it is not lost data (nothing went unscanned).
func TestDamagedCommitGraphLosesNothing(t *testing.T) {
	det, _ := parityDetector(t)
	dir := filepath.Join(t.TempDir(), "gen.git")
	if _, err := histgen.Generate(dir, histgen.Small); err != nil {
		t.Fatal(err)
	}
	scanWith := func() ([]key, []scan.Warning) {
		var warnings []scan.Warning
		var ks []key
		_, err := Scan(context.Background(), dir, Options{}, scan.Options{Detector: det, ArchiveDepth: scan.NoArchives, Workers: 1,
			OnFinding: func(f report.Finding) {
				ks = append(ks, key{f.Commit, f.File, f.Line, f.RuleID, f.Secret, tagsOf(f.Tags)})
			},
			OnWarning: func(w scan.Warning) { warnings = append(warnings, w) }})
		if err != nil {
			t.Fatal(err)
		}
		return sortKeys(ks), warnings
	}
	want, _ := scanWith()
	if len(want) == 0 {
		t.Fatal("no findings to lose")
	}
	cmd := exec.Command("git", "commit-graph", "write", "--reachable")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	path := filepath.Join(dir, "objects", "info", "commit-graph")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := scanWith(); !slices.Equal(got, want) {
		t.Fatalf("with a sound commit-graph: %d findings, want %d", len(got), len(want))
	}
	// The commit data chunk (CDAT) starts where the chunk table says;
	// flip a byte in every record's tree id.
	cdat := bytes.Index(good[:8+12*8], []byte("CDAT"))
	if cdat < 0 {
		t.Fatal("no CDAT chunk")
	}
	off := int(binary.BigEndian.Uint64(good[cdat+4:]))
	bad := slices.Clone(good)
	for p := off; p+36 <= len(bad)-20 && p < off+36*300; p += 36 {
		bad[p+3] ^= 0x55
	}
	os.Chmod(path, 0o644)
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	got, warnings := scanWith()
	if onlyW, onlyG := diffKeys(want, got); len(onlyW)+len(onlyG) > 0 {
		t.Errorf("damaged commit-graph: %d findings lost %v, %d extra %v", len(onlyW), onlyW, len(onlyG), onlyG)
	}
	if len(warnings) != 1 || warnings[0].Op != "commit-graph" || warnings[0].Lost {
		t.Errorf("want one warning about the commit-graph, not counted as lost data: %v", warnings)
	}
}

// worktreeKeys scans the index against HEAD (staged) or the work tree
// against the index in dir with det, and returns the findings' keys sorted.
func worktreeKeys(t *testing.T, det scan.Detector, dir string, staged bool) []key {
	t.Helper()
	var ks []key
	f := Unstaged
	if staged {
		f = Staged
	}
	_, err := f(context.Background(), dir, scan.Options{Detector: det, ArchiveDepth: scan.NoArchives, Workers: 1,
		OnFinding: func(f report.Finding) { ks = append(ks, key{"", f.File, f.Line, f.RuleID, f.Secret, ""}) }})
	if err != nil {
		t.Fatal(err)
	}
	return sortKeys(ks)
}
