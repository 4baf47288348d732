//go:build unix

package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spindle-go/spindle/scan"
)

// TestFIFOsInTheRepositoryDoNotHang: a .gitleaksignore committed as a
// link to a FIFO (it survives a clone) does not block a history, staged
// or unstaged scan, and does not stop it: the FIFO is never opened, each
// scan warns of lost data naming it (which fails the command unless a
// partial result is accepted) and goes on, reporting what the file could
// have suppressed. A tracked file that has become a FIFO is a warning,
// never opened.
func TestFIFOsInTheRepositoryDoNotHang(t *testing.T) {
	r := newRepo(t)
	fifo := filepath.Join(r.dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	if err := os.Symlink("pipe", filepath.Join(r.dir, ".gitleaksignore")); err != nil {
		t.Fatal(err)
	}
	r.git("add", ".gitleaksignore")
	r.write("a.txt", tok(1)+"\n")
	r.commit("one")
	os.Remove(filepath.Join(r.dir, "a.txt"))
	syscall.Mkfifo(filepath.Join(r.dir, "a.txt"), 0o644)
	for name, run := range map[string]func(context.Context, scan.Options) (Stats, error){
		"history":  func(ctx context.Context, o scan.Options) (Stats, error) { return Scan(ctx, r.dir, Options{}, o) },
		"staged":   func(ctx context.Context, o scan.Options) (Stats, error) { return Staged(ctx, r.dir, o) },
		"unstaged": func(ctx context.Context, o scan.Options) (Stats, error) { return Unstaged(ctx, r.dir, o) },
	} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			found, warns, st, err := scanAll(t, run)
			named := slices.ContainsFunc(warns, func(w scan.Warning) bool {
				return w.Lost && w.Op == "ignore" && strings.Contains(w.Path, ".gitleaksignore")
			})
			if err != nil || !named || st.Lost == 0 {
				t.Errorf("%s: error %v, warnings %v, %d lost; want no error and a lost-data warning naming .gitleaksignore", name, err, warns, st.Lost)
			}
			if name == "history" && !slices.Equal(found, []string{"a.txt:1:" + tok(1)}) {
				t.Errorf("history: found %v, want the secret the scan went on to find", found)
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: blocked on a FIFO", name)
		}
	}
	// Without the ignore file: the FIFO in place of a tracked file.
	os.Remove(filepath.Join(r.dir, ".gitleaksignore"))
	r.write("b.txt", tok(2)+"\n")
	os.WriteFile(filepath.Join(r.dir, "b.txt"), []byte(tok(2)+"\n"+tok(3)+"\n"), 0o644)
	done := make(chan struct{})
	go func() {
		defer close(done)
		found, warns, _, err := scanAll(t, func(ctx context.Context, o scan.Options) (Stats, error) { return Unstaged(ctx, r.dir, o) })
		if err != nil || len(found) != 1 || len(warns) != 1 || !strings.Contains(warns[0].Error(), "a.txt") {
			t.Errorf("unstaged: found %v, warnings %v, err %v", found, warns, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("unstaged: blocked on a FIFO")
	}
}
