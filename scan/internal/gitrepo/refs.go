package gitrepo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// Ref is a reference: a name under refs/ (or HEAD) and the object id it
// holds, in hex.
type Ref struct {
	Name string
	ID   string
}

// maxPackedRefs bounds the packed-refs file (a repository with a million
// refs writes about 60 MB).
const maxPackedRefs = 256 << 20

// maxSymrefDepth is how many symbolic refs a lookup follows (git's limit).
const maxSymrefDepth = 5

// perWorktree says whether a ref lives in a linked work tree's own git
// directory rather than the common one.
func perWorktree(name string) bool {
	return strings.HasPrefix(name, "refs/bisect/") || strings.HasPrefix(name, "refs/worktree/") ||
		strings.HasPrefix(name, "refs/rewritten/")
}

// Refs lists every ref under refs/, sorted by name: loose refs (which
// win over packed ones of the same name) and packed-refs, or the
// reftable of a repository that keeps its refs there, symbolic refs
// resolved. A ref that cannot be read or resolved is left out and
// reported in warnings; the others are listed.
func (r *Repo) Refs() (refs []Ref, warnings []error) { return r.RefsUnder("refs/") }

// RefsUnder is Refs for the refs whose names start with prefix (which
// starts with "refs/" and ends with '/'): only that part of the ref
// directories is read, and only its refs' problems are warnings. A
// symbolic ref under prefix may point anywhere. The time and memory it
// takes are linear in the number of refs (packed-refs is read once per
// change of the file and searched by binary search). The slice returned
// may be shared with later calls: it is the caller's to read, not to
// change.
func (r *Repo) RefsUnder(prefix string) (refs []Ref, warnings []error) {
	if r.reftable {
		return r.reftableRefsUnder(prefix)
	}
	packed, err := r.packedRefs()
	if err != nil {
		warnings = append(warnings, err)
	}
	loose := map[string]string{} // name -> content (an id or "ref: ...")
	walk := func(dir string, keep func(string) bool) {
		root := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p != root {
					warnings = append(warnings, fmt.Errorf("gitrepo: refs: %w", err))
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return nil
			}
			name := filepath.ToSlash(rel)
			if !keep(name) {
				return nil
			}
			b, err := readSmall(p)
			if err != nil {
				warnings = append(warnings, fmt.Errorf("gitrepo: ref %s: %w", name, err))
				return nil
			}
			loose[name] = strings.TrimSpace(string(b))
			return nil
		})
	}
	walk(r.CommonDir, func(n string) bool { return r.GitDir == r.CommonDir || !perWorktree(n) })
	if r.GitDir != r.CommonDir {
		walk(r.GitDir, perWorktree)
	}
	// The loose refs, resolved and sorted, merged with the packed ones
	// under prefix (already sorted), a loose ref winning over a packed one
	// of the same name; one that cannot be resolved hides its packed
	// namesake too, as it does in git.
	looseRefs := make([]Ref, 0, len(loose))
	for name, content := range loose {
		id, err := r.resolveContent(name, content, loose, packed, 0)
		if err != nil {
			warnings = append(warnings, err)
			continue
		}
		looseRefs = append(looseRefs, Ref{Name: name, ID: id})
	}
	slices.SortFunc(looseRefs, func(a, b Ref) int { return strings.Compare(a.Name, b.Name) })
	under := packed.under(prefix)
	if len(loose) == 0 {
		// The packed refs as read, shared with the cache: callers read
		// the slice returned, and the clip makes an append copy it.
		return slices.Clip([]Ref(under)), warnings
	}
	refs = make([]Ref, 0, len(under)+len(looseRefs))
	i := 0
	for _, p := range under {
		for i < len(looseRefs) && looseRefs[i].Name < p.Name {
			refs = append(refs, looseRefs[i])
			i++
		}
		if _, ok := loose[p.Name]; ok {
			continue
		}
		refs = append(refs, p)
	}
	refs = append(refs, looseRefs[i:]...)
	return refs, warnings
}

// resolveContent resolves a loose ref's content: an id, or "ref: NAME"
// followed through loose and packed refs.
func (r *Repo) resolveContent(name, content string, loose map[string]string, packed packedRefs, depth int) (string, error) {
	target, sym := strings.CutPrefix(content, "ref:")
	if !sym {
		if !isHexID(content, r.HashSize) {
			return "", fmt.Errorf("gitrepo: ref %s: not an object id: %.60q", name, content)
		}
		return strings.ToLower(content), nil
	}
	if depth >= maxSymrefDepth {
		return "", fmt.Errorf("gitrepo: ref %s: symbolic refs nested deeper than %d", name, maxSymrefDepth)
	}
	target = strings.TrimSpace(target)
	if c, ok := loose[target]; ok {
		return r.resolveContent(target, c, loose, packed, depth+1)
	}
	if id, ok := packed.find(target); ok {
		return id, nil
	}
	return "", fmt.Errorf("gitrepo: ref %s points to %s, which does not exist", name, target)
}

// packedRefs is the packed-refs file's refs, sorted by name, each name
// once.
type packedRefs []Ref

// find returns the id of the packed ref name.
func (p packedRefs) find(name string) (string, bool) {
	i, ok := slices.BinarySearchFunc(p, name, func(r Ref, n string) int { return strings.Compare(r.Name, n) })
	if !ok {
		return "", false
	}
	return p[i].ID, true
}

// under returns the refs whose names start with prefix.
func (p packedRefs) under(prefix string) packedRefs {
	lo, _ := slices.BinarySearchFunc(p, prefix, func(r Ref, n string) int { return strings.Compare(r.Name, n) })
	hi := lo + sort.Search(len(p)-lo, func(i int) bool { return !strings.HasPrefix(p[lo+i].Name, prefix) })
	return p[lo:hi]
}

// packedCache keeps the last packed-refs read, with what identified the
// file then: a repository with millions of packed refs reads the file
// once, not once per ref looked up.
type packedCache struct {
	mu      sync.Mutex
	size    int64
	modTime time.Time
	refs    packedRefs
	err     error
}

// packedRefs reads the packed-refs file, or returns the copy read before
// if the file's size and modification time are unchanged.
func (r *Repo) packedRefs() (packedRefs, error) {
	path := filepath.Join(r.CommonDir, "packed-refs")
	f, st, err := openRegular(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gitrepo: packed-refs: %w", err)
	}
	defer f.Close()
	c := r.packed
	if c == nil {
		c = &packedCache{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refs != nil && c.size == st.Size() && c.modTime.Equal(st.ModTime()) {
		return c.refs, c.err
	}
	if st.Size() > maxPackedRefs {
		return nil, fmt.Errorf("gitrepo: packed-refs: larger than %d bytes", maxPackedRefs)
	}
	b := make([]byte, st.Size())
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("gitrepo: packed-refs: %w", err)
	}
	refs, perr := parsePackedRefs(b[:n], r.HashSize)
	c.size, c.modTime, c.refs, c.err = st.Size(), st.ModTime(), refs, perr
	if c.refs == nil {
		c.refs = packedRefs{}
	}
	return c.refs, perr
}

// parsePackedRefs parses a packed-refs file: an optional "# pack-refs
// with:" header, then "<id> <name>" lines, each perhaps followed by the
// "^<id>" its tag peels to. The refs are returned sorted by name, a
// repeated name taking its last line's id. The names and ids are views
// of one string holding the file, so the memory is the file's size and a
// slice header per ref. A malformed line is an error naming it, with the
// refs of the lines before it.
func parsePackedRefs(b []byte, hashSize int) (packedRefs, error) {
	// b is not used again: the string shares its bytes rather than
	// doubling the memory of a file that may hold millions of refs.
	s := unsafe.String(unsafe.SliceData(b), len(b))
	refs := make(packedRefs, 0, len(s)/(2*hashSize+20))
	sorted := true
	for n := 1; s != ""; n++ {
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		id, name, ok := strings.Cut(line, " ")
		if !ok || !isHexID(id, hashSize) || !strings.HasPrefix(name, "refs/") {
			return sortPacked(refs, sorted), fmt.Errorf("gitrepo: packed-refs line %d is malformed", n)
		}
		if sorted && len(refs) > 0 && refs[len(refs)-1].Name >= name {
			sorted = false
		}
		refs = append(refs, Ref{Name: name, ID: lowerHex(id)})
	}
	return sortPacked(refs, sorted), nil
}

// sortPacked sorts refs by name unless they already are, keeping the last
// of any repeated name.
func sortPacked(refs packedRefs, sorted bool) packedRefs {
	if sorted {
		return refs
	}
	slices.SortStableFunc(refs, func(a, b Ref) int { return strings.Compare(a.Name, b.Name) })
	out := refs[:0]
	for i, r := range refs {
		if i+1 < len(refs) && refs[i+1].Name == r.Name {
			continue
		}
		out = append(out, r)
	}
	return out
}

// lowerHex returns s in lower case, allocating only if it has an upper
// case digit.
func lowerHex(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'F' {
			return strings.ToLower(s)
		}
	}
	return s
}

// ReadRef resolves one ref by its full name ("HEAD", "refs/heads/main"),
// following symbolic refs. A ref that does not exist is an error
// wrapping os.ErrNotExist; so is an unborn HEAD (a symbolic ref to a
// branch with no commit yet).
func (r *Repo) ReadRef(name string) (string, error) {
	if r.reftable {
		return r.reftableReadRef(name)
	}
	for depth := 0; ; depth++ {
		if depth > maxSymrefDepth {
			return "", fmt.Errorf("gitrepo: ref %s: symbolic refs nested deeper than %d", name, maxSymrefDepth)
		}
		dir := r.CommonDir
		if name == "HEAD" || perWorktree(name) || !strings.HasPrefix(name, "refs/") {
			dir = r.GitDir
		}
		b, err := readSmall(filepath.Join(dir, filepath.FromSlash(name)))
		if err == nil {
			content := strings.TrimSpace(string(b))
			if target, sym := strings.CutPrefix(content, "ref:"); sym {
				name = strings.TrimSpace(target)
				continue
			}
			if !isHexID(content, r.HashSize) {
				return "", fmt.Errorf("gitrepo: ref %s: not an object id: %.60q", name, content)
			}
			return strings.ToLower(content), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("gitrepo: ref %s: %w", name, err)
		}
		packed, err := r.packedRefs()
		if err != nil {
			return "", err
		}
		if id, ok := packed.find(name); ok {
			return id, nil
		}
		return "", fmt.Errorf("gitrepo: ref %s: %w", name, os.ErrNotExist)
	}
}

// Heads returns the HEAD of this work tree and of every linked work tree
// of the repository (what git log --all starts from beside the refs),
// skipping unborn ones.
func (r *Repo) Heads() (ids []string, warnings []error) {
	add := func(dir string) {
		sub := *r
		sub.GitDir = dir
		id, err := sub.ReadRef("HEAD")
		switch {
		case err == nil:
			ids = append(ids, id)
		case errors.Is(err, os.ErrNotExist):
		default:
			warnings = append(warnings, fmt.Errorf("%s: %w", dir, err))
		}
	}
	add(r.GitDir)
	if r.GitDir != r.CommonDir {
		add(r.CommonDir)
	}
	entries, _ := os.ReadDir(filepath.Join(r.CommonDir, "worktrees"))
	for _, e := range entries {
		if d := filepath.Join(r.CommonDir, "worktrees", e.Name()); e.IsDir() && d != r.GitDir {
			add(d)
		}
	}
	return ids, warnings
}

func isHexID(s string, size int) bool {
	if len(s) != 2*size {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
