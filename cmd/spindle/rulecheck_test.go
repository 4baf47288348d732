package main

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/rules"
)

// checkTOML compiles a config and checks it.
func checkTOML(t *testing.T, toml string) map[string]ruleCheck {
	t.Helper()
	cfg, err := rules.Parse([]byte(toml), "check.toml")
	if err != nil {
		t.Fatal(err)
	}
	det, err := rules.Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ruleCheck{}
	for _, c := range checkConfig(cfg, det) {
		out[c.id] = c
	}
	return out
}

func TestRuleCheckFailsRulesThatCannotFindTheirOwnMatches(t *testing.T) {
	got := checkTOML(t, `
[[rules]]
id = "good"
regex = '''\b(tok_[a-z0-9]{24})\b'''
keywords = ["tok_"]

[[rules]]
id = "keyword-not-in-match"
regex = '''\bkey_[a-z0-9]{24}\b'''
keywords = ["token"]

[[rules]]
id = "entropy-out-of-reach"
regex = '''\bent_[ab]{16}\b'''
keywords = ["ent_"]
entropy = 4.5

[[rules]]
id = "allowlisted-away"
regex = '''\ball_[a-z]{12}\b'''
keywords = ["all_"]
[[rules.allowlists]]
regexes = ['''.*''']

[[rules]]
id = "path-only"
path = '''(?:^|/)id_rsa$'''

[[rules]]
id = "path-and-regex"
path = '''\.env$'''
regex = '''SECRET=([A-Z0-9]{12})'''
keywords = ["secret="]
`)
	for id, wantFail := range map[string]bool{
		"good": false, "path-only": false, "path-and-regex": false,
		"keyword-not-in-match": true, "entropy-out-of-reach": true, "allowlisted-away": true,
	} {
		c, ok := got[id]
		if !ok {
			t.Errorf("rule %s not checked", id)
			continue
		}
		if (c.failed != "") != wantFail {
			t.Errorf("rule %s: failed = %q, want failure %v", id, c.failed, wantFail)
		}
	}
}

func TestSamplerGeneratesMatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, expr := range []string{
		`\b(AKIA[A-Z2-7]{16})\b`,
		`(?i)api[_-]?key\s*[:=]\s*["']?([a-z0-9]{32})`,
		`-----BEGIN (?:RSA |EC )?PRIVATE KEY-----`,
		`^[a-f0-9]{40}$`,
		`x{3,}y+z*`,
		`(?:foo|bar|baz)_[^\s"']{8,12}`,
	} {
		s, err := newSampler(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		re := regexp.MustCompile(expr)
		for range 50 {
			if got := s.sample(rng); !re.MatchString(got) {
				t.Errorf("%s generated %q, which it does not match", expr, got)
			}
		}
	}
}

func TestPickRunePrefersPrintableASCII(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// [^A-Za-z0-9] as syntax represents it: everything but those ranges.
	re, err := newSampler(`[^A-Za-z0-9]`)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		s := re.sample(rng)
		if len(s) != 1 || s[0] <= ' ' || s[0] > '~' || strings.ContainsAny(s, "abcXYZ019") {
			t.Fatalf("sample %q is not one printable non-alphanumeric ASCII character", s)
		}
	}
}

func TestRuleCheckRunsExamplesWhereARuleHasThem(t *testing.T) {
	got := checkTOML(t, `
[[rules]]
id = "with-examples"
regex = '''\b(tok_[a-z0-9]{12})\b'''
keywords = ["tok_"]
examples = ["key = tok_k3j5h7g9f2d4"]
negatives = ["key = tok_short"]

[[rules]]
id = "wrong-examples"
regex = '''\b(tok_[a-z0-9]{12})\b'''
keywords = ["tok_"]
examples = ["key = tok_short"]
negatives = ["key = tok_a8s7d6f5g4h3"]

[[rules]]
id = "no-examples"
regex = '''\b(gen_[a-z0-9]{12})\b'''
keywords = ["gen_"]
`)
	if c := got["with-examples"]; c.failed != "" || c.examples != 2 {
		t.Errorf("with-examples: %+v, want a pass on 2 examples", c)
	}
	c := got["wrong-examples"]
	if !strings.Contains(c.failed, `example "key = tok_short" is not reported`) || !strings.Contains(c.failed, `negative "key = tok_a8s7d6f5g4h3" is reported`) {
		t.Errorf("wrong-examples: failed = %q, want both examples named", c.failed)
	}
	if c := got["no-examples"]; c.failed != "" || c.examples != 0 {
		t.Errorf("no-examples: %+v, want a pass on generated samples", c)
	}
}

func TestRuleCheckRunsEveryBuiltInExample(t *testing.T) {
	if testing.Short() {
		// Slow under -race; the README test runs the same check with the
		// built binary (spindle rules --check).
		t.Skip("the built binary's rules --check covers it in -short runs")
	}
	cfg := rules.Default()
	det, err := rules.Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range checkConfig(cfg, det) {
		if c.failed != "" {
			t.Errorf("built-in rule %s: %s", c.id, c.failed)
		}
		if c.examples == 0 {
			t.Errorf("built-in rule %s was checked without examples", c.id)
		}
		n += c.examples
	}
	if n < 2*len(cfg.Rules) {
		t.Errorf("%d examples for %d rules", n, len(cfg.Rules))
	}
}
