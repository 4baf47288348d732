//go:build spindletools

// Command gitleaksexamples extracts the examples of gitleaks' default
// rules from the gitleaks Go module this module requires, and writes them
// as JSON for package rules to embed (gitleaks_examples.json.gz).
//
// Each rule of gitleaks' default config is built by a function in the
// module's cmd/generate/config/rules package, which ends by handing the
// rule, its true positives and its false positives to utils.Validate (or,
// with file paths, utils.ValidateWithPaths); the true positives are
// mostly generated at run time, with random secrets drawn from a regex by
// secrets.NewSecret. So the examples exist only when that code runs. This
// command runs it: it parses the package's files with go/parser, rewrites
// each call of utils.Validate and utils.ValidateWithPaths into a call that
// records its arguments, and each call of secrets.NewSecret into the same
// generator (github.com/lucasjones/reggen, limit 1) seeded from the regex
// and the number of earlier calls with it, so that two runs give the same
// examples; it then builds the rewritten package in a temporary module
// that requires the same gitleaks version, calls the rule functions that
// cmd/generate/config/main.go lists (read from its syntax tree, in its
// order), and prints what was recorded. Nothing is written by hand.
//
// Usage, from the repository root (go generate ./scan/rules runs it):
//
//	go run -tags spindletools ./scan/rules/internal/gitleaksexamples -o scan/rules/gitleaks_examples.json.gz
//
// An output name ending in .gz is gzipped (with no name or time in the
// header, so the same examples give the same bytes).
//
// The module's source and its dependencies come from the module cache
// (go mod download fetches them); the temporary module's go.sum is the
// union of this module's and gitleaks' own, so no checksum is trusted
// that was not already.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

const gitleaksModule = "github.com/zricethezav/gitleaks/v8"

func main() {
	out := flag.String("o", "", "write the JSON here (default: standard output)")
	keep := flag.Bool("keep", false, "keep the temporary module and print its path")
	flag.Parse()
	data, err := extract(*keep)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gitleaksexamples:", err)
		os.Exit(1)
	}
	if *out == "" {
		os.Stdout.Write(data)
		return
	}
	if strings.HasSuffix(*out, ".gz") {
		data = compress(data)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gitleaksexamples:", err)
		os.Exit(1)
	}
}

// compress gzips data with a header that names nothing and has no time,
// so the same examples give the same file.
func compress(data []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

// moduleInfo is what go list -m -json says about the gitleaks module.
type moduleInfo struct {
	Path, Version, Dir, GoMod string
}

// extract runs the whole extraction and returns the JSON document.
func extract(keep bool) ([]byte, error) {
	mod, err := listModule()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "gitleaksexamples-")
	if err != nil {
		return nil, err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "gitleaksexamples: temporary module in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	if err := writeModule(tmp, mod); err != nil {
		return nil, err
	}
	if err := rewriteRules(filepath.Join(mod.Dir, "cmd/generate/config/rules"), filepath.Join(tmp, "rules")); err != nil {
		return nil, err
	}
	funcs, err := listedRuleFuncs(filepath.Join(mod.Dir, "cmd/generate/config/main.go"))
	if err != nil {
		return nil, err
	}
	if err := writeMain(tmp, funcs); err != nil {
		return nil, err
	}
	raw, err := run(tmp, "go", "run", ".")
	if err != nil {
		return nil, err
	}
	return document(mod, raw)
}

// listModule asks the go command where the required gitleaks module is,
// downloading it if need be.
func listModule() (moduleInfo, error) {
	var m moduleInfo
	raw, err := run("", "go", "list", "-m", "-json", gitleaksModule)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("go list -m: %w", err)
	}
	if m.Dir == "" {
		if _, err := run("", "go", "mod", "download", gitleaksModule); err != nil {
			return m, err
		}
		if raw, err = run("", "go", "list", "-m", "-json", gitleaksModule); err != nil {
			return m, err
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return m, fmt.Errorf("go list -m: %w", err)
		}
	}
	if m.Dir == "" || m.Version == "" {
		return m, fmt.Errorf("go list -m %s: no source directory or version", gitleaksModule)
	}
	return m, nil
}

// run runs a command in dir ("" for the working directory: this module,
// which it leaves as it is) and returns its standard output; a failure
// carries its standard error. In the temporary module, the go command
// may complete go.mod and go.sum.
func run(dir string, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if dir != "" {
		cmd.Env = append(cmd.Env, "GOFLAGS=-mod=mod")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	return out, nil
}

// writeModule writes the temporary module's go.mod and go.sum: it
// requires the gitleaks version this module does, and trusts the
// checksums this module and gitleaks already record.
func writeModule(dir string, mod moduleInfo) error {
	goMod := fmt.Sprintf("module gitleaksexamples.invalid\n\ngo 1.24\n\nrequire %s %s\n", mod.Path, mod.Version)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(goMod), 0o644); err != nil {
		return err
	}
	own, err := run("", "go", "env", "GOMOD")
	if err != nil {
		return err
	}
	var sums []string
	for _, f := range []string{strings.TrimSuffix(strings.TrimSpace(string(own)), ".mod") + ".sum", filepath.Join(mod.Dir, "go.sum")} {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		sums = append(sums, strings.Split(string(data), "\n")...)
	}
	slices.Sort(sums)
	sums = slices.Compact(sums)
	return os.WriteFile(filepath.Join(dir, "go.sum"), []byte(strings.TrimLeft(strings.Join(sums, "\n"), "\n")+"\n"), 0o644)
}

// calls maps the calls rewritten in the rules package to their stand-ins
// (written by writeCapture).
var calls = map[string]string{
	"utils.Validate":          "captureValidate",
	"utils.ValidateWithPaths": "captureValidateWithPaths",
	"secrets.NewSecret":       "seededSecret",
}

// rewriteRules writes the package in src, with the calls rewritten, and
// the stand-ins, to dst.
func rewriteRules(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	names, err := filepath.Glob(filepath.Join(src, "*.go"))
	if err != nil {
		return err
	}
	rewritten := map[string]int{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if f.Name.Name != "rules" {
			return fmt.Errorf("%s: package %s, expected rules", name, f.Name.Name)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok || pkg.Obj != nil { // a local variable, not an import
				return true
			}
			if to, ok := calls[pkg.Name+"."+sel.Sel.Name]; ok {
				call.Fun = ast.NewIdent(to)
				rewritten[pkg.Name+"."+sel.Sel.Name]++
			}
			return true
		})
		dropUnusedImport(f, "secrets")
		dropUnusedImport(f, "utils")
		var buf bytes.Buffer
		if err := format.Node(&buf, fset, f); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(name)), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if rewritten["utils.Validate"] == 0 || rewritten["secrets.NewSecret"] == 0 {
		return fmt.Errorf("%s: found no utils.Validate or secrets.NewSecret calls to rewrite (rewritten: %v)", src, rewritten)
	}
	return os.WriteFile(filepath.Join(dst, "zz_capture.go"), []byte(captureSource), 0o644)
}

// dropUnusedImport removes the import named name if no selector uses it
// any more.
func dropUnusedImport(f *ast.File, name string) {
	used := false
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && id.Obj == nil {
				used = true
			}
		}
		return !used
	})
	if used {
		return
	}
	for _, d := range f.Decls {
		gen, ok := d.(*ast.GenDecl)
		if !ok || gen.Tok != token.IMPORT {
			continue
		}
		gen.Specs = slices.DeleteFunc(gen.Specs, func(s ast.Spec) bool {
			imp := s.(*ast.ImportSpec)
			path, _ := strconv.Unquote(imp.Path.Value)
			return imp.Name == nil && filepath.Base(path) == name || imp.Name != nil && imp.Name.Name == name
		})
	}
	f.Imports = slices.DeleteFunc(f.Imports, func(imp *ast.ImportSpec) bool {
		path, _ := strconv.Unquote(imp.Path.Value)
		return imp.Name == nil && filepath.Base(path) == name || imp.Name != nil && imp.Name.Name == name
	})
}

// captureSource holds the stand-ins for the rewritten calls. Validate's
// stand-in records the examples and returns the rule as Validate does;
// the secret generator is gitleaks' (reggen, limit 1) with a seed that
// depends only on the regex and how often it was asked for before.
const captureSource = `package rules

import (
	"hash/fnv"

	"github.com/lucasjones/reggen"
	"github.com/zricethezav/gitleaks/v8/config"
)

// Captured is every call of Validate and ValidateWithPaths, in order.
var Captured []Capture

// Capture is one call.
type Capture struct {
	RuleID   string
	TPs, FPs []string
	TPPaths  map[string]string
	FPPaths  map[string]string
}

func captureValidate(rule config.Rule, tps, fps []string) *config.Rule {
	Captured = append(Captured, Capture{RuleID: rule.RuleID, TPs: tps, FPs: fps})
	return &rule
}

func captureValidateWithPaths(rule config.Rule, tps, fps map[string]string) *config.Rule {
	Captured = append(Captured, Capture{RuleID: rule.RuleID, TPPaths: tps, FPPaths: fps})
	return &rule
}

var secretCalls = map[string]int64{}

func seededSecret(regex string) string {
	g, err := reggen.NewGenerator(regex)
	if err != nil {
		panic(err)
	}
	h := fnv.New64a()
	h.Write([]byte(regex))
	g.SetSeed(int64(h.Sum64()>>1) + secretCalls[regex])
	secretCalls[regex]++
	return g.Generate(1)
}
`

// listedRuleFuncs returns the rule functions cmd/generate/config/main.go
// puts in the default config, in its order: the calls rules.F() in the
// composite literal assigned to configRules.
func listedRuleFuncs(mainGo string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, mainGo, nil, 0)
	if err != nil {
		return nil, err
	}
	var funcs []string
	ast.Inspect(f, func(n ast.Node) bool {
		assign, ok := n.(*ast.AssignStmt)
		if !ok || len(assign.Lhs) != 1 || len(assign.Rhs) != 1 {
			return true
		}
		if id, ok := assign.Lhs[0].(*ast.Ident); !ok || id.Name != "configRules" {
			return true
		}
		lit, ok := assign.Rhs[0].(*ast.CompositeLit)
		if !ok {
			return true
		}
		for _, e := range lit.Elts {
			call, ok := e.(*ast.CallExpr)
			if !ok || len(call.Args) != 0 {
				continue
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "rules" {
					funcs = append(funcs, sel.Sel.Name)
				}
			}
		}
		return false
	})
	if len(funcs) == 0 {
		return nil, errors.New(mainGo + ": no configRules list of rules.F() calls")
	}
	return funcs, nil
}

// writeMain writes the program that calls the rule functions and prints
// the captured examples.
func writeMain(dir string, funcs []string) error {
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"encoding/json\"\n\t\"os\"\n\n\t\"gitleaksexamples.invalid/rules\"\n)\n\nfunc main() {\n")
	for _, f := range funcs {
		fmt.Fprintf(&b, "\trules.%s()\n", f)
	}
	b.WriteString("\tenc := json.NewEncoder(os.Stdout)\n\tif err := enc.Encode(rules.Captured); err != nil {\n\t\tpanic(err)\n\t}\n}\n")
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644)
}

// capture is one recorded call, as the program prints it.
type capture struct {
	RuleID   string
	TPs, FPs []string
	TPPaths  map[string]string
	FPPaths  map[string]string
}

// Document is the file this command writes: the examples of every rule,
// in the order gitleaks' generator lists the rules.
type Document struct {
	Module  string `json:"module"`
	Version string `json:"version"`
	Rules   []Rule `json:"rules"`
}

// Rule holds one rule's examples, sorted: true positives must be
// reported, false positives must not.
type Rule struct {
	ID  string    `json:"id"`
	TPs []Example `json:"true_positives"`
	FPs []Example `json:"false_positives,omitempty"`
}

// Example is a text and, for rules validated with paths, the file path it
// is scanned at (gitleaks then wants exactly one finding).
type Example struct {
	Path string `json:"path,omitempty"`
	Text string `json:"text"`
}

// document turns the program's output into the file's JSON.
func document(mod moduleInfo, raw []byte) ([]byte, error) {
	var caps []capture
	if err := json.Unmarshal(raw, &caps); err != nil {
		return nil, fmt.Errorf("reading the captured examples: %w", err)
	}
	doc := Document{Module: mod.Path, Version: mod.Version}
	index := map[string]int{}
	for _, c := range caps {
		i, ok := index[c.RuleID]
		if !ok {
			i = len(doc.Rules)
			index[c.RuleID] = i
			doc.Rules = append(doc.Rules, Rule{ID: c.RuleID})
		}
		r := &doc.Rules[i]
		for _, t := range c.TPs {
			r.TPs = append(r.TPs, Example{Text: t})
		}
		for _, t := range c.FPs {
			r.FPs = append(r.FPs, Example{Text: t})
		}
		for p, t := range c.TPPaths {
			r.TPs = append(r.TPs, Example{Path: p, Text: t})
		}
		for p, t := range c.FPPaths {
			r.FPs = append(r.FPs, Example{Path: p, Text: t})
		}
	}
	byPathText := func(a, b Example) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Text, b.Text)
	}
	for i := range doc.Rules {
		slices.SortFunc(doc.Rules[i].TPs, byPathText)
		slices.SortFunc(doc.Rules[i].FPs, byPathText)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
