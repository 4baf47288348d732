//go:build unix

package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMergeAnswersSignals: spindle merge blocked on a report it cannot
// finish reading (a FIFO nobody writes) exits on SIGINT and on SIGTERM
// within a second, with the interrupted status.
func TestMergeAnswersSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		fifo := filepath.Join(t.TempDir(), "shard.json")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
		cmd := exec.Command(binary, "merge", fifo)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		sent := time.Now()
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("%v: %v, stderr %q", sig, err, stderr.String())
			}
			if d := time.Since(sent); d > time.Second {
				t.Errorf("%v: exited after %v", sig, d)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: merge did not exit", sig)
		}
	}
}
