package main

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// runOnTerminal runs the command with standard error on a pseudo-terminal
// (standard output stays a pipe, as in `spindle scan -f json . > out`) and
// returns what the terminal received.
func runOnTerminal(t *testing.T, dir string, args ...string) string {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child holds its own copy; EOF comes when it exits
	var term bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&term, ptmx) // ends with EIO once the child has exited
		close(done)
	}()
	cmd.Wait()
	<-done
	return term.String()
}

func TestProgressLineOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	root, _ := secretTree(t)
	const erase = "\x1b[K" // every redraw of the line ends with it

	out := runOnTerminal(t, root, "scan", "-f", "json", ".")
	if !strings.Contains(out, erase) || !strings.Contains(out, "0 files  0 B  0 findings") {
		t.Errorf("no progress line on a terminal:\n%q", out)
	}
	if !strings.Contains(out, scannedSummary) {
		t.Errorf("no summary after the progress line:\n%q", out)
	}
	// The line is erased before the summary: nothing of it is left on the
	// summary's line.
	if i := strings.Index(out, scannedSummary); i < len(erase) || out[i-len(erase):i] != erase {
		t.Errorf("summary not printed on an erased line:\n%q", out)
	}

	for _, off := range []string{"--no-progress", "--quiet"} {
		out := runOnTerminal(t, root, "scan", off, ".")
		if strings.Contains(out, erase) {
			t.Errorf("%s: progress line drawn anyway:\n%q", off, out)
		}
	}

	// Not a terminal: no progress line, only the summary.
	r := invoke(t, root, "scan", ".")
	if strings.Contains(r.stderr, erase) || strings.Contains(r.stderr, "\r") {
		t.Errorf("progress line drawn on a pipe:\n%q", r.stderr)
	}
	if !strings.Contains(r.stderr, scannedSummary) {
		t.Errorf("no summary on a pipe:\n%q", r.stderr)
	}
}
