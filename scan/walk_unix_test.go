//go:build unix

package scan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestWarningsDoNotStopTheScan: a FIFO is skipped (never opened, so never
// blocks), a file removed after it was listed and a missing root are
// warnings, and everything else is still found.
func TestWarningsDoNotStopTheScan(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 50 {
		files["f"+itoa(i)+".txt"] = secret(i)
	}
	writeTree(t, dir, files)
	must(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644))
	det := newFake()
	var removed atomic.Int32
	det.onScan = func(path string) {
		// The first file scanned removes two others; with one worker and
		// one permit, both are listed already but not yet opened.
		if removed.CompareAndSwap(0, 1) {
			for _, name := range []string{"f10.txt", "f20.txt"} {
				if p := filepath.Join(dir, name); p != path {
					os.Remove(p)
				}
			}
		}
	}
	found, warns, st, err := collect(t, Options{Detector: det, Workers: 1, MaxInFlight: 1}, dir, filepath.Join(dir, "missing"))
	if err != nil {
		t.Fatal(err)
	}
	var opens, stats int
	for _, w := range warns {
		switch {
		case w.Op == "open" && errors.Is(w.Err, fs.ErrNotExist):
			opens++
		case w.Op == "stat" && strings.HasSuffix(w.Path, "missing"):
			stats++
		default:
			t.Errorf("unexpected warning %v", w)
		}
	}
	if opens+len(filesOf(found)) != 50 || stats != 1 || st.Warnings != int64(len(warns)) {
		t.Errorf("%d files found, %d vanished, %d missing roots; Stats.Warnings %d", len(filesOf(found)), opens, stats, st.Warnings)
	}
	if st.Skipped[SkipSpecial] != 1 {
		t.Errorf("FIFO not skipped: %v", st.Skipped)
	}
}
