package git

// This file is rev-parse: it turns the revision expressions of a
// selection (ids, ref names, ~ and ^ suffixes, ^rev, A..B, A...B, ref
// families such as --all and --branches=glob) into the commits the walk
// in walk.go starts from and those it excludes, as git rev-parse and
// git rev-list read their arguments.

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/spindle-go/spindle/scan/internal/gitrepo"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

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
