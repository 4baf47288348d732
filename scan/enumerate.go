package scan

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spindle-go/spindle/scan/archive"
)

// dirBatch is how many directory entries one Enumerate task reads and
// dispatches. A larger batch means fewer tasks; a smaller one lets thieves
// share a large directory sooner.
const dirBatch = 128

// ErrSymlinkLoop is the error of the warning for a directory reached again
// through a symbolic link while FollowSymlinks is on.
var ErrSymlinkLoop = errors.New("symlink loop: directory is its own ancestor")

// ErrNotRegular is the warning for a device, FIFO or socket met while walking:
// it has no content to scan (and opening a FIFO would block), so it is
// skipped, counted under SkipSpecial, and reported.
var ErrNotRegular = errors.New("not a regular file")

// dirJob is the state of one directory's Enumerate tasks: its open
// cursor, the batch of entries read and not yet dispatched, and what its
// entries inherit (ignore rules, ancestors). One task owns a job at a
// time; a job that yields or parks is run again later, by any worker. The
// root job lists the paths given to Scan instead of a directory.
type dirJob struct {
	path  string        // the directory, as reported in findings; "" for the roots
	roots []string      // the root job: the paths given to Scan, not yet stat'ed
	f     *os.File      // open cursor, or nil once the directory is read
	ents  []fs.DirEntry // read, not yet dispatched
	ign   *ignoreLevel  // ignore rules for the entries of path (Gitignore)
	anc   *ancestor     // identities of path and its ancestors (FollowSymlinks)
	root  *archive.Root // archive budgets of the scan root path is under; nil with archives off
	// permit is a frontier permit handed to this job when it was woken
	// from the wait list. The job spends it on its next file or, if it
	// has none, gives it back before its task ends.
	permit bool
}

func (j *dirJob) close() {
	if j.f != nil {
		j.f.Close()
		j.f = nil
	}
	j.ents = nil
}

// ancestor is one directory on the path from a root to the directory being
// listed, identified by device and inode, for symlink loop detection.
type ancestor struct {
	dev, ino uint64
	parent   *ancestor
}

// enumerate is the Enumerate task: it reads one batch of a directory's
// entries and admits them. Subdirectories become Enumerate tasks; files
// take a frontier permit and become Fetch tasks. When the frontier is
// full, the job parks on it with the entries it has not dispatched, and a
// released permit is handed to it and spawns it again: it never blocks and
// never spins.
//
// A job reads its next batch only when the last one is dispatched, so the
// entries read ahead of the frontier are at most one batch per directory
// being listed. Between batches it yields through the injector: the
// batch's subdirectories and files, on this worker's ring, run first
// (depth first, which bounds the directories being listed by the depth of
// the tree), while an idle worker may take the rest of the directory.
func (e *engine) enumerate(w *worker, j *dirJob) {
	if e.stopped() {
		e.endJob(w, j)
		return
	}
	switch {
	case j.roots != nil:
		e.statRoots(j)
	case j.f == nil && len(j.ents) == 0:
		if !e.openDir(w, j) {
			return
		}
	}
	if len(j.ents) == 0 && j.f != nil {
		ents, err := j.f.ReadDir(dirBatch)
		if err != nil && !errors.Is(err, io.EOF) {
			e.warn(j.path, "readdir", err)
		}
		j.ents = ents
		if err != nil || len(ents) < dirBatch {
			// ReadDir(n) returns fewer than n entries only at the end (or
			// on an error, already reported).
			j.f.Close()
			j.f = nil
		}
	}
	for len(j.ents) > 0 {
		if e.stopped() {
			e.endJob(w, j)
			return
		}
		if !e.dispatch(w, j, j.ents[0]) {
			if e.front.park(j) {
				w.Scratch.c.backpressure++
				return
			}
			continue // a permit was freed meanwhile
		}
		j.ents[0] = nil
		j.ents = j.ents[1:]
	}
	j.ents = nil
	if j.f == nil {
		e.endJob(w, j)
		return
	}
	if j.permit {
		j.permit = false
		e.releasePermit(w) // woken with a permit that this batch did not need
	}
	w.SpawnGlobal(task{kind: kindEnumerate, dir: j})
}

// endJob closes a job that is done or abandoned, returning a permit it was
// handed and did not spend.
func (e *engine) endJob(w *worker, j *dirJob) {
	j.close()
	if j.permit {
		j.permit = false
		e.releasePermit(w)
	}
}

// releasePermit returns a frontier permit and spawns the parked task it
// is handed to, if any.
func (e *engine) releasePermit(w *worker) {
	if j := e.front.release(); j != nil {
		w.Spawn(task{kind: kindEnumerate, dir: j})
	}
}

// openDir opens the job's directory, checks it against its ancestors when
// links are followed, and loads its ignore files when asked.
func (e *engine) openDir(w *worker, j *dirJob) bool {
	f, err := os.Open(j.path)
	if err != nil {
		e.warn(j.path, "open", err)
		return false
	}
	if e.s.FollowSymlinks {
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			e.warn(j.path, "stat", err)
			return false
		}
		dev, ino := dirID(j.path, fi)
		for a := j.anc; a != nil; a = a.parent {
			if a.dev == dev && a.ino == ino {
				f.Close()
				e.warn(j.path, "follow", ErrSymlinkLoop)
				return false
			}
		}
		j.anc = &ancestor{dev: dev, ino: ino, parent: j.anc}
	}
	if e.s.Gitignore {
		j.ign = e.loadIgnore(j.path, j.ign)
	}
	w.Scratch.c.dirs++
	j.f = f
	return true
}

// rootEntry is a path given to Scan, stat'ed (links followed: a root named
// by the user is always entered) and presented as a directory entry whose
// name is the whole path. Each root has archive budgets of its own
// (Limits.MaxRootBytes), which everything under it shares.
type rootEntry struct {
	fs.DirEntry
	path string
	root *archive.Root
}

func (r rootEntry) Name() string { return r.path }

func (e *engine) statRoots(j *dirJob) {
	for _, p := range j.roots {
		fi, err := os.Stat(p)
		if err != nil {
			e.warn(p, "stat", err)
			continue
		}
		re := rootEntry{DirEntry: fs.FileInfoToDirEntry(fi), path: p}
		if e.s.ArchiveDepth > 0 {
			re.root = archive.NewRoot(e.s.limits)
		}
		j.ents = append(j.ents, re)
	}
	j.roots = nil
}

// dispatch admits one entry. It returns false, having done nothing, when
// the entry is a file and the frontier is full.
func (e *engine) dispatch(w *worker, j *dirJob, ent fs.DirEntry) bool {
	ws := w.Scratch
	name := ent.Name()
	path := join(j.path, name)
	skipPath := func() (skip bool) {
		if !e.guard(func() { skip = e.det.SkipPath(path) }) {
			return true // the scan is over
		}
		return skip
	}
	root := j.root
	if re, ok := ent.(rootEntry); ok {
		root = re.root
	}
	typ := ent.Type()
	if typ&fs.ModeSymlink != 0 {
		if !e.s.FollowSymlinks {
			ws.c.skipped[skipSymlink]++
			return true
		}
		fi, err := os.Stat(path)
		if err != nil {
			e.warn(path, "follow", err) // dangling, or a loop of links
			return true
		}
		typ = fi.Mode().Type()
	}
	switch {
	case typ.IsDir():
		switch {
		case name == ".git":
			ws.c.skipped[skipGit]++
		case j.ign != nil && j.ign.ignored(path, true):
			ws.c.skipped[skipIgnored]++
		case skipPath():
			ws.c.skipped[skipAllowlist]++
		default:
			w.Spawn(task{kind: kindEnumerate, dir: &dirJob{path: path, ign: j.ign, anc: j.anc, root: root}})
		}
	case typ.IsRegular():
		switch {
		case j.ign != nil && j.ign.ignored(path, false):
			ws.c.skipped[skipIgnored]++
		case skipPath():
			ws.c.skipped[skipAllowlist]++
		default:
			if j.permit {
				j.permit = false // handed over when this job was woken
			} else if !e.front.tryAcquire() {
				return false
			}
			if p := e.s.Progress; p != nil {
				p.Discovered.Add(1)
			}
			o := newObject(path)
			o.root = root
			w.Spawn(task{kind: kindFetch, obj: o})
		}
	default:
		// A device, FIFO or socket has no content to scan, and opening a
		// FIFO would block a worker: skip it, and say so as a warning.
		ws.c.skipped[skipSpecial]++
		e.warn(path, "open", fmt.Errorf("%w (%s)", ErrNotRegular, typeName(typ)))
	}
	return true
}

// typeName names a non-regular file type for a warning.
func typeName(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "named pipe"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeDevice != 0:
		return "device"
	}
	return t.String()
}

// join appends name to dir the way findings report paths: no "./" prefix
// for the current directory, no doubled slash after "/".
func join(dir, name string) string {
	switch {
	case dir == "" || dir == ".":
		return name
	case dir[len(dir)-1] == '/':
		return dir + name
	}
	return dir + "/" + name
}
