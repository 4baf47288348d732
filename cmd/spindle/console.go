package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// console serialises writes to standard error between the progress line
// (if any) and the messages printed while it runs: warnings come from the
// engine's goroutine, the line from its own.
type console struct {
	mu   sync.Mutex
	w    io.Writer
	line *progressLine

	// The drop-ins' style: messages are log lines, as gitleaks' logger
	// writes them, filtered by level.
	logs  bool
	level logLevel
	color bool
	now   func() time.Time
}

// stop erases the progress line for good, if there is one. It may be
// called more than once.
func (c *console) stop() {
	if c.line != nil {
		c.line.Stop()
		c.line = nil
	}
}

// Print writes text, above the progress line if one is shown.
func (c *console) Print(text string) {
	if c.line != nil {
		c.line.Print(text)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	io.WriteString(c.w, text)
}

// warn prints a warning: "spindle: warning: text" in spindle's style, a
// WRN line in the drop-ins'.
func (c *console) warn(text string) {
	if c.logs {
		c.log(levelWarn, text)
		return
	}
	c.Print("spindle: warning: " + text + "\n")
}

// logLevel is gitleaks' --log-level: the least severe messages printed.
type logLevel int

const (
	levelTrace logLevel = iota
	levelDebug
	levelInfo
	levelWarn
	levelError
	levelFatal
)

// parseLogLevel reads --log-level as gitleaks does (case ignored).
func parseLogLevel(s string) (logLevel, error) {
	switch strings.ToLower(s) {
	case "trace":
		return levelTrace, nil
	case "debug":
		return levelDebug, nil
	case "info":
		return levelInfo, nil
	case "warn", "warning":
		return levelWarn, nil
	case "err", "error":
		return levelError, nil
	case "fatal", "panic":
		return levelFatal, nil
	}
	return 0, fmt.Errorf("invalid argument %q for \"-l, --log-level\": want trace, debug, info, warn, error or fatal", s)
}

// The three letters and colour of each level, as gitleaks' console logger
// (zerolog's) writes them.
var levelTags = [...]struct{ tag, sgr string }{
	levelTrace: {"TRC", "\x1b[35m"},
	levelDebug: {"DBG", "\x1b[33m"},
	levelInfo:  {"INF", "\x1b[32m"},
	levelWarn:  {"WRN", "\x1b[33m"},
	levelError: {"ERR", "\x1b[31m"},
	levelFatal: {"FTL", "\x1b[31m"},
}

// log prints one log line, "3:04PM INF message", if level passes the
// console's; colours on a terminal.
func (c *console) log(level logLevel, msg string) {
	if level < c.level {
		return
	}
	when := c.now().Format(time.Kitchen)
	t := levelTags[level]
	if c.color {
		c.Print("\x1b[90m" + when + "\x1b[0m " + t.sgr + t.tag + "\x1b[0m \x1b[1m" + msg + "\x1b[0m\n")
		return
	}
	c.Print(when + " " + t.tag + " " + msg + "\n")
}

// banner is what the drop-ins print on standard error before anything
// else unless --no-banner, where gitleaks prints its own.
const banner = `
   ═╤═
    │╲
    │ ╲   spindle
    │ ╱
   ═╧═

`

// humanSI writes a byte count as gitleaks' summary does: SI units with two
// decimals, trailing ".00" dropped ("39 bytes", "1.5 KB", "12 MB").
func humanSI(n int64) string {
	v, unit := float64(n), "bytes"
	switch {
	case n >= 1e9:
		v, unit = v/1e9, "GB"
	case n >= 1e6:
		v, unit = v/1e6, "MB"
	case n >= 1e3:
		v, unit = v/1e3, "KB"
	case n == 0:
		return "0"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.2f", float32(v)), ".00") + " " + unit
}

// roundDuration rounds d to three significant digits, as gitleaks' summary
// prints durations (8.05ms, 1.24s).
func roundDuration(d time.Duration) time.Duration {
	scale := 100 * time.Second
	for scale > d && scale > 1 {
		scale /= 10
	}
	return d.Round(max(scale/100, 1))
}
