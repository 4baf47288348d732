package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sampleFindings covers what the writers must carry intact: an ordinary
// finding, an archive member, a secret with CSV metacharacters and a line
// break, a multi-byte secret, a finding with no tags, and a history finding.
func sampleFindings() []Finding {
	return []Finding{
		{
			RuleID: "aws-access-token", Description: "AWS Access Token",
			File: "config/app.env", Line: 3, Column: 11, EndLine: 3, EndColumn: 30,
			Secret: "AKIAZ7QKXW3VUMPLR2TD", Match: "AWS_KEY=AKIAZ7QKXW3VUMPLR2TD",
			Entropy: 3.684, Fingerprint: "config/app.env:aws-access-token:3", Tags: []string{"aws", "key"},
		},
		{
			RuleID: "generic-api-key", Description: "Generic API Key",
			File: "dist/bundle.zip!conf/x.env", Line: 7, Column: 1, EndLine: 7, EndColumn: 40,
			Secret: "q8Vn3kT0pLx9Wz2Rb6Yc", Match: "api_key = \"q8Vn3kT0pLx9Wz2Rb6Yc\"",
			Entropy: 4.2, Fingerprint: "dist/bundle.zip!conf/x.env:generic-api-key:7", Tags: []string{"api"},
		},
		{
			RuleID: "private-key", Description: "Private Key",
			File: "notes, \"draft\".txt", Line: 12, Column: 5, EndLine: 13, EndColumn: 9,
			Secret: "k3y,with\"quote\nnext-line-Zq", Match: "key: k3y,with\"quote\nnext-line-Zq",
			Entropy: 3.1, Fingerprint: "notes, \"draft\".txt:private-key:12",
		},
		{
			RuleID: "generic-api-key", Description: "Generic API Key",
			File: "config/app.env", Line: 1, Column: 8, EndLine: 1, EndColumn: 25,
			Secret: "pässwörd-秘密-8841Xq", Match: "PASSWD=pässwörd-秘密-8841Xq",
			Entropy: 3.9, Fingerprint: "config/app.env:generic-api-key:1", Tags: []string{},
		},
		{
			RuleID: "github-pat", Description: "GitHub Personal Access Token",
			File: "deploy/ci.yml", Line: 2, Column: 9, EndLine: 2, EndColumn: 48,
			Secret: "ghp_Zq0123456789abcdefABCDEF0123456789ab", Match: "token: ghp_Zq0123456789abcdefABCDEF0123456789ab",
			Entropy: 4.6, Fingerprint: "9fceb02d0ae598e95dc970b74767f19372d61af8:deploy/ci.yml:github-pat:2",
			Tags:   []string{"github"},
			Commit: "9fceb02d0ae598e95dc970b74767f19372d61af8", Author: "Ann Example", Email: "ann@example.com",
			Date: "2024-03-01T08:00:00Z", Message: "add CI <deploy> & keys",
		},
	}
}

// testTemplate is the template tests render the template format with: one
// line per finding, strings quoted, so that a test can find a value in it.
const testTemplate = `{{range .}}{{.RuleID}} {{quote .File}} {{.StartLine}}:{{.StartColumn}} {{quote .Secret}} {{quote .Match}} {{quote .Commit}}
{{end}}`

// render writes findings through a fresh writer and returns the output. The
// template format gets testTemplate unless opts names another.
func render(t testing.TB, format Format, opts Options, findings []Finding) string {
	t.Helper()
	var buf bytes.Buffer
	w := newTestWriter(t, format, &buf, opts)
	for _, f := range findings {
		if err := w.Write(f); err != nil {
			t.Fatalf("%s: Write: %v", format, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("%s: Close: %v", format, err)
	}
	return buf.String()
}

// newTestWriter is NewWriter, with testTemplate for the template format
// unless opts names another.
func newTestWriter(t testing.TB, format Format, w io.Writer, opts Options) Writer {
	t.Helper()
	if format == FormatTemplate && opts.Template == "" {
		opts.Template = testTemplate
	}
	wr, err := NewWriter(format, w, opts)
	if err != nil {
		t.Fatalf("NewWriter(%s): %v", format, err)
	}
	return wr
}

// readAll reads a json or jsonl report (either schema) back with this
// package's reader, which undoes the reversible escapes.
func readAll(t testing.TB, out string) []Finding {
	t.Helper()
	rr, err := newReportReader(strings.NewReader(out), 0)
	if err != nil {
		t.Fatalf("report does not read back: %v\n%s", err, out)
	}
	fs := []Finding{}
	for {
		f, ok, err := rr.next()
		if err != nil {
			t.Fatalf("report does not read back: %v\n%s", err, out)
		}
		if !ok {
			return fs
		}
		fs = append(fs, f)
	}
}

// decodeJSON parses a json report back, checking first that encoding/json
// reads it as an array.
func decodeJSON(t testing.TB, out string) []Finding {
	t.Helper()
	var raw []map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("json report does not parse: %v\n%s", err, out)
	}
	if raw == nil {
		t.Fatalf("json report is not an array: %q", out)
	}
	fs := readAll(t, out)
	if len(fs) != len(raw) {
		t.Fatalf("read %d findings, encoding/json %d", len(fs), len(raw))
	}
	return fs
}

// decodeJSONL parses a jsonl report back, checking that every line is one
// finding that encoding/json reads too.
func decodeJSONL(t testing.TB, out string) []Finding {
	t.Helper()
	fs := []Finding{}
	if out == "" {
		return fs
	}
	if !strings.HasSuffix(out, "\n") {
		t.Fatalf("jsonl report does not end with a newline: %q", out)
	}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("jsonl line %d does not parse: %v\n%s", i+1, err, line)
		}
		fs = append(fs, readAll(t, line)...)
	}
	return fs
}

// decodeCSV parses a csv report back, checking the header.
func decodeCSV(t testing.TB, out string) []Finding {
	t.Helper()
	records, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("csv report does not parse: %v\n%s", err, out)
	}
	if len(records) == 0 || strings.Join(records[0], ",") != strings.Join(csvHeader, ",") {
		t.Fatalf("csv header = %v, want %v", records, csvHeader)
	}
	fs := []Finding{}
	for _, r := range records[1:] {
		num := func(s string) int {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("csv number %q: %v", s, err)
			}
			return n
		}
		e, err := strconv.ParseFloat(r[9], 64)
		if err != nil {
			t.Fatalf("csv entropy %q: %v", r[9], err)
		}
		tags := []string{}
		if r[11] != "" {
			tags = strings.Split(r[11], " ")
		}
		fs = append(fs, Finding{
			RuleID: r[0], Description: r[1], File: r[2],
			Line: num(r[3]), Column: num(r[4]), EndLine: num(r[5]), EndColumn: num(r[6]),
			Secret: r[7], Match: r[8], Entropy: e, Fingerprint: r[10], Tags: tags,
			Commit: r[12], Author: r[13], Email: r[14], Date: r[15], Message: r[16],
		})
	}
	return fs
}

// gitleaksDoc is gitleaks' report as gitleaks itself declares it, for
// decoding with encoding/json independently of this package's reader.
type gitleaksDoc []struct {
	RuleID, Description                        string
	StartLine, EndLine, StartColumn, EndColumn int
	Match, Secret, File, SymlinkFile, Commit   string
	Link                                       string `json:",omitempty"`
	Entropy                                    float32
	Author, Email, Date, Message               string
	Tags                                       []string
	Fingerprint                                string
}

// decodeGitleaks parses a gitleaks report back, checking that encoding/json
// reads it into gitleaks' own type, with no unknown key.
func decodeGitleaks(t testing.TB, out string) []Finding {
	t.Helper()
	var doc gitleaksDoc
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil || doc == nil {
		t.Fatalf("gitleaks report does not parse as gitleaks' findings: %v\n%s", err, out)
	}
	fs := readAll(t, out)
	if len(fs) != len(doc) {
		t.Fatalf("read %d findings, encoding/json %d", len(fs), len(doc))
	}
	return fs
}

// decodeMachine parses a json, jsonl, gitleaks or csv report back.
func decodeMachine(t testing.TB, format Format, out string) []Finding {
	switch format {
	case FormatJSON:
		return decodeJSON(t, out)
	case FormatJSONL:
		return decodeJSONL(t, out)
	case FormatGitleaks:
		return decodeGitleaks(t, out)
	case FormatCSV:
		return decodeCSV(t, out)
	}
	t.Fatalf("decodeMachine: %s is not a machine format", format)
	return nil
}

// machineFormats are the formats that carry every field and parse back.
var machineFormats = []Format{FormatJSON, FormatJSONL, FormatGitleaks, FormatCSV}

// sortedCopy is findings in the order sorted reports list them.
func sortedCopy(findings []Finding) []Finding {
	s := slices.Clone(findings)
	slices.SortStableFunc(s, func(a, b Finding) int { return compareFindings(&a, &b) })
	return s
}

// sameFinding compares findings field by field, treating nil and empty Tags
// alike (writers print a nil Tags as an empty list). Entropy is compared at
// float32 precision, which is what gitleaks' schema keeps.
func sameFinding(a, b Finding) bool {
	return a.RuleID == b.RuleID && a.Description == b.Description && a.File == b.File &&
		a.Line == b.Line && a.Column == b.Column && a.EndLine == b.EndLine && a.EndColumn == b.EndColumn &&
		a.Secret == b.Secret && a.Match == b.Match && float32(a.Entropy) == float32(b.Entropy) &&
		a.Fingerprint == b.Fingerprint && slices.Equal(a.Tags, b.Tags) &&
		a.Commit == b.Commit && a.Author == b.Author && a.Email == b.Email && a.Date == b.Date && a.Message == b.Message
}

// failWriter fails every write after the first n bytes.
type failWriter struct {
	n   int
	err error
}

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, w.err
	}
	w.n -= len(p)
	return len(p), nil
}

var errDisk = errors.New("disk full")

// jsonString is s as encoding/json writes it inside a document, without the
// surrounding quotes, with HTML characters unescaped as the writers set it.
func jsonString(s string) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	out := strings.TrimSuffix(buf.String(), "\n")
	return out[1 : len(out)-1], nil
}
