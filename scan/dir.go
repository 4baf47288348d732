package scan

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spindle-go/spindle/internal/smallfile"
	"github.com/spindle-go/spindle/scan/ignore"
	"github.com/spindle-go/spindle/scan/internal/relpath"
)

// dirBatch is how many directory entries one Enumerate task reads and
// lists. A larger batch means fewer tasks; a smaller one lets thieves
// share a large directory sooner.
const dirBatch = 128

// ErrSymlinkLoop is the error of the warning for a directory reached again
// through a symbolic link while FollowSymlinks is on.
var ErrSymlinkLoop = errors.New("symlink loop: directory is its own ancestor")

// ErrNotRegular is the warning for a device, FIFO or socket met while walking:
// it has no content to scan (and opening a FIFO would block), so it is
// skipped, counted under SkipSpecial, and reported. A FIFO or device given
// as a root path is read as a stream instead.
var ErrNotRegular = errors.New("not a regular file")

// dirSource lists one directory on disk: a batch of entries per call,
// subdirectories as sub-sources. Its entries inherit its ignore rules,
// ancestors and scan root.
type dirSource struct {
	path string   // the directory, as opened; entries' paths are joined to it
	f    *os.File // open cursor, nil before the first batch and after the last
	ign  *ignore.Level
	anc  *ancestor // identities of path and its ancestors (FollowSymlinks)
	rc   *rootCtx
	open bool // opened once already
}

func (d *dirSource) close() {
	if d.f != nil {
		d.f.Close()
		d.f = nil
	}
}

// ancestor is one directory on the path from a root to the directory being
// listed, identified by device and inode, for symlink loop detection.
type ancestor struct {
	dev, ino uint64
	parent   *ancestor
}

func (d *dirSource) list(e *engine, w *worker, l *batch) bool {
	if !d.open {
		d.open = true
		if !e.openDir(w, d) {
			return false
		}
	}
	ents, err := d.f.ReadDir(dirBatch)
	if err != nil && !errors.Is(err, io.EOF) {
		e.warn(d.rc.name(d.path), "readdir", err)
	}
	more := err == nil && len(ents) == dirBatch
	if !more {
		// ReadDir(n) returns fewer than n entries only at the end (or on
		// an error, already reported).
		d.close()
	}
	for _, ent := range ents {
		if e.stopped() {
			return false
		}
		e.listEntry(w, d, ent, l)
	}
	return more
}

// openDir opens the directory, checks it against its ancestors when links
// are followed, and loads its ignore files when asked.
func (e *engine) openDir(w *worker, d *dirSource) bool {
	f, err := os.Open(d.path)
	if err != nil {
		e.warn(d.rc.name(d.path), "open", err)
		return false
	}
	if e.s.FollowSymlinks {
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			e.warn(d.rc.name(d.path), "stat", err)
			return false
		}
		dev, ino := dirID(d.path, fi)
		for a := d.anc; a != nil; a = a.parent {
			if a.dev == dev && a.ino == ino {
				f.Close()
				e.warn(d.rc.name(d.path), "follow", ErrSymlinkLoop)
				return false
			}
		}
		d.anc = &ancestor{dev: dev, ino: ino, parent: d.anc}
	}
	if e.s.Gitignore {
		d.ign = ignore.Load(d.path, d.ign, e.ignoreWarning(d.rc))
	}
	w.Scratch.c.dirs++
	d.f = f
	return true
}

// listEntry lists one directory entry: a subdirectory as a sub-source, a
// file as an object, unless a policy skips it (counted by reason).
func (e *engine) listEntry(w *worker, d *dirSource, ent fs.DirEntry, l *batch) {
	ws := w.Scratch
	path := relpath.Join(d.path, ent.Name())
	typ := ent.Type()
	if typ&fs.ModeSymlink != 0 {
		if !e.s.FollowSymlinks {
			ws.c.skipped[skipSymlink]++
			return
		}
		fi, err := os.Stat(path)
		if err != nil {
			e.warn(d.rc.name(path), "follow", err) // dangling, or a loop of links
			return
		}
		typ = fi.Mode().Type()
	}
	switch {
	case typ.IsDir():
		switch {
		case ent.Name() == ".git":
			ws.c.skipped[skipGit]++
		case d.ign.Ignored(path, true):
			ws.c.skipped[skipIgnored]++
		case e.skipsPath(w, d.rc.name(path)):
			ws.c.skipped[skipAllowlist]++
		default:
			l.subs = append(l.subs, &dirSource{path: path, ign: d.ign, anc: d.anc, rc: d.rc})
		}
	case typ.IsRegular():
		switch {
		case d.ign.Ignored(path, false):
			ws.c.skipped[skipIgnored]++
		case e.excluded(path):
			ws.c.skipped[skipExcluded]++
		case e.skipsPath(w, d.rc.name(path)):
			ws.c.skipped[skipAllowlist]++
		default:
			l.objs = append(l.objs, e.fileObject(path, d.rc))
		}
	default:
		// A device, FIFO or socket has no content to scan, and opening a
		// FIFO would block a worker: skip it, and say so as a warning.
		ws.c.skipped[skipSpecial]++
		e.warn(d.rc.name(path), "open", fmt.Errorf("%w (%s)", ErrNotRegular, smallfile.Kind(typ)))
	}
}

// fileObject is the object of a regular file at path under rc, already
// asked about by the allowlist.
func (e *engine) fileObject(path string, rc *rootCtx) *object {
	o := newObject(rc.name(path))
	o.path, o.rc, o.listed = path, rc, true
	return o
}

// rootsSource lists the paths given to Scan: each directory becomes a
// dirSource, each file an object, each FIFO or device a stream. A path
// given twice, or inside another directory given, is scanned once.
type rootsSource struct {
	paths []string
}

func (r *rootsSource) close() {}

func (r *rootsSource) list(e *engine, w *worker, l *batch) bool {
	type root struct {
		path, abs string
		fi        fs.FileInfo
	}
	var roots []root
	for _, p := range r.paths {
		p = filepath.ToSlash(filepath.Clean(p))
		fi, err := os.Stat(p)
		if err != nil {
			e.warn(p, "stat", err)
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		roots = append(roots, root{p, abs, fi})
	}
	// Drop repeats and roots inside a directory root: their files are
	// listed under the enclosing root already.
	kept := roots[:0]
	for i, ri := range roots {
		dup := false
		for j, rj := range roots {
			if i == j {
				continue
			}
			inside := rj.fi.IsDir() && ri.abs != rj.abs && strings.HasPrefix(ri.abs, strings.TrimSuffix(rj.abs, string(filepath.Separator))+string(filepath.Separator))
			if inside || ri.abs == rj.abs && j < i {
				dup = true
				break
			}
		}
		if dup {
			w.Scratch.c.skipped[skipDuplicate]++
			continue
		}
		kept = append(kept, ri)
	}
	e.rootCount = len(kept)
	for _, rt := range kept {
		rc := e.newRootCtx(rt.path, rt.fi.IsDir() && len(kept) == 1 && !e.s.NamesAsGiven)
		switch mode := rt.fi.Mode(); {
		case mode.IsDir():
			d := &dirSource{path: rt.path, rc: rc}
			if e.s.Gitignore {
				d.ign = ignore.ForRoot(rt.path, e.ignoreWarning(rc))
			}
			l.subs = append(l.subs, d)
		case mode.IsRegular():
			if e.excluded(rt.path) {
				w.Scratch.c.skipped[skipExcluded]++
				continue
			}
			o := e.fileObject(rt.path, rc)
			o.listed = false // the allowlist has not been asked
			l.objs = append(l.objs, o)
		default:
			// A root named explicitly that is a FIFO, a character device
			// or a socket (/dev/stdin, <(cmd)) is read as a stream.
			o := newObject(rc.name(rt.path))
			o.rc = rc
			path := rt.path
			o.open = func() (io.ReadCloser, error) { return os.Open(path) }
			l.objs = append(l.objs, o)
		}
	}
	return false
}

// ignoreWarning reports a problem with an ignore file under rc as a
// warning.
func (e *engine) ignoreWarning(rc *rootCtx) ignore.WarnFunc {
	return func(path, op string, err error) { e.warn(rc.name(path), op, err) }
}
