package rules

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"testing"
)

const fullTOML = `
title = "t"
description = "d"
minVersion = "v8.25.0"

[extend]
disabledRules = []

[[rules]]
id = "r1"
description = "rule one"
regex = '''(key)=([a-z0-9]{8})'''
secretGroup = 2
entropy = 2
keywords = ["KEY"]
tags = ["a", "b"]
path = '''\.env$'''
skipReport = false
[[rules.allowlists]]
description = "al"
condition = "AND"
commits = ["ABCDEF0"]
paths = ['''test''']
regexTarget = "line"
regexes = ['''ok''']
stopwords = ["Dummy"]
[[rules.required]]
id = "r2"
withinLines = 3
withinColumns = 10

[[rules]]
id = "r2"
regex = '''other'''

[[allowlists]]
description = "global"
paths = ['''vendor/''']

[[allowlists]]
targetRules = ["r2"]
regexes = ['''x''']
`

func TestParseReadsEverySchemaField(t *testing.T) {
	cfg, err := Parse([]byte(fullTOML), "full.toml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Title != "t" || cfg.Description != "d" || cfg.MinVersion != "v8.25.0" || cfg.Source != "full.toml" {
		t.Errorf("header fields: %+v", cfg)
	}
	if len(cfg.Rules) != 2 {
		t.Fatalf("%d rules, want 2", len(cfg.Rules))
	}
	three, ten := 3, 10
	want := Rule{
		ID: "r1", Description: "rule one", Regex: `(key)=([a-z0-9]{8})`, Path: `\.env$`,
		SecretGroup: 2, Entropy: 2, Keywords: []string{"key"}, Tags: []string{"a", "b"},
		Allowlists: []Allowlist{{
			Description: "al", Condition: "AND", Commits: []string{"ABCDEF0"}, Paths: []string{"test"},
			RegexTarget: "line", Regexes: []string{"ok"}, StopWords: []string{"Dummy"},
		}},
		Required: []Required{{ID: "r2", WithinLines: &three, WithinColumns: &ten}},
	}
	if !reflect.DeepEqual(cfg.Rules[0], want) {
		t.Errorf("rule r1:\n got %+v\nwant %+v", cfg.Rules[0], want)
	}
	if len(cfg.Allowlists) != 1 || cfg.Allowlists[0].Paths[0] != "vendor/" {
		t.Errorf("global allowlists: %+v", cfg.Allowlists)
	}
	if got := cfg.Rules[1].Allowlists; len(got) != 1 || got[0].Regexes[0] != "x" || got[0].TargetRules != nil {
		t.Errorf("targeted allowlist not moved onto r2: %+v", got)
	}
	if _, err := Compile(cfg); err != nil {
		t.Errorf("Compile: %v", err)
	}
}

func TestParseMatchesKeysWithoutRegardToCase(t *testing.T) {
	cfg, err := Parse([]byte("[[Rules]]\nID = 'x'\nRegex = '(a)(b)'\nsecretgroup = 2\nKEYWORDS = ['A']\n"), "case.toml")
	if err != nil {
		t.Fatal(err)
	}
	if r := cfg.Rules[0]; r.ID != "x" || r.SecretGroup != 2 || r.Keywords[0] != "a" {
		t.Errorf("got %+v", r)
	}
}

// TestConfigErrorsNameFileLineRuleAndProblem checks that every kind of
// configuration error says which file, which line, which rule and what.
func TestConfigErrorsNameFileLineRuleAndProblem(t *testing.T) {
	cases := []struct {
		name, toml string
		line       int
		rule       string
		problem    string
	}{
		{"bad TOML", "title = 'x'\nid = = 'a'\n", 2, "", "invalid TOML"},
		{"unknown top-level key", "title = 'x'\ncolour = 'red'\n", 2, "", `unknown key "colour"`},
		{"unknown table", "[output]\nformat = 'json'\n", 1, "", `unknown key "output"`},
		{"unknown rule key", "[[rules]]\nid = 'a'\nregex = 'x'\nregx = 'y'\n", 4, "a", `unknown key "regx"`},
		{"invalid regex", "[[rules]]\nid = 'a'\n\nregex = '''(unclosed'''\n", 4, "a", "invalid regex: missing closing )"},
		{"invalid path regex", "[[rules]]\nid = 'a'\npath = '''[z-a]'''\n", 3, "a", "invalid path regex"},
		{"secretGroup out of range", "[[rules]]\nid = 'a'\nregex = '(x)'\nsecretGroup = 2\n", 4, "a", "secretGroup 2 is out of range: the regex has 1 capture group"},
		{"negative secretGroup", "[[rules]]\nid = 'a'\nregex = '(x)'\nsecretGroup = -1\n", 4, "a", "negative"},
		{"wrong type", "[[rules]]\nid = 'a'\nregex = 5\n", 3, "a", "regex: expected a string, got an integer"},
		{"keywords not strings", "[[rules]]\nid = 'a'\nregex = 'x'\nkeywords = [1]\n", 4, "a", "expected an array of strings"},
		{"missing id", "[[rules]]\nregex = 'x'\n", 1, "", "rule id is missing"},
		{"no regex and no path", "[[rules]]\nid = 'a'\ndescription = 'nothing'\n", 1, "a", "both regex and path are empty"},
		{"duplicate id", "[[rules]]\nid = 'a'\nregex = 'x'\n[[rules]]\nid = 'a'\nregex = 'y'\n", 5, "a", "defined twice"},
		{"empty allowlist", "[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.allowlists]]\ndescription = 'd'\n", 4, "a", "at least one of commits, paths, regexes or stopwords"},
		{"bad condition", "[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.allowlists]]\ncondition = 'XOR'\nregexes = ['y']\n", 5, "a", `unknown condition "XOR"`},
		{"bad regexTarget", "[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.allowlists]]\nregexTarget = 'file'\nregexes = ['y']\n", 5, "a", `unknown regexTarget "file"`},
		{"bad allowlist regex", "[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.allowlists]]\nregexes = ['(']\n", 5, "a", "invalid regex"},
		{"unknown allowlist key", "[[allowlists]]\nregexes = ['y']\nregexs = ['z']\n", 3, "", "allowlists.regexs: unknown key"},
		{"targetRules in a rule allowlist", "[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.allowlists]]\ntargetRules = ['a']\nregexes = ['y']\n", 5, "a", "only allowed in a global"},
		{"extend path and useDefault", "[extend]\nuseDefault = true\npath = 'base.toml'\n", 3, "", "path and useDefault cannot both be set"},
		{"extend url", "[extend]\nurl = 'https://example.com/x.toml'\n", 2, "", "not supported"},
		{"missing extend file", "[extend]\npath = 'nope.toml'\n", 2, "", "extend: cannot read"},
		{"required rule unknown", "[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.required]]\nid = 'zz'\n", 5, "a", `required rule "zz" does not exist`},
		{"required without id", "[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.required]]\nwithinLines = 1\n", 4, "a", "required: rule id is empty"},
		{"legacy and new global allowlists", "[allowlist]\npaths = ['x']\n[[allowlists]]\npaths = ['y']\n", 1, "", "[allowlist] is deprecated"},
		{"legacy and new rule allowlists", "[[rules]]\nid = 'a'\nregex = 'x'\n[rules.allowlist]\npaths = ['x']\n[[rules.allowlists]]\npaths = ['y']\n", 0, "a", "[rules.allowlist] is deprecated"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, "cfg.toml")
			if err := os.WriteFile(file, []byte(c.toml), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := LoadFile(file)
			if err == nil {
				_, err = Compile(cfg)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T), want a *ConfigError", err, err)
			}
			if ce.File != file {
				t.Errorf("File = %q, want %q", ce.File, file)
			}
			if c.line != 0 && ce.Line != c.line {
				t.Errorf("Line = %d, want %d (%v)", ce.Line, c.line, err)
			}
			if ce.RuleID != c.rule {
				t.Errorf("RuleID = %q, want %q (%v)", ce.RuleID, c.rule, err)
			}
			if !strings.Contains(ce.Problem, c.problem) {
				t.Errorf("Problem = %q, want it to contain %q", ce.Problem, c.problem)
			}
			msg := err.Error()
			if !strings.Contains(msg, file) || (c.rule != "" && !strings.Contains(msg, c.rule)) {
				t.Errorf("message %q does not name the file and rule", msg)
			}
		})
	}
}

func TestExtendUseDefaultMergesOverridesAndDisables(t *testing.T) {
	src := `
[extend]
useDefault = true
disabledRules = ["jwt"]

[[rules]]
id = "github-pat"
entropy = 4.5
keywords = ["extra"]
[[rules.allowlists]]
regexes = ['''^ghp_0{36}$''']

[[rules]]
id = "my-rule"
regex = '''mine-[0-9]{4}'''
keywords = ["mine-"]

[[allowlists]]
paths = ['''^third_party/''']
`
	cfg, err := Parse([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	def := Default()
	ids := func(c *Config) []string {
		var out []string
		for _, r := range c.Rules {
			out = append(out, r.ID)
		}
		return out
	}
	got := ids(cfg)
	if slices.Contains(got, "jwt") {
		t.Error("disabled rule jwt is still present")
	}
	if !slices.Contains(got, "my-rule") || len(got) != len(def.Rules) {
		t.Errorf("rules: %d (%v...), want the %d built-in ones minus jwt plus my-rule", len(got), got[:3], len(def.Rules))
	}
	var gh, base Rule
	for _, r := range cfg.Rules {
		if r.ID == "github-pat" {
			gh = r
		}
	}
	for _, r := range def.Rules {
		if r.ID == "github-pat" {
			base = r
		}
	}
	if gh.Entropy != 4.5 || gh.Regex != base.Regex || gh.Description != base.Description {
		t.Errorf("override: entropy %v regex %q description %q", gh.Entropy, gh.Regex, gh.Description)
	}
	if !slices.Equal(gh.Keywords, append(slices.Clone(base.Keywords), "extra")) {
		t.Errorf("keywords %v, want the built-in ones plus extra", gh.Keywords)
	}
	if len(gh.Allowlists) != len(base.Allowlists)+1 {
		t.Errorf("allowlists %d, want %d", len(gh.Allowlists), len(base.Allowlists)+1)
	}
	if len(cfg.Allowlists) != len(def.Allowlists)+1 || cfg.Allowlists[0].Paths[0] != "^third_party/" {
		t.Errorf("global allowlists: %+v", cfg.Allowlists)
	}
	if _, err := Compile(cfg); err != nil {
		t.Fatal(err)
	}
}

func TestExtendPathIsRelativeToTheConfigAndLimitedInDepth(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("base/base.toml", "[[rules]]\nid = 'base'\nregex = 'b[0-9]'\n")
	write("base/mid.toml", "[extend]\npath = 'base.toml'\n[[rules]]\nid = 'mid'\nregex = 'm[0-9]'\n")
	top := write("top.toml", "[extend]\npath = 'base/mid.toml'\n[[rules]]\nid = 'top'\nregex = 't[0-9]'\n")
	cfg, err := LoadFile(top)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range cfg.Rules {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"base", "mid", "top"}) {
		t.Errorf("rules %v", ids)
	}

	write("base/base.toml", "[extend]\nuseDefault = true\n")
	_, err = LoadFile(top)
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(ce.Problem, "chain longer than 2") || !strings.HasSuffix(ce.File, "base.toml") {
		t.Errorf("three-link chain: %v", err)
	}
}

func TestExtendedRuleIsValidatedAfterMerging(t *testing.T) {
	// A rule that only adds an allowlist to a base rule is incomplete on
	// its own; it is valid once merged.
	src := "[extend]\nuseDefault = true\n[[rules]]\nid = 'github-pat'\n[[rules.allowlists]]\nstopwords = ['test']\n"
	if _, err := Parse([]byte(src), "x.toml"); err != nil {
		t.Fatal(err)
	}
	// secretGroup set by the extending file, checked against the base regex.
	src = "[extend]\nuseDefault = true\n[[rules]]\nid = 'github-pat'\nsecretGroup = 3\n"
	_, err := Parse([]byte(src), "x.toml")
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.RuleID != "github-pat" || ce.Line != 5 || ce.File != "x.toml" {
		t.Errorf("got %v", err)
	}
}

func TestLegacyAllowlistTablesAreAccepted(t *testing.T) {
	src := "[allowlist]\npaths = ['x']\n[[rules]]\nid = 'a'\nregex = 'y'\n[rules.allowlist]\nstopwords = ['z']\n"
	cfg, err := Parse([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Allowlists) != 1 || len(cfg.Rules[0].Allowlists) != 1 || cfg.Rules[0].Allowlists[0].StopWords[0] != "z" {
		t.Errorf("got %+v", cfg)
	}
}

func TestFindPrefersExplicitThenRootThenBuiltin(t *testing.T) {
	root := t.TempDir()
	cfg, used, err := Find(root, "")
	if err != nil || used != "" || len(cfg.Rules) != len(Default().Rules) {
		t.Fatalf("no config: used %q, err %v", used, err)
	}
	rootCfg := filepath.Join(root, ".gitleaks.toml")
	if err := os.WriteFile(rootCfg, []byte("[[rules]]\nid = 'root'\nregex = 'r'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, used, err = Find(root, "")
	if err != nil || used != rootCfg || cfg.Rules[0].ID != "root" || cfg.Source != rootCfg {
		t.Fatalf("root config: used %q, err %v", used, err)
	}
	explicit := filepath.Join(t.TempDir(), "my.toml")
	if err := os.WriteFile(explicit, []byte("[[rules]]\nid = 'explicit'\nregex = 'e'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, used, err = Find(root, explicit)
	if err != nil || used != explicit || cfg.Rules[0].ID != "explicit" {
		t.Fatalf("explicit config: used %q, err %v", used, err)
	}
	if _, _, err = Find(root, filepath.Join(root, "missing.toml")); err == nil {
		t.Fatal("missing explicit config: no error")
	}
}

// TestParseAcceptsGitleaksDefaultConfig reads gitleaks' own default config
// from the module cache.
func TestParseAcceptsGitleaksDefaultConfig(t *testing.T) {
	d := gitleaksDetector(t)
	if n := len(d.Rules()); n != 222 {
		t.Errorf("%d rules, want gitleaks' 222", n)
	}
	pathOnly := 0
	for _, r := range d.Rules() {
		if r.PathOnly {
			pathOnly++
		}
	}
	if pathOnly != 1 {
		t.Errorf("%d path-only rules, want 1 (pkcs12-file)", pathOnly)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(fullTOML))
	f.Add([]byte(trickyTOML))
	f.Add(SpindleTOML()[:2000])
	f.Add([]byte("[[rules]]\nid = 'a'\nregex = '(x)'\nsecretGroup = 1\n[[rules.allowlists]]\nregexes = ['y']\n"))
	f.Add([]byte("[extend]\nuseDefault = true\ndisabledRules = ['jwt']\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, "fuzz.toml")
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.File != "fuzz.toml" || ce.Problem == "" {
				t.Fatalf("error %v is not a ConfigError naming the file and problem", err)
			}
			return
		}
		// Whatever parses must compile: Parse checks everything Compile does.
		if _, err := Compile(cfg); err != nil {
			t.Fatalf("Parse accepted a config that Compile rejects: %v", err)
		}
	})
}

// TestCompileReusesParsedRegexes: Compile takes the trees Parse checked,
// as copies that share nothing with them; a regex changed after Parse is
// parsed and checked again; and one Config compiles on several goroutines
// at once (run with -race).
func TestCompileReusesParsedRegexes(t *testing.T) {
	cfg, err := Parse([]byte(`
[[rules]]
id = "tok"
regex = '''tok_([0-9a-f]{8})'''
path = '''\.env$'''
keywords = ["tok_"]
`), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	re := cfg.checked[cfg.Rules[0].Regex]
	if re == nil || cfg.checked[cfg.Rules[0].Path] == nil {
		t.Fatalf("Parse recorded %d trees, not the rule's regex and path", len(cfg.checked))
	}
	c := cloneRegexp(re)
	if !c.Equal(re) || c.String() != re.String() {
		t.Fatalf("clone %v of %v", c, re)
	}
	var walk func(a, b *syntax.Regexp)
	walk = func(a, b *syntax.Regexp) {
		if a == b || len(a.Rune) > 0 && &a.Rune[0] == &b.Rune[0] || len(a.Sub) > 0 && &a.Sub[0] == &b.Sub[0] {
			t.Fatalf("the clone shares %v", a)
		}
		for i := range a.Sub {
			walk(a.Sub[i], b.Sub[i])
		}
	}
	walk(c, re)

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			d, err := Compile(cfg)
			if err != nil {
				t.Error(err)
				return
			}
			if got := ids(scanText(d, "a.env", "x = tok_0123abcd")); !slices.Equal(got, []string{"tok"}) {
				t.Errorf("findings %v", got)
			}
		})
	}
	wg.Wait()

	changed := *cfg
	changed.Rules = slices.Clone(cfg.Rules)
	changed.Rules[0].Regex = `tok_([0-9a-f]{8}`
	if _, err := Compile(&changed); err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Fatalf("a regex changed after Parse: %v", err)
	}
	changed.Rules[0].Regex = `key_([0-9a-f]{8})`
	changed.Rules[0].Keywords = []string{"key_"}
	d, err := Compile(&changed)
	if err != nil {
		t.Fatal(err)
	}
	if got := scanText(d, "a.env", "x = tok_0123abcd key_89abcdef"); len(got) != 1 || got[0].Secret != "89abcdef" {
		t.Errorf("the changed rule finds %v", got)
	}
}
