//go:build unix

package scan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
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
	var opens, stats, specials int
	for _, w := range warns {
		switch {
		case errors.Is(w.Err, ErrNotRegular):
			specials++
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
	if st.Skipped[SkipSpecial] != 1 || specials != 1 {
		t.Errorf("FIFO not skipped with a warning: %v, %d warnings", st.Skipped, specials)
	}
}

// TestHostileTree scans a tree with everything a filesystem can throw at a
// walker at once: a symlink loop and a loop of links (FollowSymlinks on),
// a dangling link, a FIFO, a socket, a directory and two files removed
// after they were listed and before they were opened, an unreadable
// directory (when not root, which reads everything), and an archive. The
// scan finishes; each link problem and each vanished or unreadable entry
// is one warning, the FIFO and the socket are counted as skipped (they are
// not files to read, and nothing is wrong with them), and no other
// finding is lost.
func TestHostileTree(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"gone/f.txt": secret(100)}
	var want []string
	for i := range 20 {
		files["f"+itoa(i)+".txt"] = "k=" + secret(i)
		files["d"+itoa(i)+"/g.txt"] = "k=" + secret(50+i)
		want = append(want, "d"+itoa(i)+"/g.txt")
	}
	writeTree(t, dir, files)
	writeFiles(t, dir, []treeFile{{"a.tar.gz", gzipOf(t, tarOf(t, member{"x.env", secret(200)})), nil}})
	want = append(want, "a.tar.gz!x.env")
	must(t, os.Symlink(".", filepath.Join(dir, "loop")))
	must(t, os.Symlink("l2", filepath.Join(dir, "l1")))
	must(t, os.Symlink("l1", filepath.Join(dir, "l2")))
	must(t, os.Symlink("nowhere", filepath.Join(dir, "dangling")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	sock, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	must(t, err)
	must(t, syscall.Bind(sock, &syscall.SockaddrUnix{Name: filepath.Join(dir, "sock")}))
	syscall.Close(sock)
	wantWarnings := 7 // loop, l1, l2, dangling, gone, two vanished files
	if os.Geteuid() != 0 {
		writeTree(t, dir, map[string]string{"locked/h.txt": secret(300)})
		must(t, os.Chmod(filepath.Join(dir, "locked"), 0))
		t.Cleanup(func() { os.Chmod(filepath.Join(dir, "locked"), 0o755) })
		wantWarnings++
	}

	det := newFake()
	var vanished []string
	det.onScan = func(path string) {
		// The first file scanned removes gone/ and two root files it is
		// not. With one permit, the root's entries (one batch) are all
		// listed by then, and none but this one is open.
		if vanished != nil {
			return
		}
		must(t, os.RemoveAll(filepath.Join(dir, "gone")))
		for i := 0; len(vanished) < 2; i++ {
			if p := "f" + itoa(i) + ".txt"; p != path {
				must(t, os.Remove(filepath.Join(dir, p)))
				vanished = append(vanished, p)
			}
		}
	}
	found, warns, st, err := collect(t, Options{Detector: det, Workers: 1, MaxInFlight: 1, FollowSymlinks: true, ArchiveDepth: 1}, dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if p := "f" + itoa(i) + ".txt"; !slices.Contains(vanished, p) {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	if got := filesOf(found); !slices.Equal(got, want) {
		t.Errorf("files with findings:\n%v\nwant\n%v", got, want)
	}
	var loops, follow, open, specials int
	for _, w := range warns {
		switch {
		case errors.Is(w.Err, ErrSymlinkLoop):
			loops++
		case errors.Is(w.Err, ErrNotRegular):
			specials++
		case w.Op == "follow":
			follow++
		case w.Op == "open":
			open++
		default:
			t.Errorf("unexpected warning %v", w)
		}
	}
	wantWarnings += 2 // the FIFO and the socket
	if loops != 1 || follow != 3 || open != wantWarnings-6 || specials != 2 || st.Warnings != int64(wantWarnings) {
		t.Errorf("warnings: %d loops, %d links, %d opens, %d special, %d in all; want 1, 3, %d, 2, %d:\n%v", loops, follow, open, specials, st.Warnings, wantWarnings-6, wantWarnings, warns)
	}
	if st.Skipped[SkipSpecial] != 2 || specials != 2 {
		t.Errorf("skipped %v, want the FIFO and the socket as special", st.Skipped)
	}
}

// A FIFO named as a root (what <(cmd) and /dev/stdin are) is read as a
// stream; one met while walking is skipped with a warning, since opening
// it could block for ever.
func TestFIFORootIsReadAsAStream(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	must(t, syscall.Mkfifo(fifo, 0o600))
	done := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			done <- err
			return
		}
		_, err = f.WriteString(strings.Repeat("log line\n", 100000) + "k=" + secret(1) + "\n")
		f.Close()
		done <- err
	}()
	found, warns, st, err := collect(t, Options{Detector: newFake(), ChunkSize: 4096}, fifo)
	must(t, <-done)
	if err != nil || len(warns) > 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	if len(found) != 1 || found[0].File != fifo || found[0].Line != 100001 || st.Files != 1 {
		t.Errorf("found %v in %d files, want the secret on line 100001 of %s", found, st.Files, fifo)
	}
	// The same FIFO inside a directory being walked is skipped.
	_, warns, st, err = collect(t, Options{Detector: newFake()}, dir)
	if err != nil || len(warns) != 1 || !errors.Is(warns[0].Err, ErrNotRegular) || st.Skipped[SkipSpecial] != 1 {
		t.Errorf("walk: err %v, warnings %v, skipped %v", err, warns, st.Skipped)
	}
}

// TestGitleaksIgnoreLinkedToAFIFO: a .gitleaksignore that is a link to a
// FIFO (or a device) is never opened: a warning of lost data names it, and
// the scan goes on, reporting what the file could have suppressed.
func TestGitleaksIgnoreLinkedToAFIFO(t *testing.T) {
	dir := t.TempDir()
	must(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600))
	for _, target := range []string{"pipe", "/dev/zero"} {
		os.Remove(filepath.Join(dir, ".gitleaksignore"))
		must(t, os.Symlink(target, filepath.Join(dir, ".gitleaksignore")))
		must(t, os.WriteFile(filepath.Join(dir, "a.env"), []byte("k="+secret(1)+"\n"), 0o600))
		done := make(chan struct{})
		go func() {
			defer close(done)
			found, warns, st, err := collect(t, Options{Detector: newFake()}, dir)
			// The FIFO itself, met while walking, is noise.
			var ignoreWarns []Warning
			for _, w := range warns {
				if w.Op == "ignore" {
					ignoreWarns = append(ignoreWarns, w)
				}
			}
			if err != nil || len(found) != 1 || st.Lost != 1 || len(ignoreWarns) != 1 || !ignoreWarns[0].Lost ||
				!strings.HasSuffix(ignoreWarns[0].Path, ".gitleaksignore") {
				t.Errorf("%s: err %v, found %v, %d lost, warnings %v", target, err, found, st.Lost, warns)
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: blocked", target)
		}
	}
}
