package rules

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

func mustDetector(t testing.TB, src string) *Detector {
	t.Helper()
	return mustDetectorWith(t, src, Settings{})
}

func mustDetectorWith(t testing.TB, src string, set Settings) *Detector {
	t.Helper()
	cfg, err := Parse([]byte(src), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := CompileWith(cfg, set)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func scanText(d *Detector, path, text string) []Match {
	return scanAll(d, d.NewScratch(), path, []byte(text))
}

func ids(ms []Match) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.RuleID)
	}
	return out
}

const tokRule = `
[[rules]]
id = "tok"
regex = '''tok_([a-z0-9]{8})'''
keywords = ["tok_"]
`

func TestInlineAllowSuppressesOnlyItsLine(t *testing.T) {
	d := mustDetector(t, tokRule)
	cases := []struct {
		text string
		want int
	}{
		{"x = tok_abcd1234", 1},
		{"x = tok_abcd1234 // gitleaks:allow", 0},
		{"x = tok_abcd1234 # spindle:allow", 0},
		{"// gitleaks:allow\nx = tok_abcd1234\n", 1},
		{"x = tok_abcd1234\n// spindle:allow\n", 1},
		{"x = tok_abcd1234 // GITLEAKS:ALLOW\n", 1}, // case-sensitive, as in gitleaks
	}
	for _, c := range cases {
		if got := scanText(d, "", c.text); len(got) != c.want {
			t.Errorf("%q: %d findings, want %d", c.text, len(got), c.want)
		}
	}
}

func TestEntropyMustExceedTheThreshold(t *testing.T) {
	// "aabb" has entropy exactly 1.
	d := mustDetector(t, "[[rules]]\nid = 'e'\nregex = '''v=([a-z]{4})'''\nentropy = 1.0\nkeywords = ['v=']\n")
	if got := scanText(d, "", "v=aabb"); len(got) != 0 {
		t.Errorf("entropy equal to the threshold: %v", got)
	}
	got := scanText(d, "", "v=abcd")
	if len(got) != 1 || got[0].Entropy != 2 {
		t.Errorf("entropy 2 over threshold 1: %+v", got)
	}
}

func TestSecretComesFromTheRegexMatchedAgainOnTheMatch(t *testing.T) {
	cases := []struct {
		name, regex string
		group       int
		text        string
		secret      string
	}{
		{"first non-empty group", `(?:a(x+)|b(y+))z`, 0, "byyz", "yy"},
		{"explicit group", `(k)=(v+)`, 2, "k=vvv", "vvv"},
		{"no group: whole match", `k=v+`, 0, "k=vv", "k=vv"},
		{"unmatched explicit group", `(a)|(b)`, 1, "b", ""},
		// Matched again on "k=vv\n" trimmed to "k=vv", $ now holds at its
		// end, so the first alternative wins: the secret differs from what
		// the match in context would give.
		{"anchors see the match alone", `k=(v+)(?:$|\n)|k=(v)`, 0, "k=vv\n;", "vv"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := mustDetector(t, fmt.Sprintf("[[rules]]\nid = 'r'\nregex = '''%s'''\nsecretGroup = %d\n", c.regex, c.group))
			got := scanText(d, "", c.text)
			if len(got) == 0 {
				t.Fatalf("no finding")
			}
			m := got[0]
			if m.Secret != c.secret {
				t.Errorf("secret %q, want %q", m.Secret, c.secret)
			}
			if c.secret != "" && c.text[m.SecretStart:m.SecretEnd] != m.Secret {
				t.Errorf("secret offsets [%d,%d) do not hold %q", m.SecretStart, m.SecretEnd, m.Secret)
			}
		})
	}
}

// TestMatchOffsetsFollowGitleaks checks newline trimming and where a match
// that starts on a newline is placed.
func TestMatchOffsetsFollowGitleaks(t *testing.T) {
	d := mustDetector(t, "[[rules]]\nid = 'r'\nregex = '''\\n*tok[0-9]+\\n*'''\nkeywords = ['tok']\n")
	text := "a\n\n\ntok123\n\nb"
	got := scanText(d, "", text)
	if len(got) != 1 {
		t.Fatalf("%d findings", len(got))
	}
	m := got[0]
	if m.Match != "tok123" {
		t.Errorf("Match %q, want the newlines trimmed", m.Match)
	}
	// The raw match starts at the first '\n' (offset 1); gitleaks puts it
	// on the next line (line 2) and ends it len("tok123") after the raw
	// start.
	if m.Start != 2 || m.End != 1+len("tok123") {
		t.Errorf("Start %d End %d, want 2 and 7", m.Start, m.End)
	}
	if line := 1 + bytes.Count([]byte(text[:m.Start]), []byte("\n")); line != 2 {
		t.Errorf("line %d, want 2", line)
	}
}

func TestGenericFindingsYieldToSpecificRulesOnTheSameLine(t *testing.T) {
	d := mustDetector(t, `
[[rules]]
id = "generic-thing"
regex = '''key=([a-z0-9_]{6,})'''
keywords = ["key="]
[[rules]]
id = "specific"
regex = '''(tok_[a-z0-9]{6})'''
keywords = ["tok_"]
`)
	if got := ids(scanText(d, "", "key=tok_abc123")); !reflect.DeepEqual(got, []string{"specific"}) {
		t.Errorf("same line: %v, want only the specific finding", got)
	}
	if got := ids(scanText(d, "", "key=abc123\ntok_abc123")); !reflect.DeepEqual(got, []string{"generic-thing", "specific"}) {
		t.Errorf("different lines: %v, want both", got)
	}
	if got := ids(scanText(d, "", "key=zzz999 tok_abc123")); !reflect.DeepEqual(got, []string{"generic-thing", "specific"}) {
		t.Errorf("unrelated secrets: %v, want both", got)
	}
}

func TestRequiredRulesGateCompositeFindings(t *testing.T) {
	d := mustDetector(t, `
[[rules]]
id = "user"
regex = '''user=([a-z]+)'''
keywords = ["user="]
skipReport = true
[[rules]]
id = "pass"
regex = '''pass=([a-z0-9]+)'''
keywords = ["pass="]
[[rules.required]]
id = "user"
withinLines = 1
`)
	if got := ids(scanText(d, "", "user=bob\npass=s3cret")); !reflect.DeepEqual(got, []string{"pass"}) {
		t.Errorf("within one line: %v, want [pass] (user is skipReport)", got)
	}
	if got := ids(scanText(d, "", "user=bob\n\n\npass=s3cret")); len(got) != 0 {
		t.Errorf("three lines apart: %v, want nothing", got)
	}
	if got := ids(scanText(d, "", "pass=s3cret")); len(got) != 0 {
		t.Errorf("no user: %v, want nothing", got)
	}
}

func TestPathScopedRulesAndAllowlists(t *testing.T) {
	d := mustDetector(t, `
[[allowlists]]
paths = ['''^vendor/''']
[[allowlists]]
condition = "AND"
paths = ['''_test\.go$''']
stopwords = ["fake"]

[[rules]]
id = "env-only"
path = '''\.env$'''
regex = '''tok_[a-z0-9]{8}'''
keywords = ["tok_"]

[[rules]]
id = "anywhere"
regex = '''tok_[a-z0-9]{8}'''
keywords = ["tok_"]
[[rules.allowlists]]
paths = ['''^docs/''']
`)
	cases := []struct {
		path, text string
		want       []string
	}{
		{"app/.env", "tok_abcd1234", []string{"env-only", "anywhere"}},
		{"app/main.go", "tok_abcd1234", []string{"anywhere"}},
		{"docs/readme.md", "tok_abcd1234", []string{}},
		{"vendor/x/.env", "tok_abcd1234", []string{}},
		{"x_test.go", "tok_fake1234", []string{}},
		{"x_test.go", "tok_abcd1234", []string{"anywhere"}},
		{"x.go", "tok_fake1234", []string{"anywhere"}},
	}
	for _, c := range cases {
		if got := ids(scanText(d, c.path, c.text)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.path, got, c.want)
		}
	}
	if !d.SkipPath("vendor/a.go") || d.SkipPath("x_test.go") || d.SkipPath("") {
		t.Error("SkipPath: only an OR path allowlist skips a whole file")
	}
}

func TestPathOnlyRules(t *testing.T) {
	d := defaultDetector(t)
	var got []Match
	emit := func(m Match) { got = append(got, m) }
	d.ScanPath("certs/server.p12", emit)
	d.ScanPath("certs/server.pem", emit)
	d.ScanPath("node_modules/x/keystore.jks", emit) // skipped by the global allowlist
	if len(got) != 1 || got[0].RuleID != "pkcs12-file" || got[0].Match != "file detected: certs/server.p12" {
		t.Errorf("got %+v", got)
	}
	if m := scanText(d, "certs/server.p12", "binary"); len(m) != 0 {
		t.Errorf("Scan reported a path-only rule: %v", m)
	}
}

// TestScratchPathVerdictsMatchTheDetector checks the Scratch's remembered
// path verdicts against the Detector's, path after path with one Scratch,
// and that a Scan after them finds what a fresh Scratch finds.
func TestScratchPathVerdictsMatchTheDetector(t *testing.T) {
	for _, d := range []*Detector{defaultDetector(t), gitleaksDetector(t)} {
		s := d.NewScratch()
		paths := []string{"", "a.go", "certs/server.p12", "node_modules/x/a.p12", "x/go.sum", "app/config.php",
			"app/config.php", "main.tf", "src/vendor/golang.org/x/net/a.go", "nuget.config", "a.go", "Ü/ſecret.pfx"}
		for _, p := range paths {
			if got, want := s.SkipPath(p), d.SkipPath(p); got != want {
				t.Errorf("SkipPath(%q) = %v, Detector says %v", p, got, want)
			}
			var got, want []Match
			s.ScanPath(p, func(m Match) { got = append(got, m) })
			d.ScanPath(p, func(m Match) { want = append(want, m) })
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ScanPath(%q) = %v, Detector says %v", p, got, want)
			}
			text := []byte("secret_key = 'AKIAIOSFODNN7EXAMPLF' password=hunter2hunter2 <add key=\"ClearTextPassword\" value=\"abcdefgh\" />")
			if got, want := scanAll(d, s, p, text), scanAll(d, d.NewScratch(), p, text); !reflect.DeepEqual(got, want) {
				t.Errorf("Scan(%q) after path verdicts = %v, fresh Scratch %v", p, ids(got), ids(want))
			}
		}
	}
}

// TestRareRunesTakeTheExactPath checks buffers where ASCII folding and
// gitleaks' strings.ToLower disagree: the Kelvin sign lowers to "k", so
// the gate opens although no ASCII keyword occurs, and the regex, under
// (?i), matches the Kelvin sign too.
func TestRareRunesTakeTheExactPath(t *testing.T) {
	d := mustDetector(t, `
[[rules]]
id = "k"
regex = '''(?i)key=[0-9]+'''
keywords = ["key"]
[[rules]]
id = "other"
regex = '''[0-9]{3}-[0-9]{3}'''
keywords = ["kelvin"]
`)
	text := "\u212Aey=1 and KEY=2, \u212Aelvin 123-456"
	got := ids(scanText(d, "", text))
	want := []string{"k", "k", "other"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if ref := ids(referenceScan(d, "", []byte(text))); !reflect.DeepEqual(got, ref) {
		t.Errorf("reference %v", ref)
	}
}

func TestRulesDescribesTheCompiledRules(t *testing.T) {
	d := mustDetector(t, tokRule+"[[rules]]\nid = 'p'\npath = '''\\.key$'''\ntags = ['x']\n")
	got := d.Rules()
	want := []RuleInfo{
		{ID: "tok", Keywords: []string{"tok_"}, Tags: []string{}},
		{ID: "p", Keywords: []string{}, Tags: []string{"x"}, PathOnly: true},
	}
	for i := range got {
		if got[i].Keywords == nil {
			got[i].Keywords = []string{}
		}
		if got[i].Tags == nil {
			got[i].Tags = []string{}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	got[0].Keywords[0] = "changed"
	if d.Rules()[0].Keywords[0] != "tok_" {
		t.Error("Rules returns shared slices")
	}
}

func TestMaxWindowCoversTheLongestBoundedMatch(t *testing.T) {
	if w := mustDetectorWith(t, tokRule, noDecoding).MaxWindow(); w != 4096 {
		t.Errorf("short rules: %d, want the 4096 minimum", w)
	}
	if w := mustDetectorWith(t, "[[rules]]\nid = 'l'\nregex = '''x"+strings.Repeat("[a-z]{1000}", 9)+"'''\n", noDecoding).MaxWindow(); w != 9001 {
		t.Errorf("a 9001-byte rule: %d", w)
	}
	if w := mustDetector(t, tokRule).MaxWindow(); w != 16<<10 || w < spindleEncodings.maxSegment+decodeContext {
		t.Errorf("short rules, decoding: %d, want 16 KiB, a whole segment and its context (decoded findings reach further)", w)
	}
	if w := mustDetectorWith(t, tokRule, Settings{GitleaksDecoding: true}).MaxWindow(); w != gitleaksEncodings.window() || w < gitleaksEncodings.maxSegment+decodeContext {
		t.Errorf("short rules, gitleaks' decoding: %d, want %d", w, gitleaksEncodings.window())
	}
	if w := mustDetector(t, "[[rules]]\nid = 'u'\nregex = '''x[a-z]+'''\n").MaxWindow(); w != 16<<10 {
		t.Errorf("an unbounded rule: %d, want 16 KiB", w)
	}
}

// TestScanIsSafeForConcurrentUse runs many goroutines, each with its own
// Scratch, over the same Detector (run it with -race).
func TestScanIsSafeForConcurrentUse(t *testing.T) {
	d := defaultDetector(t)
	ex := builtinExamples()
	var texts [][]byte
	for _, e := range ex {
		for _, p := range e.positive {
			texts = append(texts, []byte(strings.Repeat("filler line\n", 20)+p.text+"\n"))
		}
	}
	want := make([][]Match, len(texts))
	s := d.NewScratch()
	for i, text := range texts {
		want[i] = scanAll(d, s, "a.env", text)
	}
	rounds, goroutines := 20, 8
	if testing.Short() {
		rounds, goroutines = 2, 4
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := d.NewScratch()
			for r := range rounds {
				for i := range texts {
					j := (i + g*7 + r) % len(texts)
					if got := scanAll(d, s, "a.env", texts[j]); !reflect.DeepEqual(got, want[j]) {
						t.Errorf("goroutine %d: text %d differs", g, j)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestScanAllocatesNothingWithoutFindings checks the steady state: a
// reused Scratch and a buffer with keyword hits but no secrets.
func TestScanAllocatesNothingWithoutFindings(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, so regexp allocates")
	}
	d := defaultDetector(t)
	s := d.NewScratch()
	text := []byte(strings.Repeat("func (k *Key) Token() string { return k.secret } // api key, password\n", 200))
	scanAll(d, s, "x.go", text) // warm up the scratch
	allocs := testing.AllocsPerRun(20, func() {
		d.Scan(s, "x.go", text, func(Match) { t.Fatal("unexpected finding") })
	})
	if allocs != 0 {
		t.Errorf("%v allocations per Scan, want 0", allocs)
	}
}

func TestNilOrForeignScratchIsReplaced(t *testing.T) {
	d1, d2 := mustDetector(t, tokRule), defaultDetector(t)
	if got := scanAll(d1, nil, "", []byte("tok_abcd1234")); len(got) != 1 {
		t.Errorf("nil scratch: %v", got)
	}
	if got := scanAll(d1, d2.NewScratch(), "", []byte("tok_abcd1234")); len(got) != 1 {
		t.Errorf("foreign scratch: %v", got)
	}
}

// scanChunked scans file in chunks of chunk new bytes, carrying Overlap
// bytes from one to the next as the scan engine does, and emits the
// matches each chunk Owns, in file offsets.
func scanChunked(d *Detector, s *Scratch, path string, file []byte, chunk int, emit func(Match)) {
	for from := 0; from < len(file); from += chunk {
		base := max(0, from-d.Overlap())
		to := min(len(file), from+chunk)
		buf := file[base:to]
		d.Scan(s, path, buf, func(m Match) {
			if d.Owns(m.End, from-base, len(buf), to == len(file)) {
				m.Start, m.End = base+m.Start, base+m.End
				emit(m)
			}
		})
	}
}

// chunkExact reports whether the rule's findings are the same for every
// chunk size: every match of its regex holds one of its keywords, or it
// has none. A rule whose keyword may lie outside its match (gitleaks'
// facebook-access-token) sees its keyword gate per chunk, as gitleaks
// sees it per fragment (see doc.go, Chunks).
func chunkExact(d *Detector, id string) bool {
	r := d.rules[d.byID[id]]
	if len(r.gate) == 0 {
		return true
	}
	gate, anchors := slices.Clone(r.gate), slices.Clone(r.anchors)
	slices.Sort(gate)
	slices.Sort(anchors)
	return slices.Equal(gate, anchors)
}

// TestChunkedScanEqualsWholeScan splits generated files into chunks of
// random sizes, carries Overlap bytes between them, keeps the matches each
// chunk Owns, and checks that the result is the whole-file Scan.
func TestChunkedScanEqualsWholeScan(t *testing.T) {
	d := defaultDetector(t)
	trees := ruleTrees(t, d)
	s := d.NewScratch()
	iters := 60
	if testing.Short() {
		iters = 10
	}
	total := 0
	for i := range iters {
		g := gen{rand.New(rand.NewPCG(uint64(i), 3))}
		file := g.corpus(d.rules, trees, 20000+g.rng.IntN(60000), false)
		type key struct {
			rule       string
			start, end int
			secret     string
		}
		var want, got []key
		d.Scan(s, "f.env", file, func(m Match) {
			if chunkExact(d, m.RuleID) {
				want = append(want, key{m.RuleID, m.Start, m.End, m.Secret})
			}
		})
		chunk := d.Overlap()/2 + g.rng.IntN(3*d.Overlap())
		scanChunked(d, s, "f.env", file, chunk, func(m Match) {
			if chunkExact(d, m.RuleID) {
				got = append(got, key{m.RuleID, m.Start, m.End, m.Secret})
			}
		})
		// A chunk emits its findings in order; across chunks, a long
		// finding owned by a later chunk may start before a short one
		// owned by an earlier chunk.
		byPlace := func(a, b key) int {
			return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end), cmp.Compare(a.rule, b.rule))
		}
		slices.SortFunc(got, byPlace)
		slices.SortFunc(want, byPlace)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("file %d, chunk %d: chunked scan found %d, whole scan %d:\n%v\n%v", i, chunk, len(got), len(want), got, want)
		}
		total += len(want)
	}
	if total < iters {
		t.Errorf("only %d findings in %d files: the corpus does not exercise the rules", total, iters)
	}
	t.Logf("%d findings", total)
}
