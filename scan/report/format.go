package report

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
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
	// FormatJUnit is JUnit XML for CI test reports: a test suite per rule,
	// a failed test case per finding.
	FormatJUnit Format = "junit"
	// FormatGitleaks is the JSON report of gitleaks v8 (--report-format
	// json there): the same bytes gitleaks writes, field for field.
	FormatGitleaks Format = "gitleaks"
	// FormatGitleaksCSV is the CSV report of gitleaks v8 (--report-format
	// csv there): its columns, in its order.
	FormatGitleaksCSV Format = "gitleaks-csv"
	// FormatGitleaksSARIF is the SARIF report of gitleaks v8: its keys,
	// partialFingerprints holding the commit, author, email, date and
	// message.
	FormatGitleaksSARIF Format = "gitleaks-sarif"
	// FormatGitleaksJUnit is the JUnit report of gitleaks v8: one suite, a
	// failed case per finding holding the finding as gitleaks' JSON.
	FormatGitleaksJUnit Format = "gitleaks-junit"
	// FormatTemplate runs the Go text/template in Options.Template over the
	// findings, presented with gitleaks' field names.
	FormatTemplate Format = "template"
)

// formats is the order Formats and error messages list them in: the default
// first, then the machine formats from most to least common.
var formats = []Format{FormatText, FormatJSON, FormatJSONL, FormatSARIF, FormatCSV, FormatJUnit,
	FormatGitleaks, FormatGitleaksCSV, FormatGitleaksSARIF, FormatGitleaksJUnit, FormatTemplate}

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

// ConfigInfo names the rules a scan ran with.
type ConfigInfo struct {
	Name string `json:"config"`     // the file's path, or "built-in rules"
	Hash string `json:"configHash"` // "sha256:..." of the rules and settings
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

	// Template is the text of a Go text/template, required by
	// FormatTemplate and ignored by the others (--report-template FILE).
	Template string

	// RemoteURL is the scanned repository's remote, as `git ls-remote
	// --get-url` prints it (https or scp-like ssh; credentials are
	// dropped). With it the gitleaks format fills each history finding's
	// Link, as gitleaks does, and SARIF names the repository in
	// versionControlProvenance. Platform says how to build links:
	// "github", "gitlab", "azuredevops", "gitea", "bitbucket", "none", or
	// "" to recognise the platform from the host, as gitleaks' --platform.
	RemoteURL, Platform string

	// Revision is the commit the scanned tree was checked out at, for
	// SARIF's versionControlProvenance; empty leaves it out.
	Revision string

	// TempDir is where sorted formats spill runs of findings past their
	// memory threshold; "" is os.TempDir(). Run files are unlinked at
	// creation (deleted on close on Windows), so none outlives the process.
	TempDir string

	// Config names the rules the scan ran with (a file's path, or "built-in
	// rules") and their hash; SARIF records it in its invocation's
	// properties. A repository's own .gitleaks.toml can allowlist
	// everything, so a report should say which rules made it.
	Config *ConfigInfo

	// Shard marks a shard's report (a scan run with --shard i/n): json,
	// jsonl and gitleaks write it as their first element, SARIF in the
	// run's properties, so that Merge can check it holds one whole scan.
	// The other formats ignore it.
	Shard *Shard

	// spillAt overrides the spill threshold (bytes of buffered findings);
	// tests set it small to exercise the merge.
	spillAt int64
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
// a consumer sees findings while the scan runs, in arrival order). Every other
// format is sorted (see compareFindings; junit by rule first) so that two runs
// of one scan give the same bytes: the first Write writes the format's fixed
// opening (so that an unwritable destination fails the scan at once), the
// findings are held with bounded memory (spilled to temporary files past a
// threshold) and written in order at Close. template holds every finding in
// memory, since a template may index them.
//
// Once w (or a temporary file) returns an error, every later Write and Close
// returns that error; the first Write to see it returns it.
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

// CloseIncomplete ends the report of a scan that did not complete (it was
// interrupted, timed out or failed) so that it cannot be read as the
// report of a whole scan. Formats that can say so finish the report and
// say it: SARIF marks its run with executionSuccessful false. text, for
// people, is finished as by Close (the command says the scan stopped).
// Every other format writes nothing more than it has: a json report holds
// at most its opening bracket, which no reader takes for a complete
// report, and jsonl, which streams, ends at its last finding. It reports
// whether the report was finished, and like Close it may be called once.
func CloseIncomplete(w Writer) (finished bool, err error) {
	switch w := w.(type) {
	case *sortedWriter:
		return w.closeIncomplete()
	case *templateWriter:
		return false, w.state.close(func() error {
			w.findings = nil // a template may print anything: it is not run
			return nil
		})
	}
	return false, w.Close()
}

// NewWriter returns a Writer that emits format to w. It fails for an unknown
// format, a Redact outside 0..100, an unknown Platform, and for
// FormatTemplate a missing or invalid Options.Template.
func NewWriter(format Format, w io.Writer, opts Options) (Writer, error) {
	if opts.Redact < 0 || opts.Redact > 100 {
		return nil, fmt.Errorf("report: redact percentage %d out of range 0..100", opts.Redact)
	}
	if opts.ToolName == "" {
		opts.ToolName = "spindle"
	}
	remote, err := parseRemote(opts.RemoteURL, opts.Platform)
	if err != nil {
		return nil, err
	}
	switch format {
	case FormatText:
		return newSortedWriter(w, opts, compareFindings, &textFormat{opts: opts}), nil
	case FormatJSON:
		return newSortedWriter(w, opts, compareFindings, &jsonFormat{opts: opts}), nil
	case FormatJSONL:
		return newJSONLWriter(w, opts), nil
	case FormatSARIF:
		return newSortedWriter(w, opts, compareFindings, newSARIFFormat(opts, remote)), nil
	case FormatCSV:
		return newSortedWriter(w, opts, compareFindings, newCSVFormat(opts)), nil
	case FormatJUnit:
		return newSortedWriter(w, opts, compareByRule, &junitFormat{opts: opts}), nil
	case FormatGitleaks:
		return newSortedWriter(w, opts, compareFindings, &gitleaksFormat{opts: opts, remote: remote}), nil
	case FormatGitleaksCSV:
		return newSortedWriter(w, opts, compareFindings, &gitleaksCSVFormat{opts: opts, remote: remote}), nil
	case FormatGitleaksSARIF:
		return newSortedWriter(w, opts, compareFindings, &gitleaksSARIFFormat{opts: opts}), nil
	case FormatGitleaksJUnit:
		return newSortedWriter(w, opts, compareFindings, &gitleaksJUnitFormat{opts: opts, remote: remote}), nil
	case FormatTemplate:
		tw, err := newTemplateWriter(w, opts, remote)
		if err != nil {
			return nil, err
		}
		return tw, nil
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

// compareFindings is the order sorted reports list findings in: by file,
// position, and rule, then by the remaining fields, so that the order is
// total and a report does not depend on the order of Write calls. History
// findings are grouped by commit first (the commit hash orders the groups);
// a finding outside history has no commit and sorts as before.
func compareFindings(a, b *Finding) int {
	if c := comparePlace(a, b); c != 0 {
		return c
	}
	return compareRest(a, b)
}

// comparePlace orders by what places a finding and makes it the finding it
// is: commit, file, position, rule, secret, match and fingerprint. Two
// findings equal here are one finding reported twice (Merge drops one).
// The keys are compared one at a time (cmp.Or would evaluate them all):
// sorting millions of findings calls this tens of millions of times.
func comparePlace(a, b *Finding) int {
	if c := strings.Compare(a.Commit, b.Commit); c != 0 {
		return c
	}
	if c := strings.Compare(a.File, b.File); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Column, b.Column); c != 0 {
		return c
	}
	if c := strings.Compare(a.RuleID, b.RuleID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.EndLine, b.EndLine); c != 0 {
		return c
	}
	if c := cmp.Compare(a.EndColumn, b.EndColumn); c != 0 {
		return c
	}
	if c := strings.Compare(a.Secret, b.Secret); c != 0 {
		return c
	}
	if c := strings.Compare(a.Match, b.Match); c != 0 {
		return c
	}
	return strings.Compare(a.Fingerprint, b.Fingerprint)
}

// compareRest orders by the fields that do not place a finding, so that
// findings differing only there still sort the same way every run.
func compareRest(a, b *Finding) int {
	return cmp.Or(
		strings.Compare(a.Description, b.Description),
		cmp.Compare(a.Entropy, b.Entropy),
		strings.Compare(a.Author, b.Author),
		strings.Compare(a.Email, b.Email),
		strings.Compare(a.Date, b.Date),
		strings.Compare(a.Message, b.Message),
		slices.Compare(a.Tags, b.Tags),
	)
}

// compareByRule is junit's order: a test suite per rule, findings within it
// as compareFindings orders them.
func compareByRule(a, b *Finding) int {
	if c := strings.Compare(a.RuleID, b.RuleID); c != 0 {
		return c
	}
	return compareFindings(a, b)
}
