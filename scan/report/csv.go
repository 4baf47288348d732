package report

import (
	"bufio"
	"encoding/csv"
	"strconv"
	"strings"
)

// csvHeader names the columns: the JSON field names, in Finding's order, so
// that the two machine formats read alike. The history columns are always
// present (empty outside history), so that every report has one shape.
var csvHeader = []string{
	"rule_id", "description", "file", "line", "column", "end_line", "end_column",
	"secret", "match", "entropy", "fingerprint", "tags",
	"commit", "author", "email", "date", "message",
}

// csvFormat writes CSV: a header row, then one row per finding in sorted
// order, quoted as RFC 4180 says (encoding/csv quotes any field holding a
// comma, quote, or line break, so a secret spanning lines stays one field)
// and ending lines with \n, as encoding/csv and gitleaks do. Tags are joined
// with a space, as gitleaks does. Nothing is written before Close, when
// the header goes out before the rows: an empty report is the header
// alone, and a report closed by CloseIncomplete is nothing at all, since a
// header alone would read as a scan that found nothing.
//
// Values are written as found, bytes that are not UTF-8 included. A
// spreadsheet may treat a field that starts with '=', '+', '-' or '@' as a
// formula; a report read from an untrusted repository should be opened as
// text, not evaluated. Prefixing such fields would corrupt secrets that
// legitimately start with those characters.
type csvFormat struct {
	opts Options
	cw   *csv.Writer
	row  []string
}

func newCSVFormat(opts Options) *csvFormat {
	return &csvFormat{opts: opts, row: make([]string, len(csvHeader))}
}

func (c *csvFormat) entry(f Finding) entry { return entry{f: prepare(f, c.opts)} }

func (c *csvFormat) begin(*bufio.Writer) error { return nil }

// header writes the header row, once, before the first row or at the end.
func (c *csvFormat) header(w *bufio.Writer) {
	if c.cw == nil {
		c.cw = csv.NewWriter(w)
		c.cw.Write(csvHeader)
	}
}

func (c *csvFormat) finding(w *bufio.Writer, e *entry) error {
	c.header(w)
	f := &e.f
	c.row[0] = f.RuleID
	c.row[1] = f.Description
	c.row[2] = f.File
	c.row[3] = strconv.Itoa(f.Line)
	c.row[4] = strconv.Itoa(f.Column)
	c.row[5] = strconv.Itoa(f.EndLine)
	c.row[6] = strconv.Itoa(f.EndColumn)
	c.row[7] = f.Secret
	c.row[8] = f.Match
	c.row[9] = strconv.FormatFloat(f.Entropy, 'f', -1, 64)
	c.row[10] = f.Fingerprint
	c.row[11] = strings.Join(f.Tags, " ")
	c.row[12] = f.Commit
	c.row[13] = f.Author
	c.row[14] = f.Email
	c.row[15] = f.Date
	c.row[16] = f.Message
	// csv.Writer buffers; an error from the destination surfaces on a later
	// Write, and the sorted writer stops there.
	return c.cw.Write(c.row)
}

func (c *csvFormat) end(w *bufio.Writer) error {
	c.header(w)
	c.cw.Flush()
	return c.cw.Error()
}
