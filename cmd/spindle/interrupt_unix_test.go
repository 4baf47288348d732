//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopped is a run of the binary whose standard input is a pipe the test
// holds open: the scan waits for more input until the test stops it.
type stopped struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// runStopped starts spindle with args in dir, writes input to its standard
// input and keeps it open; after a moment it sends sig (0: none, the run
// must stop by itself, as --timeout does) and waits.
func runStopped(t *testing.T, dir, input string, sig syscall.Signal, args ...string) stopped {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Stdin = dir, r
	cmd.Env = append(os.Environ(), "NO_COLOR=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	w.Write([]byte(input))
	start := time.Now()
	if sig != 0 {
		time.Sleep(500 * time.Millisecond)
		cmd.Process.Signal(sig)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("spindle %v did not stop", args)
	}
	code := 0
	if ee, ok := werr.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return stopped{code: code, stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
}

// TestAnInterruptedScanLeavesThePreviousReport: SIGINT or SIGTERM in the
// middle of a scan, or --timeout, exits without touching the report file
// (a previous report stays, none appears), in every command that writes
// one; only a scan that completes replaces it.
func TestAnInterruptedScanLeavesThePreviousReport(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{".gitleaks.toml": testRules})
	input := "key=" + token(5) + "\n"
	previous := "[\"the previous report\"]\n"
	cases := []struct {
		name string
		sig  syscall.Signal
		code int
		args []string
	}{
		{"scan, SIGINT", syscall.SIGINT, 130, []string{"scan", "-f", "json", "-o", "REPORT", "-"}},
		{"scan, SIGTERM", syscall.SIGTERM, 130, []string{"scan", "-f", "sarif", "-o", "REPORT", "-"}},
		{"stdin, SIGINT", syscall.SIGINT, 130, []string{"stdin", "-r", "REPORT", "--no-banner"}},
		{"stdin, --timeout", 0, 1, []string{"stdin", "-r", "REPORT", "--no-banner", "--timeout", "1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, existing := range []bool{true, false} {
				report := filepath.Join(t.TempDir(), "report.json")
				if existing {
					writeTree(t, filepath.Dir(report), map[string]string{"report.json": previous})
				}
				args := append([]string(nil), c.args...)
				for i, a := range args {
					if a == "REPORT" {
						args[i] = report
					}
				}
				r := runStopped(t, dir, input, c.sig, args...)
				if r.code != c.code {
					t.Errorf("exit %d, want %d\n%s", r.code, c.code, r.stderr)
				}
				data, err := os.ReadFile(report)
				switch {
				case existing && string(data) != previous:
					t.Errorf("the previous report became %q (%v)", data, err)
				case !existing && err == nil:
					t.Errorf("a report appeared: %q", data)
				}
				if !strings.Contains(r.stderr, "left as it was") {
					t.Errorf("standard error does not say the report was left:\n%s", r.stderr)
				}
				if r.took > 15*time.Second {
					t.Errorf("took %v to stop", r.took)
				}
			}
		})
	}
	t.Run("timeout says partial", func(t *testing.T) {
		r := runStopped(t, dir, input, 0, "stdin", "--no-banner", "--timeout", "1")
		if r.code != 1 || !strings.Contains(r.stderr, " WRN partial scan completed in ") || !strings.Contains(r.stderr, "leaks found in partial scan") {
			t.Errorf("exit %d\n%s", r.code, r.stderr)
		}
	})
	t.Run("a completed scan replaces it", func(t *testing.T) {
		report := filepath.Join(t.TempDir(), "report.json")
		writeTree(t, filepath.Dir(report), map[string]string{"report.json": previous})
		r := invokeStdin(t, dir, input, "stdin", "-r", report, "--no-banner")
		if data, _ := os.ReadFile(report); r.code != 1 || !strings.Contains(string(data), token(5)) {
			t.Errorf("exit %d, report %q\n%s", r.code, data, r.stderr)
		}
	})
}

// TestAStoppedScansSARIFOnStandardOutputSaysSo: SARIF written to standard
// output by a scan that did not complete marks its run unsuccessful; json
// there is left unfinished, so that no reader takes it for a whole scan.
func TestAStoppedScansSARIFOnStandardOutputSaysSo(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{".gitleaks.toml": testRules})
	for _, args := range [][]string{
		{"scan", "-f", "sarif", "-"},
		{"stdin", "--no-banner", "-r", "-", "-f", "sarif", "--timeout", "1"},
	} {
		sig := syscall.SIGINT
		if args[0] == "stdin" {
			sig = 0
		}
		r := runStopped(t, dir, "key="+token(6)+"\n", sig, args...)
		var log struct {
			Runs []struct {
				Invocations []struct {
					ExecutionSuccessful *bool `json:"executionSuccessful"`
				} `json:"invocations"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &log); err != nil || len(log.Runs) != 1 {
			t.Fatalf("%v: exit %d, stdout does not parse as SARIF: %v\n%s", args, r.code, err, r.stdout)
		}
		inv := log.Runs[0].Invocations
		if len(inv) != 1 || inv[0].ExecutionSuccessful == nil || *inv[0].ExecutionSuccessful {
			t.Errorf("%v: invocations %+v, want executionSuccessful false", args, inv)
		}
	}
	r := runStopped(t, dir, "key="+token(6)+"\n", 0, "stdin", "--no-banner", "-r", "-", "-f", "json", "--timeout", "1")
	var v any
	if json.Unmarshal([]byte(r.stdout), &v) == nil {
		t.Errorf("a stopped scan's json on standard output parses: %q", r.stdout)
	}
}
