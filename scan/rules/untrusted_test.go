package rules

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// within runs load and fails the test if it takes longer than limit (a
// hang, as opening a FIFO or reading /dev/zero would be) or allocates
// more than maxAlloc bytes. It returns load's error.
func within(t *testing.T, limit time.Duration, maxAlloc uint64, load func() error) error {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- load() }()
	select {
	case err := <-done:
		runtime.ReadMemStats(&after)
		if d := time.Since(start); d > limit {
			t.Errorf("took %v, want at most %v", d, limit)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > maxAlloc {
			t.Errorf("allocated %d KiB, want at most %d KiB", n>>10, maxAlloc>>10)
		}
		return err
	case <-time.After(limit):
		t.Fatalf("still loading after %v", limit)
		return nil
	}
}

// writeFile writes text to dir/name, creating directories.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// configError returns err as a *ConfigError, failing the test if it is
// not one.
func configError(t *testing.T, err error) *ConfigError {
	t.Helper()
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want a *ConfigError", err, err)
	}
	return ce
}

func TestConfigLargerThanTheLimitIsRefusedUnread(t *testing.T) {
	root := t.TempDir()
	line := "# " + strings.Repeat("padding ", 7) + "\n"
	exact := (strings.Repeat(line, maxConfigSize/len(line)) + strings.Repeat("#", len(line)))[:maxConfigSize]
	big := exact + "#"
	path := writeFile(t, root, ".gitleaks.toml", big)

	bigBytes := []byte(big)
	for name, load := range map[string]func() error{
		"LoadFile": func() error { _, err := LoadFile(path); return err },
		"Find":     func() error { _, _, err := Find(root, ""); return err },
		"Parse":    func() error { _, err := Parse(bigBytes, path); return err },
	} {
		t.Run(name, func(t *testing.T) {
			// Parse gets the bytes; the others must not read them at all.
			err := within(t, 10*time.Second, 256<<10, load)
			ce := configError(t, err)
			if !errors.Is(err, errTooLarge) || ce.File != path || !strings.Contains(err.Error(), "1024 KiB") {
				t.Errorf("got %v", err)
			}
		})
	}

	// The limit itself is allowed.
	writeFile(t, root, ".gitleaks.toml", exact)
	if _, _, err := Find(root, ""); err != nil {
		t.Errorf("a config of exactly %d bytes: %v", maxConfigSize, err)
	}
}

// deepShapes are TOML texts nested n levels deep in each way the decoder
// pays for quadratically.
var deepShapes = map[string]func(n int) string{
	"inline tables":           func(n int) string { return "a=" + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) + "\n" },
	"arrays":                  func(n int) string { return "a=" + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + "\n" },
	"arrays of inline tables": func(n int) string { return "a=[" + strings.Repeat("{a=[", n) + "1" + strings.Repeat("]}", n) + "]\n" },
	"dotted key":              func(n int) string { return strings.Repeat("a.", n) + "a=1\n" },
	"table header":            func(n int) string { return "[" + strings.Repeat("a.", n) + "a]\nx=1\n" },
	"dotted key in a table":   func(n int) string { return "a={" + strings.Repeat("a.", n) + "a=1}\n" },
	"header after a comment":  func(n int) string { return "# [[[[\ntitle = ']]]'\n[[" + strings.Repeat("rules.", n) + "x]]\n" },
}

func TestDeepNestingIsRefusedBeforeTheDecoderRuns(t *testing.T) {
	for name, shape := range deepShapes {
		t.Run(name, func(t *testing.T) {
			// 4,000 levels: 16 KB to 24 KB of text that took the decoder
			// from 0.9 s and 200 MiB (headers) to 25 s and 2 GiB.
			src := shape(4000)
			err := within(t, 5*time.Second, 512<<10, func() error { _, err := Parse([]byte(src), "deep.toml"); return err })
			ce := configError(t, err)
			if !errors.Is(err, errTooDeep) || ce.File != "deep.toml" || ce.Line < 1 || ce.Line > strings.Count(src, "\n") {
				t.Errorf("got %v (line %d)", err, ce.Line)
			}
		})
	}
	// At the limit, nesting is the decoder's and the schema's business.
	for name, shape := range deepShapes {
		src := shape(maxNesting/2 - 2)
		if _, err := Parse([]byte(src), "ok.toml"); errors.Is(err, errTooDeep) {
			t.Errorf("%s, %d levels: %v", name, maxNesting/2-2, err)
		}
	}
}

// decodedDepth is the nesting of a decoded TOML value: a value in the
// top-level table has depth 1.
func decodedDepth(v any) int {
	deepest := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			deepest = max(deepest, 1+decodedDepth(e))
		}
	case []map[string]any:
		for _, e := range v {
			deepest = max(deepest, 1+decodedDepth(e))
		}
	case []any:
		for _, e := range v {
			deepest = max(deepest, 1+decodedDepth(e))
		}
	}
	return deepest
}

func TestNestingDepthCountsWhatTheDecoderBuilds(t *testing.T) {
	cases := []struct {
		src   string
		depth int
	}{
		{"", 0},
		{"a = 1", 1},
		{"a = []", 2}, // an empty array counts as one holding a value
		{"a = [1, [2, [3]]]", 4},
		{"[a.b]\nc = [1, {d = 2}]", 7}, // a header segment counts two (see header)
		{"[[a]]\nb = 1\n[[a]]\nb = {c = 1}", 4},
		{"a.b.c = 1\nd = 2", 3},
		{`"a.b" = 1`, 1},
		{`a."b.c".d = 1`, 3},
		{"['a.b'.c]\nd = 1", 5},
		{"a = \"[[[{{{\"", 1},
		{"a = '[[[{{{'", 1},
		{"# [[[[[[\na = 1", 1},
		{"a = \"\"\"\n[[[\n{{{ \\\"\"\" \n\"\"\"\nb = 1", 1},
		{"a = '''\n[[[\n'''\nb = 1", 1},
		{"a = \"\"\"x\"\"\"\"\"\nb = [[1]]", 3}, // a string closed by five quotes
		{"a = [\n  1, # ]]]\n  [2],\n]", 3},
		{"a = {b = 1, c.d = {e = 1}}", 4},
		{"a = {\n b = [1],\n}", 3}, // TOML 1.1: newlines in an inline table
		{"a = 1.5e3\nb = 1979-05-27T07:32:00Z", 1},
	}
	for _, c := range cases {
		got, _ := nestingDepth([]byte(c.src), maxNesting)
		if got != c.depth {
			t.Errorf("nestingDepth(%q) = %d, want %d", c.src, got, c.depth)
		}
		var raw map[string]any
		if _, err := toml.Decode(c.src, &raw); err != nil {
			t.Errorf("%q: the case is not TOML: %v", c.src, err)
		} else if d := decodedDepth(raw); d > got {
			t.Errorf("%q: decoded depth %d, more than the %d counted", c.src, d, got)
		}
	}
}

// treeWith builds a scanned tree holding a .gitleaks.toml and an outside
// directory next to it, each with the given files.
func treeWith(t *testing.T, inside, outside map[string]string) (root, out string) {
	t.Helper()
	base := t.TempDir()
	root, out = filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for name, text := range inside {
		writeFile(t, root, name, text)
	}
	for name, text := range outside {
		writeFile(t, out, name, text)
	}
	return root, out
}

const secretRule = "[[rules]]\nid = 'outside'\nregex = 'sec[0-9]+'\n"

func TestFoundConfigMayOnlyExtendFilesInsideTheTree(t *testing.T) {
	for _, c := range []struct{ name, path string }{
		{"relative", "../outside/base.toml"},
		{"relative from a subdirectory", "sub/../../outside/base.toml"},
		{"absolute", "OUT/base.toml"},
		{"absolute through the tree", "ROOT/../outside/base.toml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, out := treeWith(t, nil, map[string]string{"base.toml": secretRule})
			p := strings.NewReplacer("OUT", out, "ROOT", root).Replace(c.path)
			cfgPath := writeFile(t, root, ".gitleaks.toml", fmt.Sprintf("title = 't'\n[extend]\npath = %q\n", p))
			_, _, err := Find(root, "")
			ce := configError(t, err)
			if !errors.Is(err, errEscapesTree) || ce.File != cfgPath || ce.Line != 3 || !strings.Contains(err.Error(), "outside the scanned tree") {
				t.Errorf("got %v", err)
			}
			// Named explicitly, the same config is trusted.
			cfg, used, err := Find(root, cfgPath)
			if err != nil || used != cfgPath || cfg.Origin != Explicit || len(cfg.Rules) != 1 || cfg.Rules[0].ID != "outside" {
				t.Errorf("explicit: %v", err)
			}
		})
	}
}

func TestFoundConfigExtendsRelativeToTheFileThatNamesIt(t *testing.T) {
	root, _ := treeWith(t, map[string]string{
		".gitleaks.toml":      "[extend]\npath = 'ci/mid.toml'\n[[rules]]\nid = 'top'\nregex = 't[0-9]'\n",
		"ci/mid.toml":         "[extend]\npath = '../shared/base.toml'\n[[rules]]\nid = 'mid'\nregex = 'm[0-9]'\n",
		"shared/base.toml":    "[[rules]]\nid = 'base'\nregex = 'b[0-9]'\n",
		"absolute/entry.toml": "",
	}, nil)
	cfg, used, err := Find(root, "")
	if err != nil {
		t.Fatal(err)
	}
	if used != filepath.Join(root, ".gitleaks.toml") || cfg.Origin != FoundInTree || cfg.Source != used {
		t.Errorf("used %q, origin %v, source %q", used, cfg.Origin, cfg.Source)
	}
	var ids []string
	for _, r := range cfg.Rules {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"base", "mid", "top"}) {
		t.Errorf("rules %v", ids)
	}

	// An absolute path that names a file inside the tree is fine too; an
	// error in that file is reported under its name in the tree.
	writeFile(t, root, "shared/base.toml", "[[rules]]\nid = 'base'\nregex = '('\n")
	writeFile(t, root, ".gitleaks.toml", fmt.Sprintf("[extend]\npath = %q\n", filepath.Join(root, "shared", "base.toml")))
	_, _, err = Find(root, "")
	if ce := configError(t, err); ce.File != filepath.Join(root, "shared", "base.toml") || ce.Line != 3 || ce.RuleID != "base" {
		t.Errorf("got %v", err)
	}

	// Cycles end at the chain's depth limit.
	writeFile(t, root, ".gitleaks.toml", "[extend]\npath = '.gitleaks.toml'\n")
	if _, _, err = Find(root, ""); err == nil || !strings.Contains(err.Error(), "chain longer than 2") {
		t.Errorf("cycle: %v", err)
	}
}

func TestFindReportsAConfigThatIsNotAFileInsteadOfIgnoringIt(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".gitleaks.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, used, err := Find(root, "")
	if !errors.Is(err, errNotRegular) || !strings.Contains(err.Error(), "a directory") || used != filepath.Join(root, ".gitleaks.toml") {
		t.Errorf("got %v, used %q", err, used)
	}
	_, err = LoadFile(root)
	if !errors.Is(err, errNotRegular) || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("LoadFile(dir): %v", err)
	}
}

func TestOversizedRegexesAreRefusedNamingFileLineAndRule(t *testing.T) {
	long := strings.Repeat("x", 1_000_000)
	// Each within the limit, not both; different first letters keep the
	// parser from factoring the alternation into one \pL{10}.
	joined := "'''x\\pL{10}''', '''y\\pL{10}'''"
	cases := []struct {
		name, toml string
		line       int
		rule       string
		problem    string
	}{
		{"a 1 MB regex", "[[rules]]\nid = 'big'\nregex = '" + long + "'\n", 3, "big", "regex too long: 1000000 bytes"},
		{"a 1 MB path regex", "[[rules]]\nid = 'big'\npath = '" + long + "'\n", 3, "big", "path regex too long"},
		{"Unicode classes repeated", "[[rules]]\nid = 'letters'\nregex = '''\\pL{1000}'''\n", 3, "letters", "regex too large: it compiles to about"},
		{"nested repeats", "[[rules]]\nid = 'nest'\nregex = '''(?:(?:\\pL{1,30}-){30}x)'''\n", 3, "nest", "regex too large"},
		{"ASCII repeats", "[[rules]]\nid = 'ascii'\nregex = '''" + strings.Repeat("[a-z]{1000}", 30) + "'''\n", 3, "ascii", "regex too large"},
		{"an allowlist regex", "[[rules]]\nid = 'a'\nregex = 'k[0-9]'\n[[rules.allowlists]]\nregexes = ['''\\pL{1000}''']\n", 5, "a", "regex too large"},
		{"allowlist regexes together", "[[allowlists]]\nregexes = [" + joined + "]\n", 2, "", "regexes too large together"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "cfg.toml", c.toml)
			_, err := LoadFile(path)
			ce := configError(t, err)
			if ce.File != path || ce.Line != c.line || ce.RuleID != c.rule || !strings.Contains(ce.Problem, c.problem) {
				t.Errorf("got %v (line %d)", err, ce.Line)
			}
		})
	}

	// A Config built in Go is checked by Compile, before any engine
	// compiles the regex.
	for _, expr := range []string{long, `\pL{1000}`} {
		_, err := Compile(&Config{Rules: []Rule{{ID: "go", Regex: expr}}})
		if ce := configError(t, err); ce.RuleID != "go" || !strings.Contains(ce.Problem, "regex too") {
			t.Errorf("Compile: %v", err)
		}
	}
}

func TestRegexSizeEstimatesTheCompiledProgram(t *testing.T) {
	// Exact counts of UTF-8 byte-range sequences.
	for _, c := range []struct {
		lo, hi rune
		want   int
	}{
		{0, 0x7f, 1},
		{'a', 'z', 1},
		{0x80, 0x7ff, 2},        // [C2-DF][80-BF]
		{0x800, 0xffff, 6},      // E0 [A0-BF][80-BF], [E1-EF][80-BF][80-BF]
		{0x10000, 0x10ffff, 12}, // F0 [90-BF].., [F1-F3].., F4 [80-8F]..
		{0, 0x10ffff, 21},
		{0x3b1, 0x3c9, 4}, // α..ω: CE [B1-BF], CF [80-89]
	} {
		if got := utf8RangeSize(c.lo, c.hi); got != c.want {
			t.Errorf("utf8RangeSize(%#x, %#x) = %d, want %d", c.lo, c.hi, got, c.want)
		}
	}
	size := func(expr string) int {
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		return regexSize(re)
	}
	// RE2 compiles \pL{1000} to 1,196,004 instructions (its "DFA out of
	// memory" message says so): about 1,196 per \pL.
	if n := size(`\pL`); n < 1196 {
		t.Errorf(`regexSize(\pL) = %d, under RE2's 1196`, n)
	}
	// Never under the standard library's program, on every regex of the
	// built-in rules and gitleaks'.
	largest := 0
	check := func(expr string) {
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := syntax.Compile(re.Simplify())
		if err != nil {
			t.Fatal(err)
		}
		n := regexSize(re)
		if n < len(prog.Inst)-3 { // the program's fail, match and start instructions
			t.Errorf("regexSize(%q) = %d, under the standard library's %d instructions", expr, n, len(prog.Inst))
		}
		largest = max(largest, n)
	}
	for _, cfg := range []*Config{Default(), gitleaksConfig(t)} {
		for _, r := range cfg.Rules {
			for _, e := range []string{r.Regex, r.Path} {
				if e != "" {
					check(e)
				}
			}
			for _, a := range r.Allowlists {
				for _, list := range [][]string{a.Regexes, a.Paths} {
					if len(list) > 0 {
						check(joinAlternatives(list))
					}
				}
			}
		}
	}
	if largest > maxRegexSize/2 {
		t.Errorf("a built-in or gitleaks regex estimates at %d, more than half the limit", largest)
	}
}

// gitleaksConfig parses gitleaks' default config from the module cache.
func gitleaksConfig(t testing.TB) *Config {
	data := gitleaksTOML()
	cfg, err := Parse(data, "gitleaks.toml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestRegexesThatMatchTheEmptyStringAreRefused(t *testing.T) {
	for _, expr := range []string{`a*`, `(?:)`, `\b`, `^`, `(?m)^$`, `x?`, `(a|)`, `[a-z]{0,5}`, `(?:a+|b*)`, `(?i)(?:key)?\s*`} {
		src := fmt.Sprintf("[[rules]]\nid = 'e'\ndescription = 'd'\nregex = '''%s'''\n", expr)
		_, err := Parse([]byte(src), "e.toml")
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Line != 4 || ce.RuleID != "e" || !strings.Contains(ce.Problem, "can match the empty string") {
			t.Errorf("%s: got %v", expr, err)
		}
		if _, err := Compile(&Config{Rules: []Rule{{ID: "e", Regex: expr}}}); err == nil {
			t.Errorf("%s: Compile accepted it", expr)
		}
	}
	for _, expr := range []string{`a+`, `\bkey\b`, `(?:a|b)+`, `x{1,5}`, `a*b`, `^\s*k`, `(?:)x`} {
		if _, err := Parse([]byte(fmt.Sprintf("[[rules]]\nid = 'e'\nregex = '''%s'''\n", expr)), "e.toml"); err != nil {
			t.Errorf("%s: %v", expr, err)
		}
	}
}

func TestRuleIDsThatNameNoRuleAreWarningsNotErrors(t *testing.T) {
	// A config written for gitleaks' default rules, extending this
	// package's: it names rules the built-in set does not have (acme-*),
	// besides three it has (BUILTIN0..2).
	builtin := Default().Rules
	withIDs := strings.NewReplacer("BUILTIN0", builtin[0].ID, "BUILTIN1", builtin[1].ID, "BUILTIN2", builtin[2].ID).Replace
	src := withIDs(`[extend]
useDefault = true
disabledRules = ["BUILTIN0", "acme-legacy-key", "BUILTIN0"]

[[rules]]
id = "BUILTIN1"
[[rules.allowlists]]
stopwords = ["example"]

[[rules]]
id = "acme-client-id"
[[rules.allowlists]]
regexes = ['''^0{32}$''']

[[allowlists]]
targetRules = ["BUILTIN2", "acme-api-token"]
regexes = ['''^ghp_0+$''']
`)
	cfg, err := Parse([]byte(src), "gl.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`rules: gl.toml:3: extend.disabledRules: not in the built-in rules, ignored: "acme-legacy-key"`,
		`rules: gl.toml:11: rule amends a rule that is not in the built-in rules; with no regex or path of its own it is dropped: "acme-client-id"`,
		`rules: gl.toml:16: allowlists: targetRules: no such rule in this config, ignored: "acme-api-token"`,
	}
	var got []string
	for _, w := range cfg.Warnings {
		got = append(got, w.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range cfg.Rules {
		switch r.ID {
		case builtin[0].ID, "acme-client-id":
			t.Errorf("rule %s is still there", r.ID)
		case builtin[2].ID:
			if !slices.ContainsFunc(r.Allowlists, func(a Allowlist) bool { return slices.Contains(a.Regexes, "^ghp_0+$") }) {
				t.Errorf("the targeted allowlist does not apply to %s", r.ID)
			}
		}
	}
	if _, err := Compile(cfg); err != nil {
		t.Fatal(err)
	}

	// A composite rule whose required rule is missing could never report:
	// dropped, with a warning, and so is one that required it in turn.
	src = withIDs(`[extend]
useDefault = true

[[rules]]
id = "composite"
regex = '''user-[0-9]{4}'''
[[rules.required]]
id = "acme-only"
[[rules.required]]
id = "BUILTIN2"

[[rules]]
id = "outer"
regex = '''outer-[0-9]{4}'''
[[rules.required]]
id = "composite"
`)
	cfg, err = Parse([]byte(src), "req.toml")
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, w := range cfg.Warnings {
		got = append(got, w.String())
	}
	want = []string{
		`rules: req.toml:5: rule "composite" requires rules this config does not have; it could never report and is dropped: "acme-only"`,
		`rules: req.toml:13: rule "outer" requires rules this config does not have; it could never report and is dropped: "composite"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if slices.ContainsFunc(cfg.Rules, func(r Rule) bool { return r.ID == "composite" || r.ID == "outer" }) {
		t.Error("the composite rules are still there")
	}

	// Warnings of an extended file come first, under its name.
	root, _ := treeWith(t, map[string]string{
		"base.toml":      "[extend]\nuseDefault = true\ndisabledRules = ['nope']\n",
		".gitleaks.toml": "[extend]\npath = 'base.toml'\ndisabledRules = ['base-lacks-this']\n",
	}, nil)
	cfg, _, err = Find(root, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 2 || cfg.Warnings[0].File != filepath.Join(root, "base.toml") || cfg.Warnings[0].RuleIDs[0] != "nope" ||
		cfg.Warnings[1].Line != 3 || !strings.Contains(cfg.Warnings[1].Problem, "not in "+filepath.Join(root, "base.toml")) {
		t.Errorf("warnings %+v", cfg.Warnings)
	}
	if len(Default().Warnings) != 0 {
		t.Errorf("built-in rules warn: %v", Default().Warnings)
	}
}

// hostileSeeds are configs FuzzConfig starts from besides its corpus
// directory: every hostile shape, small.
var hostileSeeds = []string{
	"[extend]\npath = '/dev/zero'\n",
	"[extend]\npath = '../../../../etc/passwd'\n",
	"[extend]\npath = '.gitleaks.toml'\n",
	"[extend]\nuseDefault = true\ndisabledRules = ['nope']\n[[allowlists]]\ntargetRules = ['gone']\nregexes = ['x']\n",
	"[[rules]]\nid = 'e'\nregex = '''a*'''\n",
	"[[rules]]\nid = 'big'\nregex = '''\\pL{1000}'''\n",
	"a=" + strings.Repeat("{a=", 40) + "1" + strings.Repeat("}", 40) + "\n",
	strings.Repeat("a.", 40) + "a=1\n",
	"a = \"\"\"\n[[[\n\"\"\"\n[[rules]]\nid = 'x'\nregex = 'y'\n",
}

// FuzzConfig loads arbitrary bytes as the scanned tree's .gitleaks.toml,
// the way a scan loads a hostile repository's config: it must fail with a
// ConfigError naming the file, or load a config that compiles; and the
// nesting pre-scan must never count less than the decoder builds.
func FuzzConfig(f *testing.F) {
	for _, s := range hostileSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(fullTOML))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		name := filepath.Join(root, ".gitleaks.toml")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, used, err := Find(root, "")
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Problem == "" || !strings.HasPrefix(ce.File, root) {
				t.Fatalf("error %v is not a ConfigError naming a file in the tree", err)
			}
		} else {
			if used != name || cfg.Origin != FoundInTree {
				t.Fatalf("used %q, origin %v", used, cfg.Origin)
			}
			if _, err := Compile(cfg); err != nil {
				t.Fatalf("Find accepted a config that Compile rejects: %v", err)
			}
		}
		depth, _ := nestingDepth(data, maxNesting)
		if depth > maxNesting || len(data) > maxConfigSize {
			return // refused; decoding it here could take minutes
		}
		var raw map[string]any
		if _, err := toml.Decode(string(data), &raw); err == nil {
			if d := decodedDepth(raw); d > depth {
				t.Fatalf("nestingDepth counted %d, the decoder built %d", depth, d)
			}
		}
	})
}

// largestConfig is a config with as many rules and allowlists as the
// limits allow, each rule with an allowlist.
func largestConfig() []byte {
	var b strings.Builder
	for i := range maxRules {
		fmt.Fprintf(&b, "[[rules]]\nid='r%d'\nregex='''k%d[a-z0-9]{16}'''\nkeywords=['k%d']\n", i, i, i)
		fmt.Fprintf(&b, "[[rules.allowlists]]\nregexes=['''^k%d0+$''']\n", i)
	}
	return []byte(b.String())
}

func TestConfigsWithTooManyRulesOrAllowlistsAreRefused(t *testing.T) {
	data := largestConfig()
	if len(data) > maxConfigSize {
		t.Fatalf("the largest config is %d bytes, over the size limit", len(data))
	}
	if _, err := Parse(data, "max.toml"); err != nil {
		t.Fatalf("a config at the limits: %v", err)
	}
	more := func(s string) []byte { return append(slices.Clip(data), s...) }
	if _, err := Parse(more("[[rules]]\nid='one-more'\nregex='x'\n"), "max.toml"); err == nil || !strings.Contains(err.Error(), "4097 rules, more than the 4096") {
		t.Errorf("one rule too many: %v", err)
	}
	if _, err := Parse(more("[[allowlists]]\npaths=['x']\n"), "max.toml"); err == nil || !strings.Contains(err.Error(), "4097 allowlists") {
		t.Errorf("one allowlist too many: %v", err)
	}
	// Counted once extended: the built-in rules count too.
	if _, err := Parse(append([]byte("[extend]\nuseDefault = true\n"), data...), "max.toml"); err == nil || !strings.Contains(err.Error(), "rules, more than") {
		t.Errorf("extended past the limit: %v", err)
	}
}

// BenchmarkHostileConfig measures what the largest config within the
// limits costs to Parse and Compile, and what refusing a deeply nested
// one costs.
func BenchmarkHostileConfig(b *testing.B) {
	b.Run("largest/parse+compile", func(b *testing.B) {
		data := largestConfig()
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			cfg, err := Parse(data, "big.toml")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Compile(cfg); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, shape := range []string{"inline tables", "dotted key"} {
		b.Run("deep "+strings.ReplaceAll(shape, " ", "-")+"/refused", func(b *testing.B) {
			data := []byte(deepShapes[shape](4000))
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(data, "deep.toml"); !errors.Is(err, errTooDeep) {
					b.Fatal(err)
				}
			}
		})
	}
}
