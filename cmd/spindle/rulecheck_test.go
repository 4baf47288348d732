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

func TestRuleCheckPassesEveryBuiltInRule(t *testing.T) {
	if testing.Short() {
		// Tens of seconds under -race; the README test runs the same
		// check with the built binary (spindle rules --check).
		t.Skip("the built binary's rules --check covers it in -short runs")
	}
	cfg := rules.Default()
	det, err := rules.Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checkConfig(cfg, det) {
		if c.failed != "" {
			t.Errorf("built-in rule %s: %s", c.id, c.failed)
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
