package rules

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// This file reads and runs the examples of rules. A rule of a config
// carries them in spindle's `examples` and `negatives` keys, which
// gitleaks ignores. Each entry is either a string (the text of a file) or
// an inline table {path = "...", text = "..."} for rules whose path
// matters:
//
//	examples  = ["GITHUB_TOKEN=ghp_...", {path = "home/.pgpass", text = "db:5432:*:app:..."}]
//	negatives = ["GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"]
//
// gitleaks' rules carry theirs in the gitleaks module's code: each rule's
// function in cmd/generate/config/rules hands the rule, its true positives
// and its false positives to a validation function. The generator in
// internal/gitleaksexamples runs that code with the validation replaced
// by a recorder and writes what it recorded to gitleaks_examples.json.gz,
// embedded here; a rule that comes from gitleaks (FromGitleaks) and has
// no examples of its own is checked on them.
//
// An example is checked as gitleaks checks its own: the rule alone (with
// the rules it requires) and the global allowlists scan the example as
// the content of a file, with the rule's path and allowlists and every
// check applying. An example must give at least one finding of its rule.
// A negative must give none, or only findings its check tags as
// implausible (placeholder, checksum:invalid, malformed): the tag is then
// what says that the negative is not a secret.

// examplePath is where an example without a path is taken to live: a name
// that no path-scoped rule or allowlist of the built-in rules singles out.
const examplePath = "example.txt"

// asExamples converts a TOML array of strings and {path, text} tables.
func asExamples(v any) ([]Example, string) {
	list, ok := v.([]any)
	if !ok {
		if ts, isTables := v.([]map[string]any); isTables {
			for _, t := range ts {
				list = append(list, t)
			}
		} else {
			return nil, "expected an array of strings or {path, text} tables, got " + typeName(v)
		}
	}
	out := make([]Example, 0, len(list))
	for i, e := range list {
		switch e := e.(type) {
		case string:
			if e == "" {
				return nil, fmt.Sprintf("entry %d is empty", i+1)
			}
			out = append(out, Example{Text: e})
		case map[string]any:
			var ex Example
			for k, v := range e {
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Sprintf("entry %d: %s: expected a string, got %s", i+1, k, typeName(v))
				}
				switch strings.ToLower(k) {
				case "path":
					ex.Path = s
				case "text":
					ex.Text = s
				default:
					return nil, fmt.Sprintf("entry %d: unknown key %q (expected path and text)", i+1, k)
				}
			}
			if ex.Text == "" && ex.Path == "" {
				return nil, fmt.Sprintf("entry %d has neither path nor text", i+1)
			}
			out = append(out, ex)
		default:
			return nil, fmt.Sprintf("entry %d: expected a string or a {path, text} table, got %s", i+1, typeName(e))
		}
	}
	return out, ""
}

// ExampleFailure is an example that does not behave: an example in which
// its rule finds nothing, or a negative in which it finds something that
// is not tagged implausible.
type ExampleFailure struct {
	RuleID   string
	Negative bool     // the example is one of the rule's negatives
	Example  Example  // as written
	Found    []string // for a negative: the secrets the rule reported
}

// Error describes the failure in one line.
func (f ExampleFailure) Error() string {
	text := f.Example.Text
	if len(text) > 80 {
		text = text[:77] + "..."
	}
	where := ""
	if f.Example.Path != "" {
		where = " (path " + f.Example.Path + ")"
	}
	if f.Negative {
		return fmt.Sprintf("rule %q: negative %q%s is reported: %s", f.RuleID, text, where, strings.Join(f.Found, ", "))
	}
	return fmt.Sprintf("rule %q: example %q%s is not reported", f.RuleID, text, where)
}

// ExamplesOf returns the examples and negatives r is checked on: its own
// (the examples and negatives keys), else, for a rule that comes from
// gitleaks, the true and false positives gitleaks' code gives it. A rule
// may have none.
func ExamplesOf(r Rule) (examples, negatives []Example) {
	if len(r.Examples)+len(r.Negatives) > 0 || r.From != FromGitleaks {
		return r.Examples, r.Negatives
	}
	ex := gitleaksExamples()[r.ID]
	return ex.TPs, ex.FPs
}

// CheckExamples scans each example and negative of the rule with id
// ruleID in cfg (ExamplesOf), the config d was compiled from, and returns
// the ones that do not behave. The rule runs alone, with the rules it
// requires and cfg's global allowlists, without decoding, as gitleaks
// validates its rules. A rule without examples, or not in cfg, passes.
func (d *Detector) CheckExamples(cfg *Config, ruleID string) []ExampleFailure {
	i, ok := d.byID[ruleID]
	if !ok || i >= len(cfg.Rules) || cfg.Rules[i].ID != ruleID {
		return nil
	}
	examples, negatives := ExamplesOf(cfg.Rules[i])
	if len(examples)+len(negatives) == 0 {
		return nil
	}
	check, err := d.exampleDetector(cfg)
	if err != nil {
		return []ExampleFailure{{RuleID: ruleID, Example: Example{Text: err.Error()}}}
	}
	s := check.exampleScratch(i)
	var out []ExampleFailure
	for _, ex := range examples {
		if found, _ := check.exampleFindings(s, ruleID, ex); len(found) == 0 {
			out = append(out, ExampleFailure{RuleID: ruleID, Example: ex})
		}
	}
	for _, ex := range negatives {
		if _, untagged := check.exampleFindings(s, ruleID, ex); len(untagged) > 0 {
			out = append(out, ExampleFailure{RuleID: ruleID, Negative: true, Example: ex, Found: untagged})
		}
	}
	return out
}

// exampleDetector returns the detector examples run with: cfg compiled
// without decoding, or d itself when d does not decode. It is compiled on
// first use and kept for the next call with the same cfg.
func (d *Detector) exampleDetector(cfg *Config) (*Detector, error) {
	if d.decodeDepth == 0 {
		return d, nil
	}
	d.examples.Lock()
	defer d.examples.Unlock()
	if d.examples.cfg != cfg {
		d.examples.cfg = cfg
		d.examples.d, d.examples.err = CompileWith(cfg, Settings{MaxDecodeDepth: -1, IgnoreInlineAllow: d.ignoreAllow})
	}
	return d.examples.d, d.examples.err
}

// exampleScratch returns a Scratch in which only rule i runs, with the
// rules it requires (and theirs).
func (d *Detector) exampleScratch(i int) *Scratch {
	s := d.NewScratch()
	s.only = make([]bool, len(d.rules))
	var add func(i int)
	add = func(i int) {
		if s.only[i] {
			return
		}
		s.only[i] = true
		for _, part := range d.rules[i].required {
			add(part.rule)
		}
	}
	add(i)
	return s
}

// exampleFindings returns the secrets (or matches, for path-only rules)
// that rule ruleID reports in ex, and those of them its check does not
// tag as implausible.
func (d *Detector) exampleFindings(s *Scratch, ruleID string, ex Example) (found, untagged []string) {
	path := ex.Path
	if path == "" {
		path = examplePath
	}
	emit := func(m Match) {
		if m.RuleID != ruleID {
			return
		}
		text := m.Secret
		if text == "" {
			text = m.Match
		}
		found = append(found, text)
		if !implausibleTags(m.Tags) {
			untagged = append(untagged, text)
		}
	}
	if s.SkipPath(path) {
		return nil, nil
	}
	s.ScanPath(path, emit)
	if ex.Text != "" {
		d.Scan(s, path, []byte(ex.Text), emit)
	}
	return found, untagged
}

// implausibleTags reports whether tags hold a tag of an implausible
// verdict.
func implausibleTags(tags []string) bool {
	for _, t := range tags {
		if t == TagPlaceholder || t == TagChecksumInvalid || t == TagMalformed {
			return true
		}
	}
	return false
}

// gitleaksExamplesGz is gitleaks' rule examples, written by
// internal/gitleaksexamples (go generate).
//
//go:embed gitleaks_examples.json.gz
var gitleaksExamplesGz []byte

// gitleaksExampleDoc is the document internal/gitleaksexamples writes: the
// true and false positives of each of gitleaks' rules, as gitleaks'
// generator of its default config validates them.
type gitleaksExampleDoc struct {
	Module  string `json:"module"`
	Version string `json:"version"`
	Rules   []struct {
		ID  string    `json:"id"`
		TPs []Example `json:"true_positives"`
		FPs []Example `json:"false_positives"`
	} `json:"rules"`
}

// gitleaksRuleExamples is one rule's examples.
type gitleaksRuleExamples struct {
	TPs, FPs []Example
}

// gitleaksExamples decodes the embedded examples once, by rule id. It
// panics if they do not decode, which the package's tests rule out.
var gitleaksExamples = sync.OnceValue(func() map[string]gitleaksRuleExamples {
	doc, err := decodeGitleaksExamples(gitleaksExamplesGz)
	if err != nil {
		panic(err)
	}
	out := make(map[string]gitleaksRuleExamples, len(doc.Rules))
	for _, r := range doc.Rules {
		out[r.ID] = gitleaksRuleExamples{TPs: r.TPs, FPs: r.FPs}
	}
	return out
})

// decodeGitleaksExamples reads a gzipped gitleaksExampleDoc document.
func decodeGitleaksExamples(gz []byte) (*gitleaksExampleDoc, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("gitleaks examples: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("gitleaks examples: %w", err)
	}
	var doc gitleaksExampleDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("gitleaks examples: %w", err)
	}
	return &doc, nil
}
