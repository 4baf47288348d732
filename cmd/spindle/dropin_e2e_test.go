package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/internal/reportdiff"
)

// The files in testdata/gitleaks are what gitleaks v8.30.1 printed and wrote
// for the tree dropInTree makes (three files, one commit), scanned with
// testdata/gitleaks/rules.toml:
//
//	gitleaks dir tree -c rules.toml --no-banner -l error -f F -r dir.F --exit-code 0
//	gitleaks git tree -c rules.toml --no-banner -l error -f F -r git.F --exit-code 0
//	gitleaks dir|git tree -c rules.toml --no-banner --no-color -v --exit-code 0 \
//	    > dir|git.verbose 2> dir|git.stderr
//
// for F in json, csv, sarif, junit. The tests run spindle's drop-ins with
// the same arguments and compare, always with these recordings and, where
// gitleaks is installed, with a live run of it too.

// dropInTree makes the recorded tree under dir/tree and commits it as the
// recording did, so that its commit has the recorded hash.
func dropInTree(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	rules, err := os.ReadFile(filepath.Join("testdata", "gitleaks", "rules.toml"))
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, dir, map[string]string{
		"rules.toml":              string(rules),
		"tree/app.env":            "AWS_KEY=AKIAZ7QKXW3VUMPLR2TD\n",
		"tree/sub/we<i>rd&co.txt": "x\ntoken: ghp_Zq0123456789abcdefABCDEF0123456789ab\n",
		"tree/docs/read_me.md":    "y\n\tacme_key = \"abcdef0123456789\" # \"quoted\"\n",
	})
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = filepath.Join(dir, "tree")
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_DATE=2024-03-01T10:00:00+02:00", "GIT_COMMITTER_DATE=2024-03-01T10:00:00+02:00")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("remote", "add", "origin", "https://github.com/acme/widgets.git")
	git("add", "-A")
	git("-c", "user.name=Ann Example", "-c", "user.email=ann@example.com", "commit", "-q", "-m", "add <keys> & more")
	return dir
}

func recorded(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "gitleaks", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// runIn runs bin with args in dir.
func runIn(t *testing.T, bin, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// asSpindle rewrites what gitleaks writes about itself (its name, version
// and address in SARIF, its name as JUnit's suite) as spindle writes it.
func asSpindle(format string, doc []byte, version string) []byte {
	s := string(doc)
	switch format {
	case "sarif":
		s = strings.Replace(s, `"name": "gitleaks"`, `"name": "spindle"`, 1)
		s = strings.Replace(s, `"semanticVersion": "v8.0.0"`, `"semanticVersion": "`+version+`"`, 1)
		s = strings.Replace(s, `"informationUri": "https://github.com/gitleaks/gitleaks"`, `"informationUri": "https://github.com/spindle-go/spindle"`, 1)
	case "junit":
		s = strings.Replace(s, `name="gitleaks"`, `name="spindle"`, 1)
	}
	return []byte(s)
}

// driverVersion is the SARIF driver version the binary under test writes.
func driverVersion(t *testing.T, sarif []byte) string {
	t.Helper()
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					SemanticVersion string `json:"semanticVersion"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(sarif, &log); err != nil || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.SemanticVersion == "" {
		t.Fatalf("SARIF without a driver version: %v\n%s", err, sarif)
	}
	return log.Runs[0].Tool.Driver.SemanticVersion
}

// TestDropInReportsAreGitleaksReports: spindle dir and git write, for
// gitleaks' command line, the report gitleaks writes, in each of its
// formats, and print the findings -v prints.
func TestDropInReportsAreGitleaksReports(t *testing.T) {
	dir := dropInTree(t)
	gl := ""
	if bin, err := exec.LookPath("gitleaks"); err == nil {
		gl = bin
	} else if home, err := os.UserHomeDir(); err == nil {
		if _, err := os.Stat(filepath.Join(home, "go", "bin", "gitleaks")); err == nil {
			gl = filepath.Join(home, "go", "bin", "gitleaks")
		}
	}
	for _, mode := range []string{"dir", "git"} {
		for _, format := range []string{"json", "csv", "sarif", "junit"} {
			t.Run(mode+"/"+format, func(t *testing.T) {
				args := []string{mode, "tree", "-c", "rules.toml", "--no-banner", "-l", "error", "-f", format, "-r", "REPORT", "--exit-code", "0"}
				report := func(bin string) []byte {
					a := slices.Clone(args)
					a[slices.Index(a, "REPORT")] = filepath.Join(t.TempDir(), "report")
					if r := runIn(t, bin, dir, a...); r.code != 0 || r.stdout != "" {
						t.Fatalf("%s %v: exit %d, stdout %q\n%s", bin, a, r.code, r.stdout, r.stderr)
					}
					data, err := os.ReadFile(a[len(a)-3])
					if err != nil {
						t.Fatal(err)
					}
					return data
				}
				got := report(binary)
				version := ""
				if format == "sarif" {
					version = driverVersion(t, got)
				}
				want := asSpindle(format, recorded(t, mode+"."+format), version)
				reportdiff.SameUpToOrder(t, "recorded", got, want, reportdiff.Items[format])
				if format == "csv" {
					if _, err := csv.NewReader(bytes.NewReader(got)).ReadAll(); err != nil {
						t.Errorf("not CSV: %v", err)
					}
				}
				if gl != "" {
					reportdiff.SameUpToOrder(t, "live", got, asSpindle(format, report(gl), version), reportdiff.Items[format])
				}
			})
		}
		t.Run(mode+"/verbose", func(t *testing.T) {
			args := []string{mode, "tree", "-c", "rules.toml", "--no-banner", "--no-color", "-v", "--exit-code", "0"}
			r := runIn(t, binary, dir, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			reportdiff.SameUpToOrder(t, "recorded", []byte(r.stdout), recorded(t, mode+".verbose"), reportdiff.Items["verbose"])
			if want := logLines(string(recorded(t, mode+".stderr"))); !slices.Equal(logLines(r.stderr), want) {
				t.Errorf("standard error:\n%s\nwant gitleaks' lines %q", r.stderr, want)
			}
			if gl != "" {
				live := runIn(t, gl, dir, args...)
				reportdiff.SameUpToOrder(t, "live", []byte(r.stdout), []byte(live.stdout), reportdiff.Items["verbose"])
				if got, want := logLines(r.stderr), logLines(live.stderr); !slices.Equal(got, want) {
					t.Errorf("standard error %q, gitleaks' %q", got, want)
				}
			}
		})
	}
}

// logLines are the lines of a drop-in's standard error with what differs
// from run to run masked: the time, the duration, the bytes counted
// (gitleaks dir reads .git too). The one line spindle adds, naming the
// rules that ran ("INF rules: FILE (sha256:...)"), is left out.
func logLines(s string) []string {
	mask := []struct {
		re   *regexp.Regexp
		repl string
	}{
		{regexp.MustCompile(`^\d{1,2}:\d{2}[AP]M `), "T "},
		{regexp.MustCompile(`~\d+ bytes \([^)]*\)`), "~N bytes (N)"},
		{regexp.MustCompile(` in [0-9.]+[µnm]?s$`), " in D"},
	}
	var out []string
	for line := range strings.Lines(s) {
		line = strings.TrimSuffix(line, "\n")
		for _, m := range mask {
			line = m.re.ReplaceAllString(line, m.repl)
		}
		if strings.HasPrefix(line, "T INF rules: ") {
			continue
		}
		out = append(out, line)
	}
	return out
}

// TestDropInConsoleIsGitleaks: without -v nothing goes to standard output
// and standard error says how many leaks were found, after the banner; no
// secret reaches either stream.
func TestDropInConsoleIsGitleaks(t *testing.T) {
	dir := dropInTree(t)
	secret := "AKIAZ7QKXW3VUMPLR2TD"
	for _, mode := range []string{"dir", "git"} {
		r := runIn(t, binary, dir, mode, "tree", "-c", "rules.toml")
		if r.code != 1 || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q", mode, r.code, r.stdout)
		}
		if strings.Contains(r.stderr, secret) || !strings.Contains(r.stderr, " WRN leaks found: 3\n") || !strings.HasPrefix(r.stderr, banner) {
			t.Errorf("%s: standard error:\n%s", mode, r.stderr)
		}
		r = runIn(t, binary, dir, mode, "tree", "-c", "rules.toml", "--no-banner", "-l", "warn")
		if got := logLines(r.stderr); !slices.Equal(got, []string{"T WRN leaks found: 3"}) {
			t.Errorf("%s -l warn: %q", mode, got)
		}
		r = runIn(t, binary, dir, mode, "tree", "-c", "rules.toml", "--no-banner", "-l", "error", "-v", "--redact")
		if r.stderr != "" || strings.Contains(r.stdout, secret) || strings.Count(r.stdout, "Secret:      REDACTED\n") != 3 {
			t.Errorf("%s -l error -v --redact: stdout\n%s\nstderr %q", mode, r.stdout, r.stderr)
		}
	}
	clean := t.TempDir()
	writeTree(t, clean, map[string]string{"a.txt": "nothing\n"})
	r := runIn(t, binary, clean, "dir", "--no-banner", ".")
	if got := logLines(r.stderr); r.code != 0 || r.stdout != "" || !slices.Equal(got, []string{"T INF scanned ~N bytes (N) in D", "T INF no leaks found"}) {
		t.Errorf("a clean tree: exit %d, %q", r.code, got)
	}
}

// TestDropInExitCodesAreGitleaks checks each exit status gitleaks gives,
// and compares with gitleaks itself where it is installed.
func TestDropInExitCodesAreGitleaks(t *testing.T) {
	dir := dropInTree(t)
	writeTree(t, dir, map[string]string{"clean/a.txt": "nothing\n"})
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"nothing found", []string{"dir", "clean", "-c", "rules.toml"}, 0},
		{"leaks found", []string{"dir", "tree", "-c", "rules.toml"}, 1},
		{"leaks found, history", []string{"git", "tree", "-c", "rules.toml"}, 1},
		{"--exit-code", []string{"dir", "tree", "-c", "rules.toml", "--exit-code", "7"}, 7},
		{"--exit-code 0", []string{"git", "tree", "-c", "rules.toml", "--exit-code", "0"}, 0},
		{"--exit-code, nothing found", []string{"dir", "clean", "-c", "rules.toml", "--exit-code", "7"}, 0},
		{"a missing config", []string{"dir", "tree", "-c", "missing.toml"}, 1},
		{"a missing config, --exit-code 0", []string{"dir", "tree", "-c", "missing.toml", "--exit-code", "0"}, 1},
		// gitleaks-action's --exit-code 2 tells leaks from errors.
		{"--exit-code 2", []string{"dir", "tree", "-c", "rules.toml", "--exit-code", "2"}, 2},
		{"--exit-code 2, history", []string{"git", "tree", "-c", "rules.toml", "--exit-code=2"}, 2},
		{"--exit-code 2, an error", []string{"dir", "tree", "-c", "missing.toml", "--exit-code", "2"}, 1},
		// gitleaks takes any int and exits as os.Exit does: its low 8 bits.
		{"--exit-code 126", []string{"dir", "tree", "-c", "rules.toml", "--exit-code", "126"}, 126},
		{"--exit-code 255", []string{"dir", "tree", "-c", "rules.toml", "--exit-code", "255"}, 255},
		{"--exit-code 256", []string{"dir", "tree", "-c", "rules.toml", "--exit-code", "256"}, 0},
		{"--exit-code 300", []string{"git", "tree", "-c", "rules.toml", "--exit-code", "300"}, 44},
		{"--exit-code -1", []string{"dir", "tree", "-c", "rules.toml", "--exit-code=-1"}, 255},
		{"--exit-code 0x10", []string{"dir", "tree", "-c", "rules.toml", "--exit-code", "0x10"}, 16},
		{"--exit-code abc", []string{"dir", "tree", "-c", "rules.toml", "--exit-code", "abc"}, 1},
		{"an unknown flag", []string{"dir", "tree", "--bogus"}, 126},
		// gitleaks gives 126 only for an unknown long flag.
		{"an unknown shorthand flag", []string{"git", "tree", "-Z"}, 1},
	}
	gl := ""
	if bin, err := exec.LookPath("gitleaks"); err == nil {
		gl = bin
	} else if home, err := os.UserHomeDir(); err == nil {
		if p := filepath.Join(home, "go", "bin", "gitleaks"); fileExists(p) {
			gl = p
		}
	}
	for _, c := range cases {
		args := append(slices.Clone(c.args), "--no-banner")
		if r := runIn(t, binary, dir, args...); r.code != c.want {
			t.Errorf("%s: spindle %v: exit %d, want %d\n%s", c.name, args, r.code, c.want, r.stderr)
		}
		if gl != "" {
			if r := runIn(t, gl, dir, args...); r.code != c.want {
				t.Errorf("%s: gitleaks %v: exit %d, the test wants %d", c.name, args, r.code, c.want)
			}
		}
	}
	// gitleaks git exits 0 on a directory that is not a repository (it
	// logs git's error and reports no leaks); spindle fails, as for any
	// error, so that a CI job with a wrong path does not pass.
	if r := runIn(t, binary, dir, "git", "clean", "-c", "rules.toml", "--no-banner"); r.code != 1 || !strings.Contains(r.stderr, "not a git repository") {
		t.Errorf("git on a directory that is not a repository: exit %d\n%s", r.code, r.stderr)
	}
	// spindle's own commands keep errors apart from findings.
	if r := runIn(t, binary, dir, "scan", "-c", "missing.toml", "tree"); r.code != 2 {
		t.Errorf("spindle scan with a missing config: exit %d, want 2", r.code)
	}
	if r := runIn(t, binary, dir, "scan", "--bogus"); r.code != 2 {
		t.Errorf("spindle scan with an unknown flag: exit %d, want 2", r.code)
	}
}

// TestDropInHelpShowsOneFlagPerMeaning: each meaning has one flag in
// help, with the default that applies in that command; the older
// spellings are hidden and still work.
func TestDropInHelpShowsOneFlagPerMeaning(t *testing.T) {
	for _, cmd := range []string{"dir", "git", "stdin"} {
		r := invoke(t, t.TempDir(), cmd, "--help")
		if r.code != 0 {
			t.Fatalf("%s --help: exit %d", cmd, r.code)
		}
		for _, hidden := range []string{"--output", "--format ", "--baseline ", "--archive-depth", "--max-file-size", "--quiet", "--color ", "--diagnostics"} {
			if strings.Contains(r.stdout, hidden) {
				t.Errorf("%s --help shows %s, which another flag means", cmd, strings.TrimSpace(hidden))
			}
		}
		for _, want := range []string{"-r, --report-path", "-f, --report-format", "-b, --baseline-path", "--max-target-megabytes",
			"--max-archive-depth N", "(0: archives closed)", `-v, --verbose`, `(default "gitleaks")`, "--all-warnings", "--exit-code N",
			"--spindle-rules", "gitleaks' default rules alone", "useSpindleRules", "--exit-code 2 tells leaks from errors"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%s --help lacks %q", cmd, want)
			}
		}
		if regexp.MustCompile(`--max-archive-depth[^\n]*default [1-9]`).MatchString(r.stdout) {
			t.Errorf("%s --help: archives are closed by default", cmd)
		}
	}
	r := invoke(t, t.TempDir(), "scan", "--help")
	for _, want := range []string{"--archive-depth N", "(default 3)", `(default "all")`, "-o, --output", "-v, --verbose",
		"--spindle-rules", "--spindle-rules=false runs gitleaks' alone", "(default true)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("scan --help lacks %q", want)
		}
	}
	// The older spellings still work in the drop-ins.
	dir := dropInTree(t)
	r = runIn(t, binary, dir, "dir", "tree", "-c", "rules.toml", "--no-banner", "-q", "-o", "old.json", "--format", "jsonl", "--archive-depth", "1", "--max-file-size", "1MB")
	if r.code != 1 || r.stderr != "" {
		t.Fatalf("older spellings: exit %d\n%s", r.code, r.stderr)
	}
	if fs := parseJSONL(t, string(mustRead(t, filepath.Join(dir, "old.json")))); len(fs) != 3 {
		t.Errorf("-o with --format jsonl: %d findings", len(fs))
	}
	if r := runIn(t, binary, dir, "dir", "tree", "--max-file-size", "1MB", "--max-target-megabytes", "1"); r.code != 1 || !strings.Contains(r.stderr, "give one") {
		t.Errorf("two spellings of one limit: exit %d\n%s", r.code, r.stderr)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
