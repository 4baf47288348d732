package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// progressInterval is how often the progress line is redrawn: fast enough to
// look live, slow enough that redrawing costs nothing next to the scan and
// that a terminal multiplexer does not lag behind.
const progressInterval = 125 * time.Millisecond

// progressStats is one reading of a running scan's counters.
type progressStats struct {
	phase    string // "scanning", "writing report"
	commits  int64  // a history scan's commits diffed so far (0 otherwise)
	files    int64
	bytes    int64
	findings int64
	warnings int64
	// scanning is how long the scan itself has run, the base of the
	// throughput (loading rules reads no bytes); 0 before it starts.
	scanning time.Duration
}

// progressLine draws one self-overwriting status line on a terminal:
//
//	scanning  1204 files  311 MiB  2 findings  0 warnings  402 MiB/s  0:03
//
// It is a small renderer of its own rather than a progress-bar library: a
// scan has no total to draw a bar against (files are discovered as it
// goes), the line is a handful of counters read from atomics, and the one
// hard part, keeping warnings printed mid-scan from tearing the line, needs
// the lock below around both the line and the warning, which a library that
// owns the line does not offer.
//
// The line is cut to the terminal's width so it never wraps (a wrapped line
// cannot be overwritten with \r), and erased when the scan ends so the
// summary starts on a clean line.
type progressLine struct {
	w     io.Writer
	width int // columns; 0: unknown, assume 80
	read  func() progressStats
	start time.Time

	mu    sync.Mutex // guards writes to w and drawn
	drawn bool       // a line is on screen and must be erased before other output

	stop chan struct{}
	done chan struct{}
}

// startProgress draws the first line at once, so even a short scan shows
// what it is doing, and redraws it every progressInterval until Stop.
func startProgress(w io.Writer, width int, read func() progressStats) *progressLine {
	p := &progressLine{
		w: w, width: width, read: read, start: time.Now(),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	p.draw()
	go p.loop()
	return p
}

func (p *progressLine) loop() {
	defer close(p.done)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.draw()
		}
	}
}

// draw replaces the line on screen with the current counters.
func (p *progressLine) draw() {
	line := p.format(p.read(), time.Since(p.start))
	p.mu.Lock()
	defer p.mu.Unlock()
	// \r returns to column 0; ESC[K erases what a longer previous line left.
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.drawn = true
}

// format renders s, cut to the terminal width minus one column: writing the
// last column makes some terminals wrap at once.
func (p *progressLine) format(s progressStats, elapsed time.Duration) string {
	fields := []string{s.phase}
	if s.commits > 0 {
		// A history: commits diffed, then the changed lines scanned.
		fields = append(fields, plural(s.commits, "commit", "commits"))
	} else {
		fields = append(fields, plural(s.files, "file", "files"))
	}
	fields = append(fields, formatBytes(s.bytes), plural(s.findings, "finding", "findings"))
	if s.warnings > 0 {
		fields = append(fields, plural(s.warnings, "warning", "warnings"))
	}
	if secs := s.scanning.Seconds(); secs >= 0.5 {
		fields = append(fields, formatBytes(int64(float64(s.bytes)/secs))+"/s")
	}
	fields = append(fields, formatElapsed(elapsed))
	line := strings.Join(fields, "  ")
	width := p.width
	if width <= 0 {
		width = 80
	}
	if limit := width - 1; len(line) > limit && limit > 0 {
		line = line[:limit]
	}
	return line
}

// Print writes text (which should end in a newline) above the progress
// line: the line is erased, the text written, and the line redrawn at the
// next tick. Warnings go through here so they never land in the middle of
// the line.
func (p *progressLine) Print(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
		p.drawn = false
	}
	io.WriteString(p.w, text)
}

// Stop stops redrawing and erases the line. It must be called once.
func (p *progressLine) Stop() {
	close(p.stop)
	<-p.done
	p.Print("")
}

// plural formats a count with its noun.
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// formatBytes writes n in binary units with three significant digits or so:
// 512 B, 9.8 KiB, 311 MiB.
func formatBytes(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, u := float64(n)/1024, 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if v < 9.95 {
		return strconv.FormatFloat(v, 'f', 1, 64) + " " + units[u:u+1] + "iB"
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " " + units[u:u+1] + "iB"
}

// formatElapsed writes d as m:ss, or h:mm:ss past an hour.
func formatElapsed(d time.Duration) string {
	s := int64(d / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
