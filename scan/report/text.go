package report

import (
	"bufio"
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
	sgrCommit = "\x1b[33m" // yellow
)

// textFormat is the human format: findings grouped by file, files in path
// order, each finding on one line with its position, rule and secret:
//
//	config/app.env
//	  3:11  aws-access-token  AKIAIOSFODNN7EXAMPLE
//	  9:1   generic-api-key   REDACTED
//
// History findings are grouped by commit first, the commit introduced by a
// header in the manner of git log, then by file:
//
//	commit 9fceb02d0ae598e95dc970b74767f19372d61af8
//	Author: Ann <ann@example.com>
//	Date:   2024-03-01T08:00:00Z
//	Message: add deploy keys
//
//	deploy/app.env
//	  3:11  aws-access-token  AKIAIOSFODNN7EXAMPLE
//
// The writer sorts (see compareFindings), so the output is the same from run
// to run whatever the worker count. Columns are aligned within blocks of up
// to textBlock findings of one file, so that a file with a million findings
// does not have to be held to align them. An empty report writes nothing:
// the summary on standard error already says there were no findings.
//
// Everything printed comes from scanned files, which may be hostile: control
// characters (a terminal escape sequence, a newline in a multi-line secret),
// bidirectional overrides and invalid UTF-8 are shown escaped, Go-style
// (\x1b, \n, \u202e), so a finding cannot rewrite the terminal or hide other
// findings. The text format is for people; json, jsonl, sarif and csv carry
// values exactly.
type textFormat struct {
	opts    Options
	started bool   // something has been written
	commit  string // the current commit group
	file    string // the current file group
	rows    []textRow
}

// textBlock is the most rows aligned together.
const textBlock = 1024

func (t *textFormat) entry(f Finding) entry {
	f = Redact(f, t.opts.Redact)
	f.Tags = nil // not printed; no reason to keep the caller's slice alive
	return entry{f: f}
}

func (t *textFormat) begin(*bufio.Writer) error { return nil }

// markIncomplete: a text report is for people, and what a stopped scan
// found is worth showing them; the command says that it stopped.
func (t *textFormat) markIncomplete() bool { return true }

// textRow is one finding's printable cells, escaped.
type textRow struct{ pos, rule, secret string }

func (t *textFormat) finding(bw *bufio.Writer, e *entry) error {
	f := &e.f
	newCommit := !t.started || f.Commit != t.commit
	if newCommit || f.File != t.file || len(t.rows) == textBlock {
		t.flushRows(bw)
	}
	if newCommit && f.Commit != "" {
		if t.started {
			bw.WriteByte('\n')
		}
		t.commitHeader(bw, f)
	}
	if newCommit || f.File != t.file {
		if t.started {
			bw.WriteByte('\n')
		}
		t.paint(bw, sgrFile, escapeText(f.File))
		bw.WriteByte('\n')
	}
	t.started, t.commit, t.file = true, f.Commit, f.File

	secret := f.Secret
	if secret == "" {
		secret = f.Match
	}
	t.rows = append(t.rows, textRow{
		pos:    strconv.Itoa(f.Line) + ":" + strconv.Itoa(f.Column),
		rule:   escapeText(f.RuleID),
		secret: escapeText(secret),
	})
	_, err := bw.Write(nil) // the sticky error of the destination, if any
	return err
}

// commitHeader introduces a commit's findings.
func (t *textFormat) commitHeader(bw *bufio.Writer, f *Finding) {
	t.paint(bw, sgrCommit, "commit "+escapeText(f.Commit))
	bw.WriteByte('\n')
	if f.Author != "" || f.Email != "" {
		bw.WriteString("Author: " + escapeText(f.Author))
		if f.Email != "" {
			bw.WriteString(" <" + escapeText(f.Email) + ">")
		}
		bw.WriteByte('\n')
	}
	if f.Date != "" {
		bw.WriteString("Date:   " + escapeText(f.Date) + "\n")
	}
	if f.Message != "" {
		bw.WriteString("Message: " + escapeText(f.Message) + "\n")
	}
}

// flushRows writes the pending rows, aligned.
func (t *textFormat) flushRows(bw *bufio.Writer) {
	posWidth, ruleWidth := 0, 0
	for _, r := range t.rows {
		posWidth = max(posWidth, utf8.RuneCountInString(r.pos))
		ruleWidth = max(ruleWidth, utf8.RuneCountInString(r.rule))
	}
	for _, r := range t.rows {
		bw.WriteString("  ")
		t.paint(bw, sgrPos, r.pos)
		pad(bw, posWidth-utf8.RuneCountInString(r.pos)+2)
		t.paint(bw, sgrRule, r.rule)
		pad(bw, ruleWidth-utf8.RuneCountInString(r.rule)+2)
		t.paint(bw, sgrSecret, r.secret)
		bw.WriteByte('\n')
	}
	clear(t.rows)
	t.rows = t.rows[:0]
}

func (t *textFormat) end(bw *bufio.Writer) error {
	t.flushRows(bw)
	_, err := bw.Write(nil)
	return err
}

// paint writes s, wrapped in the SGR sequence when colour is on.
func (t *textFormat) paint(bw *bufio.Writer, sgr, s string) {
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
func escapeText(s string) string { return escapeUnsafe(s, textSafe) }

// escapeUnsafe returns s with every rune that safe refuses written as its
// Go escape ('\n', '\x1b', '\u202e', without the quotes) and every byte
// that is not UTF-8 as \xXX; s itself when nothing needs escaping. The
// console, text and JUnit writers differ only in what they call safe.
func escapeUnsafe(s string, safe func(rune) bool) string {
	clean := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !safe(r) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + string(hexDigits[s[i]>>4]) + string(hexDigits[s[i]&0xF]))
		case safe(r):
			b.WriteString(s[i : i+size])
		default:
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
