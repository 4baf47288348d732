package rules

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestBuiltinRulesAreGitleaksDefaultsThenSpindles checks how Default is
// made: gitleaks' default config from the module, parsed as any config,
// each rule unchanged but for its provenance and its check; then
// spindle.toml's rules, each with spindle.toml's global allowlists; the
// global allowlists are gitleaks'; no id is defined twice.
func TestBuiltinRulesAreGitleaksDefaultsThenSpindles(t *testing.T) {
	def := Default()
	gl, err := Parse(gitleaksTOML(), "")
	if err != nil {
		t.Fatal(err)
	}
	own, err := Parse(SpindleTOML(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(def.Rules) != len(gl.Rules)+len(own.Rules) || len(gl.Rules) != 222 {
		t.Fatalf("%d rules, want gitleaks' %d (222) and spindle's %d", len(def.Rules), len(gl.Rules), len(own.Rules))
	}
	if def.Origin != BuiltIn || len(def.Warnings) != 0 {
		t.Errorf("origin %v, warnings %v", def.Origin, def.Warnings)
	}
	if !reflect.DeepEqual(def.Allowlists, gl.Allowlists) {
		t.Error("the global allowlists are not gitleaks'")
	}
	ids := map[string]bool{}
	for i, r := range def.Rules {
		if ids[r.ID] {
			t.Errorf("rule %s defined twice", r.ID)
		}
		ids[r.ID] = true
		var want Rule
		if i < len(gl.Rules) {
			want = gl.Rules[i]
			want.From = FromGitleaks
			want.Validate = "placeholder"
			if c, ok := gitleaksChecks[r.ID]; ok {
				want.Validate = c
			}
		} else {
			want = own.Rules[i-len(gl.Rules)]
			want.From = FromSpindle
			want.Allowlists = append(append([]Allowlist(nil), own.Allowlists...), want.Allowlists...)
		}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("rule %d (%s) differs from its source:\n%+v\nwant\n%+v", i, r.ID, r, want)
		}
	}
	for id := range gitleaksChecks {
		if !ids[id] {
			t.Errorf("gitleaksChecks names %s, which gitleaks' config lacks", id)
		}
	}
	if b := SpindleTOML(); len(b) > 0 {
		b[0] = '!'
		if SpindleTOML()[0] == '!' {
			t.Error("SpindleTOML returns shared memory")
		}
	}
}

// TestExtendingTheDefaultsExtendsTheBuiltinRules checks that [extend]
// useDefault = true builds on Default, provenance and checks included,
// and that disabledRules removes rules of either catalog.
func TestExtendingTheDefaultsExtendsTheBuiltinRules(t *testing.T) {
	cfg, err := Parse([]byte(`
[extend]
useDefault = true
disabledRules = ["generic-api-key", "netrc-password"]

[[rules]]
id = "github-pat"
description = "ours"

[[rules]]
id = "team-token"
regex = '''team_[a-z0-9]{20}'''
keywords = ["team_"]
`), "team.toml")
	if err != nil {
		t.Fatal(err)
	}
	def := Default()
	if len(cfg.Rules) != len(def.Rules)-2+1 || len(cfg.Warnings) != 0 {
		t.Fatalf("%d rules (want %d), warnings %v", len(cfg.Rules), len(def.Rules)-1, cfg.Warnings)
	}
	from := map[string]Rule{}
	for _, r := range cfg.Rules {
		from[r.ID] = r
	}
	if _, ok := from["generic-api-key"]; ok {
		t.Error("disabled gitleaks rule generic-api-key is present")
	}
	if _, ok := from["netrc-password"]; ok {
		t.Error("disabled spindle rule netrc-password is present")
	}
	if r := from["github-pat"]; r.From != FromGitleaks || r.Validate != "base62-crc32" || r.Description != "ours" {
		t.Errorf("github-pat: from %v, validate %q, description %q", r.From, r.Validate, r.Description)
	}
	if r := from["team-token"]; r.From != FromConfig {
		t.Errorf("team-token: from %v", r.From)
	}
	if r := from["pgpass-password"]; r.From != FromSpindle {
		t.Errorf("pgpass-password: from %v", r.From)
	}
	if !reflect.DeepEqual(cfg.Allowlists, def.Allowlists) {
		t.Error("the global allowlists are not the built-in ones")
	}
	if _, err := Compile(cfg); err != nil {
		t.Fatal(err)
	}
}

// earnDrawings is how many times TestSpindleRulesFindWhatGitleaksMisses
// draws each corpus format: some rules find more than gitleaks' only
// where gitleaks' generic rule drops a value by chance (its stop words,
// its entropy threshold), which a few drawings may not show.
const earnDrawings = 20

// TestSpindleRulesFindWhatGitleaksMisses is the rule by which spindle's
// own rules stay in the built-in set: each finds, itself, at least one
// secret of its corpus or examples that no rule of gitleaks' finds (its
// finding would give way to gitleaks' otherwise), and none of them
// reports anything on gitleaks' false-positive examples, tagged or not.
func TestSpindleRulesFindWhatGitleaksMisses(t *testing.T) {
	d := defaultDetector(t)
	cfg := Default()
	s := d.NewScratch()
	own := map[string]int{}
	for _, r := range cfg.Rules {
		if r.From == FromSpindle {
			own[r.ID] = 0
		}
	}
	for _, e := range readCorpusFormats(t) {
		if !e.positive {
			continue
		}
		n := 1
		if strings.Contains(e.format, "%{") {
			n = earnDrawings
		}
		for k := range n {
			c, err := e.draw(seedFor(e.rule, e.line, k))
			if err != nil {
				t.Fatal(err)
			}
			found := corpusFindings(d, s, c)
			for _, secret := range c.secrets {
				if hasFinding(found, e.rule, secret) {
					own[e.rule]++
				}
			}
		}
	}
	for _, r := range cfg.Rules {
		if r.From != FromSpindle {
			continue
		}
		for _, ex := range r.Examples {
			for _, m := range corpusFindings(d, s, corpusCase{path: ex.Path, text: ex.Text}) {
				if m.RuleID == r.ID {
					own[r.ID]++
				}
			}
		}
	}
	for id, n := range own {
		if n == 0 {
			t.Errorf("%s finds nothing that gitleaks' rules do not: it does not earn its place", id)
		}
	}
	flagged := 0
	for _, r := range cfg.Rules {
		if r.From != FromGitleaks {
			continue
		}
		_, fps := ExamplesOf(r)
		for _, ex := range fps {
			for _, m := range corpusFindings(d, s, corpusCase{path: ex.Path, text: ex.Text}) {
				if _, isOwn := own[m.RuleID]; isOwn {
					flagged++
					t.Errorf("%s reports gitleaks' false positive of %s: %q", m.RuleID, r.ID, ex.Text)
				}
			}
		}
	}
	t.Logf("%d of spindle's rules; their own findings on their corpus and examples: %v", len(own), own)
}

// TestGitleaksVersionIsTheRequiredOne checks that GitleaksVersion, the
// embedded examples and go.mod name the same gitleaks version: after
// go get of another version, go generate ./scan/rules and this constant
// must follow.
func TestGitleaksVersionIsTheRequiredOne(t *testing.T) {
	doc, err := decodeGitleaksExamples(gitleaksExamplesGz)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Version != GitleaksVersion || doc.Module != "github.com/zricethezav/gitleaks/v8" {
		t.Errorf("examples from %s %s, want github.com/zricethezav/gitleaks/v8 %s", doc.Module, doc.Version, GitleaksVersion)
	}
	goMod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(goMod), "\tgithub.com/zricethezav/gitleaks/v8 "+GitleaksVersion+"\n") && !strings.Contains(string(goMod), "\tgithub.com/zricethezav/gitleaks/v8 "+GitleaksVersion+" ") {
		t.Errorf("go.mod does not require github.com/zricethezav/gitleaks/v8 %s", GitleaksVersion)
	}
}

// TestGitleaksExamplesAreCurrent runs the generator against the module
// source and compares its output with the embedded examples, so that the
// file is what the generator makes of gitleaks' code and nothing else.
func TestGitleaksExamplesAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gitleaks' generator code: not with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "run", "-tags", "spindletools", "./scan/rules/internal/gitleaksexamples")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "dial tcp") || strings.Contains(stderr.String(), "lookup ") {
			t.Skipf("the module source is not available offline: %s", stderr.Bytes())
		}
		t.Fatalf("generator: %v\n%s", err, stderr.Bytes())
	}
	zr, err := gzip.NewReader(bytes.NewReader(gitleaksExamplesGz))
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("gitleaks_examples.json.gz is not what go generate makes of the module (%d bytes, generator %d): run go generate ./scan/rules", len(want), len(got))
	}
	var doc gitleaksExampleDoc
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	tps, fps := 0, 0
	for _, r := range doc.Rules {
		tps += len(r.TPs)
		fps += len(r.FPs)
	}
	if len(doc.Rules) < 200 || tps < 5000 || fps < 300 {
		t.Errorf("%d rules, %d true and %d false positives: the generator lost examples", len(doc.Rules), tps, fps)
	}
}
