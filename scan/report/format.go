package report

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Format names an output format. The zero value is not a format; use
// ParseFormat to turn a flag's value into one.
type Format string

// The formats NewWriter knows. FormatText is the command's default.
const (
	FormatText  Format = "text"
	FormatJSON  Format = "json"
	FormatJSONL Format = "jsonl"
	FormatSARIF Format = "sarif"
	FormatCSV   Format = "csv"
)

// formats is the order Formats and error messages list them in: the default
// first, then the machine formats from most to least common.
var formats = []Format{FormatText, FormatJSON, FormatJSONL, FormatSARIF, FormatCSV}

// ErrUnknownFormat is wrapped by the errors ParseFormat and NewWriter return
// for a name that is not one of Formats.
var ErrUnknownFormat = errors.New("unknown report format")

// Formats returns the names ParseFormat accepts, default first. The slice is
// the caller's to keep.
func Formats() []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return names
}

// ParseFormat returns the Format named by s, ignoring case and surrounding
// space. The error for any other name lists the valid ones, so the command can
// print it as is.
func ParseFormat(s string) (Format, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for _, f := range formats {
		if name == string(f) {
			return f, nil
		}
	}
	return "", fmt.Errorf("report: %w %q (valid: %s)", ErrUnknownFormat, s, strings.Join(Formats(), ", "))
}

// Options tune a writer. The zero value writes unredacted, uncoloured output
// with the tool named "spindle".
type Options struct {
	// Redact is the percentage of each secret hidden: 0 leaves secrets as
	// they are, 1..99 keeps the leading (100−Redact)% of each secret and
	// appends "..." (see Redact), 100 replaces each secret with "REDACTED".
	// Every format honours it.
	Redact int

	// Color turns on ANSI colour in the text format. The command sets it only
	// when standard output is a terminal; other formats ignore it.
	Color bool

	// Rules describe the rules of the run, in the order tool.driver.rules
	// lists them in SARIF. A finding whose rule is missing here gets a rule
	// entry built from the finding, so the log stays self-consistent.
	Rules []RuleMeta

	// ToolName and ToolVersion name the producer in SARIF's tool.driver.
	// ToolName defaults to "spindle"; an empty version is left out.
	ToolName, ToolVersion string
}

// RuleMeta is what a report needs to know about a rule beyond a finding's
// RuleID: SARIF lists every rule of the run with its description and tags.
type RuleMeta struct {
	ID          string
	Description string
	Tags        []string
}

// Writer emits findings in one format.
//
// A Writer is not safe for concurrent use: the engine serialises its calls
// (one goroutine drains the findings), and a caller that does not must lock.
// Write never keeps a reference to the caller's Finding beyond the call.
//
// When a format's output reaches w differs by format, and is part of the
// contract: jsonl writes each finding to w before Write returns (streaming, so
// a consumer sees findings while the scan runs); json and csv write each
// finding as it comes but may hold the last bytes until Close; text and sarif
// buffer everything and write at Close, text because it groups and sorts by
// file, sarif because a log is one JSON document whose rule table must be
// complete before the results.
//
// Once w returns an error, every later Write and Close returns that error.
type Writer interface {
	// Write adds one finding to the report, redacted as Options.Redact asks.
	Write(f Finding) error
	// Close finishes the report: json closes the array ("[]" when empty),
	// sarif writes the whole log, text writes its grouped output. It does not
	// close w. Calling Close again returns the first Close's result; Write
	// after Close returns ErrWriterClosed.
	Close() error
}

// ErrWriterClosed is returned by Write after Close.
var ErrWriterClosed = errors.New("report: write after close")

// NewWriter returns a Writer that emits format to w. It fails for an unknown
// format or a Redact outside 0..100.
func NewWriter(format Format, w io.Writer, opts Options) (Writer, error) {
	if opts.Redact < 0 || opts.Redact > 100 {
		return nil, fmt.Errorf("report: redact percentage %d out of range 0..100", opts.Redact)
	}
	if opts.ToolName == "" {
		opts.ToolName = "spindle"
	}
	switch format {
	case FormatText:
		return newTextWriter(w, opts), nil
	case FormatJSON:
		return newJSONWriter(w, opts), nil
	case FormatJSONL:
		return newJSONLWriter(w, opts), nil
	case FormatSARIF:
		return newSARIFWriter(w, opts), nil
	case FormatCSV:
		return newCSVWriter(w, opts), nil
	}
	return nil, fmt.Errorf("report: %w %q (valid: %s)", ErrUnknownFormat, string(format), strings.Join(Formats(), ", "))
}

// closeState is the bookkeeping every writer shares: whether it is closed,
// what its Close returned, and the first error from the destination, which
// sticks so that a report never continues after a lost write.
type closeState struct {
	closed   bool
	closeErr error
	err      error
}

// check returns the error a Write must return before doing anything.
func (s *closeState) check() error {
	if s.err != nil {
		return s.err
	}
	if s.closed {
		return ErrWriterClosed
	}
	return nil
}

// fail records err (if it is the first) and returns the sticky error.
func (s *closeState) fail(err error) error {
	if s.err == nil && err != nil {
		s.err = err
	}
	return s.err
}

// close runs finish once, unless a write has already failed, and returns
// the same result on every later call.
func (s *closeState) close(finish func() error) error {
	if s.closed {
		return s.closeErr
	}
	s.closed = true
	if s.err != nil {
		s.closeErr = s.err
	} else {
		s.closeErr = s.fail(finish())
	}
	return s.closeErr
}

// compareFindings is the order sorted reports (text, sarif) list findings
// in: by file, position, and rule, then by the remaining fields, so that the
// order is total and a report does not depend on the order of Write calls.
func compareFindings(a, b *Finding) int {
	return cmp.Or(
		strings.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Column, b.Column),
		strings.Compare(a.RuleID, b.RuleID),
		cmp.Compare(a.EndLine, b.EndLine),
		cmp.Compare(a.EndColumn, b.EndColumn),
		strings.Compare(a.Secret, b.Secret),
		strings.Compare(a.Match, b.Match),
	)
}
