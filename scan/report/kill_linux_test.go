//go:build linux

package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

func TestAtomicFileCopiesWhenTheUnnamedFileCannotBeLinked(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "r.json")
	a := &AtomicFile{target: target}
	if err := a.createTemp(); err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("report body"))
	// What link does without /proc.
	if err := a.copyToNamed(); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "report body" {
		t.Fatalf("committed %q", got)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("files: %v", names)
	}
}

// TestAKilledWriterLeavesTheOldReportAndNothingElse runs a child that
// starts replacing a report, writes half of it and is killed (SIGKILL, no
// deferred function runs): the old report must be intact, with nothing
// beside it.
func TestAKilledWriterLeavesTheOldReportAndNothingElse(t *testing.T) {
	if target := os.Getenv("SPINDLE_REPORT_KILL_TARGET"); target != "" {
		a, err := CreateAtomic(target)
		if err != nil {
			os.Exit(3)
		}
		a.Write([]byte(`[{"rule_id":"half`))
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	os.WriteFile(target, []byte("[]\n"), 0o600)
	cmd := exec.Command(os.Args[0], "-test.run=^TestAKilledWriterLeavesTheOldReportAndNothingElse$")
	cmd.Env = append(os.Environ(), "SPINDLE_REPORT_KILL_TARGET="+target)
	err := cmd.Run()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v", err)
	}
	if got, _ := os.ReadFile(target); string(got) != "[]\n" {
		t.Fatalf("report after the kill = %q", got)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("files left by the killed writer: %v", names)
	}
}

// TestAKilledScanLeavesNoSpilledRuns runs a child that writes a sorted
// report large enough to spill and is killed mid-scan: no run file, with
// the findings in it, may be left in the temporary directory.
func TestAKilledScanLeavesNoSpilledRuns(t *testing.T) {
	if dir := os.Getenv("SPINDLE_REPORT_KILL_SPILL"); dir != "" {
		w, err := NewWriter(FormatSARIF, discard{}, Options{TempDir: dir, spillAt: 1 << 10})
		if err != nil {
			os.Exit(3)
		}
		for _, f := range randomFindings(9, 500) {
			w.Write(f)
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestAKilledScanLeavesNoSpilledRuns$")
	cmd.Env = append(os.Environ(), "SPINDLE_REPORT_KILL_SPILL="+dir)
	err := cmd.Run()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("child did not die by a signal: %v", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Fatalf("run files left by the killed scan: %v", names)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
