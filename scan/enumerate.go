package scan

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// dirBatch is how many directory entries one Enumerate task reads and
// dispatches. A larger batch means fewer tasks; a smaller one lets thieves
// share a large directory sooner.
const dirBatch = 128

// ErrSymlinkLoop is the error of the warning for a directory reached again
// through a symbolic link while FollowSymlinks is on.
var ErrSymlinkLoop = errors.New("symlink loop: directory is its own ancestor")

// dirJob is the cursor of Enumerate tasks. A job is one of: a directory not
// yet opened (path only); a directory being read (f, the open cursor);
// entries read but not yet dispatched (ents), which a job keeps while it
// waits for the frontier; or the roots of the scan (roots).
//
// One task owns a job at a time. When a task reads a batch, it moves the
// open cursor into a new job that it spawns, and dispatches the batch
// itself: the rest of a large directory can then be read by another worker
// while this one dispatches.
type dirJob struct {
	path  string        // the directory, as reported in findings; "" for the roots
	roots []string      // the root job: the paths given to Scan
	f     *os.File      // open cursor, or nil
	ents  []fs.DirEntry // read, not yet dispatched
	ign   *ignoreLevel  // ignore rules for the entries of path (Gitignore)
	anc   *ancestor     // identities of path and its ancestors (FollowSymlinks)
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

// enumerate is the Enumerate task: it lists a directory, one batch at a
// time, and admits what it finds. Subdirectories become Enumerate tasks;
// files take a frontier permit and become Fetch tasks. When the frontier is
// full, the task parks on it with the entries it has not dispatched, and the
// next permit released spawns it again: it never blocks and never spins.
func (e *engine) enumerate(w *worker, j *dirJob) {
	if e.stopped() {
		j.close()
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
	if j.f != nil {
		ents, err := j.f.ReadDir(dirBatch)
		if err != nil && !errors.Is(err, io.EOF) {
			e.warn(j.path, "readdir", err)
		}
		j.ents = ents
		if err == nil && len(ents) == dirBatch {
			// More may follow: hand the cursor to a new job. Spawned before
			// the entries, it ends up under them on the ring: the batch's
			// subdirectories are listed first (depth first, which bounds the
			// open cursors by the tree's depth), and a thief, which takes
			// the oldest tasks, gets the rest of this directory.
			w.Spawn(task{kind: kindEnumerate, dir: &dirJob{path: j.path, f: j.f, ign: j.ign, anc: j.anc}})
		} else {
			// ReadDir(n) returns fewer than n entries only at the end (or
			// on an error, already reported).
			j.f.Close()
		}
		j.f = nil
	}
	for len(j.ents) > 0 {
		if e.stopped() {
			j.close()
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
// name is the whole path.
type rootEntry struct {
	fs.DirEntry
	path string
}

func (r rootEntry) Name() string { return r.path }

func (e *engine) statRoots(j *dirJob) {
	for _, p := range j.roots {
		fi, err := os.Stat(p)
		if err != nil {
			e.warn(p, "stat", err)
			continue
		}
		j.ents = append(j.ents, rootEntry{DirEntry: fs.FileInfoToDirEntry(fi), path: p})
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
			w.Spawn(task{kind: kindEnumerate, dir: &dirJob{path: path, ign: j.ign, anc: j.anc}})
		}
	case typ.IsRegular():
		switch {
		case j.ign != nil && j.ign.ignored(path, false):
			ws.c.skipped[skipIgnored]++
		case skipPath():
			ws.c.skipped[skipAllowlist]++
		default:
			if !e.front.tryAcquire() {
				return false
			}
			if p := e.s.Progress; p != nil {
				p.Discovered.Add(1)
			}
			w.Spawn(task{kind: kindFetch, obj: newObject(path)})
		}
	default:
		ws.c.skipped[skipSpecial]++
	}
	return true
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
