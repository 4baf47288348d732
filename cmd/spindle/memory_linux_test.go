package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeBigText writes about size bytes of text to name, with one planted
// secret at the end, so that a scan must read all of it to find it.
func writeBigText(t *testing.T, name string, size int) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	line := strings.Repeat("lorem ipsum dolor sit amet consectetur ", 3) + "\n"
	for n := 0; n < size; n += len(line) {
		w.WriteString(line)
	}
	fmt.Fprintf(w, "key = %s\n", token(1))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// TestLargeFileScanPeakMemory scans one large text file with two workers
// and checks the process's peak resident memory: the engine reads a file in
// fixed chunks, so the peak must not grow with the file. The figure
// is a 2 GiB file under 80 MiB; this test uses 512 MiB to stay within a test
// run's time, which the bound does not depend on. (Measured by hand on the
// 2 GiB file with /usr/bin/time -v: see the package's report.)
func TestLargeFileScanPeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and scans a 512 MiB file")
	}
	const size = 512 << 20
	const limitKiB = 80 << 10
	dir := t.TempDir()
	writeBigText(t, filepath.Join(dir, "big.txt"), size)
	writeTree(t, dir, map[string]string{".gitleaks.toml": testRules})

	cmd := exec.Command(binary, "scan", "-j", "2", "-f", "json", "big.txt")
	cmd.Dir = dir
	out, err := cmd.Output()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1 for the planted secret", err)
	}
	if got := parseJSON(t, string(out)); len(got) != 1 {
		t.Errorf("%d findings, want 1", len(got))
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	t.Logf("peak RSS scanning %d MiB with 2 workers: %.1f MiB", size>>20, float64(rss)/1024)
	if rss > limitKiB {
		t.Errorf("peak RSS %d KiB, want at most %d KiB", rss, limitKiB)
	}
}

// TestInterruptExits130WithoutAReport sends SIGINT during a scan of a
// 1 GiB file: the command must stop, say so, exit 130, and write no report
// file (a report is renamed into place only when its scan completes; the
// previous one staying is TestAnInterruptedScanLeavesThePreviousReport's).
func TestInterruptExits130WithoutAReport(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and scans a 1 GiB file")
	}
	dir := t.TempDir()
	writeBigText(t, filepath.Join(dir, "big.txt"), 1<<30)
	writeTree(t, dir, map[string]string{".gitleaks.toml": testRules})
	cmd := exec.Command(binary, "scan", "-j", "2", "-f", "json", "-o", "out.json", "big.txt")
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	exit, ok := err.(*exec.ExitError)
	if !ok {
		t.Skipf("the scan finished before the signal (%v); nothing to check", err)
	}
	if exit.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q; want %d and a message", exit.ExitCode(), stderr.String(), exitInterrupted)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "out.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an interrupted scan left a report (%v): %.200q", err, data)
	}
}

// TestHistoryHostileInputsPeakMemory: spindle git on a history made to
// exhaust memory (a 100 MB commit subject, a 150 MB file added and then
// changed, alternates naming /dev/zero) finishes within 256 MiB of
// resident memory, and within a 2 GiB virtual-memory limit: the subject
// is cut, the new file streamed, its change too large to diff a warning.
func TestHistoryHostileInputsPeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("commits a 150 MB file")
	}
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	writeTree(t, dir, map[string]string{".gitleaks.toml": testRules})
	writeBigText(t, filepath.Join(dir, "big.log"), 150<<20)
	gitIn(t, dir, "add", "-A")
	// The subject is written in pieces: the test process's own memory
	// counts in the child's peak until it execs (the child shares it).
	msg := filepath.Join(t.TempDir(), "msg")
	mf, err := os.Create(msg)
	if err != nil {
		t.Fatal(err)
	}
	piece := strings.Repeat("a very long subject ", 1<<10)
	for range 5 << 10 {
		mf.WriteString(piece)
	}
	mf.Close()
	gitIn(t, dir, "commit", "-q", "-F", msg)
	f, _ := os.OpenFile(filepath.Join(dir, "big.log"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "token %s\n", token(2))
	f.Close()
	gitIn(t, dir, "commit", "-qam", "grow the log")
	os.WriteFile(filepath.Join(dir, ".git", "objects", "info", "alternates"), []byte("/dev/zero\n"), 0o644)

	debug.FreeOSMemory()
	cmd := exec.Command("bash", "-c", "ulimit -v 2097152 && exec "+binary+" git --no-banner -r out.json .")
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1 for the planted secret\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := parseJSON(t, string(data)); len(got) != 1 {
		t.Errorf("%d findings, want the secret of the first commit", len(got))
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	t.Logf("peak RSS %.1f MiB in %v\n%s", float64(rss)/1024, time.Since(start), stderr.String())
	if rss > 256<<10 {
		t.Errorf("peak RSS %d KiB, want at most 256 MiB", rss)
	}
}
