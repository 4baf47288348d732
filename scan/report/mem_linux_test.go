//go:build linux

package report

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// memoryBound is the peak resident memory a report of any size may take.
const memoryBound = 256 << 20

// TestWritersBoundMemoryAtTenMillionFindings writes 10M findings in every
// format but template (which holds its findings by design) in a child
// process each, and checks the child's peak RSS. It is slow (minutes, and
// gigabytes of temporary disk for the sorted formats), so it runs only
// without -short; SPINDLE_REPORT_MEM_N sets another count.
func TestWritersBoundMemoryAtTenMillionFindings(t *testing.T) {
	if format := os.Getenv("SPINDLE_REPORT_MEM_FORMAT"); format != "" {
		n, _ := strconv.Atoi(os.Getenv("SPINDLE_REPORT_MEM_N"))
		w, err := NewWriter(Format(format), io.Discard, Options{})
		if err == nil {
			err = streamFindings(n, w.Write)
		}
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("minutes of work; run without -short")
	}
	n := 10_000_000
	if s := os.Getenv("SPINDLE_REPORT_MEM_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	for _, format := range allFormats() {
		if format == FormatTemplate {
			continue
		}
		t.Run(string(format), func(t *testing.T) {
			start := time.Now()
			cmd := exec.Command(os.Args[0], "-test.run=^TestWritersBoundMemoryAtTenMillionFindings$")
			cmd.Env = append(os.Environ(), "SPINDLE_REPORT_MEM_FORMAT="+string(format), "SPINDLE_REPORT_MEM_N="+strconv.Itoa(n))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
			t.Logf("%s: %d findings, peak RSS %d MiB, %v", format, n, peak>>20, time.Since(start).Round(time.Second))
			if peak > memoryBound {
				t.Fatalf("peak RSS %d MiB, bound %d MiB", peak>>20, memoryBound>>20)
			}
		})
	}
}
