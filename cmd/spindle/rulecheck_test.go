package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
	var samples []string
	for _, c := range checkConfig(cfg, det) {
		if c.failed != "" {
			t.Errorf("built-in rule %s: %s", c.id, c.failed)
		}
		if c.examples == 0 {
			samples = append(samples, c.id)
		}
		n += c.examples
	}
	// gitleaks' code gives these two rules no examples: they are checked
	// on samples of their regexes.
	if want := []string{"dropbox-long-lived-api-token", "dropbox-short-lived-api-token"}; !slices.Equal(samples, want) {
		t.Errorf("checked without examples: %v, want %v", samples, want)
	}
	if n < 20*len(cfg.Rules) {
		t.Errorf("%d examples for %d rules", n, len(cfg.Rules))
	}
}

// TestRulesSaysWhereEachRuleComesFrom checks the SOURCE column and the
// counts of spindle rules for the built-in rules, and for a config that
// extends them.
func TestRulesSaysWhereEachRuleComesFrom(t *testing.T) {
	dir := t.TempDir()
	var out, errOut strings.Builder
	e := env{stdout: &out, stderr: &errOut}
	if err := runRules(e, rulesOptions{spindleRules: true}, []string{dir}); err != nil {
		t.Fatal(err)
	}
	from := func() map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(out.String(), "\n")[1:] {
			if f := strings.Fields(l); len(f) >= 3 && f[1] == "gitleaks" {
				m[f[0]] = f[1] + " " + f[2]
			} else if len(f) >= 2 {
				m[f[0]] = f[1]
			}
		}
		return m
	}
	if !strings.Contains(strings.SplitN(out.String(), "\n", 2)[0], " SOURCE ") {
		t.Errorf("no SOURCE column:\n%s", out.String())
	}
	if m := from(); m["github-pat"] != "gitleaks "+rules.GitleaksVersion || m["netrc-password"] != "spindle" {
		t.Errorf("github-pat from %q, netrc-password from %q", m["github-pat"], m["netrc-password"])
	}
	if !strings.Contains(errOut.String(), "built-in rules: ") || !strings.Contains(errOut.String(), "gitleaks "+rules.GitleaksVersion+", ") {
		t.Errorf("summary %q", errOut.String())
	}

	cfgPath := filepath.Join(dir, "team.toml")
	toml := "[extend]\nuseDefault = true\n\n[[rules]]\nid = \"team-token\"\nregex = 'team_[a-z0-9]{20}'\nkeywords = [\"team_\"]\n"
	if err := os.WriteFile(cfgPath, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	if err := runRules(e, rulesOptions{config: cfgPath, spindleRules: true}, []string{dir}); err != nil {
		t.Fatal(err)
	}
	if m := from(); m["team-token"] != "config" || m["github-pat"] != "gitleaks "+rules.GitleaksVersion || !strings.Contains(errOut.String(), ", 1 config)") {
		t.Errorf("a config's own rule is not labelled config:\n%s\n%s", out.String(), errOut.String())
	}
	// --spindle-rules=false: the drop-ins' rules, gitleaks' alone, for the
	// built-in set and for a config that extends it.
	for _, o := range []rulesOptions{{}, {config: cfgPath}} {
		out.Reset()
		errOut.Reset()
		if err := runRules(e, o, []string{dir}); err != nil {
			t.Fatal(err)
		}
		if m := from(); m["github-pat"] != "gitleaks "+rules.GitleaksVersion || m["netrc-password"] != "" {
			t.Errorf("config %q without spindle's rules: github-pat from %q, netrc-password from %q", o.config, m["github-pat"], m["netrc-password"])
		}
	}
}
