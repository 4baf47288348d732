package git

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
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
	typ, size, err := objs.Header(id)
	if err != nil {
		return nil, err
	}
	if typ != want {
		return nil, fmt.Errorf("object %s is a %v, not a %v", id, typ, want)
	}
	if size <= limit {
		_, data, err := objs.Read(id, (*buf)[:0])
		if err != nil {
			return nil, err
		}
		*buf = data
		return data, nil
	}
	rd, err := objs.Reader(id)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data := append((*buf)[:0], make([]byte, limit)...)
	n, err := io.ReadFull(rd, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("object %s: %w", id, err)
	}
	*buf = data
	return data[:n], nil
}

// resolve turns a revision expression into a commit id: a full or
// abbreviated id, a ref name as git completes it (refs/NAME,
// refs/tags/NAME, refs/heads/NAME, refs/remotes/NAME,
// refs/remotes/NAME/HEAD), HEAD or @, followed by any of ~N, ^N and
// ^{commit} / ^{}. Tags are peeled to the commit they point to.
func (w *walker) resolve(expr string) (odb.ID, error) {
	base, ops := splitRev(expr)
	id, err := w.resolveBase(base)
	if err != nil {
		return id, fmt.Errorf("git: revision %q: %w", expr, err)
	}
	if id, err = w.peel(id); err != nil {
		return id, fmt.Errorf("git: revision %q: %w", expr, err)
	}
	for _, op := range ops {
		switch {
		case op == "^{commit}" || op == "^{}":
		case op[0] == '~':
			n := 1
			if len(op) > 1 {
				if n, err = strconv.Atoi(op[1:]); err != nil {
					return id, fmt.Errorf("git: revision %q: bad %q", expr, op)
				}
			}
			for range n {
				c, err := w.load(id)
				if err != nil {
					return id, fmt.Errorf("git: revision %q: %w", expr, err)
				}
				if len(c.parents) == 0 {
					return id, fmt.Errorf("git: revision %q: %s has no parent", expr, id)
				}
				id = c.parents[0]
			}
		case op[0] == '^':
			n := 1
			if len(op) > 1 {
				if n, err = strconv.Atoi(op[1:]); err != nil {
					return id, fmt.Errorf("git: revision %q: %q is not supported", expr, op)
				}
			}
			if n == 0 {
				continue
			}
			c, err := w.load(id)
			if err != nil {
				return id, fmt.Errorf("git: revision %q: %w", expr, err)
			}
			if n > len(c.parents) {
				return id, fmt.Errorf("git: revision %q: %s has no parent %d", expr, id, n)
			}
			id = c.parents[n-1]
		}
	}
	return id, nil
}

// splitRev splits "base~2^2^{commit}" into its base and suffix operators.
func splitRev(expr string) (string, []string) {
	i := strings.IndexAny(expr, "~^")
	if i < 0 {
		return expr, nil
	}
	base, rest := expr[:i], expr[i:]
	var ops []string
	for rest != "" {
		j := 1
		if strings.HasPrefix(rest, "^{") {
			if k := strings.IndexByte(rest, '}'); k > 0 {
				j = k + 1
			}
		} else {
			for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
				j++
			}
		}
		ops = append(ops, rest[:j])
		rest = rest[j:]
	}
	return base, ops
}

// resolveBase resolves the name part of a revision.
func (w *walker) resolveBase(name string) (odb.ID, error) {
	switch {
	case name == "" || name == "@":
		name = "HEAD"
	case strings.Contains(name, "@{"):
		return odb.ID{}, fmt.Errorf("reflog expressions (@{...}) are %w", ErrUnsupportedOption)
	case strings.HasPrefix(name, ":"):
		return odb.ID{}, fmt.Errorf("message search and index paths (:...) are %w", ErrUnsupportedOption)
	}
	if len(name) == 2*w.repo.HashSize {
		if id, err := odb.ParseID(name); err == nil {
			return id, nil
		}
	}
	for _, full := range []string{name, "refs/" + name, "refs/tags/" + name, "refs/heads/" + name,
		"refs/remotes/" + name, "refs/remotes/" + name + "/HEAD"} {
		if full == name && !strings.HasPrefix(name, "refs/") && !pseudoRef(name) {
			continue // only HEAD-like names are looked up in the git directory itself
		}
		hex, err := w.repo.ReadRef(full)
		if err == nil {
			return odb.ParseID(hex)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return odb.ID{}, err
		}
	}
	if len(name) >= 4 && isHex(name) {
		ids, err := w.objs.FindPrefix(name, 2)
		if err != nil {
			return odb.ID{}, err
		}
		switch len(ids) {
		case 1:
			return ids[0], nil
		case 2:
			return odb.ID{}, fmt.Errorf("abbreviated id %s is ambiguous", name)
		}
	}
	return odb.ID{}, fmt.Errorf("unknown revision (no ref or object by that name)")
}

// pseudoRef reports whether name is spelled like HEAD, FETCH_HEAD or
// ORIG_HEAD (upper case and underscores): git reads only such names from
// the git directory itself.
func pseudoRef(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return name != ""
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// maxTagDepth bounds a chain of tags pointing at tags.
const maxTagDepth = 16

// peel follows tags to the commit they name.
func (w *walker) peel(id odb.ID) (odb.ID, error) {
	for range maxTagDepth {
		typ, _, err := w.objs.Header(id)
		if err != nil {
			return id, err
		}
		switch typ {
		case odb.TypeCommit:
			return id, nil
		case odb.TypeTag:
			data, err := readObjectHead(w.objs, id, odb.TypeTag, maxCommitRead, &w.buf)
			if err != nil {
				return id, err
			}
			t, err := odb.ParseTag(data)
			if err != nil {
				return id, fmt.Errorf("tag %s: %w", id, err)
			}
			id = t.Object
		default:
			return id, fmt.Errorf("%w: %s is a %v", errNotCommit, id, typ)
		}
	}
	return id, fmt.Errorf("tag %s: chain of tags deeper than %d", id, maxTagDepth)
}

var errNotCommit = errors.New("not a commit")

// tips resolves the selection's starting points: the commits to walk from,
// and those whose history is excluded (^rev, A..B's A, A...B's common
// history, --not). A ref that points at no commit (a tag of a tree or a
// blob) is skipped, as git log skips it; a ref whose object is missing is
// a warning.
func (w *walker) tips() (include, exclude []odb.ID, err error) {
	for _, f := range w.sel.refFamilies {
		ids := w.family(f)
		if f.not {
			exclude = append(exclude, ids...)
		} else {
			include = append(include, ids...)
		}
	}
	for _, r := range w.sel.revs {
		switch {
		case strings.Contains(r.expr, ".."):
			// A..B (B's history less A's) and A...B (the history of either
			// but not of both); an empty side is HEAD.
			sep := ".."
			if strings.Contains(r.expr, "...") {
				sep = "..."
			}
			a, b, _ := strings.Cut(r.expr, sep)
			ia, err := w.resolve(orHead(a))
			if err != nil {
				return nil, nil, err
			}
			ib, err := w.resolve(orHead(b))
			if err != nil {
				return nil, nil, err
			}
			switch {
			case sep == "...":
				common, err := w.commonHistory(ia, ib)
				if err != nil {
					return nil, nil, err
				}
				include = append(include, ia, ib)
				exclude = append(exclude, common...)
			case r.not:
				include, exclude = append(include, ia), append(exclude, ib)
			default:
				include, exclude = append(include, ib), append(exclude, ia)
			}
		case strings.HasSuffix(r.expr, "^@") || strings.HasSuffix(r.expr, "^!"):
			id, err := w.resolve(r.expr[:len(r.expr)-2])
			if err != nil {
				return nil, nil, err
			}
			c, err := w.load(id)
			if err != nil {
				return nil, nil, err
			}
			if strings.HasSuffix(r.expr, "^!") {
				include = append(include, id)
				exclude = append(exclude, c.parents...)
			} else if r.not {
				exclude = append(exclude, c.parents...)
			} else {
				include = append(include, c.parents...)
			}
		default:
			id, err := w.resolve(r.expr)
			if err != nil {
				return nil, nil, err
			}
			if r.not {
				exclude = append(exclude, id)
			} else {
				include = append(include, id)
			}
		}
	}
	return include, exclude, nil
}

func orHead(s string) string {
	if s == "" {
		return "HEAD"
	}
	return s
}

// family lists the commits of a ref family (--all, --branches=glob, ...).
func (w *walker) family(f refFamily) []odb.ID {
	if w.refs == nil {
		var warnings []error
		w.refs, warnings = w.repo.Refs()
		for _, err := range warnings {
			w.warn(w.repo.GitDir, "refs", err)
		}
		if w.refs == nil {
			w.refs = []gitrepo.Ref{}
		}
	}
	refs := w.refs
	var ids []odb.ID
	w.familyGen++
	for _, r := range refs {
		if !strings.HasPrefix(r.Name, f.prefix) || !matchRefGlob(f.glob, strings.TrimPrefix(r.Name, f.prefix)) {
			continue
		}
		if id, ok := w.refCommit(r.Name, r.ID); ok && w.firstInFamily(r.ID) {
			ids = append(ids, id)
		}
	}
	if f.head {
		heads, warnings := w.repo.Heads()
		for _, err := range warnings {
			w.warn(w.repo.GitDir, "refs", err)
		}
		for _, h := range heads {
			if id, ok := w.refCommit("HEAD", h); ok {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// refCommit peels a ref's object to a commit; a ref that leads to no
// commit is skipped silently, one whose object cannot be read with a
// warning.
func (w *walker) refCommit(name, hex string) (odb.ID, bool) {
	id, err := odb.ParseID(hex)
	if err != nil {
		w.warn(name, "ref", err)
		return id, false
	}
	p, ok := w.peeled[id]
	if !ok {
		p.id, p.err = w.peel(id)
		if w.peeled == nil {
			w.peeled = map[odb.ID]peelResult{}
		}
		w.peeled[id] = p
	}
	if errors.Is(p.err, errNotCommit) {
		return p.id, false
	}
	if p.err != nil {
		w.warn(name, "ref", fmt.Errorf("ref %s: %w", name, p.err))
		return p.id, false
	}
	return p.id, true
}

// firstInFamily reports whether the ref object hex (peeled already) is
// met for the first time in the family being listed, so that a million
// refs to one commit make one starting point, not a million.
func (w *walker) firstInFamily(hex string) bool {
	id, _ := odb.ParseID(hex)
	p := w.peeled[id]
	if p.family == w.familyGen {
		return false
	}
	p.family = w.familyGen
	w.peeled[id] = p
	return true
}

// peelResult is what peel made of an object, and the last ref family
// listed that held it.
type peelResult struct {
	id     odb.ID
	err    error
	family int
}

// matchRefGlob matches a ref family's glob as git does: no glob matches
// everything; a glob without wildcards matches that prefix of
// directories; otherwise a shell glob over the whole remaining name.
func matchRefGlob(glob, name string) bool {
	if glob == "" {
		return true
	}
	if !strings.ContainsAny(glob, "*?[") {
		glob = strings.TrimSuffix(glob, "/") + "/*"
		return name == strings.TrimSuffix(glob, "/*") || strings.HasPrefix(name, strings.TrimSuffix(glob, "*"))
	}
	ok, _ := path.Match(glob, name)
	return ok
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
