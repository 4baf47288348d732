package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ANSI SGR sequences used by the text format when Options.Color is set.
const (
	sgrReset  = "\x1b[0m"
	sgrFile   = "\x1b[1m"  // bold
	sgrPos    = "\x1b[2m"  // dim
	sgrRule   = "\x1b[36m" // cyan
	sgrSecret = "\x1b[31m" // red
)

// textWriter is the human format: findings grouped by file, files in path
// order, each finding on one line with its position, rule and secret:
//
//	config/app.env
//	  3:11  aws-access-token  AKIAIOSFODNN7EXAMPLE
//	  9:1   generic-api-key   REDACTED
//
// Grouping needs every finding, and the engine reports them in no particular
// order, so the writer buffers them all (after redaction) and writes at
// Close; nothing reaches w before then. Sorting also makes the output the
// same from run to run, whatever the worker count.
//
// Everything printed comes from scanned files, which may be hostile: control
// characters (a terminal escape sequence, a newline in a multi-line secret),
// bidirectional overrides and invalid UTF-8 are shown escaped, Go-style
// (\x1b, \n, \u202e), so a finding cannot rewrite the terminal or hide other
// findings. The text format is for people; json, jsonl, sarif and csv carry
// values exactly.
type textWriter struct {
	w        io.Writer
	opts     Options
	findings []Finding
	state    closeState
}

func newTextWriter(w io.Writer, opts Options) *textWriter {
	return &textWriter{w: w, opts: opts}
}

func (t *textWriter) Write(f Finding) error {
	if err := t.state.check(); err != nil {
		return err
	}
	f = Redact(f, t.opts.Redact)
	f.Tags = nil // not printed; no reason to keep the caller's slice alive
	t.findings = append(t.findings, f)
	return nil
}

func (t *textWriter) Close() error {
	return t.state.close(t.render)
}

// textRow is one finding's printable cells, escaped.
type textRow struct{ pos, rule, secret string }

// render writes the grouped report. An empty report writes nothing: the
// summary on standard error already says there were no findings.
func (t *textWriter) render() error {
	slices.SortStableFunc(t.findings, func(a, b Finding) int {
		return compareFindings(&a, &b)
	})
	bw := bufio.NewWriter(t.w)
	var rows []textRow
	for start := 0; start < len(t.findings); {
		end := start + 1
		for end < len(t.findings) && t.findings[end].File == t.findings[start].File {
			end++
		}
		rows = rows[:0]
		posWidth, ruleWidth := 0, 0
		for _, f := range t.findings[start:end] {
			secret := f.Secret
			if secret == "" {
				secret = f.Match
			}
			r := textRow{
				pos:    strconv.Itoa(f.Line) + ":" + strconv.Itoa(f.Column),
				rule:   escapeText(f.RuleID),
				secret: escapeText(secret),
			}
			posWidth = max(posWidth, utf8.RuneCountInString(r.pos))
			ruleWidth = max(ruleWidth, utf8.RuneCountInString(r.rule))
			rows = append(rows, r)
		}
		if start > 0 {
			bw.WriteByte('\n')
		}
		t.paint(bw, sgrFile, escapeText(t.findings[start].File))
		bw.WriteByte('\n')
		for _, r := range rows {
			bw.WriteString("  ")
			t.paint(bw, sgrPos, r.pos)
			pad(bw, posWidth-utf8.RuneCountInString(r.pos)+2)
			t.paint(bw, sgrRule, r.rule)
			pad(bw, ruleWidth-utf8.RuneCountInString(r.rule)+2)
			t.paint(bw, sgrSecret, r.secret)
			bw.WriteByte('\n')
		}
		start = end
	}
	t.findings = nil
	return bw.Flush()
}

// paint writes s, wrapped in the SGR sequence when colour is on.
func (t *textWriter) paint(bw *bufio.Writer, sgr, s string) {
	if t.opts.Color {
		bw.WriteString(sgr)
		bw.WriteString(s)
		bw.WriteString(sgrReset)
		return
	}
	bw.WriteString(s)
}

// pad writes n spaces (none for n ≤ 0).
func pad(bw *bufio.Writer, n int) {
	for range n {
		bw.WriteByte(' ')
	}
}

// escapeText returns s with everything that could act on a terminal or
// mislead a reader escaped: control characters, bidirectional formatting
// characters, and bytes that are not UTF-8. Printable text, including
// non-ASCII letters, is left alone.
func escapeText(s string) string {
	clean := utf8.ValidString(s)
	for _, r := range s {
		if !clean || !textSafe(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case textSafe(r):
			b.WriteString(s[i : i+size])
		default:
			// QuoteRune gives the Go escape ('\n', '\x1b', '\u202e');
			// the quotes are dropped.
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// textSafe reports whether r can be printed as is. U+FFFD here is a real
// replacement character in the input, which is harmless; an invalid byte is
// caught by the caller before this is asked.
func textSafe(r rune) bool {
	if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
		return false
	}
	// Line and paragraph separators break lines in some terminals.
	return r != '\u2028' && r != '\u2029'
}
