package rules

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const awsLine = "aws_access_key_id = AKIAQYLPMN5HHHFPZAM2"

func b64s(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func decodingDetector(t testing.TB) *Detector {
	return cachedDetector(t, "decoding", func(t testing.TB) *Detector {
		d, err := Compile(Default())
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

func TestFindCandidates(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string // kind:text
	}{
		{"no encoded text here", nil},
		{"id=QUtJQVFZTFBNTjVISEhGUFpBTTI= end", []string{"base64:QUtJQVFZTFBNTjVISEhGUFpBTTI="}},
		{"x " + strings.Repeat("ab01", 8) + " y", []string{"hex:" + strings.Repeat("ab01", 8)}},
		// A hex run wins at its start even inside a longer base64 run.
		{strings.Repeat("ab01", 8) + "xyzXYZ", []string{"hex:" + strings.Repeat("ab01", 8)}},
		{"q=%41%4B%49 tail %41\nnext %42", []string{"percent:%41%4B%49 tail %41", "percent:%42"}},
		{`s = "\u0041\u004b\\u0049" + x`, []string{`unicode:\u0041\u004b\\u0049`}},
		{"U+0041 U+004B end", []string{"unicode:U+0041 U+004B "}},
		{`b"\x41\x4b\x49"`, []string{`escape:\x41\x4b\x49`}},
		{"a &#65;&#x4B;&amp;I b", []string{"html:&#65;&#x4B;&amp;"}},
		// Touching a percent candidate, a base64 run is dropped (gitleaks'
		// overlap rule counts touching).
		{"%41QUtJQVFZTFBNTjVISEhGUFpBTTI", []string{"percent:%41"}},
		// 16 letters with no digit or +/-_ are a candidate but never decode.
		{"abcdefghijklmnopqrstuvwxyz", []string{"base64:abcdefghijklmnopqrstuvwxyz"}},
	} {
		var got []string
		for _, s := range spindleEncodings.findCandidates([]byte(c.in), 0, len(c.in), nil) {
			got = append(got, encNames[bitIndex(s.kind)]+":"+c.in[s.lo:s.hi])
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
	for _, en := range []encodings{spindleEncodings, gitleaksEncodings} {
		long := strings.Repeat("QUtJ", en.maxSegment/4+1)
		if got := en.findCandidates([]byte(long), 0, len(long), nil); len(got) != 1 || got[0].kind != 0 {
			t.Errorf("a run longer than %d bytes: %+v, want one candidate not to decode", en.maxSegment, got)
		}
	}
}

func bitIndex(k encKind) int {
	for i := range encNames {
		if k&(1<<i) != 0 {
			return i
		}
	}
	return 0
}

func TestDecode(t *testing.T) {
	for _, c := range []struct {
		kind    encKind
		in, out string // out "" : does not decode to text
	}{
		{encBase64, b64s(awsLine), awsLine},
		{encBase64, base64.RawURLEncoding.EncodeToString([]byte("a?b>c~d" + awsLine)), "a?b>c~d" + awsLine},
		{encBase64, base64.StdEncoding.EncodeToString([]byte{0, 1, 2, 3, 200, 201, 202, 203, 204, 205, 206, 207}), ""},
		{encBase64, "abcdefghijklmnop", ""}, // no digit or +/-_
		{encHex, hex.EncodeToString([]byte(awsLine)), awsLine},
		{encHex, strings.Repeat("ff", 16), ""},
		{encHex, "abc", ""},
		{encPercent, "%41%4B%49A%20x", "AKIA x"},
		{encPercent, "%00%41", ""},
		{encUnicode, `\u0041\\u004B\U0049`, "AKI"},
		{encUnicode, "U+0041 U+00e9 ", "Aé"},
		{encUnicode, `\u0000`, ""},
		{encEscape, `\x41\\x4b\x49\x41\x5a\x35\x32\x51`, "AKIAZ52Q"},
		{encEscape, `\x41\\x4b`, ""}, // shorter than minOwnDecoded
		{encEscape, `\x00`, ""},
		{encHTML, "&#65;&#x4B;&amp;&lt;&gt;&quot;&apos;x", `AK&<>"'x`},
		{encHTML, "a &amp; b", ""}, // shorter than minOwnDecoded
		{encHTML, "&#1114112;", ""},
	} {
		got, ok := decode(nil, []byte(c.in), c.kind)
		if (c.out == "") == ok || string(got) != c.out {
			t.Errorf("%s %q: got %q, %v; want %q", encNames[bitIndex(c.kind)], c.in, got, ok, c.out)
		}
	}
}

type decodedKey struct {
	rule, secret string
	start, end   int
	tags         string
}

func scanKeys(d *Detector, s *Scratch, data string) []decodedKey {
	var out []decodedKey
	d.Scan(s, "f.txt", []byte(data), func(m Match) {
		out = append(out, decodedKey{m.RuleID, m.Secret, m.Start, m.End, strings.Join(m.Tags, ",")})
	})
	return out
}

func TestDecodedFindingsArePlacedOnTheEncodedText(t *testing.T) {
	d := decodingDetector(t)
	enc := b64s(awsLine)
	data := "line one\nvalue: " + enc + " # end\n"
	start := strings.Index(data, enc)
	got := scanKeys(d, nil, data)
	want := []decodedKey{{"aws-access-token", "AKIAQYLPMN5HHHFPZAM2", start, start + len(enc), "decoded:base64,decode-depth:1"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}

	// Nested three deep: hex in base64 in percent-encoding.
	nested := "u=" + percentAll(b64s(hex.EncodeToString([]byte(awsLine)))) + "\n"
	got = scanKeys(d, nil, nested)
	if len(got) != 1 || got[0].start != 2 || got[0].end != len(nested)-1 ||
		got[0].tags != "decoded:percent,decoded:hex,decoded:base64,decode-depth:3" {
		t.Errorf("nested: %+v", got)
	}
	for depth, n := range map[int]int{-1: 0, 1: 0, 2: 0, 3: 1} {
		dd, err := CompileWith(Default(), Settings{MaxDecodeDepth: depth})
		if err != nil {
			t.Fatal(err)
		}
		if got := scanKeys(dd, nil, nested); len(got) != n {
			t.Errorf("depth %d: %d findings, want %d", depth, len(got), n)
		}
	}

	// An inline allow on the encoded text's line holds, unless ignored.
	allowed := "value: " + enc + " # gitleaks:allow\n"
	if got := scanKeys(d, nil, allowed); len(got) != 0 {
		t.Errorf("gitleaks:allow: %+v", got)
	}
	da, err := CompileWith(Default(), Settings{IgnoreInlineAllow: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := scanKeys(da, nil, allowed); len(got) != 1 {
		t.Errorf("IgnoreInlineAllow: %+v", got)
	}

	// Two secrets in one encoded string are two findings.
	two := b64s(awsLine + "\n" + strings.Replace(awsLine, "AKIAQYLPMN5HHHFPZAM2", "AKIAZ52QJMR3WQHE7XTQ", 1))
	if got := scanKeys(d, nil, "x: "+two+"\n"); len(got) != 2 || got[0].secret == got[1].secret {
		t.Errorf("two in one: %+v", got)
	}
}

func percentAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// TestChunkedDecodingEqualsWholeScan places encoded secrets at random
// offsets of filler text, splits the file into chunks of random sizes as
// the scan engine does (Overlap carried, Owns deciding), and checks that
// every finding, decoded or not, is reported once, as the whole-file Scan
// reports it: an encoded string across a chunk boundary is found once.
func TestChunkedDecodingEqualsWholeScan(t *testing.T) {
	d := decodingDetector(t)
	s := d.NewScratch()
	iters := 40
	if testing.Short() {
		iters = 8
	}
	encs := []func(string) string{b64s, func(x string) string { return hex.EncodeToString([]byte(x)) }, percentAll,
		func(x string) string { return b64s(b64s(x)) }}
	total := 0
	for i := range iters {
		rng := rand.New(rand.NewPCG(uint64(i), 9))
		var b strings.Builder
		for b.Len() < 200_000 {
			switch rng.IntN(4) {
			case 0:
				fmt.Fprintf(&b, "config: %s\n", encs[rng.IntN(len(encs))](awsLine))
			default:
				for range rng.IntN(400) {
					b.WriteString("lorem ipsum dolor sit amet ")
				}
				b.WriteString("\n")
			}
		}
		file := []byte(b.String())
		want := scanKeys(d, s, string(file))
		var got []decodedKey
		chunk := d.Overlap()/2 + rng.IntN(3*d.Overlap())
		scanChunked(d, s, "f.txt", file, chunk, func(m Match) {
			got = append(got, decodedKey{m.RuleID, m.Secret, m.Start, m.End, strings.Join(m.Tags, ",")})
		})
		cmpKey := func(a, b decodedKey) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }
		slices.SortFunc(got, cmpKey)
		slices.SortFunc(want, cmpKey)
		if !slices.Equal(got, want) {
			t.Fatalf("file %d, chunk %d: chunked %d findings, whole %d", i, chunk, len(got), len(want))
		}
		total += len(want)
	}
	if total < 10*iters {
		t.Errorf("only %d findings", total)
	}
}

// TestDecodingAllBase64IsBounded scans 8 MiB of base64 (340 KiB with
// -short or -race) (wrapped, as
// base64(1) writes it, and as one line) and checks that it neither
// reports nor rescans anything: random bytes do not decode to text.
func TestDecodingAllBase64IsBounded(t *testing.T) {
	d := decodingDetector(t)
	size := 6 << 20
	if testing.Short() || raceEnabled {
		size = 256 << 10 // the race detector makes the regex engines ~100× slower
	}
	wrapped, enc := randomBase64(size)
	s := d.NewScratch()
	for _, text := range []string{wrapped, enc} {
		if got := scanKeys(d, s, text); len(got) != 0 {
			t.Errorf("%d findings in random base64", len(got))
		}
		if s.dec != nil && len(s.dec.levels) > 1 && len(s.dec.levels[1].text) > 0 {
			t.Errorf("a region of %d bytes was scanned in random base64", len(s.dec.levels[1].text))
		}
	}
}

// FuzzDecoding checks, on any text, that candidates lie in the text in
// order without overlapping, that decoding never fails, and that every
// finding of a Scan with decoding lies within the text.
func FuzzDecoding(f *testing.F) {
	for _, s := range []string{
		"value: " + b64s(awsLine), hex.EncodeToString([]byte(awsLine)), percentAll(awsLine),
		`\u0041\\u004b`, "U+0041 U+0042", `\x41\x42`, "&#65;&amp;&#x4b;", "%4", `\u12`, "&#;", "U+12",
		"u=" + percentAll(b64s(hex.EncodeToString([]byte(awsLine)))),
	} {
		f.Add([]byte(s))
	}
	d := decodingDetector(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		prev := 0
		for _, c := range spindleEncodings.findCandidates(data, 0, len(data), nil) {
			if c.lo < prev || c.hi <= c.lo || c.hi > len(data) {
				t.Fatalf("candidate [%d,%d) after %d in %d bytes", c.lo, c.hi, prev, len(data))
			}
			prev = c.hi
			if c.kind != 0 {
				decode(nil, data[c.lo:c.hi], c.kind)
			}
		}
		d.Scan(nil, "f", data, func(m Match) {
			if m.Start < 0 || m.End > len(data) || m.Start > m.End {
				t.Fatalf("finding [%d,%d) in %d bytes", m.Start, m.End, len(data))
			}
		})
	})
}

// BenchmarkDecodingBase64 scans 8 MiB of random base64, wrapped at 76
// columns, with decoding on and off: the cost of looking for encoded text
// that is not there.
func BenchmarkDecodingBase64(b *testing.B) {
	wrapped, _ := randomBase64(6 << 20)
	data := []byte(wrapped)
	for _, c := range []struct {
		name  string
		depth int
	}{{"off", -1}, {"on", 0}} {
		b.Run(c.name, func(b *testing.B) {
			d, err := CompileWith(Default(), Settings{MaxDecodeDepth: c.depth})
			if err != nil {
				b.Fatal(err)
			}
			s := d.NewScratch()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				d.Scan(s, "f.txt", data, func(Match) {})
			}
		})
	}
}

// randomBase64 returns n random bytes in base64, wrapped at 76 columns as
// base64(1) writes it, and on one line.
func randomBase64(n int) (wrapped, line string) {
	raw := make([]byte, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range raw {
		raw[i] = byte(rng.Uint32())
	}
	line = base64.StdEncoding.EncodeToString(raw)
	var w strings.Builder
	for i := 0; i < len(line); i += 76 {
		w.WriteString(line[i:min(len(line), i+76)])
		w.WriteByte('\n')
	}
	return w.String(), line
}

// findCandidatesByPosition is findCandidates written as the regex runs:
// at every position, each kind in precedence order. FuzzFindCandidates
// holds findCandidates to it.
func findCandidatesByPosition(en encodings, data []byte, lo, hi int, out []segment) []segment {
	first := len(out)
	for p := lo; p < hi; {
		c := data[p]
		cl := encClass[c]
		if cl == 0 {
			p++
			continue
		}
		if cl&clStart != 0 {
			if k, end := en.startAt(data, p, hi); end > p {
				out = append(out, segment{lo: p, hi: end, kind: k})
				p = end
				continue
			}
			if cl&clB64 == 0 {
				p++
				continue
			}
		}
		// A run of hex or base64 characters from p.
		q := p
		for q < hi && encClass[data[q]]&clHex != 0 {
			q++
		}
		if q-p >= minHex {
			out = append(out, segment{lo: p, hi: q, kind: encHex})
			p = q
			continue
		}
		for q < hi && encClass[data[q]]&clB64 != 0 {
			q++
		}
		if q-p >= minBase64 {
			for e := 0; e < 2 && q < hi && data[q] == '='; e++ {
				q++
			}
			out = append(out, segment{lo: p, hi: q, kind: encBase64})
			p = q
			continue
		}
		// Nothing starts at p; inside the run only a "U+" can start
		// something, and a shorter run from a later position is shorter
		// still.
		next := q
		for i := p + 1; i < q; i++ {
			if data[i] == 'U' && i+1 < q && data[i+1] == '+' {
				next = i
				break
			}
		}
		p = next
	}
	return overlapRule(out, first, en.maxSegment)
}

func FuzzFindCandidates(f *testing.F) {
	for _, s := range []string{
		"id=QUtJQVFZTFBNTjVISEhGUFpBTTI= %41 \\u0041 U+0041 &#65;",
		strings.Repeat("ab01", 8) + "xyzXYZ" + strings.Repeat("cd", 20),
		"short words only, and a-long_identifier/path+thing9 then U+0041 U+0042",
		"%41QUtJQVFZTFBNTjVISEhGUFpBTTI\\x41&amp;",
		"abcdefghijklmnoU+0041 ",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, en := range []encodings{spindleEncodings, gitleaksEncodings} {
			got := en.findCandidates(data, 0, len(data), nil)
			want := findCandidatesByPosition(en, data, 0, len(data), nil)
			if !slices.Equal(got, want) {
				t.Fatalf("%q, %+v:\ngot  %+v\nwant %+v", data, en, got, want)
			}
			if len(data) < en.maxSegment {
				if re := findCandidatesByRegex(data, en); !slices.Equal(got, re) {
					t.Fatalf("%q, %+v:\ngot   %+v\nregex %+v", data, en, got, re)
				}
			}
		}
	})
}

// candidateRegex is gitleaks' alternation of encodings, in precedence
// order, with spindle's two kinds (\xXX escapes, HTML references) in
// their place. HTML references are bounded as entityAt bounds them.
// gitleaksCandidateRegex is gitleaks' own, as its codec package writes it.
var candidateRegex, gitleaksCandidateRegex = func() (*regexp.Regexp, *regexp.Regexp) {
	entity := `&(?:#[0-9]{1,9};|#[xX][0-9a-fA-F]{1,8};|amp;|lt;|gt;|quot;|apos;)`
	percent := `(%[0-9A-Fa-f]{2}(?:.*%[0-9A-Fa-f]{2})?)`
	unicode := `((?:U\+[a-fA-F0-9]{4}(?:\s|$))+|(?i)(?:\\{1,2}u[a-fA-F0-9]{4})+)`
	hex, b64 := `([0-9A-Fa-f]{32,})`, `([\w\/+-]{16,}={0,2})`
	all := regexp.MustCompile(strings.Join([]string{
		percent, unicode,
		`((?:\\{1,2}[xX][0-9A-Fa-f]{2})+)`,
		`(` + entity + `(?:.*` + entity + `)?)`,
		hex, b64,
	}, "|"))
	return all, regexp.MustCompile(strings.Join([]string{percent, unicode, hex, b64}, "|"))
}()

// findCandidatesByRegex is the candidates as gitleaks' regex finds them
// (extended by spindle's two kinds when en has them), then the overlap
// rule: the reference for texts shorter than en.maxSegment.
func findCandidatesByRegex(data []byte, en encodings) []segment {
	re, groups := candidateRegex, []encKind{encPercent, encUnicode, encEscape, encHTML, encHex, encBase64}
	if en.kinds == gitleaksKinds {
		re, groups = gitleaksCandidateRegex, []encKind{encPercent, encUnicode, encHex, encBase64}
	}
	var out []segment
	for _, m := range re.FindAllSubmatchIndex(data, -1) {
		for g, k := range groups {
			if m[2+2*g] >= 0 {
				out = append(out, segment{lo: m[2+2*g], hi: m[3+2*g], kind: k})
			}
		}
	}
	return overlapRule(out, 0, en.maxSegment)
}

func TestHasRareRune(t *testing.T) {
	for _, r := range rareRunes {
		if !hasRareRune([]byte("ab" + string(r) + "cd")) {
			t.Errorf("%U not seen", r)
		}
		enc := []byte(string(r))
		if hasRareRune(enc[:len(enc)-1]) {
			t.Errorf("%U cut short seen", r)
		}
	}
	if hasRareRune([]byte("plain ascii, é, ж, €")) {
		t.Error("a rare rune in text without one")
	}
}

// TestGateAroundRareRunes checks the slow path's keyword gate, which
// lower-cases only the text around U+0130 and U+212A, against
// strings.ToLower of the whole buffer: every keyword with an i or a k,
// spelled with the rare rune, amid random bytes.
func TestGateAroundRareRunes(t *testing.T) {
	d := decodingDetector(t)
	s := d.NewScratch()
	rng := rand.New(rand.NewPCG(5, 5))
	noise := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return string(b)
	}
	checked := 0
	for _, r := range d.rules {
		for _, k := range r.keyText {
			i := strings.IndexAny(k, "ik")
			if i < 0 || r.gate == nil {
				continue
			}
			rare := map[byte]string{'i': "\u0130", 'k': "\u212a"}[k[i]]
			data := []byte(noise(rng.IntN(300)) + k[:i] + rare + k[i+1:] + noise(rng.IntN(300)))
			slow := s.prefilter(data)
			if !slow || !s.rareOnly {
				t.Fatalf("%q: not on the slow path for rare runes alone", k)
			}
			want := false
			lower := strings.ToLower(string(data))
			for _, kw := range r.keyText {
				want = want || strings.Contains(lower, kw)
			}
			if got := s.gateOpen(r, data, slow); got != want {
				t.Errorf("rule %s, keyword %q as %q: gate %v, strings.ToLower says %v", r.ID, k, k[:i]+rare+k[i+1:], got, want)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Errorf("only %d keywords checked", checked)
	}
}

// BenchmarkScanDecoding measures Scan with gitleaks' config on one
// goroutine, decoding off, on with spindle's decoders, and on as the
// drop-ins decode (GitleaksDecoding), over two corpora: the Go source of
// BenchmarkScan, where little decodes, and encodedCorpus, where every few
// lines hold encoded text.
func BenchmarkScanDecoding(b *testing.B) {
	cfg, err := Parse(gitleaksTOML(), "gitleaks.toml")
	if err != nil {
		b.Fatal(err)
	}
	for _, corpus := range []struct {
		name   string
		chunks func(*testing.B) [][]byte
	}{{"go", goSourceChunks}, {"encoded", encodedChunks}} {
		for _, dec := range []struct {
			name string
			set  Settings
		}{{"off", noDecoding}, {"spindle", Settings{}}, {"gitleaks", Settings{GitleaksDecoding: true}}} {
			b.Run("corpus="+corpus.name+"/decoding="+dec.name, func(b *testing.B) {
				d, err := CompileWith(cfg, dec.set)
				if err != nil {
					b.Fatal(err)
				}
				chunks := corpus.chunks(b)
				s := d.NewScratch()
				findings := 0
				b.SetBytes(totalBytes(chunks))
				b.ReportAllocs()
				for b.Loop() {
					for _, c := range chunks {
						d.Scan(s, "f.txt", c, func(Match) { findings++ })
					}
				}
				b.ReportMetric(float64(findings)/float64(b.N), "findings/op")
			})
		}
	}
}

// encodedChunks is encodedCorpus in 256 KiB chunks cut at line ends, as
// goSourceChunks cuts the Go source.
func encodedChunks(b *testing.B) [][]byte {
	all := encodedCorpus(4 << 20)
	var chunks [][]byte
	for len(all) > 0 {
		n := min(benchChunkBytes, len(all))
		if i := bytes.LastIndexByte(all[:n], '\n'); i > 0 && n < len(all) {
			n = i + 1
		}
		chunks = append(chunks, all[:n])
		all = all[n:]
	}
	return chunks
}

// encodedCorpus returns about size bytes of text in which encoded text is
// common: prose lines, and among them secrets and configs in base64, hex
// and percent-encoding, JSON strings whose base64 has its padding escaped
// as \u003d, URLs with \u0026 in their query, and long lines (minified
// code) that hold a few base64 strings.
func encodedCorpus(size int) []byte {
	rng := rand.New(rand.NewPCG(7, 11))
	lorem := "lorem ipsum dolor sit amet consectetur adipiscing elit "
	config := func(n int) string {
		var c strings.Builder
		for i := range n {
			fmt.Fprintf(&c, "setting_%d = value %d\n", i, rng.IntN(1000))
		}
		c.WriteString(awsLine + "\n")
		return c.String()
	}
	var b strings.Builder
	for b.Len() < size {
		switch rng.IntN(10) {
		case 0:
			fmt.Fprintf(&b, "config: %s\n", b64s(config(rng.IntN(8))))
		case 1:
			fmt.Fprintf(&b, "  \"kubeconfig\": \"%s\",\n", strings.ReplaceAll(b64s(config(20+rng.IntN(100))+"x"), "=", `\u003d`))
		case 2:
			fmt.Fprintf(&b, "url = \"https://example.com/a%%3Db?t=%d\\u0026api_key=%s%%3D\"\n", rng.IntN(1e6), b64s(awsLine)[:24])
		case 3:
			fmt.Fprintf(&b, "hex: %s\n", hex.EncodeToString([]byte(awsLine)))
		case 4:
			fmt.Fprintf(&b, "u=%s\n", percentAll(awsLine))
		case 5:
			for range 200 {
				fmt.Fprintf(&b, "function f%d(a,b){return a+b};", rng.IntN(1e6))
				if rng.IntN(50) == 0 {
					fmt.Fprintf(&b, "var s=%q;", b64s(config(rng.IntN(4))))
				}
			}
			b.WriteString("\n")
		default:
			b.WriteString(strings.Repeat(lorem, 1+rng.IntN(3)) + "\n")
		}
	}
	return []byte(b.String())
}
