package report

import (
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Summary is the end-of-scan account the command prints to standard error,
// apart from the report so that a redirected report stays machine-readable.
type Summary struct {
	Files    int64         // files scanned, archives included
	Members  int64         // archive members scanned, at every depth
	Bytes    int64         // bytes scanned
	Duration time.Duration // wall time of the scan
	Findings int           // findings reported (after the baseline)

	// Warnings come in two classes. Lost counts warnings where data went
	// unscanned: an unreadable file, a budget hit, a truncated archive that
	// hid members; --strict fails on them. Noise counts warnings where
	// nothing was lost: a corrupt archive with no members to lose.
	Lost, Noise int64
	// Warnings is the total number of warnings, for a caller that does not
	// classify them; the total printed is the larger of Warnings and
	// Lost+Noise, and what the classes do not account for is "other".
	Warnings int

	// Skipped counts objects not scanned, by reason (the scan package's
	// Skip* names: "binary", "size", "ignored", "allowlist"...);
	// reasons with a zero count are
	// not printed.
	Skipped map[string]int64
}

// WriteText writes s for a person, in at most three lines:
//
//	scanned 1250 files and 3 archive members, 1.2 GiB in 1.53s (840 MiB/s)
//	3 findings, 4 warnings (1 lost data, 3 noise)
//	skipped: 12 binary, 4 size
//
// Sizes are in binary units (KiB, MiB, GiB), with one decimal below 10; the
// rate is left out when the duration is zero; the classes of the warnings
// are shown when any is counted, those with a zero count left out; the
// skipped line is left out when nothing was skipped, and lists reasons in
// name order. It writes to w once.
func (s Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("scanned ")
	b.WriteString(plural(s.Files, "file", "files"))
	if s.Members > 0 {
		b.WriteString(" and ")
		b.WriteString(plural(s.Members, "archive member", "archive members"))
	}
	b.WriteString(", ")
	b.WriteString(humanBytes(s.Bytes))
	b.WriteString(" in ")
	b.WriteString(humanDuration(s.Duration))
	if s.Duration > 0 {
		rate := float64(s.Bytes) / s.Duration.Seconds()
		b.WriteString(" (")
		b.WriteString(humanBytes(int64(min(rate, 1<<62))))
		b.WriteString("/s)")
	}
	b.WriteString("\n")
	b.WriteString(plural(int64(s.Findings), "finding", "findings"))
	b.WriteString(", ")
	total := max(int64(s.Warnings), s.Lost+s.Noise)
	b.WriteString(plural(total, "warning", "warnings"))
	if s.Lost+s.Noise > 0 {
		var classes []string
		if s.Lost > 0 {
			classes = append(classes, strconv.FormatInt(s.Lost, 10)+" lost data")
		}
		if s.Noise > 0 {
			classes = append(classes, strconv.FormatInt(s.Noise, 10)+" noise")
		}
		if other := total - s.Lost - s.Noise; other > 0 {
			classes = append(classes, strconv.FormatInt(other, 10)+" other")
		}
		b.WriteString(" (" + strings.Join(classes, ", ") + ")")
	}
	b.WriteString("\n")

	var reasons []string
	for _, reason := range slices.Sorted(maps.Keys(s.Skipped)) {
		if n := s.Skipped[reason]; n != 0 {
			reasons = append(reasons, strconv.FormatInt(n, 10)+" "+escapeText(reason))
		}
	}
	if len(reasons) > 0 {
		b.WriteString("skipped: ")
		b.WriteString(strings.Join(reasons, ", "))
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// plural formats a count with its noun.
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// byteUnits are the binary multiples humanBytes uses, 1024 apart.
var byteUnits = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// humanBytes formats n bytes as "512 B", "1.2 GiB", "840 MiB": one decimal
// below 10 of a unit, whole numbers from 10, and never "1024 KiB" (rounding
// that reaches the next unit moves to it).
func humanBytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v := float64(n)
	unit := 0
	for unit < len(byteUnits)-1 && v >= 1024 {
		v /= 1024
		unit++
	}
	if v < 9.95 {
		return strconv.FormatFloat(v, 'f', 1, 64) + " " + byteUnits[unit]
	}
	if v >= 1023.5 && unit < len(byteUnits)-1 {
		return "1.0 " + byteUnits[unit+1]
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " " + byteUnits[unit]
}

// humanDuration rounds d to three significant figures or so: 840µs, 412ms,
// 1.53s, 2m3s.
func humanDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
