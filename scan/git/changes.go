package git

import (
	"fmt"
	"os"
	"sync"

	"github.com/spindle-go/spindle/scan/git/internal/linediff"
	"github.com/spindle-go/spindle/scan/internal/gitrepo"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// This file is the first half of a history scan: for every selected
// commit, what it changed, file by file, as `git log -p` pairs the files
// (tree diff, then rename detection), filtered as gitleaks' git log
// filters them; and for a merge, the files it changed against every
// parent. Commits are diffed in parallel, each by one worker.

// change is one file a commit changed in a way that can add lines: an
// addition, a modification, a rename with edits, or a merge's combined
// change.
type change struct {
	path    string
	oldID   odb.ID // zero for an addition
	newID   odb.ID
	oldMode odb.Mode
	newMode odb.Mode
	// parents holds a merge's file in each parent (a zero id where a
	// parent has none); nil for a change against one parent.
	parents []parentFile
}

// parentFile is a merge's file as one parent has it.
type parentFile struct {
	id   odb.ID
	mode odb.Mode
}

// commitDiffer is one worker's state for diffing commits.
type commitDiffer struct {
	objs    *gitrepo.Objects
	sel     *selection
	td      treeDiffer
	blobs   blobCache
	only    pathSet // a merge's files that differ from its first parent
	tooLong int     // paths left out for their length by the commit being diffed
}

// diffCommit lists the changes of commit c that can add lines, and the
// time spent.
func (cd *commitDiffer) diffCommit(c *commit) ([]change, error) {
	cd.tooLong = 0
	switch len(c.parentTrees) {
	case 0:
		return cd.against(odb.ID{}, c.tree)
	case 1:
		return cd.against(c.parentTrees[0], c.tree)
	}
	return cd.merge(c)
}

// against diffs tree a against tree b (one parent, or none).
func (cd *commitDiffer) against(a, b odb.ID) ([]change, error) {
	if err := cd.td.diff(a, b); err != nil {
		return nil, err
	}
	cd.tooLong += cd.td.tooLong
	fcs := cd.td.changes
	if cd.sel.renames {
		cd.blobs.reset()
		fcs = detectRenames(fcs, &cd.blobs)
	}
	// The changes stay in memory for the whole scan (units point into
	// them): counted first, so that the slice holds no spare capacity.
	n := 0
	for i := range fcs {
		if cd.sel.filter.shows(fcs[i].status) && fcs[i].adds() {
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]change, 0, n)
	for i := range fcs {
		if !cd.sel.filter.shows(fcs[i].status) {
			continue
		}
		if c, ok := fcs[i].added(); ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// adds reports whether added returns a change for fc.
func (fc *fileChange) adds() bool {
	return fc.status != 'D' && (fc.status != 'R' || fc.oldID != fc.newID)
}

// added returns the change to scan for fc: what it adds, as git's diff
// prints it. A deletion adds nothing (gitleaks skips deleted files), nor
// does a pure rename; git prints a type change as a deletion and a
// creation, whose lines are all added.
func (fc *fileChange) added() (change, bool) {
	oldID, oldMode := fc.oldID, fc.oldMode
	switch fc.status {
	case 'D':
		return change{}, false
	case 'T':
		oldID, oldMode = odb.ID{}, 0
	case 'R':
		if fc.oldID == fc.newID {
			return change{}, false
		}
	}
	return change{path: fc.path, oldID: oldID, newID: fc.newID, oldMode: oldMode, newMode: fc.newMode}, true
}

// merge lists the files of a merge commit that differ from every parent:
// a combined diff's files (git's --cc). Renames are not followed here: a
// file renamed on one side is in the merge as it was there.
func (cd *commitDiffer) merge(c *commit) ([]change, error) {
	n := len(c.parentTrees)
	type side struct {
		files []parentFile
		seen  int
	}
	paths := map[string]*side{}
	var order []string
	var newIDs = map[string]odb.ID{}
	var newModes = map[string]odb.Mode{}
	// A file is in the merge's change only if it differs from every
	// parent. The diff against the first parent walks the other parents'
	// trees beside it and leaves out what one of them holds as is, file
	// or directory (a merge of a branch differs from each parent by what
	// the other brought, and mostly holds one side's version of it); the
	// diffs against the second parent and on, which give each file's
	// version there, are restricted to the files left, and enter only the
	// directories above them.
	defer func() { cd.td.only, cd.td.others = nil, nil }()
	for i, pt := range c.parentTrees {
		switch i {
		case 0:
			cd.td.others = c.parentTrees[1:]
		case 1:
			cd.td.others = nil
			cd.only.reset()
			for _, p := range order {
				cd.only.add(p)
			}
			cd.td.only = &cd.only
		}
		if err := cd.td.diff(pt, c.tree); err != nil {
			return nil, err
		}
		cd.tooLong += cd.td.tooLong
		for _, fc := range cd.td.changes {
			if fc.status == 'D' {
				continue
			}
			s := paths[fc.path]
			if s == nil {
				if i > 0 {
					continue // unchanged against an earlier parent
				}
				s = &side{files: make([]parentFile, n)}
				paths[fc.path] = s
				order = append(order, fc.path)
			}
			if s.seen != i {
				continue
			}
			s.seen++
			if fc.status != 'T' {
				s.files[i] = parentFile{fc.oldID, fc.oldMode}
			}
			newIDs[fc.path], newModes[fc.path] = fc.newID, fc.newMode
		}
	}
	var out []change
	for _, p := range order {
		s := paths[p]
		if s.seen != n {
			continue // the merge kept one parent's version
		}
		out = append(out, change{path: p, newID: newIDs[p], newMode: newModes[p], parents: s.files})
	}
	return out, nil
}

// blobCache serves rename detection the sizes and signatures of the blobs
// of one commit's diff.
type blobCache struct {
	objs *gitrepo.Objects
	// worktree maps work-tree files an unstaged scan diffs to their paths
	// (their content is not in the object database).
	worktree map[odb.ID]string
	sizes    map[odb.ID]int64
	sigs     map[odb.ID]*linediff.Signature
	buf      []byte
	// shared, if not nil, keeps signatures across the commits of a
	// history and its workers.
	shared *sigCache
}

// sigCache keeps the similarity signatures that rename detection
// computed, for every commit of a history. The files one commit adds by
// the thousand (a vendored tree) are deleted or moved by a later commit,
// where each must be compared with the other side again; its signature
// costs a read and inflate of the whole blob, a lookup nothing. It holds
// two generations within its budget: a signature found in the old one moves to the young one, and
// when the young one fills, the old one is dropped and the young one
// becomes old. Signatures are immutable, so workers share them.
type sigCache struct {
	mu         sync.Mutex
	young, old map[odb.ID]*linediff.Signature
	youngBytes int
	budget     int // bytes per generation
}

// sigCacheBytes is a history's signature cache budget per generation:
// at its peak, in the middle of the tree diffs, it holds twice that.
const sigCacheBytes = 16 << 20

func newSigCache(budget int) *sigCache {
	return &sigCache{young: map[odb.ID]*linediff.Signature{}, budget: budget}
}

func (c *sigCache) get(id odb.ID) (*linediff.Signature, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.young[id]; ok {
		return s, true
	}
	s, ok := c.old[id]
	if ok {
		delete(c.old, id)
		c.addLocked(id, s)
	}
	return s, ok
}

func (c *sigCache) put(id odb.ID, s *linediff.Signature) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.young[id]; !ok {
		c.addLocked(id, s)
	}
}

func (c *sigCache) addLocked(id odb.ID, s *linediff.Signature) {
	n := s.Bytes() + 64 // and the map entry
	if n > c.budget {
		return
	}
	if c.youngBytes+n > c.budget {
		c.old, c.young, c.youngBytes = c.young, map[odb.ID]*linediff.Signature{}, 0
	}
	c.young[id] = s
	c.youngBytes += n
}

func (b *blobCache) reset() {
	clear(b.sizes)
	clear(b.sigs)
}

func (b *blobCache) size(id odb.ID) (int64, bool) {
	if s, ok := b.sizes[id]; ok {
		return s, s >= 0
	}
	if b.sizes == nil {
		b.sizes = map[odb.ID]int64{}
	}
	var s int64 = -1
	if p, ok := b.worktree[id]; ok {
		if fi, err := os.Lstat(p); err == nil {
			s = fi.Size()
		}
	} else if n, err := b.objs.Size(id); err == nil {
		s = n
	}
	b.sizes[id] = s
	return s, s >= 0
}

// maxRenameBlob bounds the blobs rename detection reads; git itself reads
// any size, but a larger blob would hold the worker's memory for nothing:
// such a file is not paired by similarity (it is an addition).
const maxRenameBlob = 64 << 20

func (b *blobCache) signature(id odb.ID) (*linediff.Signature, bool) {
	if s, ok := b.sigs[id]; ok {
		return s, s != nil
	}
	if b.sigs == nil {
		b.sigs = map[odb.ID]*linediff.Signature{}
	}
	if b.shared != nil {
		if s, ok := b.shared.get(id); ok {
			b.sigs[id] = s
			return s, true
		}
	}
	var sig *linediff.Signature
	if size, ok := b.size(id); ok && size <= maxRenameBlob {
		if p, ok := b.worktree[id]; ok {
			if fi, err := os.Lstat(p); err == nil {
				if data, err := readWorktree(p, fi); err == nil {
					sig = linediff.NewSignature(data)
				}
			}
		} else if _, data, err := b.objs.Read(id, b.buf[:0]); err == nil {
			b.buf = data
			sig = linediff.NewSignature(data)
		}
	}
	b.sigs[id] = sig
	if sig != nil && b.shared != nil {
		b.shared.put(id, sig)
	}
	return sig, sig != nil
}

// commitResult is what diffing one commit gave.
type commitResult struct {
	changes []change
	err     error
	tooLong int // paths left out for their length
}

func diffError(c *commit, err error) error {
	return fmt.Errorf("commit %s: %w", c.id, err)
}
