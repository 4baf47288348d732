package git

import (
	"crypto/sha1"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/internal/gitrepo"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// TestTreeDiffSkipsSharedBytesExactly: the tree diff does not parse the
// bytes two trees share at their start and end. On random pairs of
// nested trees, made of few names so that they share long runs of
// entries, and edited by adding, deleting, changing, retyping and
// re-moding entries, it lists exactly the changes of a diff that parses
// every entry of both trees, in the same order; and restricted to a set
// of paths, exactly those of them.
func TestTreeDiffSkipsSharedBytesExactly(t *testing.T) {
	objs := treeTestObjects(t)
	rng := rand.New(rand.NewPCG(3, 4))
	n := treeTrials()
	for i := range n {
		trees := map[odb.ID][]byte{}
		a := randomTree(rng, trees, 0)
		b := editTree(rng, trees, a, 0)
		if i%10 == 0 {
			b = a // identical trees
		}
		idA, idB := putTree(trees, a), putTree(trees, b)
		d := &treeDiffer{objs: objs, sel: &selection{}}
		d.recent.trees = trees // every tree, read from here
		if err := d.diff(idA, idB); err != nil {
			t.Fatal(err)
		}
		var want []string
		fullDiff(t, trees, idA, idB, "", nil, &want)
		if got := describeChanges(d.changes); !slices.Equal(got, want) {
			t.Fatalf("pair %d:\n got %s\nwant %s", i, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
		}
		// Restricted to some of the paths that changed, and one that did not.
		var only pathSet
		only.reset()
		keep := map[string]bool{"a/a/b": true}
		only.add("a/a/b")
		for _, fc := range d.changes {
			if rng.IntN(2) == 0 {
				only.add(fc.path)
				keep[fc.path] = true
			}
		}
		d.only = &only
		if err := d.diff(idA, idB); err != nil {
			t.Fatal(err)
		}
		d.only = nil
		var wantOnly []string
		fullDiff(t, trees, idA, idB, "", keep, &wantOnly)
		if got := describeChanges(d.changes); !slices.Equal(got, wantOnly) {
			t.Fatalf("pair %d, restricted:\n got %s\nwant %s", i, strings.Join(got, "\n     "), strings.Join(wantOnly, "\n     "))
		}
	}
}

// treeTestObjects returns the objects of an empty database, for tree
// diffs whose trees all come from the differ's recent cache.
func treeTestObjects(t *testing.T) *gitrepo.Objects {
	db, err := odb.Open(t.TempDir(), odb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &gitrepo.Objects{DB: db}
}

// treeTrials is how many random trees (or merges) a tree-diff test tries.
func treeTrials() int {
	if testing.Short() {
		return 500
	}
	return 3000
}

// testTree is a tree being built: its entries by name.
type testTree map[string]testEntry

type testEntry struct {
	mode odb.Mode
	id   odb.ID
	sub  testTree // for a subtree
}

var testNames = []string{"a", "b", "a.go", "ab", "a-b", "b.txt"}

func randomTree(rng *rand.Rand, trees map[odb.ID][]byte, depth int) testTree {
	t := testTree{}
	for _, name := range testNames {
		if rng.IntN(3) == 0 {
			continue
		}
		t[name] = randomEntry(rng, trees, depth)
	}
	return t
}

func randomEntry(rng *rand.Rand, trees map[odb.ID][]byte, depth int) testEntry {
	if depth < 3 && rng.IntN(3) == 0 {
		return testEntry{mode: odb.ModeTree, sub: randomTree(rng, trees, depth+1)}
	}
	var id odb.ID
	id[0], id[19] = byte(rng.IntN(4)), byte(rng.IntN(256)) // few ids: equal blobs happen
	mode := []odb.Mode{odb.ModeFile, odb.ModeFile, odb.ModeExecutable, odb.ModeSymlink, odb.ModeGitlink}[rng.IntN(5)]
	return testEntry{mode: mode, id: id}
}

// editTree returns a copy of t with a few random edits, at any depth.
func editTree(rng *rand.Rand, trees map[odb.ID][]byte, t testTree, depth int) testTree {
	out := testTree{}
	for name, e := range t {
		out[name] = e
	}
	for _, name := range testNames {
		e, ok := out[name]
		switch r := rng.IntN(12); {
		case ok && e.mode.IsTree() && r < 6:
			e.sub = editTree(rng, trees, e.sub, depth+1)
			out[name] = e
		case r == 0 && ok:
			delete(out, name)
		case r == 1:
			out[name] = randomEntry(rng, trees, depth)
		case r == 2 && ok && !e.mode.IsTree():
			e.mode ^= odb.ModeFile ^ odb.ModeExecutable
			out[name] = e
		}
	}
	return out
}

// putTree encodes t (its subtrees first) into trees and returns its id.
func putTree(trees map[odb.ID][]byte, t testTree) odb.ID {
	names := make([]string, 0, len(t))
	for name := range t {
		names = append(names, name)
	}
	key := func(name string) string {
		if t[name].mode.IsTree() {
			return name + "/"
		}
		return name
	}
	slices.SortFunc(names, func(x, y string) int { return strings.Compare(key(x), key(y)) })
	var data []byte
	for _, name := range names {
		e := t[name]
		if e.mode.IsTree() {
			e.id = putTree(trees, e.sub)
		}
		data = fmt.Appendf(data, "%o %s\x00", uint32(e.mode), name)
		data = append(data, e.id[:20]...)
	}
	var id odb.ID
	sum := sha1.Sum(data)
	copy(id[:], sum[:])
	id[0] |= 0x80 // apart from the blobs' ids
	trees[id] = data
	return id
}

// fullDiff is the tree diff parsing every entry of both trees; keep, if
// not nil, restricts it to those paths.
func fullDiff(t *testing.T, trees map[odb.ID][]byte, a, b odb.ID, base string, keep map[string]bool, out *[]string) {
	read := func(id odb.ID) []odb.TreeEntry {
		if id.IsZero() {
			return nil
		}
		es, err := odb.AppendTree(nil, trees[id], 20)
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	under := func(dir string) bool {
		if keep == nil {
			return true
		}
		for p := range keep {
			if strings.HasPrefix(p, dir+"/") {
				return true
			}
		}
		return false
	}
	emit := func(st byte, path string, x, y odb.TreeEntry) {
		if keep == nil || keep[path] {
			*out = append(*out, fmt.Sprintf("%c %s %x %x %o %o", st, path, x.ID[:2], y.ID[:2], x.Mode, y.Mode))
		}
	}
	one := func(e odb.TreeEntry, base string, added bool) {
		path := base + string(e.Name)
		if e.Mode.IsTree() {
			if !under(path) {
				return
			}
			if added {
				fullDiff(t, trees, odb.ID{}, e.ID, path+"/", keep, out)
			} else {
				fullDiff(t, trees, e.ID, odb.ID{}, path+"/", keep, out)
			}
			return
		}
		if added {
			emit('A', path, odb.TreeEntry{}, e)
		} else {
			emit('D', path, e, odb.TreeEntry{})
		}
	}
	ea, eb := read(a), read(b)
	i, j := 0, 0
	for i < len(ea) || j < len(eb) {
		c := 0
		switch {
		case i == len(ea):
			c = 1
		case j == len(eb):
			c = -1
		default:
			c = baseNameCompare(ea[i].Name, ea[i].Mode, eb[j].Name, eb[j].Mode)
		}
		switch {
		case c < 0:
			one(ea[i], base, false)
			i++
		case c > 0:
			one(eb[j], base, true)
			j++
		default:
			x, y := ea[i], eb[j]
			i, j = i+1, j+1
			if x.ID == y.ID && x.Mode == y.Mode {
				continue
			}
			path := base + string(x.Name)
			if x.Mode.IsTree() {
				if under(path) {
					fullDiff(t, trees, x.ID, y.ID, path+"/", keep, out)
				}
				continue
			}
			switch {
			case x.Mode&0o170000 != y.Mode&0o170000:
				emit('T', path, x, y)
			case x.ID != y.ID:
				emit('M', path, x, y)
			}
		}
	}
}

func describeChanges(fcs []fileChange) []string {
	var out []string
	for _, fc := range fcs {
		out = append(out, fmt.Sprintf("%c %s %x %x %o %o", fc.status, fc.path, fc.oldID[:2], fc.newID[:2], fc.oldMode, fc.newMode))
	}
	return out
}

// TestMergeChangeIsFilesDifferingFromEveryParent: a merge's change, which
// the diff against the first parent finds while walking the other
// parents' trees beside it (and leaving out what one of them holds as
// is), lists exactly the files that full diffs against every parent all
// list as there and changed, each with every parent's version, on random
// merges of two and three parents whose trees mix the parents' entries,
// subtrees and files, with new ones.
func TestMergeChangeIsFilesDifferingFromEveryParent(t *testing.T) {
	objs := treeTestObjects(t)
	rng := rand.New(rand.NewPCG(5, 6))
	n := treeTrials()
	merges := 0
	for i := range n {
		trees := map[odb.ID][]byte{}
		base := randomTree(rng, trees, 0)
		parents := []testTree{editTree(rng, trees, base, 0), editTree(rng, trees, base, 0)}
		if i%4 == 0 {
			parents = append(parents, editTree(rng, trees, base, 0)) // an octopus
		}
		m := mixTrees(rng, trees, parents, 0)
		var ids []odb.ID
		for _, p := range parents {
			ids = append(ids, putTree(trees, p))
		}
		if i%10 == 0 {
			ids[1] = odb.ID{} // a parent that could not be read
		}
		c := &commit{tree: putTree(trees, m), parentTrees: ids}
		cd := &commitDiffer{objs: objs, sel: &selection{}}
		cd.td.objs, cd.td.sel = cd.objs, cd.sel
		cd.td.recent.trees = trees
		got, err := cd.merge(c)
		if err != nil {
			t.Fatal(err)
		}
		want := mergeByFullDiffs(t, trees, c)
		if g, w := describeMerge(got), describeMerge(want); !slices.Equal(g, w) {
			t.Fatalf("merge %d:\n got %s\nwant %s", i, strings.Join(g, "\n     "), strings.Join(w, "\n     "))
		}
		if len(want) > 0 {
			merges++
		}
	}
	if merges < n/4 {
		t.Fatalf("only %d of %d merges changed a file against every parent", merges, n)
	}
}

// mixTrees returns a tree whose entries are, name by name, one parent's
// (a subtree: often the parents' subtrees mixed again), a new one, or
// none.
func mixTrees(rng *rand.Rand, trees map[odb.ID][]byte, parents []testTree, depth int) testTree {
	out := testTree{}
	for _, name := range testNames {
		var subs []testTree
		for _, p := range parents {
			if e, ok := p[name]; ok && e.mode.IsTree() {
				subs = append(subs, e.sub)
			}
		}
		switch r := rng.IntN(10); {
		case r < 3 && len(subs) > 0:
			out[name] = testEntry{mode: odb.ModeTree, sub: mixTrees(rng, trees, subs, depth+1)}
		case r < 8:
			if e, ok := parents[rng.IntN(len(parents))][name]; ok {
				out[name] = e
			}
		case r == 8:
			out[name] = randomEntry(rng, trees, depth)
		}
	}
	return out
}

// mergeByFullDiffs is merge's answer worked out from every tree's files
// (flattened to paths): a file of the merge is in its change if against
// every parent it is added (the parent has no file there), of another
// type, or of other content, as a diff against each parent lists it (a
// change of mode alone is not listed).
func mergeByFullDiffs(t *testing.T, trees map[odb.ID][]byte, c *commit) []change {
	flat := func(id odb.ID) map[string]odb.TreeEntry {
		out := map[string]odb.TreeEntry{}
		var walk func(id odb.ID, base string)
		walk = func(id odb.ID, base string) {
			if id.IsZero() {
				return
			}
			es, err := odb.AppendTree(nil, trees[id], 20)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				if e.Mode.IsTree() {
					walk(e.ID, base+string(e.Name)+"/")
				} else {
					out[base+string(e.Name)] = e
				}
			}
		}
		walk(id, "")
		return out
	}
	var parents []map[string]odb.TreeEntry
	for _, pt := range c.parentTrees {
		parents = append(parents, flat(pt))
	}
	var out []change
	for path, y := range flat(c.tree) {
		ch := change{path: path, newID: y.ID, newMode: y.Mode, parents: make([]parentFile, len(parents))}
		changed := true
		for i, p := range parents {
			x, ok := p[path]
			switch {
			case !ok:
			case x.ID == y.ID && x.Mode == y.Mode, x.ID == y.ID && x.Mode&0o170000 == y.Mode&0o170000:
				changed = false
			case x.Mode&0o170000 != y.Mode&0o170000:
			default:
				ch.parents[i] = parentFile{x.ID, x.Mode}
			}
		}
		if changed {
			out = append(out, ch)
		}
	}
	return out
}

// describeMerge writes a merge's change, one line a file, sorted.
func describeMerge(chs []change) []string {
	var out []string
	for _, ch := range chs {
		s := fmt.Sprintf("%s %x %o", ch.path, ch.newID, ch.newMode)
		for _, p := range ch.parents {
			s += fmt.Sprintf(" | %x %o", p.id, p.mode)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}
