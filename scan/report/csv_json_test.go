package report

import (
	"bytes"
	"encoding/json"
	"math"
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

func TestJSONWritesEachElementAsItComes(t *testing.T) {
	var out bytes.Buffer
	w, _ := NewWriter(FormatJSON, &out, Options{})
	w.Write(sampleFindings()[0])
	// The element is out; closing the array makes it a whole document.
	if got := decodeJSON(t, out.String()+"\n]"); len(got) != 1 {
		t.Fatalf("after one write, the output holds %d findings", len(got))
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
	for _, format := range []Format{FormatJSON, FormatJSONL} {
		out := render(t, format, Options{}, []Finding{f, {RuleID: "r", File: "g", Entropy: math.Inf(1)}})
		var raw []map[string]any
		if format == FormatJSON {
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
		for i, m := range raw {
			if tags, ok := m["tags"].([]any); !ok || len(tags) != 0 {
				t.Errorf("%s finding %d: tags = %#v, want []", format, i, m["tags"])
			}
			if m["entropy"] != 0.0 {
				t.Errorf("%s finding %d: entropy = %v, want 0", format, i, m["entropy"])
			}
		}
	}
}
