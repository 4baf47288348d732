package rules

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// decodeRules are two of gitleaks' rules, as its default config writes
// them, so that these tests do not depend on the built-in catalog.
const decodeRules = `
[[rules]]
id = "aws-access-token"
description = "AWS"
regex = '''\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b'''
keywords = ["a3t", "akia", "asia", "abia", "acca"]

[[rules]]
id = "private-key"
description = "Private Key"
regex = '''(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S-]{64,}?KEY(?: BLOCK)?-----'''
keywords = ["-----begin"]
`

func decodeDetector(t testing.TB, set Settings) *Detector {
	t.Helper()
	cfg, err := Parse([]byte(decodeRules), "decode.toml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := CompileWith(cfg, set)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestGitleaksDecodingReportsItsRepeatsAtDepthTwo: gitleaks v8.30.1 reports
// the key in this line twice, at depth 1 (in the base64) and at depth 2
// (touching the %20 decoded there), with the same place and secret
// (checked against gitleaks itself: cmd/spindle's drop-in tests).
func TestGitleaksDecodingReportsItsRepeatsAtDepthTwo(t *testing.T) {
	data := "blob: " + b64s("id AKIAQYLPMN5HHHFPZAM2%20x") + "\n"
	gl := scanKeys(decodeDetector(t, Settings{GitleaksDecoding: true}), nil, data)
	want := []string{"decoded:base64,decode-depth:1", "decoded:percent,decoded:base64,decode-depth:2"}
	var tags []string
	for _, k := range gl {
		if k.secret != "AKIAQYLPMN5HHHFPZAM2" || k.start != 6 || k.end != len(data)-1 {
			t.Errorf("finding %+v, want the key on the base64", k)
		}
		tags = append(tags, k.tags)
	}
	if !slices.Equal(tags, want) {
		t.Errorf("gitleaks decoding: tags %q, want %q", tags, want)
	}
	sp := scanKeys(decodeDetector(t, Settings{}), nil, data)
	if len(sp) != 1 || sp[0].tags != want[0] {
		t.Errorf("spindle's decoding: %+v, want the finding once, at depth 1", sp)
	}
}

func TestGitleaksDecodingHasOnlyGitleaksKinds(t *testing.T) {
	key := "AKIAQYLPMN5HHHFPZAM2"
	var esc, html strings.Builder
	for _, c := range []byte(key) {
		fmt.Fprintf(&esc, `\x%02x`, c)
		fmt.Fprintf(&html, "&#%d;", c)
	}
	for _, data := range []string{"k = \"" + esc.String() + "\"\n", "<td>" + html.String() + "</td>\n"} {
		if got := scanKeys(decodeDetector(t, Settings{}), nil, data); len(got) != 1 || got[0].secret != key {
			t.Errorf("spindle's decoding of %q: %+v, want the key", data, got)
		}
		if got := scanKeys(decodeDetector(t, Settings{GitleaksDecoding: true}), nil, data); len(got) != 0 {
			t.Errorf("gitleaks' decoding of %q: %+v, want nothing (gitleaks decodes neither)", data, got)
		}
	}
}

// TestMarkupNeverMakesAMatchAcrossLines: the header of a key in an HTML
// fragment, with an entity in it, and key-like lines after it: decoding
// the entity would join the header to the lines below into a private key
// nobody wrote. A key that HTML encodes on one line is still found.
func TestMarkupNeverMakesAMatchAcrossLines(t *testing.T) {
	d := decodeDetector(t, Settings{})
	body := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODkw\n", 3)
	data := "<p>-----BEGIN&#32;OPENSSH PRIVATE KEY-----&lt;/p&gt;&lt;/div&gt;</p>\n" + body + "-----END OPENSSH PRIVATE KEY-----\n"
	for _, k := range scanKeys(d, nil, data) {
		if strings.Contains(k.tags, "decoded:html") {
			t.Errorf("a match across lines of decoded markup: %+v", k)
		}
	}
	dashes := strings.Repeat("&#45;", 5)
	oneLine := "<code>" + dashes + "BEGIN RSA PRIVATE KEY" + dashes + strings.Repeat("A", 80) + dashes + "END RSA PRIVATE KEY" + dashes + "</code>\n"
	got := scanKeys(d, nil, oneLine)
	if len(got) != 1 || got[0].rule != "private-key" || !strings.Contains(got[0].tags, "decoded:html") {
		t.Errorf("a key HTML encodes on one line: %+v", got)
	}
}

// TestLongRunsAreDecodedWithinTheBudget: decoding as gitleaks does, a
// secret in base64 on one line of 88 KB (gitleaks decodes it) is found, in
// a whole scan and in a chunked one at every chunk size; a run longer than
// the budget is not decoded, nor is this one by spindle's own decoding.
func TestLongRunsAreDecodedWithinTheBudget(t *testing.T) {
	filler := make([]byte, 66_000)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range filler {
		filler[i] = "abcdefghijklmnopqrstuvwxyz ,.;"[rng.IntN(30)]
	}
	inner := string(filler[:33_000]) + " AKIAQYLPMN5HHHFPZAM2 " + string(filler[33_000:])
	enc := base64.StdEncoding.EncodeToString([]byte(inner))
	if len(enc) < 88_000 || len(enc) > gitleaksEncodings.maxSegment {
		t.Fatalf("the run is %d bytes", len(enc))
	}
	head := strings.Repeat("preamble line\n", 20_000)
	file := head + "data: " + enc + "\n" + strings.Repeat("trailer line\n", 20_000)
	for _, set := range []Settings{{GitleaksDecoding: true}} {
		d := decodeDetector(t, set)
		whole := scanKeys(d, nil, file)
		if len(whole) != 1 || whole[0].secret != "AKIAQYLPMN5HHHFPZAM2" || whole[0].start != len(head)+6 {
			t.Fatalf("%+v: whole scan %+v, want the key, placed on the run", set, whole)
		}
		for _, chunk := range []int{d.Overlap() / 2, d.Overlap(), 3*d.Overlap() + 7} {
			var got []decodedKey
			scanChunked(d, nil, "f.txt", []byte(file), chunk, func(m Match) {
				got = append(got, decodedKey{m.RuleID, m.Secret, m.Start, m.End, strings.Join(m.Tags, ",")})
			})
			if !slices.Equal(got, whole) {
				t.Errorf("%+v, chunks of %d: %+v, want %+v", set, chunk, got, whole)
			}
		}
	}
	over := strings.Repeat("x", gitleaksEncodings.maxSegment) + " AKIAQYLPMN5HHHFPZAM2 "
	if got := scanKeys(decodeDetector(t, Settings{GitleaksDecoding: true}), nil, "data: "+b64s(over)+"\n"); len(got) != 0 {
		t.Errorf("a run over the budget was decoded: %+v", got)
	}
	// spindle's own decoding keeps the smaller budget (and window).
	if got := scanKeys(decodeDetector(t, Settings{}), nil, file); len(got) != 0 {
		t.Errorf("spindle's decoding decoded a run of %d bytes: %+v", len(enc), got)
	}
}
