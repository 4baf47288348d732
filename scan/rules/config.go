package rules

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp/syntax"
	"strconv"
	"strings"
)

// Config is a parsed gitleaks-schema configuration: plain data, with every
// [extend] already merged in and every check of the schema already passed.
// Compile turns it into a Detector. A Config may also be built or edited in
// Go; Compile validates it again.
type Config struct {
	Title       string
	Description string
	MinVersion  string // recorded, not enforced (gitleaks only warns)

	// Source is the file the config was read from; "" for the built-in
	// rules. The scan engine skips this file, as gitleaks does.
	Source string
	// Origin says whether the config is the built-in rules, one the caller
	// named, or one Find found in the scanned tree (whose [extend] may
	// not leave that tree).
	Origin Origin

	// Warnings are problems that did not stop the config from loading,
	// such as rule ids that name no rule (a gitleaks config written for
	// gitleaks' rules, extended onto this package's). Parse, LoadFile and
	// Find fill it, files extended first; Compile ignores it. A caller
	// should show them: they explain rules that are not there.
	Warnings []Warning

	Extend     Extend      // as written in the file; already applied
	Rules      []Rule      // in file order, extended rules merged in
	Allowlists []Allowlist // global allowlists without TargetRules

	// checked holds the parsed trees of the rules' regexes and path
	// regexes that Parse checked, by source: Compile clones a tree rather
	// than parsing its regex again (gitleaks' config: about 10 ms). A
	// source changed after Parse is not in it, and is parsed and checked.
	checked map[string]*syntax.Regexp
}

// Extend is the [extend] table: build on the built-in rules or on another
// file, minus DisabledRules.
type Extend struct {
	Path          string // another config file, relative to this one's directory
	UseDefault    bool   // the built-in rules (which: Builtin)
	DisabledRules []string
	// UseSpindleRules is spindle's key (gitleaks ignores it): true adds
	// spindle's own rules to what the config extends, false leaves them
	// out; nil, as the loader's Builtin says (with UseDefault only).
	UseSpindleRules *bool
}

// Rule is one [[rules]] entry.
type Rule struct {
	ID          string
	Description string
	Regex       string // Go RE2 syntax; "" for a path-only rule
	Path        string // file path regex; with Regex, both must match
	SecretGroup int    // capture group holding the secret; 0: first non-empty group
	Entropy     float64
	Keywords    []string // lower-cased; a rule with keywords runs only where one occurs
	Tags        []string
	Allowlists  []Allowlist
	Required    []Required // composite rule: these rules must also match nearby
	SkipReport  bool       // only used as a Required part, never reported itself

	// From says which catalog the rule comes from: FromGitleaks or
	// FromSpindle for the built-in rules (Default), FromConfig for one a
	// config file or Go code defines. A config that extends the built-in
	// rules and redefines one of them keeps its From.
	From Provenance

	// Spindle's own keys (gitleaks ignores them; see checksum.go and
	// examples.go).
	Validate  string    // a check of the secret that tags implausible findings: "placeholder", "base62-crc32", ...
	Examples  []Example // each must give at least one finding of this rule
	Negatives []Example // none may give a finding of this rule
}

// Example is a text that a rule must (Rule.Examples) or must not
// (Rule.Negatives) report, scanned as the content of a file at Path
// ("example.txt" when empty).
type Example struct {
	Path string
	Text string
}

// Allowlist is a [[rules.allowlists]] or [[allowlists]] entry: findings it
// matches are dropped.
type Allowlist struct {
	Description string
	Condition   string   // "OR" (default) or "AND" over the checks present
	Commits     []string // never match in a directory scan
	Paths       []string // regexes on the file path
	RegexTarget string   // "secret" (default), "match" or "line"
	Regexes     []string
	StopWords   []string // substrings of the secret, case-insensitive
	TargetRules []string // global allowlists only: apply to these rules only
}

// Required names another rule that must match near a composite rule's
// finding. Nil bounds mean anywhere in the same buffer.
type Required struct {
	ID            string
	WithinLines   *int
	WithinColumns *int
}

// ConfigError describes a problem in a configuration file: the file, the
// line when it is known (0 otherwise), the rule concerned (if any) and what
// is wrong.
type ConfigError struct {
	File    string // "" means the built-in rules
	Line    int
	RuleID  string
	Problem string
	Err     error // underlying error, if any
}

// Error formats the error as "rules: file:line: rule "id": problem".
func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("rules: ")
	if e.File == "" {
		b.WriteString("<built-in>")
	} else {
		b.WriteString(e.File)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.RuleID != "" {
		fmt.Fprintf(&b, "rule %q: ", e.RuleID)
	}
	b.WriteString(e.Problem)
	return b.String()
}

// Unwrap returns the underlying error, such as the file system's.
func (e *ConfigError) Unwrap() error { return e.Err }

// Warning is a problem in a configuration file that does not stop it
// from loading: the file, the line when it is known, the rule ids
// concerned and what happened to them.
type Warning struct {
	File    string // "" means the built-in rules
	Line    int
	RuleIDs []string
	Problem string
}

// String formats the warning as "rules: file:line: problem: "id", ...".
func (w Warning) String() string {
	e := ConfigError{File: w.File, Line: w.Line, Problem: w.Problem}
	s := e.Error()
	for i, id := range w.RuleIDs {
		if i == 0 {
			s += ": "
		} else {
			s += ", "
		}
		s += strconv.Quote(id)
	}
	return s
}

// maxExtendDepth is how many [extend] links a chain may have, as in
// gitleaks.
const maxExtendDepth = 2

// Parse parses a gitleaks-schema TOML document of at most 1 MiB. source
// names it in error messages and is the base for a relative [extend]
// path; "" stands for the built-in rules (and the working directory). The
// document is trusted (Origin Explicit): its [extend] path may name any
// regular file.
func Parse(data []byte, source string) (*Config, error) {
	return ParseWith(data, source, WithSpindle)
}

// ParseWith is Parse with [extend] useDefault = true naming the built-in
// rules b.
func ParseWith(data []byte, source string, b Builtin) (*Config, error) {
	cfg, _, err := parseLevel(&files{builtin: b}, data, source, 0)
	if err != nil {
		return nil, err
	}
	cfg.Origin = Explicit
	return cfg, nil
}

// LoadFile reads and parses the config file at path, which the caller
// chose (Origin Explicit): it and every file it extends must be regular
// files of at most 1 MiB, and its [extend] path may name any file.
func LoadFile(path string) (*Config, error) { return loadFile(path, WithSpindle) }

func loadFile(path string, b Builtin) (*Config, error) {
	data, err := (&files{}).read(path)
	if err != nil {
		return nil, &ConfigError{File: path, Problem: "cannot read config: " + errText(err), Err: err}
	}
	return ParseWith(data, path, b)
}

func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Find picks the configuration the way gitleaks does for a directory scan:
// the explicit path if given (LoadFile), else <root>/.gitleaks.toml if it
// exists, else the built-in rules. It returns the path used ("" for the
// built-in rules); the Config's Origin says which it was.
//
// A config found in root is untrusted input, since whoever can add a file
// to the tree chooses it: it, and every file its [extend] names (relative
// to the config that names it), must lie inside root, symbolic links
// resolved, and be regular files of at most 1 MiB. Anything else there
// (a directory, a FIFO, a link out of the tree) is an error, not a
// reason to fall back to the built-in rules.
//
// The built-in rules are gitleaks' defaults and spindle's own (WithSpindle);
// FindWith chooses.
func Find(root, explicit string) (*Config, string, error) {
	return FindWith(root, explicit, WithSpindle)
}

// FindWith is Find with b as the built-in rules: what it returns when no
// config is found, and what a config's [extend] useDefault = true names.
func FindWith(root, explicit string, b Builtin) (*Config, string, error) {
	if explicit != "" {
		cfg, err := loadFile(explicit, b)
		return cfg, explicit, err
	}
	if root != "" {
		const name = ".gitleaks.toml"
		p := filepath.Join(root, name)
		if _, err := os.Lstat(p); err == nil {
			cfg, err := loadFromTree(root, name, b)
			return cfg, p, err
		}
	}
	return DefaultOf(b), "", nil
}

// loadFromTree loads the config at name, a path inside root, confined to
// root (see Find).
func loadFromTree(root, name string, b Builtin) (*Config, error) {
	source := filepath.Join(root, name)
	fail := func(err error) (*Config, error) {
		return nil, &ConfigError{File: source, Problem: "cannot read config: " + errText(err), Err: err}
	}
	resolved, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fail(err)
	}
	r, err := os.OpenRoot(resolved)
	if err != nil {
		return fail(err)
	}
	defer r.Close()
	f := &files{root: r, dir: root, real: resolved, builtin: b}
	data, err := f.read(name)
	if err != nil {
		return fail(err)
	}
	cfg, _, err := parseLevel(f, data, source, 0)
	if err != nil {
		return nil, err
	}
	cfg.Origin = FoundInTree
	return cfg, nil
}

// extendWith merges base into c the way gitleaks does: base rules come
// first (minus DisabledRules); a rule defined in both takes c's non-zero
// scalars and the union of both lists; base's global allowlists are added.
// Unlike gitleaks, SkipReport and Required are merged too.
func (c *Config) extendWith(base *Config, origins, baseOrigins map[string]origin) {
	// origins maps each rule id to where it was defined, for error messages.
	disabled := make(map[string]bool, len(c.Extend.DisabledRules))
	for _, id := range c.Extend.DisabledRules {
		disabled[id] = true
	}
	own := make(map[string]int, len(c.Rules))
	for i, r := range c.Rules {
		own[r.ID] = i
	}
	used := make([]bool, len(c.Rules))
	merged := make([]Rule, 0, len(base.Rules)+len(c.Rules))
	for _, br := range base.Rules {
		if disabled[br.ID] {
			continue
		}
		i, ok := own[br.ID]
		if !ok {
			merged = append(merged, br)
			origins[br.ID] = baseOrigins[br.ID]
			continue
		}
		used[i] = true
		cr := c.Rules[i]
		if cr.Description != "" {
			br.Description = cr.Description
		}
		if cr.Entropy != 0 {
			br.Entropy = cr.Entropy
		}
		if cr.SecretGroup != 0 {
			br.SecretGroup = cr.SecretGroup
		}
		if cr.Regex != "" {
			br.Regex = cr.Regex
		}
		if cr.Path != "" {
			br.Path = cr.Path
		}
		br.Tags = append(append([]string(nil), br.Tags...), cr.Tags...)
		br.Keywords = append(append([]string(nil), br.Keywords...), cr.Keywords...)
		br.Allowlists = append(append([]Allowlist(nil), br.Allowlists...), cr.Allowlists...)
		br.Required = append(append([]Required(nil), br.Required...), cr.Required...)
		br.SkipReport = br.SkipReport || cr.SkipReport
		if cr.Validate != "" {
			br.Validate = cr.Validate
		}
		br.Examples = append(append([]Example(nil), br.Examples...), cr.Examples...)
		br.Negatives = append(append([]Example(nil), br.Negatives...), cr.Negatives...)
		merged = append(merged, br)
	}
	for i, r := range c.Rules {
		if !used[i] {
			merged = append(merged, r)
		}
	}
	c.Rules = merged
	c.Allowlists = append(c.Allowlists, base.Allowlists...)
}

// validateRule checks what can only be checked once a rule is complete,
// and records the trees of its regexes in checked.
func validateRule(r *Rule, checked map[string]*syntax.Regexp) (problem string) {
	_, problem = validateRuleTree(r, true, checked, true)
	return problem
}

// validateRuleTree is validateRule, and returns the parsed regex (nil
// for a path-only rule), which Compile analyzes. With allowlists false it
// leaves the rule's allowlists to the caller (Compile validates each
// distinct one once, as it compiles it). A regex whose tree checked holds
// passed these checks already: its tree is cloned, not parsed again.
// With record, a regex parsed here is added to checked (Parse; Compile
// only reads it, so that a Config can be compiled concurrently).
func validateRuleTree(r *Rule, allowlists bool, checked map[string]*syntax.Regexp, record bool) (tree *syntax.Regexp, problem string) {
	parse := func(what, expr string, wantTree bool) (*syntax.Regexp, string) {
		if re, ok := checked[expr]; ok {
			if !wantTree {
				return nil, ""
			}
			return cloneRegexp(re), ""
		}
		re, p := parseBoundedRegex(what, expr)
		if p == "" && record {
			checked[expr] = re
		}
		return re, p
	}
	if strings.TrimSpace(r.ID) == "" {
		return nil, "rule id is missing or empty"
	}
	if r.Regex == "" && r.Path == "" {
		return nil, "both regex and path are empty; the rule would match nothing"
	}
	if r.SecretGroup < 0 {
		return nil, fmt.Sprintf("secretGroup %d is negative", r.SecretGroup)
	}
	if r.Regex != "" {
		re, p := parse("regex", r.Regex, true)
		if p != "" {
			return nil, p
		}
		if p := emptyMatchProblem(re); p != "" {
			return nil, p
		}
		if n := re.MaxCap(); r.SecretGroup > n {
			return nil, fmt.Sprintf("secretGroup %d is out of range: the regex has %d capture group%s", r.SecretGroup, n, plural(n))
		}
		tree = re
	}
	if r.Path != "" {
		if _, p := parse("path regex", r.Path, false); p != "" {
			return nil, p
		}
	}
	for i := range r.Allowlists {
		if !allowlists {
			break
		}
		if p := validateAllowlist(&r.Allowlists[i], false); p != "" {
			return nil, fmt.Sprintf("allowlist %d: %s", i+1, p)
		}
	}
	for _, req := range r.Required {
		if req.ID == "" {
			return nil, "required: rule id is empty"
		}
	}
	if r.Validate != "" && validatorNamed(r.Validate) == nil {
		return nil, fmt.Sprintf("validate: unknown check %q (known: %s)", r.Validate, strings.Join(validatorNames(), ", "))
	}
	return tree, ""
}

// parseRegex checks expr as regexp.Compile does, at a fraction of the
// cost: regexp.Compile fails only where syntax.Parse with the Perl flags
// does, with the same error.
func parseRegex(expr string) (*syntax.Regexp, error) {
	return syntax.Parse(expr, syntax.Perl)
}

// cloneRegexp returns a deep copy of re, sharing nothing with it.
func cloneRegexp(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Sub0 = [1]*syntax.Regexp{}
	c.Sub = nil
	if len(re.Sub) > 0 {
		c.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, sub := range re.Sub {
			c.Sub[i] = cloneRegexp(sub)
		}
	}
	c.Rune0 = [2]rune{}
	c.Rune = nil
	if re.Rune != nil {
		c.Rune = make([]rune, len(re.Rune))
		copy(c.Rune, re.Rune)
	}
	return &c
}

func regexErrText(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// validateAllowlist checks one allowlist and normalises Condition and
// RegexTarget to their canonical spelling.
func validateAllowlist(a *Allowlist, global bool) string {
	switch strings.ToUpper(a.Condition) {
	case "", "OR", "||":
		a.Condition = "OR"
	case "AND", "&&":
		a.Condition = "AND"
	default:
		return fmt.Sprintf("unknown condition %q (expected \"AND\" or \"OR\")", a.Condition)
	}
	switch a.RegexTarget {
	case "", "secret":
		a.RegexTarget = "secret"
	case "match", "line":
	default:
		return fmt.Sprintf("unknown regexTarget %q (expected \"secret\", \"match\" or \"line\")", a.RegexTarget)
	}
	if len(a.Commits) == 0 && len(a.Paths) == 0 && len(a.Regexes) == 0 && len(a.StopWords) == 0 {
		return "must contain at least one of commits, paths, regexes or stopwords"
	}
	if len(a.TargetRules) > 0 && !global {
		return "targetRules is only allowed in a global [[allowlists]]"
	}
	for _, p := range a.Paths {
		if _, problem := parseBoundedRegex("path regex", p); problem != "" {
			return problem
		}
	}
	for _, p := range a.Regexes {
		if _, problem := parseBoundedRegex("regex", p); problem != "" {
			return problem
		}
	}
	// gitleaks joins them into one regex; that must be bounded too.
	if len(a.Paths) > 0 {
		if re, err := parseRegex(joinAlternatives(a.Paths)); err != nil {
			return "path regexes cannot be combined: " + regexErrText(err)
		} else if n := regexSize(re); n > maxRegexSize {
			return fmt.Sprintf("path regexes too large together: they compile to about %d instructions (at most %d)", n, maxRegexSize)
		}
	}
	if len(a.Regexes) > 0 {
		if re, err := parseRegex(joinAlternatives(a.Regexes)); err != nil {
			return "regexes cannot be combined: " + regexErrText(err)
		} else if n := regexSize(re); n > maxRegexSize {
			return fmt.Sprintf("regexes too large together: they compile to about %d instructions (at most %d)", n, maxRegexSize)
		}
	}
	return ""
}

// joinAlternatives combines patterns the way gitleaks does, textually:
// (?:p1|p2|...). A flag group such as (?i) at the start of one pattern
// therefore also applies to the patterns after it; that is gitleaks'
// behaviour and is kept on purpose.
func joinAlternatives(patterns []string) string {
	return "(?:" + strings.Join(patterns, "|") + ")"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
