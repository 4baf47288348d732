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
// same way), whether the cache-tree is fresh, partly invalid or absent.
func TestStagedChangesAreGitDiffCached(t *testing.T) {
	for _, fresh := range []bool{true, false} {
		r := newRepo(t)
		for _, p := range []string{"a.txt", "d1/b.txt", "d1/d2/c.txt", "d1/d2/d3/e.txt", "d4/f.txt", "g.txt", "h-i.txt", "h/j.txt"} {
			r.write(p, filler(12, p))
		}
		r.commit("base")
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
		repo, err := openRepo(r.dir, func(string, string, error) {})
		if err != nil {
			t.Fatal(err)
		}
		h := &history{repo: repo, sel: &selection{renames: true, maxCount: -1}}
		x, err := gitrepo.ReadIndex(repo.IndexFile(), 20)
		if err != nil {
			t.Fatal(err)
		}
		fcs, err := h.stagedChanges(x)
		if err != nil {
			t.Fatal(err)
		}
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
			t.Errorf("fresh cache-tree %v:\n got  %v\n want %v", fresh, got, wantSet)
		}
	}
}
