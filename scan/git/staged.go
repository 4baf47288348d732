package git

import (
	"bytes"
	"context"
	"crypto/sha1"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spindle-go/spindle/scan"
)

// Staged scans what `git commit` would record in the repository at path:
// the lines the index adds against HEAD (all of them before the first
// commit), as `gitleaks git --pre-commit --staged` does. It is what a
// pre-commit hook runs; on a large repository with a few files staged it
// reads only those files. Findings have no commit; their fingerprint is
// file:rule:line.
func Staged(ctx context.Context, path string, sopts scan.Options) (Stats, error) {
	return scanDiff(ctx, path, sopts, true)
}

// Unstaged scans the changes of the work tree that are not staged: the
// lines tracked files add against the index, as `gitleaks git
// --pre-commit` does. Untracked files are not included (scan them with
// scan.Scan and Options.Gitignore).
func Unstaged(ctx context.Context, path string, sopts scan.Options) (Stats, error) {
	return scanDiff(ctx, path, sopts, false)
}

func scanDiff(ctx context.Context, path string, sopts scan.Options, staged bool) (Stats, error) {
	var st Stats
	if sopts.Detector == nil {
		return st, scan.ErrNoDetector
	}
	r, err := openRepo(ctx, path)
	if err != nil {
		return st, err
	}
	if r.Top == "" {
		return st, fmt.Errorf("git: %s: a bare repository has no index or work tree to scan", path)
	}
	if err := r.ignoreFile(&sopts); err != nil {
		return st, err
	}
	h := &history{repo: r, candidates: map[oid]bool{}, hashSize: r.HashSize}
	// One commit stands for the commit to be: no id, no metadata.
	h.commits = []commit{{}}
	diff := []string{"diff", "--no-color", "--no-ext-diff"}
	if staged {
		diff = append(diff, "--cached")
	}
	start := time.Now()
	if err := h.listDiff(append(diff, "--raw", "--no-abbrev", "-z", "--diff-filter=tuxdb")); err != nil {
		return st, err
	}
	st.Enumerate = time.Since(start)
	st.Changes = int64(len(h.changes))
	if staged {
		var odbWarnings []error
		h.blobs, odbWarnings = openBlobs(ctx, r, h.hashSize, sopts.Workers)
		for _, w := range odbWarnings {
			h.warn(sopts, r.GitDir, "objects", w)
		}
	} else {
		h.blobs = h.worktreeFiles()
	}
	defer h.blobs.close()

	start = time.Now()
	p1, err := h.scanBlobs(ctx, sopts, nil)
	st.ScanBlobs = time.Since(start)
	st.Blobs, st.BlobBytes, st.Candidates = p1.Files, p1.Bytes, int64(len(h.candidates))
	if err != nil {
		st.Stats = p1
		return st, err
	}
	start = time.Now()
	p2, err := h.attributeWith(ctx, sopts, append(diff, "-U0", "--src-prefix=a/", "--dst-prefix=b/"))
	st.Attribute = time.Since(start)
	st.Stats = merge(p1, p2)
	st.Warnings += h.lost
	st.Lost += h.lost
	return st, err
}

// listDiff runs a git diff --raw -z and keeps its changes, all under the
// one commit of h.
func (h *history) listDiff(args []string) error {
	cmd := h.repo.command(args...)
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{b: &stderr, n: 64 << 10}
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git %s: %s", args[0], firstLine(stderr.String(), err))
	}
	// A diff's raw output is a log record without its header.
	p := newLogParser(bytes.NewReader(out))
	p.commits = []commit{{}}
	if err := p.parse(); err != nil {
		return err
	}
	h.changes = p.changes
	return nil
}

// worktreeFiles reads the new side of unstaged changes from the work tree:
// git diff gives no blob id for it (it is not hashed), so each change gets
// a stand-in id derived from its path.
func (h *history) worktreeFiles() blobReader {
	w := &worktree{top: h.repo.Top, paths: map[oid]string{}}
	for i := range h.changes {
		c := &h.changes[i]
		if c.new.isZero() && c.status != 'D' {
			c.new = oid(sha1Pad(c.path))
			w.paths[c.new] = c.path
		}
	}
	return w
}

func sha1Pad(s string) [32]byte {
	var o [32]byte
	sum := sha1.Sum([]byte("worktree\x00" + s))
	copy(o[:], sum[:])
	return o
}

type worktree struct {
	top   string
	paths map[oid]string
}

func (w *worktree) open(id oid) (io.ReadCloser, int64, error) {
	f, err := os.Open(filepath.Join(w.top, filepath.FromSlash(w.paths[id])))
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

func (w *worktree) close() {}
