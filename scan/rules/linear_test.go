package rules

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/internal/lincheck"
)

// The complexity checks of this package (internal/lincheck): each decoder's
// candidate search, the keyword automaton and the rules, run at n and 8n
// on adversarial text, must cost at most 24 times as much at 8n.
//
//	go test -run '^TestLinear' -count 1 ./scan/rules          # full sizes (n = 256 KiB)
//	go test -short -run '^TestLinear' -count 1 ./scan/rules   # CI's (n = 8 or 16 KiB)

// linearShape is adversarial text: unit repeated to n bytes.
type linearShape struct {
	name string
	unit string
}

// repeatTo repeats unit to at least n bytes.
func repeatTo(unit string, n int) []byte {
	return bytes.Repeat([]byte(unit), n/len(unit)+1)
}

// nested encodes s with each of encs in turn, innermost first.
func nested(s string, encs ...func(string) string) string {
	for _, e := range encs {
		s = e(s)
	}
	return s
}

func linB64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
func hx(s string) string     { return hex.EncodeToString([]byte(s)) }
func pct(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}
func escU(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\u%04x`, s[i])
	}
	return b.String()
}

const linearSecret = `aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" AKIAIOSFODNN7EXAMPLE`

// encodedShapes are runs of each kind of encoded text, of near-misses of
// each (a marker that starts nothing, a run one digit short) and of
// nested encodings, each on one line of n bytes.
var encodedShapes = []linearShape{
	{"escape-x", `\x41`},
	{"escape-x-double", `\\x6b`},
	{"escape-x-broken", `\x4`},
	{"escape-u", `\u0041`},
	{"escape-u-broken", `\u004 `},
	{"escape-x-then-u", `\x41\x42\x43\u0044`},
	{"backslashes", `\\`},
	{"percent", `%41`},
	{"percent-spaced", `%41 x `},
	{"percent-broken", `%4`},
	{"html-numeric", `&#65;`},
	{"html-named", `&amp;`},
	{"html-broken", `&#6`},
	{"code-points", `U+0041 `},
	{"code-point-broken", `U+00`},
	{"U-in-base64", `UUUU+UUU`},
	{"hex", `0123456789abcdef`},
	{"base64", `QUJDREVGR0hJSktM`},
	{"base64-short-runs", `abcdefghijklmn1.`},
	{"base64-padded", `QUJDRA==`},
	{"markers", `%\&U`},
	{"mixed", `\x41\u0041%41&#65;U+0041 QUJDREVGR0hJSktM `},
	{"nested-b64-b64", nested(linearSecret, linB64, linB64) + " "},
	{"nested-hex-b64-pct", nested(linearSecret, linB64, hx, pct) + " "},
	{"nested-escu-b64", nested(linearSecret, linB64, escU) + " "},
	{"nested-5", nested(linearSecret, linB64, linB64, hx, linB64, pct) + " "},
}

// textShapes are adversarial plain text for the keyword automaton and the
// rules: long runs of one byte, of one keyword, of near-matches, and
// minified code on one line.
var textShapes = []linearShape{
	{"one-byte", "a"},
	{"newlines", "\n"},
	{"one-keyword", "password"},
	{"keyword-assignments", `password = "hunter2" api_key: 'not-a-key' token=${TOKEN} `},
	{"near-keyword", "passwor "},
	{"akia-run", "AKIA"},
	{"ghp-run", "ghp_"},
	{"private-key-header", "-----BEGIN RSA PRIVATE KEY-----"},
	{"private-key-lines", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n"},
	{"secret-lines", linearSecret + "\n"},
	{"minified", `function(a,b){var token="x";return a.apiKey+b.secret_key||"sk_live_"+c};`},
	{"curl", `curl -H "Authorization: Bearer `},
}

func TestLinearCandidateSearch(t *testing.T) {
	n := lincheck.Size(16<<10, 256<<10)
	for _, en := range []struct {
		name string
		en   encodings
	}{
		{"spindle", spindleEncodings},
		{"gitleaks", gitleaksEncodings},
		{"gitleaks-whole", encodings{kinds: gitleaksKinds, maxSegment: 1 << 30}},
	} {
		for _, sh := range encodedShapes {
			t.Run(en.name+"/"+sh.name, func(t *testing.T) {
				var out []segment
				lincheck.Check(t, n, func(n int) []byte { return repeatTo(sh.unit, n) },
					func(b []byte) { out = en.en.findCandidates(b, 0, len(b), out[:0]) },
					lincheck.Options{NoAllocs: true})
			})
		}
	}
}

// TestLinearEscapesCostAsMuchAsProse holds the figure of DESIGN.md §6: a
// line of 400 KB of \xNN escapes scans in at most twice the time of
// 400 KB of prose, with gitleaks' decoding (where \x escapes are not
// decoded) and with spindle's (where they are).
func TestLinearEscapesCostAsMuchAsProse(t *testing.T) {
	n := lincheck.Size(64<<10, 400<<10)
	prose := repeatTo("the quick brown fox jumps over the lazy dog and then some more words\n", n)[:n]
	esc := repeatTo(`\x41\x7a\x30\xff`, n)[:n]
	for _, set := range []Settings{{GitleaksDecoding: true}, {}} {
		d, err := CompileWith(gitleaksConfig(t), set)
		if err != nil {
			t.Fatal(err)
		}
		s := d.NewScratch()
		scan := func(b []byte) { d.ScanWhole(s, "f.txt", b, func(Match) {}) }
		p, e := lincheck.Measure(prose, scan), lincheck.Measure(esc, scan)
		t.Logf("gitleaks decoding %v: prose %v, escapes %v", set.GitleaksDecoding, p.CPU, e.CPU)
		if e.CPU > 2*p.CPU {
			// Measured again before failing, as the checks are.
			p, e = lincheck.Measure(prose, scan), lincheck.Measure(esc, scan)
			if e.CPU > 2*p.CPU {
				t.Errorf("gitleaks decoding %v: %d bytes of escapes took %v, prose %v (more than 2×)",
					set.GitleaksDecoding, n, e.CPU, p.CPU)
			}
		}
	}
}

// TestLinearRules runs whole detectors (gitleaks' rules with gitleaks'
// decoding, the built-in catalog with spindle's) over every shape, as
// one buffer and as a whole object (a history's added lines); under
// -short only the whole object with gitleaks' decoding.
func TestLinearRules(t *testing.T) {
	n := lincheck.Size(8<<10, 256<<10)
	if raceEnabled && testing.Short() {
		n = 2 << 10 // the race detector's regexes take a second on 64 KiB of secrets
	}
	minified := bytes.ReplaceAll(linearGoSource(t), []byte{'\n'}, []byte{' '})
	shapes := append(append([]linearShape(nil), textShapes...), encodedShapes...)
	gl, err := CompileWith(gitleaksConfig(t), Settings{GitleaksDecoding: true})
	if err != nil {
		t.Fatal(err)
	}
	def, err := Compile(Default())
	if err != nil {
		t.Fatal(err)
	}
	modes := []struct {
		name  string
		d     *Detector
		whole bool
	}{{"gitleaks-whole", gl, true}, {"gitleaks", gl, false}, {"default", def, false}}
	if testing.Short() {
		modes = modes[:1] // a history's way, gitleaks' decoding unbounded
	}
	for _, c := range modes {
		s := c.d.NewScratch()
		scan := func(b []byte) {
			if c.whole {
				c.d.ScanWhole(s, "f.txt", b, func(Match) {})
			} else {
				c.d.Scan(s, "f.txt", b, func(Match) {})
			}
		}
		for _, sh := range shapes {
			t.Run(c.name+"/"+sh.name, func(t *testing.T) {
				lincheck.Check(t, n, func(n int) []byte { return repeatTo(sh.unit, n) }, scan,
					lincheck.Options{NoAllocs: true})
			})
		}
		t.Run(c.name+"/minified-go", func(t *testing.T) {
			if len(minified) < 8*n {
				t.Skipf("%d bytes of Go source, want %d", len(minified), 8*n)
			}
			// The same n bytes repeated at 8n: a prefix of 8n bytes would
			// hold other code than the first n.
			unit := string(minified[len(minified)-8*n:][:n])
			lincheck.Check(t, n, func(n int) []byte { return repeatTo(unit, n)[:n] }, scan,
				lincheck.Options{NoAllocs: true})
		})
	}
}

// linearGoSource is Go source from GOROOT, for minified one-line text.
func linearGoSource(t *testing.T) []byte {
	var all []byte
	for _, c := range goSource(t) {
		all = append(all, c...)
	}
	return all
}
