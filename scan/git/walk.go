package git

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spindle-go/spindle/scan/internal/gitrepo"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// commit is one commit of the walk: what the diffs need (its tree and
// its parents' trees) and when it was made. Its author, date and message
// are read again only for the commits that have findings.
type commit struct {
	id      odb.ID
	tree    odb.ID
	parents []odb.ID // as the walk follows them: none past a shallow boundary
	// parentTrees are the parents' trees, in order (the zero ID for a
	// parent that could not be read: the commit then adds its whole tree
	// relative to it).
	parentTrees []odb.ID
	nparents    int // the commit's own parent count (--no-merges looks at it)
	when        int64
	ident       string // "author\ncommitter" lines, read only for --author/--committer
}

// walker reads commits and walks history the way git log does.
type walker struct {
	objs    *gitrepo.Objects
	repo    *gitrepo.Repo
	shallow map[odb.ID]bool
	sel     *selection
	cache   map[odb.ID]*commit
	buf     []byte
	warn    func(path, op string, err error)
	ctx     context.Context // the scan's: a long walk stops when it is done
	idents  bool            // keep identity lines (the selection filters on them)
	refs    []gitrepo.Ref   // listed once, for every ref family
	// peeled memoizes refCommit by the ref's object: a repository with a
	// million tags of a few commits peels each object once.
	peeled    map[odb.ID]peelResult
	familyGen int // counts the ref families listed (peelResult.family)
	// graph is the repository's commit-graph, when git would use it: the
	// walk reads a commit's tree, parents and date from it, not from the
	// commit object.
	graph *gitrepo.CommitGraph
	// known, when set, names the commits an earlier scan's selection
	// holds, with all of their history: the walk goes no further than
	// them, and records in met those it reached.
	known func(odb.ID) bool
	met   map[odb.ID]bool
	// started holds the commits the last walk started from.
	started []odb.ID
	// emit, when not nil, is called with each commit the walk lists, as
	// it lists it.
	emit func(*commit)
	// loads counts the commits read.
	loads int64
}

// maxCommitHeader bounds the header of a commit object read by the walk:
// parents and tree come first, and a commit whose headers run past this
// (a hostile one) is read no further.
const maxCommitRead = 1 << 20

// load reads a commit (through refs/replace, as git does), caching it.
func (w *walker) load(id odb.ID) (*commit, error) {
	if c, ok := w.cache[id]; ok {
		return c, nil
	}
	w.loads++
	if !w.idents {
		if tree, parents, when, ok := w.graph.Lookup(id, nil); ok {
			c := &commit{id: id, tree: tree, parents: parents, when: when, nparents: len(parents)}
			w.cache[id] = c
			return c, nil
		}
	}
	data, err := readObjectHead(w.objs, id, odb.TypeCommit, maxCommitRead, &w.buf)
	if err != nil {
		return nil, err
	}
	c := &commit{id: id}
	c.tree, c.parents, c.when, err = odb.ParseCommitLinks(data, nil)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", id, err)
	}
	c.nparents = len(c.parents)
	if w.shallow[id] {
		c.parents = nil
	}
	if w.idents {
		c.ident = identLines(data)
	}
	w.cache[id] = c
	return c, nil
}

// identLines returns a commit's author and committer identities ("Name
// <email>", without the date), one a line.
func identLines(data []byte) string {
	var author, committer string
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "author "); ok {
			author = stripDate(v)
		} else if v, ok := strings.CutPrefix(line, "committer "); ok {
			committer = stripDate(v)
		}
	}
	return author + "\n" + committer
}

func stripDate(ident string) string {
	if i := strings.LastIndexByte(ident, '>'); i >= 0 {
		return ident[:i+1]
	}
	return ident
}

// readObjectHead reads an object of type want, at most limit bytes of it
// (all of a smaller one; the head of a larger one, streamed), into *buf.
func readObjectHead(objs *gitrepo.Objects, id odb.ID, want odb.Type, limit int64, buf *[]byte) ([]byte, error) {
	// One read for the object of usual size, which says how large it is
	// before it allocates anything for a larger one.
	typ, data, err := objs.ReadLimit(id, (*buf)[:0], limit)
	var big *odb.TooLargeError
	switch {
	case errors.As(err, &big) && big.Size > limit:
		if typ, _, err = objs.Header(id); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	}
	if typ != want {
		return nil, fmt.Errorf("object %s is a %v, not a %v", id, typ, want)
	}
	if big == nil {
		*buf = data
		return data, nil
	}
	rd, err := objs.Reader(id)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data = append((*buf)[:0], make([]byte, limit)...)
	n, err := io.ReadFull(rd, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("object %s: %w", id, err)
	}
	*buf = data
	return data[:n], nil
}

// interrupted returns the context's error every 1024 steps of a loop, once
// the scan has been stopped.
func (w *walker) interrupted(step int) error {
	if step%1024 == 0 && w.ctx != nil {
		return w.ctx.Err()
	}
	return nil
}

// reach marks every commit reachable from the tips in set.
func (w *walker) reach(tips []odb.ID, set map[odb.ID]bool) error {
	stack := append([]odb.ID(nil), tips...)
	for n := 0; len(stack) > 0; n++ {
		if err := w.interrupted(n); err != nil {
			return err
		}
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if set[id] {
			continue
		}
		set[id] = true
		c, err := w.load(id)
		if err != nil {
			// The history beyond is not there to exclude: say so.
			w.warn(id.String(), "commit", err)
			continue
		}
		stack = append(stack, c.parents...)
	}
	return nil
}

// commonHistory returns the commits reachable from both a and b.
func (w *walker) commonHistory(a, b odb.ID) ([]odb.ID, error) {
	ra, rb := map[odb.ID]bool{}, map[odb.ID]bool{}
	if err := w.reach([]odb.ID{a}, ra); err != nil {
		return nil, err
	}
	if err := w.reach([]odb.ID{b}, rb); err != nil {
		return nil, err
	}
	var common []odb.ID
	for id := range ra {
		if rb[id] {
			common = append(common, id)
		}
	}
	return common, nil
}

// walk returns the selected commits in git log's default order: newest
// committer date first, walking parents as they are reached (git pops
// commits from a list ordered by date), with the selection's filters
// and limits applied as git applies them: --since stops the walk along a
// line at the first older commit, --until and the merge and identity
// filters hide commits but walk through them, --first-parent follows
// first parents only.
func (w *walker) walk() ([]*commit, error) {
	include, exclude, err := w.tips()
	if err != nil {
		return nil, err
	}
	w.started = include
	excluded := map[odb.ID]bool{}
	if err := w.reach(exclude, excluded); err != nil {
		return nil, err
	}
	q := &commitQueue{}
	seen := map[odb.ID]bool{}
	push := func(id odb.ID) {
		if seen[id] || excluded[id] {
			return
		}
		seen[id] = true
		if w.known != nil && w.known(id) {
			w.met[id] = true
			return
		}
		c, err := w.load(id)
		if err != nil {
			w.warn(id.String(), "commit", fmt.Errorf("history through %s is not scanned: %w", id, err))
			return
		}
		q.seq++
		heap.Push(q, queued{c, q.seq})
	}
	for _, id := range include {
		push(id)
	}
	var out []*commit
	skip := w.sel.skip
	for n := 0; q.Len() > 0; n++ {
		if err := w.interrupted(n); err != nil {
			return nil, err
		}
		c := heap.Pop(q).(queued).c
		if w.sel.since != 0 && c.when < w.sel.since {
			continue
		}
		parents := c.parents
		if w.sel.firstParent && len(parents) > 1 {
			parents = parents[:1]
		}
		for _, p := range parents {
			push(p)
		}
		if !w.shows(c) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		if w.sel.maxCount >= 0 && len(out) >= w.sel.maxCount {
			break
		}
		out = append(out, c)
		if w.emit != nil {
			w.emit(c)
		}
	}
	return out, nil
}

// shows applies the filters that hide a commit without cutting the walk.
func (w *walker) shows(c *commit) bool {
	s := w.sel
	switch {
	case s.until != 0 && c.when > s.until:
		return false
	case s.noMerges && c.nparents > 1:
		return false
	case s.onlyMerg && c.nparents < 2:
		return false
	}
	if len(s.authors) > 0 || len(s.committers) > 0 {
		author, committer, _ := strings.Cut(c.ident, "\n")
		for _, re := range s.authors {
			if !re.MatchString(author) {
				return false
			}
		}
		for _, re := range s.committers {
			if !re.MatchString(committer) {
				return false
			}
		}
	}
	return true
}

// parentTrees reads the trees of c's parents as the diffs will use them
// (only the first with --first-parent). A parent that cannot be read is a
// warning: the commit is then diffed against an empty tree on that side,
// so its content is scanned rather than lost. It reports whether every
// parent was read.
func (w *walker) parentTrees(c *commit) bool {
	parents := c.parents
	if w.sel.firstParent && len(parents) > 1 {
		parents = parents[:1]
	}
	c.parentTrees = make([]odb.ID, len(parents))
	ok := true
	for i, p := range parents {
		pc, err := w.load(p)
		if err != nil {
			w.warn(c.id.String(), "commit", fmt.Errorf("parent %s of commit %s cannot be read, the commit is scanned as adding its whole tree: %w", p, c.id, err))
			ok = false
			continue
		}
		c.parentTrees[i] = pc.tree
	}
	return ok
}

// queued is a commit in the walk's queue, with its insertion number: git
// inserts a commit after those of the same date, so ties go in order.
type queued struct {
	c   *commit
	seq int
}

type commitQueue struct {
	items []queued
	seq   int
}

func (q *commitQueue) Len() int { return len(q.items) }
func (q *commitQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.c.when != b.c.when {
		return a.c.when > b.c.when
	}
	return a.seq < b.seq
}
func (q *commitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *commitQueue) Push(x any)    { q.items = append(q.items, x.(queued)) }
func (q *commitQueue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return it
}
