package gitrepo

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
// win over packed ones of the same name) and packed-refs, symbolic refs
// resolved. A ref that cannot be read or resolved is left out and
// reported in warnings; the others are listed.
func (r *Repo) Refs() (refs []Ref, warnings []error) { return r.RefsUnder("refs/") }

// RefsUnder is Refs for the refs whose names start with prefix (which
// starts with "refs/" and ends with '/'): only that part of the ref
// directories is read, and only its refs' problems are warnings. A
// symbolic ref under prefix may point anywhere.
func (r *Repo) RefsUnder(prefix string) (refs []Ref, warnings []error) {
	ids := map[string]string{}
	packed, err := r.packedRefs()
	if err != nil {
		warnings = append(warnings, err)
	}
	for name, id := range packed {
		if strings.HasPrefix(name, prefix) {
			ids[name] = id
		}
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
	for name, content := range loose {
		id, err := r.resolveContent(name, content, loose, packed, 0)
		if err != nil {
			delete(ids, name)
			warnings = append(warnings, err)
			continue
		}
		ids[name] = id
	}
	for name, id := range ids {
		refs = append(refs, Ref{Name: name, ID: id})
	}
	slices.SortFunc(refs, func(a, b Ref) int { return strings.Compare(a.Name, b.Name) })
	return refs, warnings
}

// resolveContent resolves a loose ref's content: an id, or "ref: NAME"
// followed through loose and packed refs.
func (r *Repo) resolveContent(name, content string, loose, packed map[string]string, depth int) (string, error) {
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
	if id, ok := packed[target]; ok {
		return id, nil
	}
	return "", fmt.Errorf("gitrepo: ref %s points to %s, which does not exist", name, target)
}

// packedRefs reads the packed-refs file: name -> id.
func (r *Repo) packedRefs() (map[string]string, error) {
	out := map[string]string{}
	path := filepath.Join(r.CommonDir, "packed-refs")
	f, st, err := openRegular(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("gitrepo: packed-refs: %w", err)
	}
	defer f.Close()
	if st.Size() > maxPackedRefs {
		return out, fmt.Errorf("gitrepo: packed-refs: larger than %d bytes", maxPackedRefs)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<10)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		id, name, ok := strings.Cut(line, " ")
		if !ok || !isHexID(id, r.HashSize) || !strings.HasPrefix(name, "refs/") {
			return out, fmt.Errorf("gitrepo: packed-refs line %d is malformed", n)
		}
		out[name] = strings.ToLower(id)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("gitrepo: packed-refs: %w", err)
	}
	return out, nil
}

// ReadRef resolves one ref by its full name ("HEAD", "refs/heads/main"),
// following symbolic refs. A ref that does not exist is an error
// wrapping os.ErrNotExist; so is an unborn HEAD (a symbolic ref to a
// branch with no commit yet).
func (r *Repo) ReadRef(name string) (string, error) {
	var packed map[string]string
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
		if packed == nil {
			if packed, err = r.packedRefs(); err != nil {
				return "", err
			}
		}
		if id, ok := packed[name]; ok {
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
