package rules

import (
	"fmt"
	"strings"
)

// This file reads and runs the examples a rule carries: spindle's
// `examples` and `negatives` keys, which gitleaks ignores. Each entry is
// either a string (the text of a file) or an inline table {path = "...",
// text = "..."} for rules whose path matters:
//
//	examples  = ["GITHUB_TOKEN=ghp_...", {path = "home/.pgpass", text = "db:5432:*:app:..."}]
//	negatives = ["GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"]
//
// An example must give at least one finding of its rule, a negative none,
// when scanned as a file would be (the global allowlists, the rule's path
// and allowlists, every check).

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
// its rule finds nothing, or a negative in which it finds something.
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

// CheckExamples scans each example and negative of the rule with id
// ruleID in cfg, the config d was compiled from, and returns the ones that
// do not behave. A rule without examples passes.
func (d *Detector) CheckExamples(cfg *Config, ruleID string) []ExampleFailure {
	var r *Rule
	for i := range cfg.Rules {
		if cfg.Rules[i].ID == ruleID {
			r = &cfg.Rules[i]
			break
		}
	}
	if r == nil {
		return nil
	}
	s := d.NewScratch()
	var out []ExampleFailure
	for _, ex := range r.Examples {
		if len(d.exampleFindings(s, ruleID, ex)) == 0 {
			out = append(out, ExampleFailure{RuleID: ruleID, Example: ex})
		}
	}
	for _, ex := range r.Negatives {
		if found := d.exampleFindings(s, ruleID, ex); len(found) > 0 {
			out = append(out, ExampleFailure{RuleID: ruleID, Negative: true, Example: ex, Found: found})
		}
	}
	return out
}

// exampleFindings returns the secrets (or matches, for path-only rules)
// that rule ruleID reports in ex.
func (d *Detector) exampleFindings(s *Scratch, ruleID string, ex Example) []string {
	path := ex.Path
	if path == "" {
		path = examplePath
	}
	var found []string
	emit := func(m Match) {
		if m.RuleID == ruleID {
			if m.Secret != "" {
				found = append(found, m.Secret)
			} else {
				found = append(found, m.Match)
			}
		}
	}
	if s.SkipPath(path) {
		return nil
	}
	s.ScanPath(path, emit)
	if ex.Text != "" {
		d.Scan(s, path, []byte(ex.Text), emit)
	}
	return found
}
