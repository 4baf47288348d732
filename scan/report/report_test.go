package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sampleFindings covers what the writers must carry intact: an ordinary
// finding, an archive member, a secret with CSV metacharacters and a line
// break, a multi-byte secret, and a finding with no tags.
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
	}
}

// render writes findings through a fresh writer and returns the output.
func render(t testing.TB, format Format, opts Options, findings []Finding) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(format, &buf, opts)
	if err != nil {
		t.Fatalf("NewWriter(%s): %v", format, err)
	}
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

// decodeJSON parses a json report back.
func decodeJSON(t testing.TB, out string) []Finding {
	t.Helper()
	var fs []Finding
	if err := json.Unmarshal([]byte(out), &fs); err != nil {
		t.Fatalf("json report does not parse: %v\n%s", err, out)
	}
	if fs == nil {
		t.Fatalf("json report is not an array: %q", out)
	}
	return fs
}

// decodeJSONL parses a jsonl report back, checking that every line is one
// finding.
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
		var f Finding
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("jsonl line %d does not parse: %v\n%s", i+1, err, line)
		}
		fs = append(fs, f)
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
		})
	}
	return fs
}

// decodeMachine parses a json, jsonl or csv report back into findings.
func decodeMachine(t testing.TB, format Format, out string) []Finding {
	switch format {
	case FormatJSON:
		return decodeJSON(t, out)
	case FormatJSONL:
		return decodeJSONL(t, out)
	case FormatCSV:
		return decodeCSV(t, out)
	}
	t.Fatalf("decodeMachine: %s is not a machine format", format)
	return nil
}

// sameFinding compares findings field by field, treating nil and empty Tags
// alike (writers print a nil Tags as an empty list).
func sameFinding(a, b Finding) bool {
	return a.RuleID == b.RuleID && a.Description == b.Description && a.File == b.File &&
		a.Line == b.Line && a.Column == b.Column && a.EndLine == b.EndLine && a.EndColumn == b.EndColumn &&
		a.Secret == b.Secret && a.Match == b.Match && a.Entropy == b.Entropy &&
		a.Fingerprint == b.Fingerprint && slices.Equal(a.Tags, b.Tags)
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
