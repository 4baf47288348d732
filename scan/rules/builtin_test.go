package rules

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestGitleaksOnlyIsGitleaksDefaults checks the drop-ins' built-in rules:
// exactly gitleaks' default config (its 222 rule ids, in its order, with
// its global allowlists), the same rules as in WithSpindle less spindle's
// checks, and none of spindle's rules.
func TestGitleaksOnlyIsGitleaksDefaults(t *testing.T) {
	gl, err := Parse(gitleaksTOML(), "")
	if err != nil {
		t.Fatal(err)
	}
	only := DefaultOf(GitleaksOnly)
	if len(only.Rules) != len(gl.Rules) || len(gl.Rules) != 222 {
		t.Fatalf("%d rules, want gitleaks' %d (222)", len(only.Rules), len(gl.Rules))
	}
	all := Default()
	for i, r := range only.Rules {
		if r.ID != gl.Rules[i].ID || r.From != FromGitleaks {
			t.Errorf("rule %d: %s from %v, want %s from gitleaks", i, r.ID, r.From, gl.Rules[i].ID)
		}
		// The same rule as in WithSpindle, without spindle's check (a
		// check tags findings: gitleaks' rules alone tag as gitleaks).
		checked := all.Rules[i]
		if r.Validate != "" || checked.Validate == "" {
			t.Errorf("rule %s: check %q alone, %q with spindle's rules", r.ID, r.Validate, checked.Validate)
		}
		checked.Validate = ""
		if !reflect.DeepEqual(r, checked) {
			t.Errorf("rule %s differs from the same rule in WithSpindle", r.ID)
		}
	}
	if !reflect.DeepEqual(only.Allowlists, gl.Allowlists) {
		t.Error("the global allowlists are not gitleaks'")
	}
	if only.Origin != BuiltIn || !strings.Contains(only.Title, "gitleaks "+GitleaksVersion) || strings.Contains(only.Title, "spindle") {
		t.Errorf("origin %v, title %q", only.Origin, only.Title)
	}
	if _, err := Compile(only); err != nil {
		t.Fatal(err)
	}
}

// TestExtendChoosesSpindleRules checks what [extend] builds on under each
// Builtin, with and without useSpindleRules.
func TestExtendChoosesSpindleRules(t *testing.T) {
	const own = `
[[rules]]
id = "team-token"
regex = '''team_[a-z0-9]{20}'''
keywords = ["team_"]
`
	nGitleaks := len(DefaultOf(GitleaksOnly).Rules)
	nAll := len(Default().Rules)
	nSpindle := nAll - nGitleaks
	for _, c := range []struct {
		name    string
		extend  string
		builtin Builtin
		want    int // rules, team-token included
		spindle bool
	}{
		{"useDefault, scan", "useDefault = true", WithSpindle, nAll + 1, true},
		{"useDefault, drop-in", "useDefault = true", GitleaksOnly, nGitleaks + 1, false},
		{"useDefault and useSpindleRules, drop-in", "useDefault = true\nuseSpindleRules = true", GitleaksOnly, nAll + 1, true},
		{"useDefault, useSpindleRules = false, scan", "useDefault = true\nuseSpindleRules = false", WithSpindle, nGitleaks + 1, false},
		{"useSpindleRules alone", "useSpindleRules = true", GitleaksOnly, nSpindle + 1, true},
		{"nothing extended", "disabledRules = []", WithSpindle, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ParseWith([]byte("[extend]\n"+c.extend+"\n"+own), "team.toml", c.builtin)
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Rules) != c.want {
				t.Errorf("%d rules, want %d", len(cfg.Rules), c.want)
			}
			spindle := false
			for _, r := range cfg.Rules {
				spindle = spindle || r.From == FromSpindle
			}
			if spindle != c.spindle {
				t.Errorf("spindle's rules present: %v, want %v", spindle, c.spindle)
			}
			if _, err := Compile(cfg); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := Parse([]byte("[extend]\npath = \"other.toml\"\nuseSpindleRules = true\n"), "x.toml"); err == nil || !strings.Contains(err.Error(), "useSpindleRules") {
		t.Errorf("path with useSpindleRules: %v, want an error naming useSpindleRules", err)
	}
	if _, err := Parse([]byte("[extend]\nuseSpindleRules = \"yes\"\n"), "x.toml"); err == nil || !strings.Contains(err.Error(), "useSpindleRules") {
		t.Errorf("useSpindleRules = \"yes\": %v, want an error naming it", err)
	}
}

// TestFindWithBuiltin checks that FindWith returns the chosen built-in
// rules when there is no config, and that a config found in the tree or
// named, and the files they extend, build on them.
func TestFindWithBuiltin(t *testing.T) {
	dir := t.TempDir()
	nGitleaks := len(DefaultOf(GitleaksOnly).Rules)
	cfg, path, err := FindWith(dir, "", GitleaksOnly)
	if err != nil || path != "" || len(cfg.Rules) != nGitleaks {
		t.Fatalf("no config: %d rules, path %q, %v; want %d, \"\"", len(cfg.Rules), path, err, nGitleaks)
	}
	if err := os.WriteFile(filepath.Join(dir, "base.toml"), []byte("[extend]\nuseDefault = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitleaks.toml"), []byte("[extend]\npath = \"base.toml\"\ndisabledRules = [\"generic-api-key\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, explicit := range []string{"", filepath.Join(dir, ".gitleaks.toml")} {
		cfg, _, err := FindWith(dir, explicit, GitleaksOnly)
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Rules) != nGitleaks-1 {
			t.Errorf("config %q: %d rules, want gitleaks' %d less generic-api-key", explicit, len(cfg.Rules), nGitleaks)
		}
		cfg, _, err = FindWith(dir, explicit, WithSpindle)
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Rules) != len(Default().Rules)-1 {
			t.Errorf("config %q, WithSpindle: %d rules, want %d", explicit, len(cfg.Rules), len(Default().Rules)-1)
		}
	}
}
