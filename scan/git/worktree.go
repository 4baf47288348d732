package git

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/ignore"
	"github.com/spindle-go/spindle/scan/internal/gitrepo"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// Staged scans what `git commit` would record: the lines the index adds
// against HEAD (all of them before the first commit), as `gitleaks git
// --pre-commit --staged` does (git diff --staged -U0). It is what a
// pre-commit hook runs; the index and HEAD's tree are compared by object
// id, so on a large repository with a few files staged only those files
// are read. Findings have no commit; their fingerprint is file:rule:line.
func (r *Repository) Staged(ctx context.Context, sopts scan.Options) (Stats, error) {
	return r.scanWorktree(ctx, sopts, true)
}

// Unstaged scans the changes of the work tree that are not staged: the
// lines tracked files add against the index, as `gitleaks git
// --pre-commit` does (git diff -U0). Untracked files are not included
// (scan them with scan.Scan and Options.Gitignore). A tracked symbolic
// link is its target's path, as git records it, never the content it
// points to; a tracked path that is now something other than a regular
// file or a link (a FIFO, a device) is a warning.
func (r *Repository) Unstaged(ctx context.Context, sopts scan.Options) (Stats, error) {
	return r.scanWorktree(ctx, sopts, false)
}

func (r *Repository) scanWorktree(ctx context.Context, sopts scan.Options, staged bool) (Stats, error) {
	var st Stats
	if sopts.Detector == nil {
		return st, scan.ErrNoDetector
	}
	h := &history{repo: r.r, sel: &selection{renames: true, maxCount: -1}, sopts: sopts}
	if r.r.Top == "" {
		return st, fmt.Errorf("git: %s: a bare repository has no index or work tree to scan", r.path)
	}
	r.openWarnings(h.warn)
	if err := r.r.ignoreFile(&h.sopts); err != nil {
		// Lost data, not a stop: the scan goes on and reports what the
		// file would have suppressed; the warning fails it unless a
		// partial result is accepted.
		h.warn(filepath.Join(r.r.top(), ignore.GitleaksIgnoreName), "ignore", err)
	}
	start := time.Now()
	x, err := r.r.ReadIndex()
	if os.IsNotExist(err) {
		x, err = &gitrepo.Index{}, nil
	}
	if err != nil {
		return st, fmt.Errorf("git: index: %w", err)
	}
	// One commit stands for the commit to be: no id, no metadata.
	h.commits = []*commit{{}}
	h.meta = make([]commitMeta, 1)
	var fcs []fileChange
	if staged {
		fcs, err = h.stagedChanges(x)
	} else {
		fcs, err = h.unstagedChanges(x.Entries)
	}
	if err != nil {
		return st, err
	}
	st.Walk = time.Since(start)
	bc := blobCache{objs: r.r.objs, worktree: h.worktree}
	fcs = detectRenames(fcs, &bc)
	for i := range fcs {
		if c, ok := fcs[i].added(); ok {
			h.units = append(h.units, &unit{change: &c, commits: []int32{0}})
		}
	}
	st.Commits, st.Changes, st.Pairs = 1, int64(len(h.units)), int64(len(h.units))
	err = h.scanUnits(ctx, &st)
	return st, err
}

// stagedChanges compares the index with HEAD's tree: the changes a commit
// would make. The two are walked together, directory by directory (the
// index is sorted as a tree walk lists paths); a directory whose index
// entries the cache-tree extension records as exactly a tree equal to
// HEAD's is skipped without reading it, so a hook on a large repository
// with a few files staged reads only the directories above them.
func (h *history) stagedChanges(x *gitrepo.Index) ([]fileChange, error) {
	var headTree odb.ID
	if hex, err := h.repo.ReadRef("HEAD"); err == nil {
		w := &walker{objs: h.repo.objs, repo: h.repo.Repo, cache: map[odb.ID]*commit{}}
		id, err := odb.ParseID(hex)
		if err != nil {
			return nil, err
		}
		c, err := w.load(id)
		if err != nil {
			return nil, fmt.Errorf("git: HEAD: %w", err)
		}
		headTree = c.tree
	} else if !os.IsNotExist(err) {
		return nil, fmt.Errorf("git: HEAD: %w", err)
	}
	sd := &stagedDiff{td: &treeDiffer{objs: h.repo.objs, sel: h.sel}, trees: x.Trees}
	// An unresolved conflict or an intent to add shows no lines in git
	// diff --staged; the other entries are compared. Most indexes have
	// neither, and are compared as they are, not copied.
	sd.ents = x.Entries
	for i := range x.Entries {
		if e := &x.Entries[i]; e.Stage != 0 || e.IntentToAdd || len(e.ID) != h.repo.HashSize {
			if len(sd.conflicts) == 0 {
				sd.ents = slices.Clip(x.Entries[:i]) // appends copy from here on
			}
			sd.conflicts = append(sd.conflicts, e.Path)
		} else if len(sd.conflicts) > 0 {
			sd.ents = append(sd.ents, *e)
		}
	}
	if err := sd.dir("", headTree, sd.ents); err != nil {
		return nil, err
	}
	return sd.out, nil
}

// stagedDiff is one walk of HEAD's tree against the index.
type stagedDiff struct {
	td        *treeDiffer
	trees     map[string][]byte // the cache-tree: directory -> tree id
	ents      []gitrepo.Entry
	conflicts []string // paths in conflict: neither added nor deleted
	out       []fileChange
}

// dir compares the index entries under directory dir ("" or "a/b") with
// HEAD's tree of that directory (the zero id: none).
func (sd *stagedDiff) dir(dir string, tree odb.ID, ents []gitrepo.Entry) error {
	if id, ok := sd.trees[dir]; ok && !tree.IsZero() && string(id) == string(tree[:tree.Size()]) {
		return nil // the index holds exactly HEAD's tree here
	}
	head, err := sd.td.read(tree)
	if err != nil {
		return fmt.Errorf("git: HEAD's tree at %q: %w", dir, err)
	}
	prefix := dir
	if prefix != "" {
		prefix += "/"
	}
	i := 0
	for _, he := range head {
		name := string(he.Name)
		full := prefix + name
		// Index entries before this name: additions (files, or the files
		// of directories HEAD lacks).
		for i < len(ents) && entryBefore(ents[i].Path[len(prefix):], name, he.Mode.IsTree()) {
			j, err := sd.indexOnly(prefix, ents, i)
			if err != nil {
				return err
			}
			i = j
		}
		if he.Mode.IsTree() {
			j := i
			for j < len(ents) && strings.HasPrefix(ents[j].Path, full+"/") {
				j++
			}
			if j == i+1 && ents[i].Mode == gitrepo.ModeDir && ents[i].Path == full+"/" {
				// A sparse index's directory: a tree of its own.
				var id odb.ID
				copy(id[:], ents[i].ID)
				if err := sd.treeChanges(full+"/", he.ID, id); err != nil {
					return err
				}
			} else if err := sd.dir(full, he.ID, ents[i:j]); err != nil {
				return err
			}
			i = j
			continue
		}
		if i < len(ents) && ents[i].Path == full {
			var id odb.ID
			copy(id[:], ents[i].ID)
			sd.out = append(sd.out, stagedChange(full, he, id, odb.Mode(ents[i].Mode))...)
			i++
			continue
		}
		if !sd.inConflict(full) {
			sd.out = append(sd.out, fileChange{status: 'D', oldPath: full, path: full, oldID: he.ID, oldMode: he.Mode})
		}
	}
	for i < len(ents) {
		j, err := sd.indexOnly(prefix, ents, i)
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

// entryBefore reports whether an index path (relative to the directory)
// sorts before a HEAD entry name, in git's order.
func entryBefore(rel, name string, isTree bool) bool {
	if isTree {
		name += "/"
	}
	return rel < name && !strings.HasPrefix(rel, name)
}

// indexOnly records the index entry at i, which HEAD lacks, as an
// addition (a sparse directory entry adds its whole tree), and returns
// the next index.
func (sd *stagedDiff) indexOnly(prefix string, ents []gitrepo.Entry, i int) (int, error) {
	e := ents[i]
	var id odb.ID
	copy(id[:], e.ID)
	if e.Mode == gitrepo.ModeDir {
		return i + 1, sd.treeChanges(e.Path, odb.ID{}, id)
	}
	sd.out = append(sd.out, fileChange{status: 'A', path: e.Path, newID: id, newMode: odb.Mode(e.Mode)})
	return i + 1, nil
}

// treeChanges diffs two trees under path prefix dir ("a/b/").
func (sd *stagedDiff) treeChanges(dir string, a, b odb.ID) error {
	sub := &treeDiffer{objs: sd.td.objs, sel: sd.td.sel}
	if err := sub.diff(a, b); err != nil {
		return fmt.Errorf("git: index directory %s: %w", dir, err)
	}
	for _, fc := range sub.changes {
		fc.path = dir + fc.path
		if fc.oldPath != "" {
			fc.oldPath = dir + fc.oldPath
		}
		sd.out = append(sd.out, fc)
	}
	return nil
}

func (sd *stagedDiff) inConflict(path string) bool {
	return slices.Contains(sd.conflicts, path)
}

// stagedChange is the change of one index path against HEAD's entry, if
// any.
func stagedChange(path string, he odb.TreeEntry, id odb.ID, mode odb.Mode) []fileChange {
	switch {
	case he.ID == id && he.Mode == mode:
		return nil
	case he.Mode&0o170000 != mode&0o170000:
		return []fileChange{{status: 'T', oldPath: path, path: path, oldID: he.ID, newID: id, oldMode: he.Mode, newMode: mode}}
	case he.ID == id:
		return nil // a mode change alone
	}
	return []fileChange{{status: 'M', oldPath: path, path: path, oldID: he.ID, newID: id, oldMode: he.Mode, newMode: mode}}
}

// unstagedChanges compares the work tree's tracked files with the index.
// A file whose size and modification time are those the index recorded is
// taken as unchanged, as git takes it; any other is read and hashed.
func (h *history) unstagedChanges(ents []gitrepo.Entry) ([]fileChange, error) {
	h.worktree = map[odb.ID]string{}
	var fcs []fileChange
	for _, e := range ents {
		if e.Stage != 0 || e.SkipWorktree || e.Mode == gitrepo.ModeDir || len(e.ID) != h.repo.HashSize {
			continue
		}
		mode := odb.Mode(e.Mode)
		if mode.IsGitlink() {
			continue // a submodule's work tree is its own repository
		}
		var id odb.ID
		copy(id[:], e.ID)
		full := filepath.Join(h.repo.Top, filepath.FromSlash(e.Path))
		fi, err := os.Lstat(full)
		if err != nil {
			if !os.IsNotExist(err) {
				h.warn(e.Path, "read", err)
			}
			continue // deleted: adds nothing
		}
		var wmode odb.Mode
		switch {
		case fi.Mode().IsRegular():
			wmode = odb.ModeFile
			if fi.Mode()&0o111 != 0 && mode == odb.ModeExecutable {
				wmode = odb.ModeExecutable
			}
			if mode.IsFile() && int64(e.Size) == fi.Size()&0xffffffff && int64(e.MTimeSec) == fi.ModTime().Unix()&0xffffffff &&
				int64(e.MTimeNsec) == int64(fi.ModTime().Nanosecond()) {
				continue // git's stat check: unchanged
			}
		case fi.Mode()&os.ModeSymlink != 0:
			wmode = odb.ModeSymlink
		default:
			h.warn(e.Path, "read", fmt.Errorf("tracked path is now a %v, not a file or a link: not scanned", fi.Mode().Type()))
			continue
		}
		data, err := readWorktree(full, fi)
		if err != nil {
			h.warn(e.Path, "read", err)
			continue
		}
		wid := blobID(data, h.repo.HashSize)
		if wid == id && wmode&0o170000 == mode&0o170000 {
			continue
		}
		h.worktree[wid] = full
		st := byte('M')
		if wmode&0o170000 != mode&0o170000 {
			st = 'T'
		}
		fcs = append(fcs, fileChange{status: st, oldPath: e.Path, path: e.Path, oldID: id, newID: wid, oldMode: mode, newMode: wmode})
	}
	return fcs, nil
}

// readWorktree reads a tracked path of the work tree as git records it: a
// regular file's content (opened without following a link, without
// blocking), a symbolic link's target.
func readWorktree(full string, fi os.FileInfo) ([]byte, error) {
	if fi.Mode()&os.ModeSymlink != 0 {
		t, err := os.Readlink(full)
		return []byte(filepath.ToSlash(t)), err
	}
	if fi.Size() > bigFile {
		return nil, fmt.Errorf("%d bytes: larger than git's big-file threshold (binary to git)", fi.Size())
	}
	f, err := openFileNoFollow(full)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, bigFile+1))
}

// blobID is git's id of data as a blob in a repository whose ids are hs
// bytes long (SHA-1 or SHA-256).
func blobID(data []byte, hs int) odb.ID {
	var h hash.Hash = sha1.New()
	if hs == odb.SHA256Size {
		h = sha256.New()
	}
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var id odb.ID
	copy(id[:], h.Sum(nil))
	return id
}

// worktreeContent reads the work-tree file that stands for id, if any.
func (h *history) worktreeContent(id odb.ID, buf []byte) ([]byte, bool, error) {
	full, ok := h.worktree[id]
	if !ok {
		return buf, false, nil
	}
	fi, err := os.Lstat(full)
	if err != nil {
		return buf[:0], true, err
	}
	data, err := readWorktree(full, fi)
	if err != nil {
		return buf[:0], true, err
	}
	if blobID(data, h.repo.HashSize) != id {
		return buf[:0], true, fmt.Errorf("%s changed while it was scanned", full)
	}
	return append(buf[:0], data...), true, nil
}
