//go:build unix

package gitrepo

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestMetadataFIFOsDoNotHang: HEAD, a ref, packed-refs, the config and the
// index replaced by FIFOs are refused at once, never waited on.
func TestMetadataFIFOsDoNotHang(t *testing.T) {
	top := gitRepo(t)
	run(t, top, "commit", "-qm", "init")
	gd := filepath.Join(top, ".git")
	for _, name := range []string{"packed-refs", "refs/heads/fifo", "index"} {
		if err := syscall.Mkfifo(filepath.Join(gd, name), 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r, err := FindEnv(top, Env{})
		if err != nil {
			t.Error(err)
			return
		}
		refs, warnings := r.Refs()
		if len(refs) == 0 || len(warnings) != 2 {
			t.Errorf("refs %v, warnings %v: want the readable ones and two warnings", refs, warnings)
		}
		if _, err := Read(r.IndexFile(), 20); err == nil {
			t.Error("a FIFO index was read")
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("blocked on a FIFO")
	}
}

// TestCommondirNamingADevice: a linked work tree whose commondir file
// names /dev/zero (or is a FIFO) is not read without end: discovery
// fails at once.
func TestCommondirNamingADevice(t *testing.T) {
	top := gitRepo(t)
	run(t, top, "commit", "-qm", "init")
	linked := filepath.Join(t.TempDir(), "linked")
	run(t, top, "worktree", "add", "-q", linked)
	gd := filepath.Join(top, ".git", "worktrees", "linked")
	os.Remove(filepath.Join(gd, "commondir"))
	if err := os.Symlink("/dev/zero", filepath.Join(gd, "commondir")); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := FindEnv(linked, Env{}); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a commondir naming /dev/zero was accepted")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("discovery read /dev/zero")
	}
}
