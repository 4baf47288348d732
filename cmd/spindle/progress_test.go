package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestProgressLineFitsTheTerminalWidth(t *testing.T) {
	stats := progressStats{phase: "scanning", files: 123456789, bytes: 5 << 40, findings: 98765, warnings: 4321}
	for _, width := range []int{0, 10, 40, 80, 200} {
		p := &progressLine{width: width}
		line := p.format(stats, 90*time.Minute)
		limit := width - 1
		if width == 0 {
			limit = 79
		}
		if len(line) > limit {
			t.Errorf("width %d: line is %d bytes, want at most %d: %q", width, len(line), limit, line)
		}
	}
}

func TestProgressLineShowsEveryCounter(t *testing.T) {
	p := &progressLine{width: 200}
	line := p.format(progressStats{phase: "scanning", files: 1204, bytes: 311 << 20, findings: 2, warnings: 1, scanning: 2 * time.Second}, 3*time.Second)
	for _, want := range []string{"scanning", "1204 files", "311 MiB", "2 findings", "1 warning", "156 MiB/s", "0:03"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	// No warnings, no warnings field; no rate before half a second.
	line = p.format(progressStats{phase: "scanning", files: 1, scanning: 100 * time.Millisecond}, 5*time.Second)
	if strings.Contains(line, "warning") || strings.Contains(line, "/s") {
		t.Errorf("line %q shows a zero warning count or an early rate", line)
	}
}

// lockedBuffer is a bytes.Buffer safe for the renderer's goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestProgressPrintErasesTheLineFirstAndStopLeavesNothing(t *testing.T) {
	var out lockedBuffer
	p := startProgress(&out, 80, func() progressStats { return progressStats{phase: "scanning"} })
	p.Print("spindle: warning: x\n")
	p.Stop()
	got := out.String()
	// Whatever was drawn, a warning starts on an erased line, and the
	// output ends with the line erased.
	if !strings.Contains(got, "\r\x1b[Kspindle: warning: x\n") {
		t.Errorf("warning not printed on an erased line: %q", got)
	}
	if tail := got[strings.LastIndexByte(got, '\n')+1:]; tail != "" && !strings.HasSuffix(tail, "\r\x1b[K") {
		t.Errorf("output ends with a progress line left on screen: %q", got)
	}
	if !strings.HasPrefix(got, "\rscanning") {
		t.Errorf("the first line is not drawn at once: %q", got)
	}
}

func TestProgressStopErasesARedrawnLine(t *testing.T) {
	var out lockedBuffer
	p := startProgress(&out, 80, func() progressStats { return progressStats{phase: "scanning"} })
	p.Print("spindle: warning: x\n")
	// Wait for a redraw after the warning: the line is back on screen.
	for deadline := time.Now().Add(10 * time.Second); ; {
		got := out.String()
		if strings.Contains(got[strings.LastIndexByte(got, '\n'):], "scanning") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no redraw after a warning: %q", got)
		}
		time.Sleep(progressInterval / 4)
	}
	p.Stop()
	if got := out.String(); !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("Stop left the line on screen: %q", got)
	}
}

func TestFormatBytesUsesBinaryUnits(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {10 << 10, "10 KiB"},
		{311 << 20, "311 MiB"}, {3 << 29, "1.5 GiB"}, {1 << 62, "4.0 EiB"},
	}
	for _, tt := range tests {
		if got := formatBytes(tt.n); got != tt.want {
			t.Errorf("formatBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestFormatElapsed(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0:00"}, {59 * time.Second, "0:59"}, {61 * time.Second, "1:01"}, {3723 * time.Second, "1:02:03"},
	}
	for _, tt := range tests {
		if got := formatElapsed(tt.d); got != tt.want {
			t.Errorf("formatElapsed(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestProgressLineCountsCommits: a history scan's line counts commits
// where a tree scan's counts files.
func TestProgressLineCountsCommits(t *testing.T) {
	p := &progressLine{width: 200}
	line := p.format(progressStats{phase: "scanning", commits: 2655, files: 10046, bytes: 5 << 20, findings: 5}, 3*time.Second)
	if !strings.Contains(line, "2655 commits") || strings.Contains(line, "files") {
		t.Errorf("line %q", line)
	}
}
