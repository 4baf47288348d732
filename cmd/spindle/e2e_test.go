package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spindle-go/spindle/scan/report"
)

// The end-to-end tests build the command once and run it as a user would,
// on trees generated in temporary directories, checking exit codes, standard
// error and every report format by parsing it.
//
// The planted secrets are built at run time from pieces, so that no literal
// in this file looks like a secret to a scanner: `spindle scan .` on this
// repository must not flag its own tests.

// binary is the command under test, built by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "spindle-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binary = filepath.Join(dir, "spindle")
	// History scans keep a store in the user's cache directory: the
	// tests' go to a directory of their own, removed with the binary.
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the command:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one run of the command produced.
type result struct {
	code           int
	stdout, stderr string
}

// invoke runs the command in dir with args and returns its exit status and
// output. NO_COLOR is cleared so a developer's environment cannot change the
// text report.
func invoke(t *testing.T, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("spindle %s: %v", strings.Join(args, " "), err)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// testRules is the config most tests scan with: a rule of our own, so the
// tests do not depend on the built-in set and nothing in this repository
// matches it by accident.
const testRules = `title = "e2e"

[[rules]]
id = "e2e-token"
description = "End-to-end test token"
regex = '''\b(e2ex_[a-z0-9]{20})\b'''
secretGroup = 1
keywords = ["e2ex_"]
tags = ["test"]
`

// token returns the i-th planted secret: e2ex_ and 20 lower-case letters
// and digits, different for every i.
func token(i int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte("e2ex" + "_")
	x := uint64(i)*0x9e3779b97f4a7c15 + 12345
	for range 20 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b = append(b, alphabet[x%uint64(len(alphabet))])
	}
	return string(b)
}

// writeTree creates files (slash-separated paths relative to root) with
// their contents.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// planted is a secret the tests put in a tree, and where.
type planted struct {
	file   string
	line   int
	secret string
}

// secretTree writes a tree with the test config and three secrets in three
// files at different depths, plus clean files, and returns the secrets.
func secretTree(t *testing.T) (string, []planted) {
	t.Helper()
	root := t.TempDir()
	want := []planted{
		{"config/app.env", 2, token(1)},
		{"src/deep/nested/main.go", 4, token(2)},
		{"notes.txt", 1, token(3)},
	}
	files := map[string]string{
		".gitleaks.toml": testRules,
		"README.md":      "# nothing to see\n",
		"src/clean.go":   "package clean\n\nconst x = 1\n",
	}
	for _, p := range want {
		files[p.file] = strings.Repeat("filler line\n", p.line-1) + "key = " + p.secret + "\n"
	}
	writeTree(t, root, files)
	return root, want
}

// scannedSummary starts the summary of a scan of secretTree: six files,
// of which the config is not scanned.
const scannedSummary = "scanned 5 files"

// key identifies a finding for comparisons across formats.
func key(file string, line int, rule, secret string) string {
	return fmt.Sprintf("%s:%d:%s:%s", file, line, rule, secret)
}

func wantKeys(ps []planted) []string {
	var out []string
	for _, p := range ps {
		out = append(out, key(p.file, p.line, "e2e-token", p.secret))
	}
	slices.Sort(out)
	return out
}

func findingKeys(fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, key(f.File, f.Line, f.RuleID, f.Secret))
	}
	slices.Sort(out)
	return out
}

// parseJSON reads a json report: gitleaks' schema (what -f json writes), or
// spindle's snake_case one, without a shard's header.
func parseJSON(t *testing.T, s string) []report.Finding {
	t.Helper()
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		t.Fatalf("json report does not parse: %v\n%s", err, s)
	}
	var fs []report.Finding
	for i, r := range raw {
		if _, ok := r["shard"]; ok {
			continue
		}
		if _, ok := r["trailer"]; ok {
			if i != len(raw)-1 {
				t.Fatalf("a trailer that is not the report's last element:\n%s", s)
			}
			continue
		}
		b, _ := json.Marshal(r)
		var f report.Finding
		if _, ok := r["RuleID"]; ok {
			var g struct {
				RuleID, Description, Match, Secret, File, Commit, Author, Email, Date, Message, Fingerprint string
				StartLine, EndLine, StartColumn, EndColumn                                                  int
				Entropy                                                                                     float64
				Tags                                                                                        []string
			}
			if err := json.Unmarshal(b, &g); err != nil {
				t.Fatalf("gitleaks json finding does not parse: %v\n%s", err, b)
			}
			f = report.Finding{RuleID: g.RuleID, Description: g.Description, File: g.File, Line: g.StartLine, Column: g.StartColumn,
				EndLine: g.EndLine, EndColumn: g.EndColumn, Secret: g.Secret, Match: g.Match, Entropy: g.Entropy,
				Fingerprint: g.Fingerprint, Tags: g.Tags, Commit: g.Commit, Author: g.Author, Email: g.Email, Date: g.Date, Message: g.Message}
		} else if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("json finding does not parse: %v\n%s", err, b)
		}
		fs = append(fs, f)
	}
	return fs
}

// parseJSONL reads a jsonl report.
func parseJSONL(t *testing.T, s string) []report.Finding {
	t.Helper()
	var fs []report.Finding
	for line := range strings.Lines(s) {
		var f report.Finding
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("jsonl line does not parse: %v\n%s", err, line)
		}
		fs = append(fs, f)
	}
	return fs
}

// sarifLog is the part of SARIF 2.1.0 the tests read.
type sarifLog struct {
	Version string `json:"version"`
	Schema  string `json:"$schema"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID string `json:"id"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
						Snippet   struct {
							Text string `json:"text"`
						} `json:"snippet"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

func TestEveryFormatReportsTheSameFindings(t *testing.T) {
	t.Parallel()
	root, want := secretTree(t)
	wantK := wantKeys(want)

	t.Run("json", func(t *testing.T) {
		r := invoke(t, root, "scan", "-f", "json", ".")
		if r.code != 1 {
			t.Fatalf("exit %d, want 1; stderr:\n%s", r.code, r.stderr)
		}
		if got := findingKeys(parseJSON(t, r.stdout)); !slices.Equal(got, wantK) {
			t.Errorf("findings\n%q\nwant\n%q", got, wantK)
		}
	})
	t.Run("jsonl", func(t *testing.T) {
		r := invoke(t, root, "scan", "--format=jsonl", ".")
		if got := findingKeys(parseJSONL(t, r.stdout)); !slices.Equal(got, wantK) {
			t.Errorf("findings\n%q\nwant\n%q", got, wantK)
		}
	})
	t.Run("csv", func(t *testing.T) {
		r := invoke(t, root, "scan", "-f", "csv", ".")
		rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
		if err != nil {
			t.Fatalf("csv does not parse: %v\n%s", err, r.stdout)
		}
		if len(rows) != len(want)+1 {
			t.Fatalf("%d csv rows, want a header and %d findings:\n%s", len(rows), len(want), r.stdout)
		}
		col := map[string]int{}
		for i, name := range rows[0] {
			col[strings.ToLower(name)] = i
		}
		var got []string
		for _, row := range rows[1:] {
			var line int
			fmt.Sscan(row[col["line"]], &line)
			got = append(got, key(row[col["file"]], line, row[col["rule_id"]], row[col["secret"]]))
		}
		slices.Sort(got)
		if !slices.Equal(got, wantK) {
			t.Errorf("findings\n%q\nwant\n%q\nheader %q", got, wantK, rows[0])
		}
	})
	t.Run("sarif", func(t *testing.T) {
		r := invoke(t, root, "scan", "-f", "sarif", ".")
		var log sarifLog
		if err := json.Unmarshal([]byte(r.stdout), &log); err != nil {
			t.Fatalf("sarif does not parse: %v", err)
		}
		if log.Version != "2.1.0" || len(log.Runs) != 1 {
			t.Fatalf("sarif version %q with %d runs, want 2.1.0 with 1", log.Version, len(log.Runs))
		}
		lr := log.Runs[0]
		if lr.Tool.Driver.Name != "spindle" {
			t.Errorf("driver name %q", lr.Tool.Driver.Name)
		}
		if len(lr.Tool.Driver.Rules) == 0 || lr.Tool.Driver.Rules[0].ID != "e2e-token" {
			t.Errorf("driver rules %+v, want the config's rule", lr.Tool.Driver.Rules)
		}
		var got []string
		for _, res := range lr.Results {
			loc := res.Locations[0].PhysicalLocation
			got = append(got, fmt.Sprintf("%s:%d:%s", loc.ArtifactLocation.URI, loc.Region.StartLine, res.RuleID))
		}
		slices.Sort(got)
		var wantS []string
		for _, p := range want {
			wantS = append(wantS, fmt.Sprintf("%s:%d:e2e-token", p.file, p.line))
		}
		slices.Sort(wantS)
		if !slices.Equal(got, wantS) {
			t.Errorf("results\n%q\nwant\n%q", got, wantS)
		}
	})
	t.Run("text", func(t *testing.T) {
		r := invoke(t, root, "scan", ".")
		if !strings.Contains(r.stderr, "skipped: 1 excluded") {
			t.Errorf("the config file is not counted as skipped:\n%s", r.stderr)
		}
		if r.code != 1 {
			t.Fatalf("exit %d, want 1", r.code)
		}
		if strings.Contains(r.stdout, "\x1b[") {
			t.Errorf("colour in a text report written to a pipe:\n%q", r.stdout)
		}
		for _, p := range want {
			if !strings.Contains(r.stdout, p.file+"\n") || !strings.Contains(r.stdout, fmt.Sprintf("%d:", p.line)) || !strings.Contains(r.stdout, p.secret) {
				t.Errorf("text report lacks %s line %d:\n%s", p.file, p.line, r.stdout)
			}
		}
		for _, want := range []string{scannedSummary, "3 findings, 0 warnings"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("summary lacks %q:\n%s", want, r.stderr)
			}
		}
	})
	t.Run("the report file is not scanned", func(t *testing.T) {
		// A jsonl report streamed into the tree it describes: were it
		// scanned, each finding written would be found again.
		r := invoke(t, root, "scan", "-f", "jsonl", "-o", "report.jsonl", ".")
		if r.code != 1 || !strings.Contains(r.stderr, "3 findings") {
			t.Errorf("exit %d\n%s", r.code, r.stderr)
		}
		r = invoke(t, root, "scan", "-f", "jsonl", "-o", "report.jsonl", ".")
		if !strings.Contains(r.stderr, "3 findings") {
			t.Errorf("the second scan found its own report:\n%s", r.stderr)
		}
		os.Remove(filepath.Join(root, "report.jsonl"))
	})
	t.Run("text --color always", func(t *testing.T) {
		r := invoke(t, root, "scan", "--color", "always", ".")
		if !strings.Contains(r.stdout, "\x1b[") {
			t.Errorf("--color always wrote no colour:\n%q", r.stdout)
		}
	})
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	dirty, _ := secretTree(t)
	clean := t.TempDir()
	writeTree(t, clean, map[string]string{".gitleaks.toml": testRules, "a.txt": "nothing here\n"})
	tests := []struct {
		name string
		dir  string
		args []string
		want int
	}{
		{"no findings", clean, []string{"scan"}, 0},
		{"findings", dirty, []string{"scan"}, 1},
		{"--exit-code overrides the findings status", dirty, []string{"scan", "--exit-code", "42"}, 42},
		{"--exit-code 0 reports without failing", dirty, []string{"scan", "--exit-code=0"}, 0},
		{"--exit-code does not apply without findings", clean, []string{"scan", "--exit-code", "42"}, 0},
		{"a file PATH", dirty, []string{"scan", "notes.txt"}, 1},
		{"several PATHs", dirty, []string{"scan", "-c", ".gitleaks.toml", "README.md", "src"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := invoke(t, tt.dir, tt.args...)
			if r.code != tt.want {
				t.Errorf("spindle %s: exit %d, want %d\nstderr:\n%s", strings.Join(tt.args, " "), r.code, tt.want, r.stderr)
			}
		})
	}
}

func TestErrorsExitTwoWithOneMessageNamingTheProblem(t *testing.T) {
	t.Parallel()
	root, _ := secretTree(t)
	writeTree(t, root, map[string]string{
		"bad-regex.toml":  "[[rules]]\nid = \"broken-rule\"\ndescription = \"x\"\nregex = '''(unclosed'''\n",
		"bad-syntax.toml": "[[rules]\nid = \"x\"\n",
		"bad-base.json":   "{not json",
	})
	tests := []struct {
		name string
		args []string
		want []string // substrings of the message
	}{
		{"unknown flag", []string{"scan", "--bogus"}, []string{"unknown flag: --bogus", "spindle scan --help"}},
		{"unknown format", []string{"scan", "-f", "xml"}, []string{`"xml"`, "--format", "json"}},
		{"redact out of range", []string{"scan", "--redact=101"}, []string{"101", "--redact"}},
		{"no workers", []string{"scan", "-j", "0"}, []string{"--workers"}},
		{"bad size", []string{"scan", "--max-file-size", "ten"}, []string{`"ten"`, "max-file-size"}},
		{"exit code out of range", []string{"scan", "--exit-code", "200"}, []string{"200", "--exit-code"}},
		{"missing PATH", []string{"scan", "no-such-dir"}, []string{"no-such-dir", "no such file"}},
		{"missing config", []string{"scan", "-c", "nope.toml"}, []string{"nope.toml"}},
		{"invalid regex", []string{"scan", "-c", "bad-regex.toml"}, []string{"bad-regex.toml:", "broken-rule", "regex"}},
		{"TOML syntax", []string{"scan", "--config", "bad-syntax.toml"}, []string{"bad-syntax.toml:", "TOML"}},
		{"missing baseline", []string{"scan", "--baseline", "none.json"}, []string{"none.json"}},
		{"invalid baseline", []string{"scan", "--baseline", "bad-base.json"}, []string{"bad-base.json"}},
		{"unwritable output", []string{"scan", "-o", "no/such/dir/out.json"}, []string{"no/such/dir/out.json"}},
		{"rules: invalid regex", []string{"rules", "-c", "bad-regex.toml"}, []string{"bad-regex.toml:", "broken-rule"}},
		{"unknown command", []string{"sacn"}, []string{`unknown command "sacn"`, "scan"}},
		{"bench: bad group", []string{"bench", "--quick", "gpu"}, []string{`"gpu"`}},
		{"bench: bad plot name", []string{"bench", "--quick", "--plot", "x.gif"}, []string{"x.gif", ".svg"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := invoke(t, root, tt.args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\nstderr:\n%s", r.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("an error wrote a report:\n%s", r.stdout)
			}
			if n := strings.Count(r.stderr, "spindle: "); n != 1 {
				t.Errorf("%d messages, want one:\n%s", n, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("message lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

func TestRedactHidesSecretsInEveryFormat(t *testing.T) {
	t.Parallel()
	root, want := secretTree(t)
	// gitleaks' own JSON template, with every secret-bearing field.
	tmpl := filepath.Join(t.TempDir(), "report.tmpl")
	if err := os.WriteFile(tmpl, []byte("{{range .}}{{.File}}:{{.StartLine}} {{.Secret}} {{.Match}}\n{{end}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range report.Formats() {
		for _, redact := range []string{"--redact", "--redact=100", "--redact=60"} {
			args := []string{"scan", "-f", format, redact, "."}
			if format == string(report.FormatTemplate) {
				args = append(args, "--report-template", tmpl)
			}
			r := invoke(t, root, args...)
			if r.code != 1 {
				t.Fatalf("%s %s: exit %d, want 1\n%s", format, redact, r.code, r.stderr)
			}
			for _, p := range want {
				if strings.Contains(r.stdout, p.secret) {
					t.Errorf("-f %s %s: the report shows secret %s:\n%s", format, redact, p.secret, r.stdout)
				}
			}
			if strings.Contains(r.stdout, "REDACTED") != (redact != "--redact=60") {
				t.Errorf("-f %s %s: REDACTED marker presence wrong:\n%s", format, redact, r.stdout)
			}
		}
	}
}

func TestBaselineReportsOnlyNewFindings(t *testing.T) {
	t.Parallel()
	root, want := secretTree(t)
	base := filepath.Join(t.TempDir(), "base.json")
	if r := invoke(t, root, "scan", "-f", "json", "-o", base, "."); r.code != 1 || r.stdout != "" {
		t.Fatalf("writing the baseline: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}

	r := invoke(t, root, "scan", "--baseline", base, ".")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("against its own baseline: exit %d, report:\n%s", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "3 findings already in the baseline") {
		t.Errorf("summary does not count the baselined findings:\n%s", r.stderr)
	}

	// A new secret, and an old one moved down a line by an edit: only the
	// new one is reported.
	fresh := planted{"src/new.go", 1, token(99)}
	writeTree(t, root, map[string]string{
		fresh.file:   "key = " + fresh.secret + "\n",
		want[2].file: "an inserted line\n" + "key = " + want[2].secret + "\n",
	})
	r = invoke(t, root, "scan", "--baseline", base, "-f", "json", ".")
	if r.code != 1 {
		t.Fatalf("with a new secret: exit %d, want 1\n%s", r.code, r.stderr)
	}
	if got, w := findingKeys(parseJSON(t, r.stdout)), wantKeys([]planted{fresh}); !slices.Equal(got, w) {
		t.Errorf("findings %q, want only %q", got, w)
	}
}

func TestGitleaksIgnoreAndInlineAllowSuppressFindings(t *testing.T) {
	t.Parallel()
	root, want := secretTree(t)
	// Suppress the first secret by fingerprint and the second inline.
	writeTree(t, root, map[string]string{
		".gitleaksignore": "# reviewed\n" + want[0].file + ":e2e-token:" + fmt.Sprint(want[0].line) + "\n",
		want[1].file:      "key = " + want[1].secret + " // spindle" + ":allow\n" + "key2 = " + token(7) + " # gitleaks" + ":allow\n",
	})
	r := invoke(t, root, "scan", "-f", "json", ".")
	if got, w := findingKeys(parseJSON(t, r.stdout)), wantKeys(want[2:]); !slices.Equal(got, w) {
		t.Errorf("findings %q, want only %q", got, w)
	}

	// The .gitleaksignore of a PATH applies when scanning from elsewhere.
	r = invoke(t, filepath.Dir(root), "scan", "-f", "json", filepath.Base(root))
	if got := parseJSON(t, r.stdout); len(got) != 1 {
		t.Errorf("scanning %s from its parent: %d findings, want 1:\n%s", filepath.Base(root), len(got), r.stdout)
	}
}

func TestOutputFileLeavesStdoutEmpty(t *testing.T) {
	t.Parallel()
	root, want := secretTree(t)
	out := filepath.Join(t.TempDir(), "report.jsonl")
	r := invoke(t, root, "scan", "-f", "jsonl", "--output", out, ".")
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := parseJSONL(t, string(data)); len(got) != len(want) {
		t.Errorf("%d findings in %s, want %d", len(got), out, len(want))
	}
}

func TestWalkFlags(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitleaks.toml": testRules,
		".gitignore":     "build/\n",
		"build/out.txt":  "key = " + token(1) + "\n",
		"big.txt":        strings.Repeat("x", 4096) + "\nkey = " + token(2) + "\n",
		"small.txt":      "key = " + token(3) + "\n",
		".git/config":    "key = " + token(4) + "\n",
	})
	if err := os.Symlink("small.txt", filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing.txt", filepath.Join(root, "dangling.txt")); err != nil {
		t.Fatal(err)
	}
	files := func(r result) []string {
		var out []string
		for _, f := range parseJSON(t, r.stdout) {
			out = append(out, f.File)
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		name      string
		args      []string
		want      []string
		code      int
		stderrHas string
	}{
		{"default: everything but .git and links", nil, []string{"big.txt", "build/out.txt", "small.txt"}, 1, "skipped: "},
		{"--gitignore", []string{"--gitignore"}, []string{"big.txt", "small.txt"}, 1, "ignored"},
		{"--max-file-size", []string{"--max-file-size", "1k"}, []string{"build/out.txt", "small.txt"}, 1, "size"},
		{"--follow-symlinks warns about a dangling link", []string{"--follow-symlinks"}, []string{"big.txt", "build/out.txt", "link.txt", "small.txt"}, 1, "dangling.txt"},
		// A dangling link has no content to lose: noise, which --strict
		// lets pass. An archive budget hit loses data: --strict fails.
		{"--strict passes noise", []string{"--follow-symlinks", "--strict"}, []string{"big.txt", "build/out.txt", "link.txt", "small.txt"}, 1, "dangling.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := invoke(t, root, append(append([]string{"scan", "-f", "json"}, tt.args...), ".")...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			if got := files(r); !slices.Equal(got, tt.want) {
				t.Errorf("findings in %q, want %q", got, tt.want)
			}
			if !strings.Contains(r.stderr, tt.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderrHas, r.stderr)
			}
		})
	}
}

func TestRulesListsAndValidates(t *testing.T) {
	t.Parallel()
	root, _ := secretTree(t)
	r := invoke(t, root, "rules")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "e2e-token") || !strings.Contains(r.stdout, "e2ex_") || !strings.Contains(r.stdout, "End-to-end test token") {
		t.Errorf("rules does not list the config's rule with keywords and description:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, ".gitleaks.toml: 1 rule, valid") {
		t.Errorf("rules does not say which config it validated:\n%s", r.stderr)
	}
}

func TestVersionAndCompletion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v := invoke(t, dir, "version")
	if v.code != 0 || !strings.HasPrefix(v.stdout, "spindle ") || !strings.Contains(v.stdout, "go1.") {
		t.Errorf("version: exit %d, %q", v.code, v.stdout)
	}
	if f := invoke(t, dir, "--version"); f.stdout != v.stdout {
		t.Errorf("--version %q differs from version %q", f.stdout, v.stdout)
	}
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		c := invoke(t, dir, "completion", shell)
		if c.code != 0 || !strings.Contains(c.stdout, "spindle") {
			t.Errorf("completion %s: exit %d, %d bytes", shell, c.code, len(c.stdout))
		}
	}
	// Cobra's completion entry point: the formats are offered for -f.
	c := invoke(t, dir, "__complete", "scan", "-f", "")
	for _, f := range listed(spindleFormats) {
		if !strings.Contains(c.stdout, f+"\n") {
			t.Errorf("completing -f does not offer %s:\n%s", f, c.stdout)
		}
	}
}

func TestHelpDocumentsEveryScanFlagWithExamples(t *testing.T) {
	t.Parallel()
	r := invoke(t, t.TempDir(), "scan", "--help")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	for _, flag := range []string{
		"-c, --config", "-f, --format", "-o, --output", "-j, --workers", "--gitignore",
		"--follow-symlinks", "--archive-depth", "--max-file-size", "--redact", "--baseline",
		"--no-progress", "--exit-code", "--strict", "Examples:", "Exit status",
	} {
		if !strings.Contains(r.stdout, flag) {
			t.Errorf("scan --help lacks %q", flag)
		}
	}
}

func TestBenchQuickPrintsEveryGroupAndPlots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := invoke(t, dir, "bench", "--quick", "-j", "2", "--plot", "bench.svg")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"executor", "fork", "flow", "classic", "fib(15)", "nqueens", "skynet", "matmul", "fork.Recurse", "channel pool", "goroutines", "baseline", "× faster"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bench.svg")); err != nil {
		t.Errorf("no chart: %v", err)
	}
	one := invoke(t, dir, "bench", "--quick", "fork")
	if strings.Contains(one.stdout, "flow") || !strings.Contains(one.stdout, "fork") {
		t.Errorf("bench fork ran other groups:\n%s", one.stdout)
	}
}
