package rules

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// This file turns TOML text into a Config: it decodes into generic maps,
// checks every key against the gitleaks schema (keys are matched without
// regard to case, as gitleaks' viper does), converts values with precise
// error messages, and finds the line of each problem with a small line
// locator, since the TOML decoder does not report positions of keys.

// origin says where a rule was defined: which file, which [[rules]] entry.
type origin struct {
	file  string
	index int
	loc   *locator
}

// document is one decoded file of an extend chain.
type document struct {
	source  string
	loc     *locator
	cfg     *Config
	origins map[string]origin
	targets []targetedAllowlist
}

type targetedAllowlist struct {
	allow Allowlist
	index int // position among [[allowlists]], for error lines
}

func (d *document) errAt(line int, ruleID, problem string) error {
	return &ConfigError{File: d.source, Line: line, RuleID: ruleID, Problem: problem}
}

// parseLevel parses one file of an extend chain, merges what it extends
// (read from src), and returns the config with the origin of every rule.
func parseLevel(src *files, data []byte, source string, depth int) (*Config, map[string]origin, error) {
	doc, err := decodeDocument(data, source)
	if err != nil {
		return nil, nil, err
	}
	cfg := doc.cfg
	ext := cfg.Extend
	if ext.Path != "" && ext.UseDefault {
		return nil, nil, doc.errAt(doc.loc.find(tableExtend, -1, "", -1, "path"), "", "extend: path and useDefault cannot both be set")
	}
	// spindle's own rules join the base when the config says so with
	// useSpindleRules, else when it extends the built-in rules and those
	// include them (src.builtin).
	spindle := ext.UseDefault && src.builtin == WithSpindle
	if ext.UseSpindleRules != nil {
		spindle = *ext.UseSpindleRules
	}
	if ext.Path != "" && spindle {
		return nil, nil, doc.errAt(doc.loc.find(tableExtend, -1, "", -1, "usespindlerules"), "", "extend: path and useSpindleRules = true cannot both be set (extend the file, and let it extend the built-in rules)")
	}
	if ext.Path != "" || ext.UseDefault || spindle {
		if depth >= maxExtendDepth {
			return nil, nil, doc.errAt(doc.loc.find(tableExtend, -1, "", -1, ""), "",
				fmt.Sprintf("extend: chain longer than %d links", maxExtendDepth))
		}
		var (
			base        *Config
			baseOrigins map[string]origin
		)
		baseName := "the built-in rules"
		if ext.UseDefault || spindle {
			base, baseOrigins, err = builtinLevel(ext.UseDefault, spindle)
		} else {
			base, baseOrigins, err = doc.readExtended(src, depth)
		}
		if err != nil {
			return nil, nil, err
		}
		if base.Source != "" {
			baseName = base.Source
		}
		doc.warnMissing(base, baseName)
		cfg.extendWith(base, doc.origins, baseOrigins)
		cfg.Warnings = append(base.Warnings, cfg.Warnings...)
	}
	doc.applyTargets()
	if depth == 0 {
		if p := countProblem(cfg); p != "" {
			return nil, nil, &ConfigError{File: source, Problem: p}
		}
		if ext.Path != "" || ext.UseDefault || spindle {
			doc.dropUnmetRequirements()
		}
		ids := make(map[string]bool, len(cfg.Rules))
		for _, r := range cfg.Rules {
			ids[r.ID] = true
		}
		cfg.checked = map[string]*syntax.Regexp{}
		for i := range cfg.Rules {
			r := &cfg.Rules[i]
			if p := validateRule(r, cfg.checked); p != "" {
				o := doc.origins[r.ID]
				line := 0
				if o.loc != nil {
					line = o.loc.find(tableRules, o.index, "", -1, problemKey(p))
				}
				return nil, nil, &ConfigError{File: o.file, Line: line, RuleID: r.ID, Problem: p}
			}
			for j, req := range r.Required {
				if !ids[req.ID] {
					o := doc.origins[r.ID]
					line := 0
					if o.loc != nil {
						line = o.loc.find(tableRules, o.index, "required", j, "id")
					}
					return nil, nil, &ConfigError{File: o.file, Line: line, RuleID: r.ID,
						Problem: fmt.Sprintf("required rule %q does not exist", req.ID)}
				}
			}
		}
	}
	return cfg, doc.origins, nil
}

// readExtended reads and parses the file the document's [extend] path
// names, through src.
func (d *document) readExtended(src *files, depth int) (*Config, map[string]origin, error) {
	line := d.loc.find(tableExtend, -1, "", -1, "path")
	fail := func(name string, err error) error {
		return &ConfigError{File: d.source, Line: line, Problem: fmt.Sprintf("extend: cannot read %s: %s", name, errText(err)), Err: err}
	}
	name, err := src.extendTarget(d.source, d.cfg.Extend.Path)
	if err != nil {
		return nil, nil, fail(strconv.Quote(d.cfg.Extend.Path), err)
	}
	data, err := src.read(name)
	if err != nil {
		return nil, nil, fail(src.name(name), err)
	}
	return parseLevel(src, data, src.name(name), depth+1)
}

// warnMissing handles what the document names that base lacks, which is
// what happens when a config written for gitleaks' default rules extends
// this package's (a different set): disabledRules naming no rule of base
// is a warning, and so is a rule that only amends a base rule (it has no
// regex and no path of its own) when base has no such rule; the amending
// rule is dropped, since on its own it matches nothing. baseName names
// base in the warnings.
func (d *document) warnMissing(base *Config, baseName string) {
	has := make(map[string]bool, len(base.Rules))
	for _, r := range base.Rules {
		has[r.ID] = true
	}
	var unknown []string
	for _, id := range d.cfg.Extend.DisabledRules {
		if !has[id] && !slices.Contains(unknown, id) {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		d.cfg.Warnings = append(d.cfg.Warnings, Warning{
			File: d.source, Line: d.loc.find(tableExtend, -1, "", -1, "disabledrules"), RuleIDs: unknown,
			Problem: "extend.disabledRules: not in " + baseName + ", ignored",
		})
	}
	kept := d.cfg.Rules[:0]
	for _, r := range d.cfg.Rules {
		if r.Regex == "" && r.Path == "" && !has[r.ID] {
			o := d.origins[r.ID]
			d.cfg.Warnings = append(d.cfg.Warnings, Warning{
				File: d.source, Line: o.loc.find(tableRules, o.index, "", -1, "id"), RuleIDs: []string{r.ID},
				Problem: "rule amends a rule that is not in " + baseName + "; with no regex or path of its own it is dropped",
			})
			delete(d.origins, r.ID)
			continue
		}
		kept = append(kept, r)
	}
	d.cfg.Rules = kept
}

// dropUnmetRequirements drops, with a warning, each rule that requires a
// rule the config does not have, until none is left: such a rule could
// never report. It runs only for a config that extends another, where
// the missing rule is most likely one of gitleaks' default rules that
// this package's set lacks; in a config that extends nothing, a missing
// required rule is an error, as in gitleaks.
func (d *document) dropUnmetRequirements() {
	for {
		ids := make(map[string]bool, len(d.cfg.Rules))
		for _, r := range d.cfg.Rules {
			ids[r.ID] = true
		}
		kept, dropped := d.cfg.Rules[:0], false
		for _, r := range d.cfg.Rules {
			var missing []string
			for _, req := range r.Required {
				if !ids[req.ID] && !slices.Contains(missing, req.ID) {
					missing = append(missing, req.ID)
				}
			}
			if len(missing) == 0 {
				kept = append(kept, r)
				continue
			}
			o := d.origins[r.ID]
			line := 0
			if o.loc != nil {
				line = o.loc.find(tableRules, o.index, "", -1, "id")
			}
			d.cfg.Warnings = append(d.cfg.Warnings, Warning{
				File: o.file, Line: line, RuleIDs: missing,
				Problem: fmt.Sprintf("rule %q requires rules this config does not have; it could never report and is dropped", r.ID),
			})
			dropped = true
		}
		d.cfg.Rules = kept
		if !dropped {
			return
		}
	}
}

// problemKey guesses which key a validation problem is about, to point at
// its line.
func problemKey(problem string) string {
	switch {
	case strings.HasPrefix(problem, "secretGroup"):
		return "secretgroup"
	case strings.HasPrefix(problem, "invalid regex"), strings.HasPrefix(problem, "regex"):
		return "regex"
	case strings.HasPrefix(problem, "invalid path"), strings.HasPrefix(problem, "path"):
		return "path"
	case strings.HasPrefix(problem, "rule id"):
		return "id"
	}
	return ""
}

// applyTargets adds each global allowlist with targetRules to the rules it
// names. Naming a rule that does not exist is a warning, not an error (as
// it is in gitleaks): a config written for gitleaks' default rules names
// rules this package's set lacks, and the allowlist still applies to
// those that exist.
func (d *document) applyTargets() {
	for _, t := range d.targets {
		var unknown []string
		for _, id := range t.allow.TargetRules {
			i := slices.IndexFunc(d.cfg.Rules, func(r Rule) bool { return r.ID == id })
			if i < 0 {
				if !slices.Contains(unknown, id) {
					unknown = append(unknown, id)
				}
				continue
			}
			a := t.allow
			a.TargetRules = nil
			d.cfg.Rules[i].Allowlists = append(d.cfg.Rules[i].Allowlists, a)
		}
		if len(unknown) > 0 {
			d.cfg.Warnings = append(d.cfg.Warnings, Warning{
				File: d.source, Line: d.loc.find(tableAllowlists, t.index, "", -1, "targetrules"), RuleIDs: unknown,
				Problem: "allowlists: targetRules: no such rule in this config, ignored",
			})
		}
	}
}

// decodeDocument parses TOML text and checks it against the schema. The
// text is checked for size and nesting first, since the TOML decoder's
// own cost grows faster than the text (see nesting.go).
func decodeDocument(data []byte, source string) (*document, error) {
	if len(data) > maxConfigSize {
		return nil, &ConfigError{File: source, Problem: fmt.Sprintf("config %s (%d bytes)", errTooLarge, len(data)), Err: errTooLarge}
	}
	if depth, line := nestingDepth(data, maxNesting); depth > maxNesting {
		return nil, &ConfigError{File: source, Line: line, Problem: "tables, arrays or dotted keys " + errTooDeep.Error(), Err: errTooDeep}
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		ce := &ConfigError{File: source, Problem: "invalid TOML: " + err.Error(), Err: err}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			ce.Line = pe.Position.Line
			ce.Problem = "invalid TOML: " + pe.Message
		}
		return nil, ce
	}
	d := &document{
		source:  source,
		loc:     newLocator(data),
		cfg:     &Config{Source: source},
		origins: map[string]origin{},
	}
	if err := d.top(raw); err != nil {
		return nil, err
	}
	return d, nil
}

// Table kinds known to the locator.
const (
	tableTop        = ""
	tableExtend     = "extend"
	tableRules      = "rules"
	tableAllowlists = "allowlists"
	tableAllowlist  = "allowlist"
)

// sortedKeys returns m's keys sorted, so that the first error reported is
// the same on every run.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (d *document) top(raw map[string]any) error {
	c := d.cfg
	var legacy, list any
	for _, k := range sortedKeys(raw) {
		v := raw[k]
		line := d.loc.find(tableTop, -1, "", -1, strings.ToLower(k))
		var err string
		switch strings.ToLower(k) {
		case "title":
			c.Title, err = asString(v)
		case "description":
			c.Description, err = asString(v)
		case "minversion":
			c.MinVersion, err = asString(v)
		case "extend":
			if e := d.extend(v); e != nil {
				return e
			}
		case "rules":
			list, ok := asTables(v)
			if !ok {
				return d.errAt(d.loc.find(tableRules, 0, "", -1, ""), "", "rules: expected an array of tables ([[rules]])")
			}
			for i, t := range list {
				if e := d.rule(i, t); e != nil {
					return e
				}
			}
		case "allowlist":
			legacy = v
		case "allowlists":
			list = v
		default:
			if _, isTable := v.(map[string]any); isTable {
				line = d.loc.find(strings.ToLower(k), -1, "", -1, "")
			}
			return d.errAt(line, "", fmt.Sprintf("unknown key %q", k))
		}
		if err != "" {
			return d.errAt(line, "", k+": "+err)
		}
	}
	if legacy != nil && list != nil {
		return d.errAt(d.loc.find(tableAllowlist, -1, "", -1, ""), "", "[allowlist] is deprecated and cannot be used together with [[allowlists]]")
	}
	if legacy != nil {
		t, ok := legacy.(map[string]any)
		if !ok {
			return d.errAt(d.loc.find(tableTop, -1, "", -1, "allowlist"), "", "allowlist: expected a table")
		}
		if err := d.globalAllowlist(tableAllowlist, -1, t); err != nil {
			return err
		}
	}
	if list != nil {
		ts, ok := asTables(list)
		if !ok {
			return d.errAt(d.loc.find(tableTop, -1, "", -1, "allowlists"), "", "allowlists: expected an array of tables ([[allowlists]])")
		}
		for i, t := range ts {
			if err := d.globalAllowlist(tableAllowlists, i, t); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *document) extend(v any) error {
	t, ok := v.(map[string]any)
	if !ok {
		return d.errAt(d.loc.find(tableTop, -1, "", -1, "extend"), "", "extend: expected a table")
	}
	e := &d.cfg.Extend
	for _, k := range sortedKeys(t) {
		line := d.loc.find(tableExtend, -1, "", -1, strings.ToLower(k))
		var err string
		switch strings.ToLower(k) {
		case "path":
			e.Path, err = asString(t[k])
		case "usedefault":
			e.UseDefault, err = asBool(t[k])
		case "disabledrules":
			e.DisabledRules, err = asStrings(t[k])
		case "usespindlerules":
			var b bool
			if b, err = asBool(t[k]); err == "" {
				e.UseSpindleRules = &b
			}
		case "url":
			err = "extending from a URL is not supported"
		default:
			err = "unknown key"
		}
		if err != "" {
			return d.errAt(line, "", fmt.Sprintf("extend.%s: %s", k, err))
		}
	}
	return nil
}

func (d *document) rule(i int, t map[string]any) error {
	var r Rule
	id, _ := asString(lookupFold(t, "id"))
	r.ID = id
	fail := func(key, problem string) error {
		return d.errAt(d.loc.find(tableRules, i, "", -1, key), id, problem)
	}
	var legacy, list any
	for _, k := range sortedKeys(t) {
		v := t[k]
		lk := strings.ToLower(k)
		var err string
		switch lk {
		case "id":
			r.ID, err = asString(v)
		case "description":
			r.Description, err = asString(v)
		case "regex":
			if r.Regex, err = asString(v); err == "" {
				var re *syntax.Regexp
				if re, err = parseBoundedRegex("regex", r.Regex); err == "" {
					err = emptyMatchProblem(re)
				}
			}
		case "path":
			if r.Path, err = asString(v); err == "" {
				_, err = parseBoundedRegex("path regex", r.Path)
			}
		case "secretgroup":
			r.SecretGroup, err = asInt(v)
		case "entropy":
			r.Entropy, err = asFloat(v)
		case "keywords":
			if r.Keywords, err = asStrings(v); err == "" {
				for j, kw := range r.Keywords {
					r.Keywords[j] = strings.ToLower(kw)
				}
			}
		case "tags":
			r.Tags, err = asStrings(v)
		case "skipreport":
			r.SkipReport, err = asBool(v)
		case "validate":
			if r.Validate, err = asString(v); err == "" && validatorNamed(r.Validate) == nil {
				err = fmt.Sprintf("unknown check %q (known: %s)", r.Validate, strings.Join(validatorNames(), ", "))
			}
		case "examples":
			r.Examples, err = asExamples(v)
		case "negatives":
			r.Negatives, err = asExamples(v)
		case "allowlist":
			legacy = v
		case "allowlists":
			list = v
		case "required":
			ts, ok := asTables(v)
			if !ok {
				err = "expected an array of tables ([[rules.required]])"
				break
			}
			for j, rt := range ts {
				req, e := d.required(i, j, id, rt)
				if e != nil {
					return e
				}
				r.Required = append(r.Required, req)
			}
		default:
			return fail(lk, fmt.Sprintf("unknown key %q", k))
		}
		if err != "" {
			if (lk == "regex" || lk == "path") && !strings.HasPrefix(err, "expected") {
				return fail(lk, err) // the problem names the key
			}
			return fail(lk, k+": "+err)
		}
	}
	if strings.TrimSpace(r.ID) == "" {
		return fail("", "rule id is missing or empty")
	}
	if _, dup := d.origins[r.ID]; dup {
		return fail("id", "rule id is defined twice in this file")
	}
	if legacy != nil && list != nil {
		return fail("allowlist", "[rules.allowlist] is deprecated and cannot be used together with [[rules.allowlists]]")
	}
	if legacy != nil {
		lt, ok := legacy.(map[string]any)
		if !ok {
			return fail("allowlist", "allowlist: expected a table")
		}
		a, err := d.allowlist(tableRules, i, "allowlist", -1, id, lt, false)
		if err != nil {
			return err
		}
		r.Allowlists = append(r.Allowlists, a)
	}
	if list != nil {
		ts, ok := asTables(list)
		if !ok {
			return fail("allowlists", "allowlists: expected an array of tables ([[rules.allowlists]])")
		}
		for j, lt := range ts {
			a, err := d.allowlist(tableRules, i, "allowlists", j, id, lt, false)
			if err != nil {
				return err
			}
			r.Allowlists = append(r.Allowlists, a)
		}
	}
	d.origins[r.ID] = origin{file: d.source, index: i, loc: d.loc}
	d.cfg.Rules = append(d.cfg.Rules, r)
	return nil
}

func (d *document) required(rule, j int, id string, t map[string]any) (Required, error) {
	var req Required
	for _, k := range sortedKeys(t) {
		lk := strings.ToLower(k)
		var err string
		switch lk {
		case "id":
			req.ID, err = asString(t[k])
		case "withinlines":
			var n int
			if n, err = asInt(t[k]); err == "" {
				req.WithinLines = &n
			}
		case "withincolumns":
			var n int
			if n, err = asInt(t[k]); err == "" {
				req.WithinColumns = &n
			}
		default:
			err = "unknown key"
		}
		if err != "" {
			return req, d.errAt(d.loc.find(tableRules, rule, "required", j, lk), id, "required."+k+": "+err)
		}
	}
	if req.ID == "" {
		return req, d.errAt(d.loc.find(tableRules, rule, "required", j, ""), id, "required: rule id is empty")
	}
	return req, nil
}

func (d *document) globalAllowlist(table string, i int, t map[string]any) error {
	a, err := d.allowlist(table, i, "", -1, "", t, true)
	if err != nil {
		return err
	}
	if len(a.TargetRules) > 0 {
		d.targets = append(d.targets, targetedAllowlist{allow: a, index: i})
		return nil
	}
	d.cfg.Allowlists = append(d.cfg.Allowlists, a)
	return nil
}

// allowlist decodes one allowlist table. table/index/sub/subIndex locate it
// for error lines; id is the enclosing rule, if any.
func (d *document) allowlist(table string, index int, sub string, subIndex int, id string, t map[string]any, global bool) (Allowlist, error) {
	var a Allowlist
	where := "allowlist"
	if global {
		where = table
	} else if subIndex >= 0 {
		where = fmt.Sprintf("allowlists[%d]", subIndex+1)
	}
	for _, k := range sortedKeys(t) {
		lk := strings.ToLower(k)
		var err string
		switch lk {
		case "description":
			a.Description, err = asString(t[k])
		case "condition":
			a.Condition, err = asString(t[k])
		case "commits":
			a.Commits, err = asStrings(t[k])
		case "paths":
			a.Paths, err = asStrings(t[k])
		case "regextarget":
			a.RegexTarget, err = asString(t[k])
		case "regexes":
			a.Regexes, err = asStrings(t[k])
		case "stopwords":
			a.StopWords, err = asStrings(t[k])
		case "targetrules":
			if !global {
				err = "only allowed in a global [[allowlists]]"
				break
			}
			a.TargetRules, err = asStrings(t[k])
		default:
			err = "unknown key"
		}
		if err != "" {
			return a, d.errAt(d.loc.find(table, index, sub, subIndex, lk), id, fmt.Sprintf("%s.%s: %s", where, k, err))
		}
	}
	if p := validateAllowlist(&a, global); p != "" {
		key := ""
		switch {
		case strings.Contains(p, "condition"):
			key = "condition"
		case strings.Contains(p, "regexTarget"):
			key = "regextarget"
		case strings.Contains(p, "path"):
			key = "paths"
		case strings.Contains(p, "regex"):
			key = "regexes"
		}
		return a, d.errAt(d.loc.find(table, index, sub, subIndex, key), id, where+": "+p)
	}
	return a, nil
}

// lookupFold returns the value of key in t, matching case-insensitively.
func lookupFold(t map[string]any, key string) any {
	for k, v := range t {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return nil
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

func asString(v any) (string, string) {
	if s, ok := v.(string); ok {
		return s, ""
	}
	return "", "expected a string, got " + typeName(v)
}

func asBool(v any) (bool, string) {
	if b, ok := v.(bool); ok {
		return b, ""
	}
	return false, "expected a boolean, got " + typeName(v)
}

func asInt(v any) (int, string) {
	if n, ok := v.(int64); ok && int64(int(n)) == n {
		return int(n), ""
	}
	return 0, "expected an integer, got " + typeName(v)
}

func asFloat(v any) (float64, string) {
	switch n := v.(type) {
	case float64:
		return n, ""
	case int64:
		return float64(n), ""
	}
	return 0, "expected a number, got " + typeName(v)
}

func asStrings(v any) ([]string, string) {
	list, ok := v.([]any)
	if !ok {
		return nil, "expected an array of strings, got " + typeName(v)
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, "expected an array of strings, found " + typeName(e)
		}
		out = append(out, s)
	}
	return out, ""
}

func asTables(v any) ([]map[string]any, bool) {
	switch t := v.(type) {
	case []map[string]any:
		return t, true
	case []any:
		out := make([]map[string]any, 0, len(t))
		for _, e := range t {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, false
			}
			out = append(out, m)
		}
		return out, true
	}
	return nil, false
}
