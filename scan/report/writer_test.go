package report

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseFormatAcceptsEveryFormatAndRejectsOthers(t *testing.T) {
	for _, name := range Formats() {
		for _, spelling := range []string{name, strings.ToUpper(name), " " + name + "\t"} {
			got, err := ParseFormat(spelling)
			if err != nil || string(got) != name {
				t.Errorf("ParseFormat(%q) = %q, %v; want %q", spelling, got, err, name)
			}
		}
	}
	for _, bad := range []string{"", "xml", "junit5", "sarif2", "json,csv"} {
		_, err := ParseFormat(bad)
		if !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("ParseFormat(%q) error = %v, want ErrUnknownFormat", bad, err)
			continue
		}
		for _, name := range Formats() {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("ParseFormat(%q) error %q does not list %q", bad, err, name)
			}
		}
	}
}

func TestFormatsListsTextFirstAndReturnsACopy(t *testing.T) {
	got := Formats()
	want := []string{"text", "json", "jsonl", "sarif", "csv", "junit", "gitleaks", "gitleaks-csv", "gitleaks-sarif", "gitleaks-junit", "template"}
	if !slices.Equal(got, want) {
		t.Fatalf("Formats() = %v, want %v", got, want)
	}
	got[0] = "mutated"
	if Formats()[0] != "text" {
		t.Fatal("Formats() shares its slice with the caller")
	}
}

func TestNewWriterRejectsBadFormatAndRedact(t *testing.T) {
	tests := []struct {
		name   string
		format Format
		redact int
	}{
		{"unknown format", "xml", 0},
		{"zero format", "", 0},
		{"negative redact", FormatJSON, -1},
		{"redact over 100", FormatJSON, 101},
		{"template without a template", FormatTemplate, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := NewWriter(tt.format, &strings.Builder{}, Options{Redact: tt.redact})
			if err == nil || w != nil {
				t.Fatalf("NewWriter = %v, %v; want an error", w, err)
			}
		})
	}
}

// allFormats is every Format, for tests that hold for all of them.
func allFormats() []Format {
	fs := make([]Format, 0, len(formats))
	for _, name := range Formats() {
		f, _ := ParseFormat(name)
		fs = append(fs, f)
	}
	return fs
}

func TestEmptyReportIsValidInEveryFormat(t *testing.T) {
	for _, format := range allFormats() {
		t.Run(string(format), func(t *testing.T) {
			out := render(t, format, Options{}, nil)
			switch format {
			case FormatText, FormatJSONL, FormatTemplate, FormatGitleaksCSV:
				if out != "" {
					t.Fatalf("empty %s report = %q, want nothing", format, out)
				}
			case FormatJSON, FormatGitleaks:
				if got := decodeMachine(t, format, out); len(got) != 0 || out != "[]\n" {
					t.Fatalf("empty %s report = %q", format, out)
				}
			case FormatJUnit:
				doc := decodeJUnit(t, out)
				if doc.cases() != 0 || doc.Tests != 1 || doc.Suites[0].Cases[0].Name != "no secrets found" {
					t.Fatalf("empty junit report is not one passing test:\n%s", out)
				}
			case FormatCSV:
				if got := decodeCSV(t, out); len(got) != 0 {
					t.Fatalf("empty csv report has rows: %v", got)
				}
			case FormatSARIF:
				log := decodeSARIF(t, out)
				if n := len(log.Runs[0].Results); n != 0 {
					t.Fatalf("empty sarif report has %d results", n)
				}
			}
		})
	}
}

func TestMachineFormatsRoundTripEveryField(t *testing.T) {
	for _, format := range machineFormats {
		t.Run(string(format), func(t *testing.T) {
			want := sampleFindings()
			if format != FormatJSONL {
				want = sortedCopy(want)
			}
			got := decodeMachine(t, format, render(t, format, Options{}, sampleFindings()))
			if len(got) != len(want) {
				t.Fatalf("got %d findings, want %d", len(got), len(want))
			}
			for i := range want {
				if !sameFinding(got[i], want[i]) {
					t.Errorf("finding %d:\n got %+v\nwant %+v", i, got[i], want[i])
				}
			}
		})
	}
}

func TestRedactionHidesSecretsInEveryFormat(t *testing.T) {
	findings := sampleFindings()
	for _, format := range allFormats() {
		for _, pct := range []int{0, 50, 100} {
			t.Run(string(format)+"/"+strconv.Itoa(pct), func(t *testing.T) {
				out := render(t, format, Options{Redact: pct, Rules: []RuleMeta{{ID: "aws-access-token"}}}, findings)
				for _, f := range findings {
					// Text escapes the newline in one secret; look for
					// what each format prints for it.
					secret := printedAs(format, f.Secret)
					masked := printedAs(format, maskSecret(f.Secret, pct))
					switch {
					case pct == 0 && !strings.Contains(out, secret):
						t.Errorf("unredacted output lacks secret %q", f.Secret)
					case pct > 0 && strings.Contains(out, secret):
						t.Errorf("output redacted at %d%% contains secret %q:\n%s", pct, f.Secret, out)
					case pct > 0 && !strings.Contains(out, masked):
						t.Errorf("output redacted at %d%% lacks the mask %q", pct, masked)
					}
				}
				if pct == 100 {
					// No part of any secret longer than a few characters
					// survives: not a prefix, not a suffix.
					for _, f := range findings {
						for _, part := range []string{f.Secret[:6], f.Secret[len(f.Secret)-6:]} {
							if strings.Contains(out, printedAs(format, part)) {
								t.Errorf("fully redacted output contains %q of secret %q", part, f.Secret)
							}
						}
					}
				}
			})
		}
	}
}

// printedAs is how s appears in a format's output: text escapes control
// characters, JSON escapes quotes and newlines, csv doubles quotes.
func printedAs(format Format, s string) string {
	switch format {
	case FormatText:
		return escapeText(s)
	case FormatJSON, FormatJSONL, FormatSARIF:
		b, _ := jsonString(s)
		return b
	case FormatGitleaks, FormatGitleaksSARIF:
		b, _ := json.Marshal(s) // gitleaks keeps encoding/json's HTML escaping
		return string(b[1 : len(b)-1])
	case FormatGitleaksJUnit:
		// The finding as gitleaks' JSON, escaped as XML text.
		b, _ := json.Marshal(s)
		var x strings.Builder
		xml.EscapeText(&x, b[1:len(b)-1])
		return x.String()
	case FormatCSV, FormatGitleaksCSV:
		return strings.ReplaceAll(s, `"`, `""`)
	case FormatJUnit:
		return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\r", "&#xD;").Replace(s)
	case FormatTemplate:
		q := strconv.Quote(s) // testTemplate quotes every value
		return q[1 : len(q)-1]
	}
	return s
}

func TestWriteAfterCloseFailsAndCloseIsIdempotent(t *testing.T) {
	for _, format := range allFormats() {
		t.Run(string(format), func(t *testing.T) {
			var out strings.Builder
			w := newTestWriter(t, format, &out, Options{})
			if err := w.Write(sampleFindings()[0]); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			first := out.String()
			if err := w.Write(sampleFindings()[1]); !errors.Is(err, ErrWriterClosed) {
				t.Errorf("Write after Close = %v, want ErrWriterClosed", err)
			}
			if err := w.Close(); err != nil {
				t.Errorf("second Close = %v, want nil", err)
			}
			if out.String() != first {
				t.Errorf("second Close wrote more output")
			}
		})
	}
}

func TestDestinationErrorSticksInEveryFormat(t *testing.T) {
	many := slices.Repeat(sampleFindings(), 200) // beyond any internal buffer
	for _, format := range allFormats() {
		t.Run(string(format), func(t *testing.T) {
			w := newTestWriter(t, format, &failWriter{n: 10, err: errDisk}, Options{})
			var err error
			for _, f := range many {
				if err = w.Write(f); err != nil {
					break
				}
			}
			if err == nil {
				err = w.Close()
			}
			if !errors.Is(err, errDisk) {
				t.Fatalf("error = %v, want the destination's", err)
			}
			if err := w.Close(); !errors.Is(err, errDisk) {
				t.Errorf("Close after a failed write = %v, want the destination's error", err)
			}
		})
	}
}

func TestWritersDoNotModifyTheCallersFinding(t *testing.T) {
	for _, format := range allFormats() {
		t.Run(string(format), func(t *testing.T) {
			f := sampleFindings()[0]
			f.Tags = []string{"aws", f.Secret} // a tag Redact must rewrite
			tags := slices.Clone(f.Tags)
			before := f
			render(t, format, Options{Redact: 100}, []Finding{f})
			if !sameFinding(f, before) || !slices.Equal(f.Tags, tags) {
				t.Fatalf("finding changed by the writer:\n got %+v\nwant %+v", f, before)
			}
		})
	}
}
