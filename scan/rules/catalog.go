package rules

import (
	_ "embed"
	"fmt"

	gitleaksconfig "github.com/zricethezav/gitleaks/v8/config"
)

// This file builds the built-in rules: gitleaks' default config, taken
// from the gitleaks Go module this module requires (its config package
// embeds gitleaks.toml as DefaultConfig), followed by spindle's own rules
// (spindle.toml) for kinds of secret gitleaks' rules lack. Both are parsed
// and compiled by this package, like any config.

// GitleaksVersion is the version of the gitleaks module whose default
// config the built-in rules hold, and whose rule examples
// gitleaks_examples.json.gz holds. The tests check that it is the version
// go.mod requires.
const GitleaksVersion = "v8.30.1"

//go:generate go run -tags spindletools ./internal/gitleaksexamples -o gitleaks_examples.json.gz

// spindleTOML is spindle's own rules.
//
//go:embed spindle.toml
var spindleTOML []byte

// SpindleTOML returns the text of spindle's own built-in rules, the part
// of the built-in rules that does not come from gitleaks.
func SpindleTOML() []byte { return append([]byte(nil), spindleTOML...) }

// Provenance says which catalog a rule comes from.
type Provenance uint8

const (
	// FromConfig is a rule that a config file or Go code defines.
	FromConfig Provenance = iota
	// FromGitleaks is a rule of gitleaks' default config (at
	// GitleaksVersion), one of the built-in rules.
	FromGitleaks
	// FromSpindle is one of spindle's own built-in rules.
	FromSpindle
)

// String names the catalog: "gitleaks v8.30.1", "spindle" or "config".
func (p Provenance) String() string {
	switch p {
	case FromGitleaks:
		return "gitleaks " + GitleaksVersion
	case FromSpindle:
		return "spindle"
	}
	return "config"
}

// gitleaksChecks names the check (spindle's validate key) the built-in
// rules add to those of gitleaks' rules whose tokens carry a checksum or a
// structure that can be verified. Every other rule of gitleaks gets the
// placeholder check. A check only tags (see checksum.go), so gitleaks'
// rules keep gitleaks' findings.
var gitleaksChecks = map[string]string{
	"github-pat":       "base62-crc32",
	"github-oauth":     "base62-crc32",
	"github-app-token": "base62-crc32",
	"npm-access-token": "base62-crc32",
	"age-secret-key":   "bech32",
	"jwt":              "jwt",
	"jwt-base64":       "base64-jwt",
}

// ruleCheck names the check of rule r: its own, or, for a rule of
// gitleaks' that has none when implausible findings are dropped, the one
// the built-in rules give it.
func ruleCheck(r *Rule, skipImplausible bool) string {
	if r.Validate != "" || !skipImplausible || r.From != FromGitleaks {
		return r.Validate
	}
	if check, ok := gitleaksChecks[r.ID]; ok {
		return check
	}
	return "placeholder"
}

// Builtin says which rules "the built-in rules" are: what a scan with no
// config runs, and what a config's [extend] useDefault = true builds on.
// A config decides for itself with [extend] useSpindleRules (spindle's
// key; gitleaks ignores it): true adds spindle's own rules to what it
// extends, false leaves them out, whatever the Builtin.
type Builtin uint8

const (
	// WithSpindle is gitleaks' default config followed by spindle's own
	// rules: Default, and what spindle scan runs.
	WithSpindle Builtin = iota
	// GitleaksOnly is gitleaks' default config alone, as gitleaks runs
	// it: the same rule ids, findings and fingerprints. The gitleaks
	// drop-ins (spindle dir, git, stdin) run it unless asked for
	// spindle's rules.
	GitleaksOnly
)

// String names the set as help and logs do.
func (b Builtin) String() string {
	if b == GitleaksOnly {
		return "gitleaks " + GitleaksVersion + " defaults"
	}
	return "gitleaks " + GitleaksVersion + " defaults and spindle's own"
}

// Default returns the built-in rules: gitleaks' default config, then
// spindle's own rules (DefaultOf(WithSpindle)). It panics if they do not
// load, which the package's tests rule out.
func Default() *Config { return DefaultOf(WithSpindle) }

// DefaultOf returns the built-in rules that b names. It panics if they do
// not load, which the package's tests rule out.
func DefaultOf(b Builtin) *Config {
	cfg, _, err := builtinLevel(true, b == WithSpindle)
	if err != nil {
		panic(err)
	}
	return cfg
}

// builtinLevel builds the built-in rules, with the origin of each rule
// for error messages, as parseLevel returns a file of an extend chain:
// gitleaks' rules if gitleaks, spindle's if spindle.
//
// gitleaks' rules come first, in its order, each with the check
// gitleaksChecks names (else "placeholder") when spindle's rules are on
// too; alone, they are gitleaks' rules as gitleaks runs them. Spindle's rules follow; its
// file's global allowlists apply to its own rules only, so that gitleaks'
// rules keep gitleaks' findings. gitleaks' global allowlists apply to
// every rule, as they would to the rules of a config that extends
// gitleaks' defaults.
//
// Both files are parsed as the base of an extend chain (depth 1), which
// leaves checking each rule to whatever uses them: Compile, or the config
// that extends them. Checking them here too would parse every regex once
// more for each scan; the package's tests compile the built-in rules.
func builtinLevel(gitleaks, spindle bool) (*Config, map[string]origin, error) {
	gl, glOrigins := &Config{}, map[string]origin{}
	if gitleaks {
		var err error
		gl, glOrigins, err = parseLevel(&files{}, []byte(gitleaksconfig.DefaultConfig), "", 1)
		if err != nil {
			return nil, nil, fmt.Errorf("gitleaks %s default config: %w", GitleaksVersion, err)
		}
	}
	own, ownOrigins := &Config{}, map[string]origin{}
	if spindle {
		var err error
		if own, ownOrigins, err = parseLevel(&files{}, spindleTOML, "", 1); err != nil {
			return nil, nil, err
		}
	}
	title := "built-in rules: " + WithSpindle.String()
	switch {
	case !spindle:
		title = "built-in rules: " + GitleaksOnly.String()
	case !gitleaks:
		title = "built-in rules: spindle's own"
	}
	cfg := &Config{
		Title:       title,
		Description: gl.Description,
		MinVersion:  gl.MinVersion,
		Origin:      BuiltIn,
		Rules:       make([]Rule, 0, len(gl.Rules)+len(own.Rules)),
		Allowlists:  gl.Allowlists,
	}
	origins := make(map[string]origin, len(gl.Rules)+len(own.Rules))
	for _, r := range gl.Rules {
		r.From = FromGitleaks
		// The checks are spindle's: gitleaks' defaults alone report
		// what gitleaks reports, tags included.
		if spindle {
			r.Validate = ruleCheck(&r, true)
		}
		cfg.Rules = append(cfg.Rules, r)
		origins[r.ID] = glOrigins[r.ID]
	}
	for _, r := range own.Rules {
		if _, clash := origins[r.ID]; clash {
			return nil, nil, &ConfigError{RuleID: r.ID, Problem: "spindle's rule has the id of a rule of gitleaks " + GitleaksVersion}
		}
		r.From = FromSpindle
		r.Allowlists = append(append([]Allowlist(nil), own.Allowlists...), r.Allowlists...)
		cfg.Rules = append(cfg.Rules, r)
		origins[r.ID] = ownOrigins[r.ID]
	}
	return cfg, origins, nil
}
