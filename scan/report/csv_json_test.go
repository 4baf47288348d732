package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestCSVEscapesCommasQuotesAndNewlines(t *testing.T) {
	secrets := []string{
		`a,b`,
		`say "hi"`,
		"line1\nline2",
		"crlf\r\nend",
		`"leading quote`,
		` spaced `,
		`=HYPERLINK("x")`,
		``,
	}
	var findings []Finding
	for _, s := range secrets {
		findings = append(findings, Finding{RuleID: "r", File: "a,\"b\"\n.txt", Line: 1, Secret: s, Match: "k=" + s, Tags: []string{"x,y", `q"`}})
	}
	out := render(t, FormatCSV, Options{}, findings)
	got := decodeCSV(t, out)
	// The report is sorted; these findings differ only in their secrets.
	slices.Sort(secrets)
	findings = sortedCopy(findings)
	if len(got) != len(secrets) {
		t.Fatalf("%d rows, want %d", len(got), len(secrets))
	}
	for i, s := range secrets {
		// The writer keeps a CR inside a quoted field; encoding/csv's
		// reader drops the CR of a CRLF even there, so compare what it
		// can return, and look for the exact bytes in the output.
		if strings.Contains(s, "\r\n") {
			if !strings.Contains(out, `"`+s+`"`) {
				t.Errorf("row %d: output lacks %q verbatim", i, s)
			}
			s = strings.ReplaceAll(s, "\r\n", "\n")
			findings[i].File = strings.ReplaceAll(findings[i].File, "\r\n", "\n")
		}
		if got[i].Secret != s || got[i].Match != "k="+s || got[i].File != findings[i].File {
			t.Errorf("row %d: secret %q match %q file %q; want %q", i, got[i].Secret, got[i].Match, got[i].File, s)
		}
		if strings.Join(got[i].Tags, " ") != `x,y q"` {
			t.Errorf("row %d: tags %q", i, got[i].Tags)
		}
	}
}

func TestJSONLStreamsEachFindingBeforeWriteReturns(t *testing.T) {
	var out bytes.Buffer
	w, err := NewWriter(FormatJSONL, &out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range sampleFindings() {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
		// Before Close, the output already holds exactly i+1 lines.
		if got := decodeJSONL(t, out.String()); len(got) != i+1 || !sameFinding(got[i], f) {
			t.Fatalf("after %d writes the output holds %d findings", i+1, len(got))
		}
	}
	before := out.Len()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if out.Len() != before {
		t.Fatal("jsonl Close wrote more output")
	}
}

func TestSortedFormatsWriteTheirOpeningAtTheFirstWrite(t *testing.T) {
	opening := map[Format]string{
		FormatJSON: "[", FormatGitleaks: "[", FormatCSV: "",
		FormatSARIF: "{\n  \"$schema\"", FormatJUnit: xml.Header, FormatText: "",
	}
	for format, want := range opening {
		t.Run(string(format), func(t *testing.T) {
			var out bytes.Buffer
			w, _ := NewWriter(format, &out, Options{})
			if out.Len() != 0 {
				t.Fatal("NewWriter wrote before the first finding")
			}
			w.Write(sampleFindings()[0])
			// Only the fixed opening is out: the findings wait for Close,
			// which sorts them.
			if !strings.HasPrefix(out.String(), want) || strings.Contains(out.String(), "AKIA") {
				t.Fatalf("after one write the output is %q, want the opening %q", out.String(), want)
			}
			w.Close()
			if !strings.Contains(out.String(), "AKIA") {
				t.Fatal("the finding is not in the closed report")
			}
		})
	}
}

func TestJSONIsReadableAndCarriesHTMLCharactersVerbatim(t *testing.T) {
	f := Finding{RuleID: "r", File: "f", Secret: "<tok&en>", Match: "<tok&en>"}
	out := render(t, FormatJSON, Options{}, []Finding{f})
	if !strings.Contains(out, `"secret": "<tok&en>"`) {
		t.Fatalf("json escapes HTML characters or is not indented:\n%s", out)
	}
	if !strings.HasPrefix(out, "[\n {\n") || !strings.HasSuffix(out, "\n }\n]\n") {
		t.Fatalf("json layout:\n%s", out)
	}
}

func TestMachineFormatsNormaliseNilTagsAndNonFiniteEntropy(t *testing.T) {
	f := Finding{RuleID: "r", File: "f", Line: 1, Secret: "s3cr3t-x", Entropy: math.NaN()}
	for _, format := range []Format{FormatJSON, FormatJSONL, FormatGitleaks} {
		out := render(t, format, Options{}, []Finding{f, {RuleID: "r", File: "g", Entropy: math.Inf(1)}})
		var raw []map[string]any
		if format != FormatJSONL {
			if err := json.Unmarshal([]byte(out), &raw); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
		} else {
			for line := range strings.Lines(out) {
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				raw = append(raw, m)
			}
		}
		tagsKey, entropyKey := "tags", "entropy"
		if format == FormatGitleaks {
			tagsKey, entropyKey = "Tags", "Entropy"
		}
		for i, m := range raw {
			if tags, ok := m[tagsKey].([]any); !ok || len(tags) != 0 {
				t.Errorf("%s finding %d: tags = %#v, want []", format, i, m[tagsKey])
			}
			if m[entropyKey] != 0.0 {
				t.Errorf("%s finding %d: entropy = %v, want 0", format, i, m[entropyKey])
			}
		}
	}
}
