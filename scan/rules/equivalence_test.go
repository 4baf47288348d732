package rules

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// trickyTOML exercises the shapes that make windowing hard: text anchors,
// (?m) line anchors, word boundaries at window edges, matches spanning
// lines without bound, rules whose keyword is not in the regex, rules
// without keywords (derived literals, or none at all), and case folding.
const trickyTOML = `
[[rules]]
id = "begin-text"
regex = '''\A[a-z]{0,8}key[0-9]{2}'''
keywords = ["key"]

[[rules]]
id = "end-text"
regex = '''tok[a-z0-9]{4,12}(?:;|$)'''
keywords = ["tok"]

[[rules]]
id = "end-z-begin-caret"
regex = '''(?:^|[ =])sec[A-Za-z]{2,6}\z'''
keywords = ["sec"]

[[rules]]
id = "multiline-anchors"
regex = '''(?m)^\s*pass[a-z_]*\s*=\s*(\S{3,20})$'''
keywords = ["pass"]

[[rules]]
id = "word-boundaries"
regex = '''\bab[a-z]\b\W{0,3}\bcd\B'''
keywords = ["ab"]

[[rules]]
id = "unbounded-lines"
regex = '''BEGIN[\s\S]*?END'''
keywords = ["begin"]

[[rules]]
id = "unbounded-in-line"
regex = '''(?i)zz[_-]?top[^\n]*!'''
keywords = ["zz"]

[[rules]]
id = "keyword-elsewhere"
regex = '''[0-9]{4}-[0-9]{4}'''
keywords = ["card"]

[[rules]]
id = "derived-literal"
regex = '''\b[a-z]{2}_live_[0-9a-f]{6,10}'''

[[rules]]
id = "no-literal"
regex = '''[A-Z]{3}[0-9]{3}[A-Z]'''

[[rules]]
id = "fold"
regex = '''(?i)kelvin[s]{1,3}'''
keywords = ["kelvin"]

[[rules]]
id = "straddle"
regex = '''(?i)api[_.-]?key\s{0,2}[:=]\s{0,2}([a-z0-9]{8,16})'''
keywords = ["api_key", "apikey", "api-key", "api.key"]

[[rules]]
id = "alternation-factored"
regex = '''\b(?:AKIA|ASIA|A3T[A-Z0-9])[A-Z2-7]{6}\b'''
keywords = ["akia", "asia", "a3t"]

[[rules]]
id = "newline-bounded"
regex = '''cfg:[ \t]*\n(?:[ \t]+[a-z]+:[^\n]*\n){1,3}[ \t]+secret:[ \t]*(\S+)'''
keywords = ["cfg:"]

[[rules]]
id = "lazy-prefix"
regex = '''[\w.-]{0,12}?(?:token|auth)[\w.-]{0,6}[ \t]*=[ \t]*["']?([\w=.+/-]{6,40}|[a-z0-9][a-z0-9+/]{7,}={0,2})(?:["'\s;]|\\[nr]|$)'''
keywords = ["token", "auth"]

[[rules]]
id = "word-start"
regex = '''\b((?:ey|hv\.)[a-z0-9]{6,12}\.ey[a-z0-9]{4,8})'''
keywords = ["ey", "hv."]

[[rules]]
id = "semi-generic"
regex = '''[\w.-]{0,8}?(?i:(?:key|secret|tok)(?:[ \t\w.-]{0,5})[\s'"]{0,2})(?:=|>|:{1,2}=|,)[\x60'"\s=]{0,3}([a-z0-9]{8,12})(?:[\x60'"\s;]|$)'''
keywords = ["key", "secret", "tok"]
`

func trickyDetector(t testing.TB) *Detector {
	return cachedDetector(t, "tricky", compileTricky)
}

func compileTricky(t testing.TB) *Detector {
	cfg, err := Parse([]byte(trickyTOML), "tricky.toml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := CompileWith(cfg, noDecoding)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// noDecoding is for tests of the rules' own matches: the reference they
// compare with does not decode.
var noDecoding = Settings{MaxDecodeDepth: -1}

func defaultDetector(t testing.TB) *Detector {
	return cachedDetector(t, "default", compileDefault)
}

func compileDefault(t testing.TB) *Detector {
	d, err := CompileWith(Default(), noDecoding)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkEquivalent compares, rule by rule, the detector's matches with the
// whole-buffer reference, and the full Scan with the reference Scan.
func checkEquivalent(t testing.TB, d *Detector, s *Scratch, data []byte) {
	t.Helper()
	lower := strings.ToLower(string(data))
	for _, r := range d.rules {
		want := referenceRawLower(r, data, lower)
		got := detectorRaw(s, r, data)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("rule %s on %q:\n got %v\nwant %v", r.ID, clip(data), got, want)
		}
	}
	got := scanAll(d, s, "", data)
	want := referenceScan(d, "", data)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Scan on %q:\n got %+v\nwant %+v", clip(data), got, want)
	}
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:300]) + "…" + string(b[len(b)-300:])
	}
	return string(b)
}

// TestWindowedMatchesEqualWholeBuffer is the property behind the detector:
// on generated corpora, windowed matching finds exactly what running each
// rule's regex over the whole buffer finds.
func TestWindowedMatchesEqualWholeBuffer(t *testing.T) {
	iters := 300
	if testing.Short() {
		iters = 30
	}
	detectors := map[string]func(testing.TB) *Detector{
		"default":  defaultDetector,
		"tricky":   trickyDetector,
		"gitleaks": gitleaksDetector,
	}
	for name, mk := range detectors {
		t.Run(name, func(t *testing.T) {
			d := mk(t)
			trees := ruleTrees(t, d)
			s := d.NewScratch()
			n, sizes := iters, 8
			if testing.Short() {
				sizes = 6 // up to 4 KiB
				if name == "gitleaks" {
					n = 4 // its whole-buffer reference is slow under -race
				}
			}
			for i := range n {
				g := gen{rand.New(rand.NewPCG(uint64(i), 7))}
				size := 64 << g.rng.IntN(sizes)
				data := g.corpus(d.rules, trees, size, i%5 == 0)
				t.Run(fmt.Sprint(i), func(t *testing.T) { checkEquivalent(t, d, s, data) })
			}
		})
	}
}

// FuzzWindowedMatchesEqualWholeBuffer checks the same property on
// arbitrary bytes, with the built-in and the tricky rules.
//
// The fuzzer compiles every rule with the standard library: the property
// does not depend on the engine (the property test above covers both), and
// coverage instrumentation makes go-re2's translated WebAssembly too slow
// to fuzz.
func FuzzWindowedMatchesEqualWholeBuffer(f *testing.F) {
	saved := ruleEngine
	ruleEngine = engineStdlib
	def, tricky := defaultDetector(f), trickyDetector(f)
	ruleEngine = saved
	for i := range 8 {
		g := gen{rand.New(rand.NewPCG(uint64(i), 11))}
		f.Add(g.corpus(tricky.rules, ruleTrees(f, tricky), 200, i%2 == 0))
		f.Add(g.corpus(def.rules, ruleTrees(f, def), 300, false))
	}
	ds, ts := def.NewScratch(), tricky.NewScratch()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			data = data[:16<<10] // the reference is slow under coverage instrumentation
		}
		checkEquivalent(t, def, ds, data)
		checkEquivalent(t, tricky, ts, data)
	})
}
