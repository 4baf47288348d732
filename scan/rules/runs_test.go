package rules

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"testing"
)

func TestRequiredRunPicksASelectiveRun(t *testing.T) {
	cases := []struct {
		expr    string
		min     int    // 0: no run worth checking
		in, out string // bytes that must be in the set, and out of it
	}{
		{`sk_live_[0-9a-zA-Z]{24}`, 32, "sk_live_09azAZ", " .-\n\x80"},
		{`\bSK[0-9a-fA-F]{32}\b`, 32, "09afAF", "gG_ \x80"},
		{`(?i)s\.[a-z0-9]{24}`, 26, "sS.09azAZ", " -_\x80"}, // U+017F and U+212A left out
		{`(?:hvs\.[\w-]{90,120}|s\.[a-z0-9]{24})`, 26, ".09azAZ_-", " \n"},
		{`key[ \t]*=[ \t]*[a-z]{4}`, 8, "key= \tz", "0\n"}, // pure parts join into one run
		{`[\w.-]{0,50}?token=[a-f0-9]{16}`, 22, "token=af09", " \n_"},
		{`sk_live_`, 0, "", ""},                      // literals are the anchors' business
		{`x[^\n]{12}`, 0, "", ""},                    // a set of 255 bytes rules out nothing
		{`x[a-zé]{12}`, 12, "az\x80\xc3\xff", "A\n"}, // a non-ASCII member brings every byte from 0x80
		{`a*b*`, 0, "", ""},
		{`(?m)^[A-Z]{10}$`, 10, "AZ", "az\n"},
	}
	for _, c := range cases {
		run, ok := requiredRun(mustParse(t, c.expr))
		if c.min == 0 {
			if ok {
				t.Errorf("%s: run of %d, want none", c.expr, run.min)
			}
			continue
		}
		if !ok || run.min != c.min {
			t.Errorf("%s: run ok=%v min=%v, want %d", c.expr, ok, run, c.min)
			continue
		}
		for i := 0; i < len(c.in); i++ {
			if !run.in[c.in[i]] {
				t.Errorf("%s: %q not in the run's set", c.expr, c.in[i])
			}
		}
		for i := 0; i < len(c.out); i++ {
			if run.in[c.out[i]] {
				t.Errorf("%s: %q in the run's set", c.expr, c.out[i])
			}
		}
	}
}

// TestEveryMatchHoldsTheRequiredRun checks the run's soundness on the
// matches of every rule of the built-in, gitleaks' and the tricky rules,
// in text generated from the regexes without rare runes (the run is used
// only on such text).
func TestEveryMatchHoldsTheRequiredRun(t *testing.T) {
	texts := 20
	if testing.Short() {
		texts = 4
	}
	checked := 0
	for _, d := range []*Detector{defaultDetector(t), trickyDetector(t), gitleaksDetector(t)} {
		g := gen{rand.New(rand.NewPCG(3, 4))}
		trees := ruleTrees(t, d)
		for i, r := range d.rules {
			if r.PathOnly || r.run == nil {
				continue
			}
			for k := range texts {
				text := g.corpus(d.rules[i:i+1], trees[i:i+1], 300+40*k, false)
				for _, m := range r.reference().FindAllIndex(text, -1) {
					checked++
					if !r.run.has(text[m[0]:m[1]]) {
						t.Fatalf("rule %s: match %q lacks its run of %d", r.ID, text[m[0]:m[1]], r.run.min)
					}
				}
			}
		}
	}
	if checked < 50*texts {
		t.Errorf("only %d matches checked", checked)
	}
}

func TestMatchCoreDropsOnlyWhatMatchesEmptyEverywhere(t *testing.T) {
	cases := []struct{ expr, core string }{
		{`[\w.-]{0,50}?(?:key|token)\s*=\s*([a-z]{8})\s*`, `(?:key|token)\s*=\s*([a-z]{8})`},
		{`(?:a|b?)x(c*)`, `x`},
		{`\bkey[0-9]*`, `\bkey`},               // \b is not empty everywhere
		{`(?:^|/)vendor/x?`, `(?:^|/)vendor/`}, // nor is (?:^|/)
		{`a*b*`, ``},                           // everything could go
		{`abc`, ``},                            // nothing to remove
		{`(x*y{0,3}z)`, `z`},                   // through the capture
		{`(?:q|)(?:w{2,})*e`, `e`},             // an alternation with an empty branch, a starred group
		{`z{0}a(?:$|;)?`, `a`},                 // {0} and an optional assertion
		{`(?i)[a-z]{0,4}Kelvin`, `(?i:KELVIN)`},
	}
	for _, c := range cases {
		core, ok := matchCore(mustParse(t, c.expr))
		got := ""
		if ok {
			got = core.String()
		}
		if got != c.core && !(ok && mustParse(t, c.core).Equal(core)) {
			t.Errorf("matchCore(%s) = %q, want %q", c.expr, got, c.core)
		}
	}
}

// TestMatchCoreMatchesExactlyWhenTheRegexDoes checks the core's property
// on generated text: for every rule with a core, the core matches a text
// exactly when the whole regex does, in every window form.
func TestMatchCoreMatchesExactlyWhenTheRegexDoes(t *testing.T) {
	texts := 40
	if testing.Short() {
		texts = 8
	}
	cores := 0
	for _, d := range []*Detector{defaultDetector(t), trickyDetector(t), gitleaksDetector(t)} {
		g := gen{rand.New(rand.NewPCG(5, 8))}
		trees := ruleTrees(t, d)
		for i, r := range d.rules {
			if r.PathOnly {
				continue
			}
			if _, ok := matchCore(r.tree); !ok || !r.stdForms() {
				continue
			}
			f := r.testForms()
			cores++
			for k := range texts {
				text := g.corpus(d.rules[i:i+1], trees[i:i+1], 20+10*k, true)
				for v := range 4 {
					if got, want := f.std[v].Match(text), r.lazy.std[v].Match(text); got != want {
						t.Fatalf("rule %s, form %d, text %q: core matches %v, regex %v", r.ID, v, text, got, want)
					}
				}
			}
		}
	}
	if cores == 0 {
		t.Error("no rule has a match core")
	}
}

// tokenRule and awsRule are the rules of the tests of lazy forms: one
// without a literal prefix (go-re2's), one with.
const (
	tokenRule = `
[[rules]]
id = "token"
regex = '''[\w.-]{0,20}?token[ \t]*=[ \t]*([a-f0-9]{16})'''
keywords = ["token"]
`
	awsRule = `
[[rules]]
id = "aws"
regex = '''\b(AKIA[A-Z2-7]{16})\b'''
keywords = ["akia"]
`
)

// re2Detector compiles src with go-re2 forced for every rule.
func re2Detector(t *testing.T, src string) *Detector {
	t.Helper()
	saved := ruleEngine
	ruleEngine = engineRE2
	defer func() { ruleEngine = saved }()
	return mustDetector(t, src)
}

// TestLazyFormsAreBuiltOnceUnderConcurrentScans has goroutines race to a
// fresh detector's first scan, with go-re2 forced for every rule, and
// checks that every goroutine sees the same compiled regexes and reports
// the same findings. Run it with -race.
func TestLazyFormsAreBuiltOnceUnderConcurrentScans(t *testing.T) {
	d := re2Detector(t, tokenRule+awsRule)
	text := []byte(strings.Repeat("x token = 0123456789abcdef; AKIAABCDEFGHIJKLMNOP\n", 50))
	want := len(scanText(mustDetector(t, tokenRule+awsRule), "", string(text)))
	const workers = 8
	var wg sync.WaitGroup
	got := make([]int, workers)
	forms := make([][]*formSet, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.Scan(d.NewScratch(), "", text, func(Match) { got[w]++ })
			for _, r := range d.rules {
				forms[w] = append(forms[w], r.testForms(), r.findForms())
			}
		}()
	}
	wg.Wait()
	for w := range workers {
		if got[w] != want {
			t.Errorf("goroutine %d: %d findings, want %d", w, got[w], want)
		}
		for i := range forms[w] {
			if forms[w][i] != forms[0][i] {
				t.Errorf("goroutine %d sees other forms for rule %d", w, i)
			}
		}
	}
	for _, r := range d.rules {
		if r.findForms().engine != engineRE2 || r.testForms().engine != engineRE2 {
			t.Errorf("rule %s: fast forms use engines %d and %d, want go-re2", r.ID, r.findForms().engine, r.testForms().engine)
		}
	}
}

// TestRaceBuildsUseTheStandardLibrary checks the default engine: the
// standard library under the race detector, the per-rule choice
// otherwise.
func TestRaceBuildsUseTheStandardLibrary(t *testing.T) {
	want := engineAuto
	if raceEnabled {
		want = engineStdlib
	}
	if defaultEngine != want {
		t.Errorf("defaultEngine = %d, want %d", defaultEngine, want)
	}
	d := mustDetector(t, "[[rules]]\nid = \"x\"\nregex = '''[a-z]+=[0-9]{8}'''\n")
	if got := d.rules[0].findForms().engine; raceEnabled && got != engineStdlib {
		t.Errorf("race build: rule uses engine %d", got)
	}
}

func mustParse(t *testing.T, expr string) *syntax.Regexp {
	t.Helper()
	if _, err := regexp.Compile(expr); err != nil {
		t.Fatal(err)
	}
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

// TestRuleTakesGoRE2OnlyAfterEnoughText: with go-re2 the faster engine for
// a rule, the rule matches with the standard library until it has given
// it switchWork of text (bytes times program size), then with go-re2;
// the findings are the same before and after, and text that is not valid
// UTF-8 stays with the standard library.
func TestRuleTakesGoRE2OnlyAfterEnoughText(t *testing.T) {
	if !re2Usable() {
		t.Skip("go-re2 cannot run here")
	}
	d := re2Detector(t, tokenRule)
	text := strings.Repeat("x token = 0123456789abcdef; y\n", 20)
	want := scanText(d, "a.txt", text)
	if len(want) != 20 {
		t.Fatalf("%d findings, want 20", len(want))
	}
	r := d.rules[0]
	test := r.testForms()
	if test.engine != engineRE2 {
		t.Fatalf("engine %v, want go-re2", test.engine)
	}
	if test.fast.Load() != nil {
		t.Fatal("go-re2 compiled after one scan of a few hundred bytes")
	}
	// Scanned again and again: the same findings, and go-re2 once the
	// work is done.
	scans := 1
	for ; test.fast.Load() == nil; scans++ {
		if scans > 2*switchWork/(len(text)*int(test.cost))+2 {
			t.Fatalf("no go-re2 after %d scans (%d of work)", scans, test.work.Load())
		}
		if got := scanText(d, "a.txt", text); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("scan %d: %v, want %v", scans, got, want)
		}
	}
	if test.work.Load() < switchWork {
		t.Fatalf("go-re2 after %d of work, before %d", test.work.Load(), switchWork)
	}
	for range 3 {
		if got := scanText(d, "a.txt", text); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("with go-re2: %v, want %v", got, want)
		}
	}
	// Invalid UTF-8 around the secret: the standard library matches it.
	bad := "\xff token = 0123456789abcdef \xfe\n"
	if got := scanText(d, "a.txt", bad); len(got) != 1 {
		t.Fatalf("invalid UTF-8: %d findings, want 1", len(got))
	}
}
