package git

import (
	"bytes"
	"fmt"

	"github.com/spindle-go/spindle/scan/git/internal/linediff"
	"github.com/spindle-go/spindle/scan/internal/gitrepo"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// fileChange is what a commit did to one path, as git's diff pairs it.
type fileChange struct {
	status  byte // 'A' added, 'M' modified, 'R' renamed, 'T' type changed, 'D' deleted
	oldPath string
	path    string
	oldID   odb.ID // zero for an addition
	newID   odb.ID // zero for a deletion
	oldMode odb.Mode
	newMode odb.Mode
	score   int // a rename's similarity (60000 for an exact one)
}

// treeDiffer compares trees by object id, as git's tree diff does: it
// reads only the subtrees whose ids differ, and lists the changed paths
// depth first in tree order (the order git's diff queue has, on which
// rename detection's ties depend).
type treeDiffer struct {
	objs    *gitrepo.Objects
	sel     *selection
	changes []fileChange
	// tooLong counts the entries left out for a path over maxPath.
	tooLong int
	// path holds the path of the entry being compared (see join).
	path []byte
	// recent holds the trees read lately: a commit's trees are read again
	// as its child's parent trees, and consecutive commits go to the same
	// worker.
	recent treeCache
	// only, when not nil, restricts the diff to these paths: the others
	// are neither listed nor entered (see pathSet).
	only *pathSet
	// others, when not nil, are the trees of a merge's other parents: the
	// diff then lists no deletion, and leaves out every entry of the new
	// tree that one of them holds as is, file or subtree, which is not in
	// the merge's combined change (see commitDiffer.merge).
	others []odb.ID
	// names holds the paths of the changes listed lately, so that the
	// changes of one path, which a history scan keeps until its end,
	// share one string.
	names map[string]string
}

// maxNames bounds treeDiffer.names: when it is full it is emptied, so
// that a history of millions of paths costs no more than one of few.
const maxNames = 1 << 15

// name returns path as a string, the one names holds if it holds it.
func (d *treeDiffer) name(path []byte) string {
	if p, ok := d.names[string(path)]; ok {
		return p
	}
	if d.names == nil || len(d.names) >= maxNames {
		d.names = make(map[string]string, 64)
	}
	p := string(path)
	d.names[p] = p
	return p
}

// treeCache keeps the content of the trees read last, up to a byte
// budget, dropping them all when it is full (consecutive commits share
// most of what they read; older trees are rarely asked for again).
type treeCache struct {
	trees map[odb.ID][]byte
	bytes int
}

const treeCacheBytes = 4 << 20

func (c *treeCache) get(id odb.ID) ([]byte, bool) {
	b, ok := c.trees[id]
	return b, ok
}

func (c *treeCache) put(id odb.ID, data []byte) {
	if len(data) > treeCacheBytes/8 {
		return
	}
	if c.trees == nil || c.bytes+len(data) > treeCacheBytes {
		c.trees, c.bytes = map[odb.ID][]byte{}, 0
	}
	c.trees[id] = data
	c.bytes += len(data)
}

// maxPath bounds the length of a path the scan keeps: git itself writes
// none longer (the file systems it checks out to refuse them), and a
// crafted tree's path of megabytes would be copied into every record of
// its changes. A longer path is skipped and reported.
const maxPath = 4096

// maxTreeDepth bounds how deep trees nest (a hostile repository can make
// a chain of a million trees); git's own limit is 4096 by default.
const maxTreeDepth = 4096

// diff lists the changes from tree a to tree b (a zero id is the empty
// tree) into d.changes, replacing what it held.
func (d *treeDiffer) diff(a, b odb.ID) error {
	d.changes, d.tooLong = d.changes[:0], 0
	return d.diffAt(a, b, d.others, nil, 0)
}

// otherDir is a directory of one of a merge's other parents, as diffAt
// walks the same directory of the merge: its content, parsed only as far
// as the entries asked about need.
type otherDir struct {
	raw []byte
	at  int           // where the entry after cur starts
	cur odb.TreeEntry // the first entry not passed yet, if has
	has bool
	hs  int
}

// otherDirs reads the directories of the other parents (the zero id: a
// parent without that directory). A directory that cannot be read or
// parsed holds nothing here: its files then count as different, and the
// merge's diff against that parent, which reads it again, reports the
// error.
func (d *treeDiffer) otherDirs(ids []odb.ID) []otherDir {
	dirs := make([]otherDir, len(ids))
	for k, id := range ids {
		raw, err := d.raw(id)
		if err != nil {
			continue
		}
		dirs[k] = otherDir{raw: raw, hs: d.objs.HashSize()}
		dirs[k].step()
	}
	return dirs
}

// step moves to the next entry (to none past a damaged one).
func (od *otherDir) step() {
	od.has = false
	if od.at >= len(od.raw) {
		return
	}
	e, n, err := odb.ParseTreeEntry(od.raw[od.at:], od.hs)
	if err != nil {
		return
	}
	od.cur, od.at, od.has = e, od.at+n, true
}

// held reports whether one of the other parents' directories holds e as
// is (the same name, kind, mode and id). Otherwise, for a subtree, it
// returns each one's subtree of that name (the zero id where there is
// none). Entries must be asked about in the trees' order. With no other
// parents (no merge) it holds nothing and returns no subtrees.
func held(dirs []otherDir, e odb.TreeEntry) (bool, []odb.ID) {
	if dirs == nil {
		return false, nil
	}
	var subs []odb.ID
	if e.Mode.IsTree() {
		subs = make([]odb.ID, len(dirs))
	}
	for k := range dirs {
		od := &dirs[k]
		for od.has && baseNameCompare(od.cur.Name, od.cur.Mode, e.Name, e.Mode) < 0 {
			od.step()
		}
		if !od.has || baseNameCompare(od.cur.Name, od.cur.Mode, e.Name, e.Mode) != 0 {
			continue
		}
		if o := od.cur; o.ID == e.ID && o.Mode == e.Mode {
			return true, nil
		} else if subs != nil && o.Mode.IsTree() {
			subs[k] = o.ID
		}
	}
	return false, subs
}

// diffAt compares two trees (either may be absent: the zero id) under
// the path prefix base ("" or "dir/sub/").
//
// others, when not nil, are the trees of a merge's other parents at the
// same path (see treeDiffer.others).
func (d *treeDiffer) diffAt(a, b odb.ID, others []odb.ID, base []byte, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("trees nested deeper than %d at %q", maxTreeDepth, base)
	}
	ra, err := d.raw(a)
	if err != nil {
		return err
	}
	rb, err := d.raw(b)
	if err != nil {
		return err
	}
	var dirs []otherDir
	if others != nil {
		dirs = d.otherDirs(others)
	}
	// Entries are compared in order, both trees parsed as they go, but
	// the bytes the two trees share at their start and end are not
	// parsed at all: the same bytes are the same entries, unchanged, as a
	// subtree whose id is the same is not read. The shared start is cut
	// back to an entry's start (the first NUL after an entry's start ends
	// its name; its id follows); the shared end is left once both trees
	// are at an entry's start with the same bytes left.
	hs := d.objs.HashSize()
	i := sharedEntries(ra, rb, hs)
	j := i
	suffix := commonSuffix(ra[i:], rb[j:])
	var x, y odb.TreeEntry
	hasX, hasY := false, false
	for {
		if !hasX && !hasY && len(ra)-i == len(rb)-j && len(ra)-i <= suffix {
			return nil
		}
		if !hasX && i < len(ra) {
			e, n, err := odb.ParseTreeEntry(ra[i:], hs)
			if err != nil {
				return err
			}
			x, hasX, i = e, true, i+n
		}
		if !hasY && j < len(rb) {
			e, n, err := odb.ParseTreeEntry(rb[j:], hs)
			if err != nil {
				return err
			}
			y, hasY, j = e, true, j+n
		}
		var c int
		switch {
		case !hasX && !hasY:
			return nil
		case !hasX:
			c = 1
		case !hasY:
			c = -1
		default:
			c = baseNameCompare(x.Name, x.Mode, y.Name, y.Mode)
		}
		switch {
		case c < 0:
			hasX = false
			if others != nil {
				continue // a deletion: never in a merge's combined change
			}
			if err := d.one(x, nil, base, depth, false); err != nil {
				return err
			}
		case c > 0:
			hasY = false
			in, subs := held(dirs, y)
			if in {
				continue
			}
			if err := d.one(y, subs, base, depth, true); err != nil {
				return err
			}
		default:
			hasX, hasY = false, false
			if x.ID == y.ID && x.Mode == y.Mode {
				continue
			}
			in, subs := held(dirs, y)
			if in {
				continue
			}
			if len(base)+len(x.Name) > maxPath {
				d.tooLong++
				continue
			}
			path := d.join(base, x.Name)
			if x.Mode.IsTree() {
				if !d.only.hasDir(path) || len(d.sel.paths) > 0 && !d.sel.dirShown(string(path)) {
					continue
				}
				if err := d.diffAt(x.ID, y.ID, subs, d.sub(path), depth+1); err != nil {
					return err
				}
				continue
			}
			if !d.only.hasFile(path) {
				continue
			}
			p := d.name(path)
			if !d.sel.pathShown(p) {
				continue
			}
			st := byte('M')
			if x.Mode&0o170000 != y.Mode&0o170000 {
				st = 'T'
			} else if x.ID == y.ID {
				continue // a mode change alone: no lines
			}
			d.changes = append(d.changes, fileChange{status: st, oldPath: p, path: p,
				oldID: x.ID, newID: y.ID, oldMode: x.Mode, newMode: y.Mode})
		}
	}
}

// pathSet is a set of file paths and of the directories above them, for
// a tree diff restricted to those files. A nil *pathSet holds every path.
type pathSet struct {
	files, dirs map[string]bool
}

// reset empties the set, keeping its maps.
func (s *pathSet) reset() {
	if s.files == nil {
		s.files, s.dirs = map[string]bool{}, map[string]bool{}
	}
	clear(s.files)
	clear(s.dirs)
}

// add puts path, and every directory above it, in the set.
func (s *pathSet) add(path string) {
	s.files[path] = true
	for i := len(path) - 1; i > 0; i-- {
		if path[i] == '/' {
			if s.dirs[path[:i]] {
				break
			}
			s.dirs[path[:i]] = true
		}
	}
}

func (s *pathSet) hasFile(path []byte) bool { return s == nil || s.files[string(path)] }

func (s *pathSet) hasDir(path []byte) bool { return s == nil || s.dirs[string(path)] }

// sharedEntries returns the length of the entries that trees a and b
// (their content, ids hs bytes long) begin with byte for byte: their
// common prefix cut back to an entry's start.
func sharedEntries(a, b []byte, hs int) int {
	n := min(len(a), len(b))
	p := linediff.CommonPrefix(a[:n], b[:n])
	at := 0
	for {
		z := bytes.IndexByte(a[at:p], 0)
		if z < 0 || at+z+1+hs > p {
			return at
		}
		at += z + 1 + hs
	}
}

// one records an entry present on one side only: an added or deleted
// file, or every file of an added or deleted subtree.
//
// others are as for diffAt: for an added subtree, the other parents'
// subtrees of its name.
func (d *treeDiffer) one(e odb.TreeEntry, others []odb.ID, base []byte, depth int, added bool) error {
	if len(base)+len(e.Name) > maxPath {
		d.tooLong++
		return nil
	}
	path := d.join(base, e.Name)
	if e.Mode.IsTree() {
		if !d.only.hasDir(path) || len(d.sel.paths) > 0 && !d.sel.dirShown(string(path)) {
			return nil
		}
		var a, b odb.ID
		if added {
			b = e.ID
		} else {
			a = e.ID
		}
		return d.diffAt(a, b, others, d.sub(path), depth+1)
	}
	if !d.only.hasFile(path) {
		return nil
	}
	p := d.name(path)
	if !d.sel.pathShown(p) {
		return nil
	}
	if added {
		d.changes = append(d.changes, fileChange{status: 'A', path: p, newID: e.ID, newMode: e.Mode})
	} else {
		d.changes = append(d.changes, fileChange{status: 'D', oldPath: p, path: p, oldID: e.ID, oldMode: e.Mode})
	}
	return nil
}

// read returns the entries of tree id (none for the zero id). The entries'
// names alias the tree's content, which is never written again.
func (d *treeDiffer) read(id odb.ID) ([]odb.TreeEntry, error) {
	data, err := d.raw(id)
	if err != nil || len(data) == 0 {
		return nil, err
	}
	return odb.AppendTree(nil, data, d.objs.HashSize())
}

// raw returns the content of tree id (none for the zero id), which is
// never written again: from the recent trees, or read.
func (d *treeDiffer) raw(id odb.ID) ([]byte, error) {
	if id.IsZero() {
		return nil, nil
	}
	if data, ok := d.recent.get(id); ok {
		return data, nil
	}
	typ, data, err := d.objs.Read(id, nil)
	if err != nil {
		return nil, err
	}
	if typ != odb.TypeTree {
		return nil, fmt.Errorf("object %s is a %v, not a tree", id, typ)
	}
	d.recent.put(id, data)
	return data, nil
}

// join returns base followed by name, built in d.path, the one buffer
// every depth's paths share. d.path always begins with the base of the
// tree being compared: a subtree's base (sub) is its parent's path in
// d.path, deeper levels write only past it, and a buffer that grows is
// copied whole. So going one level deeper never copies a path, which in a
// chain of nested directories would be quadratic.
func (d *treeDiffer) join(base, name []byte) []byte {
	d.path = append(d.path[:len(base)], name...)
	return d.path
}

// sub returns the base for the subtree at path (join's result): the path
// and a '/'.
func (d *treeDiffer) sub(path []byte) []byte {
	d.path = append(path, '/')
	return d.path
}

// baseNameCompare orders tree entries as git does: by name bytes, a
// subtree's name compared as if it ended in '/'.
func baseNameCompare(a []byte, am odb.Mode, b []byte, bm odb.Mode) int {
	n := min(len(a), len(b))
	if c := bytes.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	var ca, cb byte
	if n < len(a) {
		ca = a[n]
	} else if am.IsTree() {
		ca = '/'
	}
	if n < len(b) {
		cb = b[n]
	} else if bm.IsTree() {
		cb = '/'
	}
	switch {
	case ca < cb:
		return -1
	case ca > cb:
		return 1
	}
	return 0
}
