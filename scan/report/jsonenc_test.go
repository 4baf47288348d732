package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// encodingJSON is s as encoding/json writes it (html: its default escaping).
func encodingJSON(s string, html bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

func TestJSONStringsMatchEncodingJSONForValidUTF8(t *testing.T) {
	for _, s := range []string{
		"", "plain", "quote\" back\\slash", "\x00\x01\b\f\n\r\t\x1f\x7f", "<tag>&amp;",
		"\u2028\u2029", "é 秘密 😀", "\ufffd", "/slash/",
	} {
		for _, html := range []bool{false, true} {
			if got, want := string(appendJSONString(nil, s, html)), encodingJSON(s, html); got != want {
				t.Errorf("appendJSONString(%q, html=%v) = %s, want %s", s, html, got, want)
			}
		}
	}
}

func TestJSONStringsEscapeInvalidBytesReversibly(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\xffb", `"a\udcffb"`},
		{"\xc3", `"\udcc3"`},                     // a truncated sequence: each byte alone
		{"\xed\xa0\x80", `"\udced\udca0\udc80"`}, // an encoded surrogate is not UTF-8
		{"é\x80", `"é\udc80"`},
	}
	for _, tt := range tests {
		got := string(appendJSONString(nil, tt.in, false))
		if got != tt.want {
			t.Errorf("appendJSONString(%q) = %s, want %s", tt.in, got, tt.want)
		}
		back, ok := unquoteJSON([]byte(got))
		if !ok || back != tt.in {
			t.Errorf("unquoteJSON(%s) = %q, %v; want %q", got, back, ok, tt.in)
		}
		// Other readers see U+FFFD, as they saw before the escape existed.
		var std string
		if err := json.Unmarshal([]byte(got), &std); err != nil || !strings.Contains(std, "\ufffd") {
			t.Errorf("encoding/json reads %s as %q, %v", got, std, err)
		}
	}
}

func TestUnquoteJSONReadsOtherWritersEscapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"\ud83d\ude00"`, "😀"},            // a surrogate pair
		{`"\ud800x"`, "\ufffdx"},           // a lone high surrogate: U+FFFD as encoding/json
		{`"\udfff"`, "\ufffd"},             // a lone low surrogate outside the byte range
		{`"\u00e9\/\b"`, "é/\b"},           // escapes encoding/json never writes
		{"\"raw\xffbyte\"", "raw\xffbyte"}, // raw invalid bytes are kept
		{`"\uDCFF"`, "\xff"},               // upper-case hex
	}
	for _, tt := range tests {
		got, ok := unquoteJSON([]byte(tt.in))
		if !ok || got != tt.want {
			t.Errorf("unquoteJSON(%s) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, bad := range []string{``, `"`, `x`, `"\q"`, `"\u12"`, `"\u12g4"`, `"trailing\"`} {
		if _, ok := unquoteJSON([]byte(bad)); ok {
			t.Errorf("unquoteJSON(%s) accepted", bad)
		}
	}
}

func TestJSONFloatsMatchEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 3.684, 4.121928095, 1e-7, 1e-6, 999999e-12, 1e20, 1e21, 1.5e300, math.SmallestNonzeroFloat64, -2.5e-9} {
		for _, bits := range []int{32, 64} {
			var v any = f
			if bits == 32 {
				if math.IsInf(float64(float32(f)), 0) {
					continue // out of float32's range; see below
				}
				v = float32(f)
			}
			want, _ := json.Marshal(v)
			if got := appendJSONFloat(nil, f, bits); string(got) != string(want) {
				t.Errorf("appendJSONFloat(%v, %d) = %s, want %s", f, bits, got, want)
			}
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := appendJSONFloat(nil, f, 64); string(got) != "0" {
			t.Errorf("appendJSONFloat(%v) = %s, want 0", f, got)
		}
	}
	if got := appendJSONFloat(nil, 1e300, 32); string(got) != "0" {
		t.Errorf("appendJSONFloat(1e300, 32) = %s, want 0 (no float32 holds it)", got)
	}
}

// FuzzJSONString checks the hand-written encoder against encoding/json and
// against its own reader: valid UTF-8 is written byte for byte as
// encoding/json writes it, every string reads back exactly, and the output
// is JSON that encoding/json accepts.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\u2028<&>", "\xff\xfe", "é\xc3", "\xed\xa0\x80", "\\udcff"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, html bool) {
		got := appendJSONString(nil, s, html)
		if utf8.ValidString(s) && string(got) != encodingJSON(s, html) {
			t.Fatalf("appendJSONString(%q) = %s, encoding/json %s", s, got, encodingJSON(s, html))
		}
		if !json.Valid(got) {
			t.Fatalf("appendJSONString(%q) = %s is not JSON", s, got)
		}
		back, ok := unquoteJSON(got)
		if !ok || back != s {
			t.Fatalf("round trip of %q: %s reads back as %q, %v", s, got, back, ok)
		}
	})
}

// FuzzJSONFloat checks float formatting against encoding/json.
func FuzzJSONFloat(f *testing.F) {
	f.Add(3.684)
	f.Add(1e-7)
	f.Add(1e21)
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		for _, bits := range []int{32, 64} {
			var x any = v
			if bits == 32 {
				x = float32(v)
				if math.IsInf(float64(float32(v)), 0) {
					continue
				}
			}
			want, _ := json.Marshal(x)
			if got := appendJSONFloat(nil, v, bits); string(got) != string(want) {
				t.Fatalf("appendJSONFloat(%v, %d) = %s, want %s", v, bits, got, want)
			}
		}
	})
}

// TestJSONReportsMatchEncodingJSON compares whole json and gitleaks reports
// with what encoding/json writes for the same (sorted, valid UTF-8)
// findings: spindle's schema from Finding's own tags, gitleaks' from a
// struct declared as gitleaks declares its Finding.
func TestJSONReportsMatchEncodingJSON(t *testing.T) {
	findings := sortedCopy(append(sampleFindings(), randomFindings(11, 200)...))
	for i := range findings {
		findings[i] = prepare(findings[i], Options{})
	}
	encode := func(v any, html bool) string {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(html)
		enc.SetIndent("", " ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	if got, want := render(t, FormatJSON, Options{}, findings), encode(findings, false); got != want {
		t.Errorf("json report differs from encoding/json:\n%s\n---\n%s", head(got), head(want))
	}

	type gitleaksDecl struct { // gitleaks v8 report.Finding, less Fragment
		RuleID      string
		Description string
		StartLine   int
		EndLine     int
		StartColumn int
		EndColumn   int
		Line        string `json:"-"`
		Match       string
		Secret      string
		File        string
		SymlinkFile string
		Commit      string
		Link        string `json:",omitempty"`
		Entropy     float32
		Author      string
		Email       string
		Date        string
		Message     string
		Tags        []string
		Fingerprint string
	}
	remote, _ := parseRemote("https://github.com/acme/widgets", "")
	decl := make([]gitleaksDecl, len(findings))
	for i := range findings {
		g := toGitleaks(&findings[i], remote)
		decl[i] = gitleaksDecl(g)
	}
	got := render(t, FormatGitleaks, Options{RemoteURL: "https://github.com/acme/widgets"}, findings)
	if want := encode(decl, true); got != want {
		t.Errorf("gitleaks report differs from encoding/json:\n%s\n---\n%s", head(got), head(want))
	}
}
