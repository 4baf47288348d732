package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// csvHeader names the columns: the JSON field names, in Finding's order, so
// that the two machine formats read alike.
var csvHeader = []string{
	"rule_id", "description", "file", "line", "column", "end_line", "end_column",
	"secret", "match", "entropy", "fingerprint", "tags",
}

// csvWriter writes CSV: a header row, then one row per finding, quoted as
// RFC 4180 says (encoding/csv quotes any field holding a comma, quote, or
// line break, so a secret spanning lines stays one field) and ending lines
// with \n, as encoding/csv and gitleaks do. Tags are joined with a space, as
// gitleaks does.
//
// Values are written as found. A spreadsheet may treat a field that starts
// with '=', '+', '-' or '@' as a formula; a report read from an untrusted
// repository should be opened as text, not evaluated. Prefixing such fields
// would corrupt secrets that legitimately start with those characters.
type csvWriter struct {
	cw     *csv.Writer
	opts   Options
	header bool // header row written
	row    []string
	state  closeState
}

func newCSVWriter(w io.Writer, opts Options) *csvWriter {
	return &csvWriter{cw: csv.NewWriter(w), opts: opts, row: make([]string, len(csvHeader))}
}

// writeHeader writes the header once; an empty report is the header alone.
func (c *csvWriter) writeHeader() error {
	if c.header {
		return nil
	}
	c.header = true
	return c.cw.Write(csvHeader)
}

func (c *csvWriter) Write(f Finding) error {
	if err := c.state.check(); err != nil {
		return err
	}
	if err := c.writeHeader(); err != nil {
		return c.state.fail(err)
	}
	f = prepare(f, c.opts)
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
	// csv.Writer buffers; an error from the destination surfaces on a later
	// Write or at Flush, and sticks from then on.
	if err := c.cw.Write(c.row); err != nil {
		return c.state.fail(err)
	}
	return nil
}

func (c *csvWriter) Close() error {
	return c.state.close(func() error {
		if err := c.writeHeader(); err != nil {
			return err
		}
		c.cw.Flush()
		return c.cw.Error()
	})
}
