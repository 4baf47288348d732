package report

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// AtomicFile is a report file that appears whole or not at all. The report
// is written to a temporary file in the target's directory and renamed over
// the target by Commit, so that a reader (or the next run's --baseline)
// never sees half a report: a run that fails, is interrupted or is killed
// leaves the previous file as it was. On Linux the temporary file has no
// name until Commit (O_TMPFILE), so a killed run leaves nothing behind at
// all; elsewhere it is a hidden file beside the target (".name.*.tmp"),
// removed by Abort, and left behind only by a killed process.
//
// A target that exists and is not a regular file (a terminal, /dev/stdout,
// a FIFO) cannot be replaced by a rename; AtomicFile then writes to it
// directly. A symbolic link is followed, so the file it names is replaced
// and the link is kept. The replaced file keeps its permission bits; a new
// one gets 0666 less the umask, as os.Create gives.
//
// The caller writes, then calls Commit to publish or Abort to discard, and
// should defer Abort, which does nothing after Commit:
//
//	out, err := report.CreateAtomic(path)
//	if err != nil { ... }
//	defer out.Abort()
//	... write the report to out ...
//	return out.Commit()
type AtomicFile struct {
	f      *os.File
	target string // the file Commit replaces
	temp   string // the temporary file's name; "" while it has none
	direct bool   // writing to target itself
	done   bool   // committed or aborted
}

// CreateAtomic starts a report that will replace path. It fails when path
// is a directory or its directory cannot be written.
func CreateAtomic(path string) (*AtomicFile, error) {
	target := path
	if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		if resolved, err := filepath.EvalSymlinks(path); err == nil {
			target = resolved
		}
		// A dangling link is replaced itself.
	}
	info, err := os.Lstat(target)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("report: %w", err)
	case exists && info.IsDir():
		return nil, fmt.Errorf("report: %s is a directory", path)
	case exists && !info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0:
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		return &AtomicFile{f: f, target: target, direct: true}, nil
	}
	a := &AtomicFile{target: target}
	if err := a.createTemp(); err != nil {
		return nil, fmt.Errorf("report: create %s: %w", path, err)
	}
	if exists && info.Mode().IsRegular() {
		// Keep the replaced file's permissions; an error leaves the default.
		a.f.Chmod(info.Mode().Perm())
	}
	return a, nil
}

// createNamedTemp creates the hidden temporary file beside the target,
// with the mode os.Create gives (os.CreateTemp would give 0600).
func (a *AtomicFile) createNamedTemp() error {
	dir, base := filepath.Split(a.target)
	for {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		a.f, a.temp = f, name
		return nil
	}
}

// Write writes to the temporary file (or, for a device, the target).
func (a *AtomicFile) Write(p []byte) (int, error) {
	if a.done {
		return 0, fs.ErrClosed
	}
	return a.f.Write(p)
}

// Name returns the path the report will have.
func (a *AtomicFile) Name() string { return a.target }

// Commit makes the report the target: it flushes the temporary file to
// disk, closes it and renames it over the target. On error the target is
// unchanged and the temporary file is removed. Commit after Commit or Abort
// returns an error.
func (a *AtomicFile) Commit() error {
	if a.done {
		return fmt.Errorf("report: %s: %w", a.target, fs.ErrClosed)
	}
	a.done = true
	if a.direct {
		return a.f.Close()
	}
	err := a.f.Sync()
	if err == nil {
		err = a.link()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.temp, a.target)
	}
	if err != nil {
		if a.temp != "" {
			os.Remove(a.temp)
		}
		return fmt.Errorf("report: write %s: %w", a.target, err)
	}
	return nil
}

// Abort discards the report: the temporary file is closed and removed and
// the target left as it was. It does nothing after Commit or Abort, so it
// can be deferred.
func (a *AtomicFile) Abort() error {
	if a.done {
		return nil
	}
	a.done = true
	err := a.f.Close()
	if a.temp != "" {
		if rerr := os.Remove(a.temp); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// SameFile reports whether paths a and b name the same existing file, by
// identity (device and inode, or the Windows file index), not by spelling:
// through links, "./", or another mount of the directory. The command
// refuses an output that is the baseline it read, which the report would
// otherwise replace with what the baseline suppressed (typically nothing).
// A path that does not exist names no file.
func SameFile(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(ia, ib)
}
