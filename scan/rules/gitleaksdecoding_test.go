package rules

import (
	"encoding/base64"
	"encoding/hex"
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

// recordedRules are decodeRules and two of this package's tests' own: a
// hash= parameter whose match takes in up to 20 name characters before
// it (so that it reaches back over an escape that precedes the name), and
// a generic rule, for gitleaks' filter of generic findings.
const recordedRules = decodeRules + `
[[rules]]
id = "hash-param"
description = "A hash= parameter"
regex = '''(?i)[a-z0-9_-]{0,20}hash=([A-Za-z0-9_=-]{16,64})(?:[\s"&;]|$)'''
keywords = ["hash="]

[[rules]]
id = "generic-secret"
description = "A value assigned to secret"
regex = '''secret\s*[=:]\s*([A-Za-z0-9]{16,})'''
keywords = ["secret"]
`

// recordedCases are one-line files whose decoded findings gitleaks v8.30.1
// reported (gitleaks dir -c with recordedRules, -f json), written down
// here as it reported them: rule, tags and match of each, and the column
// its match starts at, less one (the offset, on a first line). Each
// exercises one rule of gitleaks' decoding:
//
//   - percent-unicode: a history's line (trufflesecurity/trufflehog): one
//     percent segment from the first %3D to the last covers a \u0026,
//     which the second pass decodes; the match touching it is reported
//     again, tagged with both kinds, at depth 2. The same with \\u0026.
//   - percent-codepoint: a U+0026 there is swallowed by the base64 run
//     before it and never decoded.
//   - percent-base64, base64-unicode, percent-base64-unicode: another kind
//     inside a long segment, to depth 3.
//   - json-padding: base64 of a 3 KB config whose padding a JSON encoder
//     wrote as \u003d: one run once the \u003d is decoded, 3 KB from where
//     the secret is.
//   - twice-in-one: one secret twice in one encoded string is two findings.
//   - generic-beside, generic-lines: a generic finding is dropped for a
//     specific one that starts on the same line of the file, whatever the
//     depths, and whatever lines the decoded text has.
//   - new-candidate: a hex run the first pass could not decode whole (an
//     escape in it); the second pass decodes the U+0026 after it, which
//     touches no decoded text, and the third the run.
var recordedCases = []struct {
	name, data string
	want       []recordedFinding
}{
	{"percent-unicode", recordedURL(`\u0026`), []recordedFinding{
		{"hash-param", "decoded:percent,decode-depth:1", "u0026token-hash=" + recordedToken + `="`, 95},
		{"hash-param", "decoded:percent,decoded:unicode,decode-depth:2", "token-hash=" + recordedToken + `="`, 95},
	}},
	{"percent-unicode-doubled", recordedURL(`\\u0026`), []recordedFinding{
		{"hash-param", "decoded:percent,decode-depth:1", "u0026token-hash=" + recordedToken + `="`, 95},
		{"hash-param", "decoded:percent,decoded:unicode,decode-depth:2", "token-hash=" + recordedToken + `="`, 95},
	}},
	{"percent-codepoint", recordedURL("U+0026 "), []recordedFinding{
		{"hash-param", "decoded:percent,decode-depth:1", "token-hash=" + recordedToken + `="`, 95},
	}},
	{"percent-base64", "u=%3D " + b64s("hash="+recordedToken+"\n") + " %3D\n", []recordedFinding{
		{"hash-param", "decoded:percent,decoded:base64,decode-depth:2", "hash=" + recordedToken, 2},
	}},
	{"base64-unicode", "blob: " + b64s(`a=1\u0026hash=`+recordedToken+"\n") + "\n", []recordedFinding{
		{"hash-param", "decoded:base64,decode-depth:1", "u0026hash=" + recordedToken, 6},
		{"hash-param", "decoded:unicode,decoded:base64,decode-depth:2", "hash=" + recordedToken, 6},
	}},
	{"percent-base64-unicode", "u=" + percentAll(b64s(`x\u0026hash=`+recordedToken+" ")) + "\n", []recordedFinding{
		{"hash-param", "decoded:percent,decoded:base64,decode-depth:2", "u0026hash=" + recordedToken + " ", 2},
		{"hash-param", "decoded:percent,decoded:unicode,decoded:base64,decode-depth:3", "hash=" + recordedToken + " ", 2},
	}},
	{"json-padding", `{"kubeconfig":"` + strings.ReplaceAll(b64s(recordedConfig()), "=", `\u003d`) + "\"}\n", []recordedFinding{
		{"aws-access-token", "decoded:unicode,decoded:base64,decode-depth:2", "AKIAQYLPMN5HHHFPZAM2", 15},
	}},
	{"twice-in-one", "x: " + b64s("id: AKIAQYLPMN5HHHFPZAM2 and again AKIAQYLPMN5HHHFPZAM2\n") + "\n", []recordedFinding{
		{"aws-access-token", "decoded:base64,decode-depth:1", "AKIAQYLPMN5HHHFPZAM2", 3},
		{"aws-access-token", "decoded:base64,decode-depth:1", "AKIAQYLPMN5HHHFPZAM2", 3},
	}},
	{"generic-beside", "id AKIAQYLPMN5HHHFPZAM2 " + strings.Repeat("z", 700) + " enc " + b64s("secret = AKIAQYLPMN5HHHFPZAM2\n") + "\n", []recordedFinding{
		{"aws-access-token", "", "AKIAQYLPMN5HHHFPZAM2", 3},
		{"aws-access-token", "decoded:base64,decode-depth:1", "AKIAQYLPMN5HHHFPZAM2", 729},
	}},
	{"generic-lines", "x: " + b64s("secret = AKIAQYLPMN5HHHFPZAM2\nmore text\nid: AKIAQYLPMN5HHHFPZAM2\n") + "\n", []recordedFinding{
		{"aws-access-token", "decoded:base64,decode-depth:1", "AKIAQYLPMN5HHHFPZAM2", 3},
		{"aws-access-token", "decoded:base64,decode-depth:1", "AKIAQYLPMN5HHHFPZAM2", 3},
	}},
	{"new-candidate", "k " + recordedHex[:35] + `\u0036` + recordedHex[36:] + "U+0026 end\n", []recordedFinding{
		{"aws-access-token", "decoded:unicode,decoded:hex,decode-depth:3", "AKIAQYLPMN5HHHFPZAM2", 2},
	}},
}

// recordedFinding is a finding as recordedCases write it down.
type recordedFinding struct {
	rule, tags, match string
	start             int
}

const recordedToken = "Qznpm_uHiQAba4K3HTRZjrhQei4dU0tmZbaavLrM2FY"

// recordedHex is hex of a line holding a key; its 36th digit is a 6.
var recordedHex = hex.EncodeToString([]byte("id AKIAQYLPMN5HHHFPZAM2 x"))

// recordedURL is the line of JSON of recordedCases' first case, with esc
// before the token's name.
func recordedURL(esc string) string {
	return `    "image_small_url": "https://c10.patreonusercontent.com/3/eyJoIjo2NDAsInYiOiIzIiwidyI6NjQwfQ%3D%3D/patreon-media/campaign/1493621/91a5dc5347a741af89aaed35d2a82b5c?token-time=2145916800` +
		esc + "token-hash=" + recordedToken + "%3D\",\n"
}

// recordedConfig is a config file of 120 settings and a key, its length
// not a multiple of 3 (so that its base64 ends in padding).
func recordedConfig() string {
	var b strings.Builder
	for i := range 120 {
		fmt.Fprintf(&b, "setting_%d = value %d\n", i, i*7)
	}
	b.WriteString(awsLine + "\n")
	for b.Len()%3 == 0 {
		b.WriteString("#")
	}
	return b.String()
}

// TestGitleaksDecodingAsRecorded scans recordedCases decoding as gitleaks
// does and compares the findings, as a multiset, with those gitleaks
// reported.
func TestGitleaksDecodingAsRecorded(t *testing.T) {
	cfg, err := Parse([]byte(recordedRules), "recorded.toml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := CompileWith(cfg, Settings{GitleaksDecoding: true})
	if err != nil {
		t.Fatal(err)
	}
	key := func(f recordedFinding) string { return fmt.Sprintf("%s|%s|%q|%d", f.rule, f.tags, f.match, f.start) }
	for _, c := range recordedCases {
		var got, want []string
		d.Scan(nil, "f.txt", []byte(c.data), func(m Match) {
			if strings.Contains(c.data[:m.Start], "\n") {
				t.Errorf("%s: a finding off the first line: %+v", c.name, m)
			}
			got = append(got, key(recordedFinding{m.RuleID, strings.Join(m.Tags, ","), m.Match, m.Start}))
		})
		for _, f := range c.want {
			want = append(want, key(f))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got  %q\n want %q", c.name, got, want)
		}
	}
}

// wholeTextDecoded is gitleaks' decoding loop (detect.go's DetectContext
// and codec.Decoder) written plainly, on this package's candidates,
// decoders and rules: the reference for Scan's regions and windows. At
// each depth every candidate of the whole text is decoded and put in its
// place, the rules run over the whole new text, and a match is kept if it
// overlaps or touches a segment decoded at that depth, tagged with the
// kinds of those segments, and placed on data through the segments of
// every depth. A segment takes the kinds of the segments of the depth
// above that it overlaps. Text outside every segment is placed by the
// shift the segments before it make (gitleaks places it unshifted, which
// puts findings at the wrong place; Scan shifts it, and so does this).
// It returns the decoded findings of d, which must decode as gitleaks
// does, ignore inline allows and have no generic rule (gitleaks' filter
// of generic findings is left out).
func wholeTextDecoded(d *Detector, data []byte) []decodedKey {
	type level struct {
		segs []segment // lo, hi in the text above; dlo, dhi in this depth's text
		orig [][2]int  // per segment: its place in data
	}
	var levels []level
	// place maps [a, b) of the text of depth j (data at j = 0) to data.
	var place func(j, a, b int) (int, int)
	place = func(j, a, b int) (int, int) {
		if j == 0 {
			return a, b
		}
		L := levels[j-1]
		lo, hi, any := 0, 0, false
		for i, sg := range L.segs {
			if sg.dlo > b || a > sg.dhi {
				continue
			}
			if sg.dlo <= a && b <= sg.dhi {
				return L.orig[i][0], L.orig[i][1]
			}
			x, y := sg.lo+min(a-sg.dlo, 0), sg.hi+max(b-sg.dhi, 0)
			if !any {
				lo, hi, any = x, y, true
			} else {
				lo, hi = min(lo, x), max(hi, y)
			}
		}
		if !any {
			up := func(x int) int {
				u := x
				for _, sg := range L.segs {
					if sg.dhi > x {
						break
					}
					u = sg.hi + (x - sg.dhi)
				}
				return u
			}
			lo, hi = up(a), up(b)
		}
		return place(j-1, lo, hi)
	}
	var out []decodedKey
	s := d.NewScratch()
	text := data
	for depth := 1; depth <= d.decodeDepth; depth++ {
		var L level
		var next []byte
		at := 0
		for _, c := range d.enc.findCandidates(text, 0, len(text), nil) {
			if c.kind == 0 {
				continue
			}
			dec, ok := decode(nil, text[c.lo:c.hi], c.kind)
			if !ok {
				continue
			}
			c.kinds = c.kind
			if depth > 1 {
				for _, p := range levels[depth-2].segs {
					if p.dlo <= c.hi && c.lo <= p.dhi {
						c.kinds |= p.kinds
					}
				}
			}
			next = append(next, text[at:c.lo]...)
			c.dlo = len(next)
			next = append(next, dec...)
			c.dhi = len(next)
			at = c.hi
			lo, hi := place(depth-1, c.lo, c.hi)
			L.segs = append(L.segs, c)
			L.orig = append(L.orig, [2]int{lo, hi})
		}
		if len(L.segs) == 0 {
			break
		}
		next = append(next, text[at:]...)
		levels = append(levels, L)
		for _, f := range d.collect(s, "f.txt", next) {
			var kinds encKind
			for _, sg := range L.segs {
				if sg.dlo <= f.rawEnd && f.rawStart <= sg.dhi {
					kinds |= sg.kinds
				}
			}
			if kinds == 0 {
				continue
			}
			lo, hi := place(depth, f.rawStart, f.rawEnd)
			start := lo
			if lo < hi && data[lo] == '\n' {
				start++
			}
			out = append(out, decodedKey{f.RuleID, f.Secret, start, hi, strings.Join(decodedTags(f.Tags, kinds, depth), ",")})
		}
		text = next
	}
	return out
}

// wholeTextRules are rules that find what the encoders of
// TestDecodingEqualsWholeText hide: two whose matches are short (what
// decides one lies within decodeContext of it, as Scan's windows assume)
// and gitleaks' private-key, whose matches span lines without a bound
// (Scan runs it over the whole text where its keyword occurs).
const wholeTextRules = `
[[rules]]
id = "aws-access-token"
description = "AWS"
regex = '''\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b'''
keywords = ["akia"]

[[rules]]
id = "hash-param"
description = "A hash= parameter"
regex = '''(?i)[a-z0-9_-]{0,20}hash=([A-Za-z0-9_=-]{16,64})(?:[\s"&;]|$)'''
keywords = ["hash="]

[[rules]]
id = "private-key"
description = "Private Key"
regex = '''(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S-]{64,}?KEY(?: BLOCK)?-----'''
keywords = ["-----begin"]
`

func wholeTextDetector(t testing.TB) *Detector {
	return cachedDetector(t, "wholetext", func(t testing.TB) *Detector {
		cfg, err := Parse([]byte(wholeTextRules), "wholetext.toml")
		if err != nil {
			t.Fatal(err)
		}
		d, err := CompileWith(cfg, Settings{GitleaksDecoding: true, IgnoreInlineAllow: true})
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

// checkWholeText compares Scan's decoded findings in data with
// wholeTextDecoded's, as multisets.
func checkWholeText(t testing.TB, d *Detector, s *Scratch, data []byte) int {
	t.Helper()
	var got []decodedKey
	d.Scan(s, "f.txt", data, func(m Match) {
		if k := (decodedKey{m.RuleID, m.Secret, m.Start, m.End, strings.Join(m.Tags, ",")}); strings.Contains(k.tags, "decode-depth:") {
			got = append(got, k)
		}
	})
	want := wholeTextDecoded(d, data)
	cmpKey := func(a, b decodedKey) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }
	slices.SortFunc(got, cmpKey)
	slices.SortFunc(want, cmpKey)
	if !slices.Equal(got, want) {
		t.Fatalf("%d bytes %q\nScan:       %+v\nwhole text: %+v", len(data), data[:min(len(data), 300)], got, want)
	}
	return len(want)
}

// TestDecodingEqualsWholeText holds Scan, which decodes in regions of
// whole lines and runs the rules over windows of them, to gitleaks' loop
// over the whole text at every depth (wholeTextDecoded), on random text:
// secrets and names nested in base64, hex, percent-encoding and \u and
// U+ escapes, in and beside each other, joined by separators that are
// encoded text too, among filler lines and long lines.
func TestDecodingEqualsWholeText(t *testing.T) {
	d := wholeTextDetector(t)
	s := d.NewScratch()
	iters := 600
	if testing.Short() {
		iters = 150
	}
	total := 0
	for i := range iters {
		rng := rand.New(rand.NewPCG(uint64(i), 21))
		total += checkWholeText(t, d, s, []byte(nestedText(rng)))
	}
	if total < iters {
		t.Errorf("only %d decoded findings in %d texts", total, iters)
	}
}

// nestedText returns a random text for TestDecodingEqualsWholeText.
func nestedText(rng *rand.Rand) string {
	encs := []func(string) string{
		b64s,
		func(x string) string { return base64.RawURLEncoding.EncodeToString([]byte(x)) },
		func(x string) string { return hex.EncodeToString([]byte(x)) },
		percentAll,
		func(x string) string { // percent-encoding of the separators only
			var b strings.Builder
			for i := range len(x) {
				if strings.IndexByte("=&/: \"", x[i]) >= 0 {
					fmt.Fprintf(&b, "%%%02X", x[i])
				} else {
					b.WriteByte(x[i])
				}
			}
			return b.String()
		},
		func(x string) string {
			var b strings.Builder
			for _, r := range x {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
			return b.String()
		},
		func(x string) string {
			var b strings.Builder
			for _, r := range x {
				fmt.Fprintf(&b, "U+%04X ", r)
			}
			return b.String()
		},
	}
	seps := []string{" ", "=", ": ", "&", `\u0026`, "%3D", "%26", `\\u003d`, `"`, "\n", "U+0026 "}
	var text func(depth int) string
	text = func(depth int) string {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			switch r := rng.IntN(10); {
			case r < 3:
				b.WriteString([]string{"id ", "token-hash=", "x="}[rng.IntN(3)])
				b.WriteString([]string{"AKIAQYLPMN5HHHFPZAM2", recordedToken}[rng.IntN(2)])
			case r < 5:
				for range []int{3, 10, 40, 700}[rng.IntN(4)] {
					b.WriteByte("abcdefgh ./-_0123"[rng.IntN(17)])
				}
			case depth > 0:
				b.WriteString(encs[rng.IntN(len(encs))](text(depth - 1)))
			default:
				b.WriteString("AKIAQYLPMN5HHHFPZAM2")
			}
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		return b.String()
	}
	body := text(rng.IntN(4))
	if rng.IntN(2) == 0 {
		body = encs[rng.IntN(len(encs))](body)
	}
	if rng.IntN(3) == 0 {
		// An armored key around the body, kilobytes long, some of whose
		// lines are base64 of text: a private-key match reaches from its
		// BEGIN line to its END line across them, further than a window.
		var b strings.Builder
		b.WriteString("-----BEGIN " + []string{"RSA", "PGP", "OPENSSH"}[rng.IntN(3)] + " PRIVATE KEY BLOCK-----\n")
		line := func() {
			if rng.IntN(4) == 0 {
				b.WriteString(b64s(text(0)))
			} else {
				raw := make([]byte, 48)
				for i := range raw {
					raw[i] = byte(rng.IntN(256))
				}
				b.WriteString(base64.StdEncoding.EncodeToString(raw))
			}
			b.WriteByte('\n')
		}
		for range rng.IntN(40) {
			line()
		}
		b.WriteString(body + "\n")
		for range rng.IntN(40) {
			line()
		}
		b.WriteString("-----END PRIVATE KEY BLOCK-----\n")
		body = b.String()
	}
	return []string{"", "prefix ", "u=%3D", "x: "}[rng.IntN(4)] + body + []string{"", "\n", " %3D\n"}[rng.IntN(3)]
}

// FuzzDecodingEqualsWholeText is TestDecodingEqualsWholeText on any text
// (under 64 KiB, within the budget of a run).
func FuzzDecodingEqualsWholeText(f *testing.F) {
	for _, c := range recordedCases {
		f.Add([]byte(c.data))
	}
	for i := range 8 {
		f.Add([]byte(nestedText(rand.New(rand.NewPCG(uint64(i), 22)))))
	}
	d := wholeTextDetector(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		checkWholeText(t, d, nil, data)
	})
}

// TestDecodedFindingAtARawOnesPlace: a match that spans a percent-encoded
// quote is found in the text as it is and again, with the same place and
// secret, once the quote is decoded. gitleaks v8.30.1 reports both (dir
// -c with this rule); spindle's own decoding reports the finding once,
// undecoded.
func TestDecodedFindingAtARawOnesPlace(t *testing.T) {
	cfg, err := Parse([]byte(`
[[rules]]
id = "quoted-token"
regex = '''token(?:%22|")?=([A-Z0-9]{20})'''
keywords = ["token"]
`), "quoted.toml")
	if err != nil {
		t.Fatal(err)
	}
	const data = "token%22=AKIAQYLPMN5HHHFPZAM2\n"
	for _, c := range []struct {
		set  Settings
		want []decodedKey
	}{
		{Settings{GitleaksDecoding: true}, []decodedKey{
			{"quoted-token", "AKIAQYLPMN5HHHFPZAM2", 0, 29, ""},
			{"quoted-token", "AKIAQYLPMN5HHHFPZAM2", 0, 29, "decoded:percent,decode-depth:1"},
		}},
		{Settings{}, []decodedKey{{"quoted-token", "AKIAQYLPMN5HHHFPZAM2", 0, 29, ""}}},
	} {
		d, err := CompileWith(cfg, c.set)
		if err != nil {
			t.Fatal(err)
		}
		if got := scanKeys(d, nil, data); !slices.Equal(got, c.want) {
			t.Errorf("%+v: %+v, want %+v", c.set, got, c.want)
		}
	}
}

// TestGenericFilterTakesEveryDepthInBothDecodings: spindle's own decoding
// drops generic findings as gitleaks does too (recordedCases'
// generic-beside and generic-lines), over every depth and with the lines
// of the file.
func TestGenericFilterTakesEveryDepthInBothDecodings(t *testing.T) {
	cfg, err := Parse([]byte(recordedRules), "recorded.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []Settings{{}, {GitleaksDecoding: true}} {
		d, err := CompileWith(cfg, set)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range recordedCases {
			if !strings.HasPrefix(c.name, "generic-") {
				continue
			}
			aws := 0
			for _, k := range scanKeys(d, nil, c.data) {
				switch k.rule {
				case "generic-secret":
					t.Errorf("%+v, %s: a generic finding beside a specific one on its line: %+v", set, c.name, k)
				case "aws-access-token":
					aws++
				}
			}
			if aws == 0 {
				t.Errorf("%+v, %s: no key found", set, c.name)
			}
		}
	}
	// Without the specific rule, the generic one reports.
	d, err := CompileWith(&Config{Rules: slices.DeleteFunc(slices.Clone(cfg.Rules), func(r Rule) bool { return r.ID == "aws-access-token" })}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range recordedCases {
		if strings.HasPrefix(c.name, "generic-") && len(scanKeys(d, nil, c.data)) == 0 {
			t.Errorf("%s: nothing found without the specific rule", c.name)
		}
	}
}

// TestScanWholeThenScan: a Scratch that ScanWhole used on a buffer of
// megabytes (and then let go of what it grew) scans the next buffers,
// whole or not, as a fresh Scratch does; and ScanWhole decodes a run of
// base64 longer than Scan's budget, which Scan does not.
func TestScanWholeThenScan(t *testing.T) {
	d := decodeDetector(t, Settings{GitleaksDecoding: true})
	keys := func(s *Scratch, whole bool, data string) []decodedKey {
		var out []decodedKey
		emit := func(m Match) {
			out = append(out, decodedKey{m.RuleID, m.Secret, m.Start, m.End, strings.Join(m.Tags, ",")})
		}
		if whole {
			d.ScanWhole(s, "f.txt", []byte(data), emit)
		} else {
			d.Scan(s, "f.txt", []byte(data), emit)
		}
		return out
	}
	long := "blob: " + b64s(strings.Repeat("filler text, ", 10000)+awsLine+strings.Repeat(" more", 1000)) + "\n"
	big := strings.Repeat("x = 1\n", 400_000) + long + awsLine + "\n"
	small := "a\n" + awsLine + "\nblob: " + b64s("id "+awsLine) + "\n"
	s := d.NewScratch()
	if got := keys(s, true, big); len(got) != 2 {
		t.Errorf("ScanWhole of %d bytes: %+v, want the key in the long base64 and the plain one", len(big), got)
	}
	if got := keys(d.NewScratch(), false, long); len(got) != 0 {
		t.Errorf("Scan decoded a run of %d bytes: %+v", len(long), got)
	}
	for _, whole := range []bool{false, true} {
		if got, want := keys(s, whole, small), keys(d.NewScratch(), whole, small); len(want) != 2 || !slices.Equal(got, want) {
			t.Errorf("whole %v after a big ScanWhole: %+v, want %+v (two findings)", whole, got, want)
		}
	}
}
