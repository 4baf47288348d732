package git

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/internal/lincheck"
	"github.com/spindle-go/spindle/scan/git/internal/linediff"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// The complexity checks of a history's commit diffs (internal/lincheck):
// rename detection with many additions and deletions, tree diffs of wide
// and deep trees, each at n and 8n.
//
//	go test -run '^TestLinear' -count 1 ./scan/git          # full sizes
//	go test -short -run '^TestLinear' -count 1 ./scan/git   # CI's

// fakeBlobs is a blobSource over fixed sizes and signatures.
type fakeBlobs struct {
	sizes map[odb.ID]int64
	sigs  map[odb.ID]*linediff.Signature
}

func (f *fakeBlobs) size(id odb.ID) (int64, bool) { s, ok := f.sizes[id]; return s, ok }
func (f *fakeBlobs) signature(id odb.ID) (*linediff.Signature, bool) {
	s, ok := f.sigs[id]
	return s, ok
}

func fakeID(kind byte, i int) odb.ID {
	var id odb.ID
	id[0] = kind
	id[1], id[2], id[3] = byte(i>>16), byte(i>>8), byte(i)
	return id
}

type renameInput struct {
	changes []fileChange
	blobs   *fakeBlobs
}

// renameShape builds a commit of n deletions and n additions.
func renameShape(n int, exact, sameNames bool) renameInput {
	in := renameInput{blobs: &fakeBlobs{sizes: map[odb.ID]int64{}, sigs: map[odb.ID]*linediff.Signature{}}}
	for i := range n {
		old := fakeID('o', i)
		nw := fakeID('n', i)
		if exact {
			nw = fakeID('o', n-1-i) // every addition is some deletion's blob
		}
		name := fmt.Sprintf("f%d.txt", i)
		newName := name
		if !sameNames {
			newName = fmt.Sprintf("g%d.txt", i)
		}
		in.changes = append(in.changes,
			fileChange{status: 'D', oldPath: "old/" + name, path: "old/" + name, oldID: old, oldMode: 0o100644},
			fileChange{status: 'A', path: "new/" + newName, newID: nw, newMode: 0o100644})
		// Sizes far apart: similarity is never computed, as for most
		// pairs of a large commit.
		in.blobs.sizes[old], in.blobs.sizes[nw] = 100, 1000
	}
	return in
}

func TestLinearRenames(t *testing.T) {
	// Over 1000 of each, so that the similarity round (bounded by the
	// rename limit) is skipped at both sizes.
	n := lincheck.Size(1100, 4000)
	for _, c := range []struct {
		name             string
		exact, sameNames bool
	}{
		{"distinct-blobs", false, false},
		{"distinct-blobs-same-names", false, true},
		{"exact-renames", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			lincheck.Check(t, n, func(n int) renameInput { return renameShape(n, c.exact, c.sameNames) },
				func(in renameInput) {
					detectRenames(append([]fileChange(nil), in.changes...), in.blobs)
				}, lincheck.Options{})
		})
	}
}

// The similarity round compares every pair when there are at most 1000²
// of them: its cost is bounded by that limit, not linear in the commit.
// TestLinearRenames' shapes pass the limit at 8n; this checks that the
// round is linear in the pairs it scores, below the limit.
func TestLinearRenameMatrix(t *testing.T) {
	n := lincheck.Size(40, 120) // 8n × 8n pairs: at most 1000²
	lincheck.Check(t, n, func(n int) renameInput {
		in := renameShape(n, false, false)
		for i := range n {
			old, nw := fakeID('o', i), fakeID('n', i)
			in.blobs.sizes[old], in.blobs.sizes[nw] = 1000, 1000
			in.blobs.sigs[old] = linediff.NewSignature(bytes.Repeat([]byte(fmt.Sprintf("line %d\n", i)), 100))
			in.blobs.sigs[nw] = linediff.NewSignature(bytes.Repeat([]byte(fmt.Sprintf("line %d\n", i+1)), 100))
		}
		return in
	}, func(in renameInput) {
		detectRenames(append([]fileChange(nil), in.changes...), in.blobs)
	}, lincheck.Options{Scale: 8, Slack: 64 * 3 / 8}) // pairs grow 64× at 8n: the bound is 64×·3 of the pairs
}

// treeInput is a repository and the two trees to diff.
type treeInput struct {
	repo *repository
	a, b odb.ID
}

// treeRepo writes, with git fast-import, two commits whose trees have the
// shape files gives (path → content for each commit), and opens the
// repository.
func treeRepo(t *testing.T, files func(commit int) map[string]string) treeInput {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	var in bytes.Buffer
	for c := range 2 {
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter a <a@b> %d +0000\ndata 1\nx\n", 1000+c)
		in.WriteString("deleteall\n")
		for p, content := range files(c) {
			fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(content), content)
		}
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	ids := map[int]odb.ID{}
	for c, rev := range []string{"main~1^{tree}", "main^{tree}"} {
		out, err := exec.Command("git", "-C", dir, "rev-parse", rev).Output()
		if err != nil {
			t.Fatal(err)
		}
		if ids[c], err = odb.ParseID(strings.TrimSpace(string(out))); err != nil {
			t.Fatal(err)
		}
	}
	repo, err := openRepo(dir, func(string, string, error) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(repo.close)
	return treeInput{repo: repo, a: ids[0], b: ids[1]}
}

func TestLinearTreeDiff(t *testing.T) {
	n := lincheck.Size(500, 4000)
	depth := lincheck.Size(64, 250) // 8·250 levels of "d/": within maxPath
	for _, c := range []struct {
		name  string
		n     int
		files func(n int) func(commit int) map[string]string
	}{
		{"wide-every-other-changed", n, func(n int) func(int) map[string]string {
			return func(c int) map[string]string {
				m := map[string]string{}
				for i := range n {
					m[fmt.Sprintf("f%06d", i)] = fmt.Sprint(i*(1+c*(i%2)), "\n")
				}
				return m
			}
		}},
		{"wide-all-added", n, func(n int) func(int) map[string]string {
			return func(c int) map[string]string {
				m := map[string]string{}
				for i := range n * c {
					m[fmt.Sprintf("dir%d/f%06d", i%8, i)] = fmt.Sprint(i, "\n")
				}
				return m
			}
		}},
		{"deep", depth, func(n int) func(int) map[string]string {
			return func(c int) map[string]string {
				p := strings.Repeat("d/", n)
				return map[string]string{p + "f": fmt.Sprint(c, "\n"), p[:len(p)/2] + "g": "g\n"}
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			lincheck.Check(t, c.n, func(n int) treeInput { return treeRepo(t, c.files(n)) }, func(in treeInput) {
				d := &treeDiffer{objs: in.repo.objs, sel: &selection{maxCount: -1}}
				if err := d.diff(in.a, in.b); err != nil {
					t.Fatal(err)
				}
				if len(d.changes) == 0 {
					t.Fatal("no changes")
				}
			}, lincheck.Options{})
		})
	}
}
