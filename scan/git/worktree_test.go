package git

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/internal/gitrepo"
)

// TestStagedChangesAreGitDiffCached: the index compared with HEAD gives
// the changes `git diff --cached --name-status` lists (renames found the
// same way), whether the cache-tree is fresh, partly invalid or absent,
// and whether the index is one file or split (git update-index
// --split-index: the changes in the index, the rest in a shared index).
func TestStagedChangesAreGitDiffCached(t *testing.T) {
	for _, c := range []struct{ fresh, split bool }{{true, false}, {false, false}, {true, true}, {false, true}} {
		fresh := c.fresh
		r := newRepo(t)
		for _, p := range []string{"a.txt", "d1/b.txt", "d1/d2/c.txt", "d1/d2/d3/e.txt", "d4/f.txt", "g.txt", "h-i.txt", "h/j.txt"} {
			r.write(p, filler(12, p))
		}
		r.commit("base")
		if c.split {
			r.git("update-index", "--split-index")
		}
		if fresh {
			r.git("write-tree")
		}
		r.write("d1/d2/c.txt", filler(12, "d1/d2/c.txt")+"more\n")
		r.write("new/dir/k.txt", "k\n")
		r.write("d1/b.txt.new", "x\n")
		r.git("rm", "-q", "g.txt")
		os.MkdirAll(filepath.Join(r.dir, "d5"), 0o755)
		r.git("mv", "d4/f.txt", "d5/f.txt")
		os.Remove(filepath.Join(r.dir, "h-i.txt"))
		os.Symlink("a.txt", filepath.Join(r.dir, "h-i.txt"))
		r.git("add", "-A", "h-i.txt")
		want := strings.Fields(r.git("-c", "core.quotePath=false", "diff", "--cached", "--name-status", "-M"))
		var wantSet []string
		for i := 0; i < len(want); {
			st := want[i][:1]
			if st == "R" {
				wantSet = append(wantSet, "R "+want[i+1]+" "+want[i+2])
				i += 3
				continue
			}
			wantSet = append(wantSet, st+" "+want[i+1])
			i += 2
		}
		repo, _, fcs := stagedOf(t, r.dir)
		fcs = detectRenames(fcs, &blobCache{objs: repo.objs})
		var got []string
		for _, fc := range fcs {
			if fc.status == 'R' {
				got = append(got, fmt.Sprintf("R %s %s", fc.oldPath, fc.path))
			} else {
				got = append(got, fmt.Sprintf("%c %s", fc.status, fc.path))
			}
		}
		repo.close()
		slices.Sort(got)
		slices.Sort(wantSet)
		if !slices.Equal(got, wantSet) {
			t.Errorf("fresh cache-tree %v, split %v:\n got  %v\n want %v", fresh, c.split, got, wantSet)
		}
	}
}

// TestStagedSkipsConflictsAndIntentToAdd: an unresolved conflict (stages
// 1 to 3) and an intent to add (git add -N) show no lines in git diff
// --staged; the entries after them in the index are still compared.
func TestStagedSkipsConflictsAndIntentToAdd(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.write("c.txt", "base\n")
	r.commit("base")
	r.git("checkout", "-q", "-b", "feature")
	r.write("c.txt", "theirs\n")
	r.commit("feature")
	r.git("checkout", "-q", "-")
	r.write("c.txt", "ours\n")
	r.commit("main")
	if _, err := r.try("merge", "-q", "feature"); err == nil {
		t.Fatal("merge: no conflict")
	}
	r.write("a.txt", "a\nmore\n") // write stages what it writes
	r.write("b.txt", "b\n")
	r.write("z.txt", "z\n")
	if err := os.WriteFile(filepath.Join(r.dir, "i.txt"), []byte("i\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.git("add", "-N", "i.txt")
	_, x, fcs := stagedOf(t, r.dir)
	var got []string
	for _, fc := range fcs {
		got = append(got, fmt.Sprintf("%c %s", fc.status, fc.path))
	}
	slices.Sort(got)
	if want := []string{"A b.txt", "A z.txt", "M a.txt"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if len(x.Entries) < 7 {
		t.Errorf("the index holds %d entries; want the conflict's three stages and the intent to add among them", len(x.Entries))
	}
}

// stagedOf opens the repository at dir, reads its index and lists what
// the index changes against HEAD, before rename detection. The repository
// is closed when the test ends.
func stagedOf(t *testing.T, dir string) (*repository, *gitrepo.Index, []fileChange) {
	t.Helper()
	repo, err := openRepo(dir, func(string, string, error) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.close() })
	h := &history{repo: repo, sel: &selection{renames: true, maxCount: -1}}
	x, err := repo.ReadIndex()
	if err != nil {
		t.Fatal(err)
	}
	fcs, err := h.stagedChanges(x)
	if err != nil {
		t.Fatal(err)
	}
	return repo, x, fcs
}
