package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The README promises that every command it shows works and every Go
// snippet compiles. These tests hold it to that: each command in a ```sh
// block must have an entry in readmeCommands, which runs it (or says which
// CI step does), and each ```go block must be part of an example in
// readme_example_test.go, which go test compiles and runs.

// repoRoot is the module root, two directories up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	return root
}

func readme(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// codeBlocks returns the bodies of the fenced blocks with the given info
// string.
func codeBlocks(text, lang string) []string {
	var blocks []string
	var cur []string
	in := false
	for line := range strings.Lines(text) {
		trimmed := strings.TrimRight(line, "\n")
		switch {
		case !in && trimmed == "```"+lang:
			in, cur = true, nil
		case in && trimmed == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, trimmed)
		}
	}
	return blocks
}

// readmeShellCommands returns each command of the README's sh blocks, with
// its trailing comment and spacing removed.
func readmeShellCommands(text string) []string {
	var cmds []string
	for _, block := range codeBlocks(text, "sh") {
		for line := range strings.Lines(block) {
			cmd := strings.TrimSpace(line)
			if i := strings.Index(cmd, "  #"); i >= 0 {
				cmd = strings.TrimSpace(cmd[:i])
			}
			if cmd != "" && !strings.HasPrefix(cmd, "#") {
				cmds = append(cmds, cmd)
			}
		}
	}
	return cmds
}

// readmeCommands runs each README command, or the closest thing a test can
// run, and checks its result. Where the test departs from the command, the
// comment says how and why.
var readmeCommands = map[string]func(t *testing.T){
	"go run ./cmd/spindle scan .": func(t *testing.T) {
		// The repository's .gitleaks.toml allowlists its test fixtures, so
		// its own scan is clean: a finding here is a secret (or a false
		// positive) in real code.
		out := goCmdStatus(t, repoRoot(t), []int{0}, "run", "./cmd/spindle", "scan", "--no-progress", ".")
		if !strings.Contains(out, "scanned ") || !strings.Contains(out, "0 findings") {
			t.Errorf("want a clean summary:\n%s", out)
		}
	},
	// CI runs this line (.ci/run).
	"go test -race -short ./...": func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(repoRoot(t), ".ci", "run"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "go test -race -short ./...") {
			t.Error(".ci/run does not run the README's test command")
		}
	},
	"git diff | spindle scan --stdin-name patch.diff -": func(t *testing.T) {
		root, want := secretTree(t)
		diff := "diff --git a/x b/x\n+++ b/x\n@@ -0,0 +1 @@\n+key = " + want[0].secret + "\n"
		r := invokeStdin(t, root, diff, "scan", "-f", "jsonl", "--stdin-name", "patch.diff", "-")
		if fs := parseJSONL(t, r.stdout); r.code != 1 || len(fs) != 1 || fs[0].File != "patch.diff" || fs[0].Line != 4 {
			t.Errorf("exit %d, findings %+v", r.code, fs)
		}
	},
	"spindle git -v": func(t *testing.T) {
		// A token committed, then removed: still in history. As gitleaks
		// git -v: each finding printed on standard output, the count on
		// standard error after the banner.
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{".gitleaks.toml": testRules, "app.env": "k=" + token(7) + "\n"})
		gitIn(t, dir, "init", "-q")
		gitIn(t, dir, "add", ".")
		gitIn(t, dir, "commit", "-qm", "add")
		writeTree(t, dir, map[string]string{"app.env": "k=\n"})
		gitIn(t, dir, "commit", "-qam", "remove")
		r := runLine(t, dir, "spindle git -v")
		if r.code != 1 || !strings.Contains(r.stdout, "Secret:      "+token(7)+"\n") || !strings.Contains(r.stdout, "Commit:      ") {
			t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "spindle") || !strings.Contains(r.stderr, " WRN leaks found: 1\n") || !strings.Contains(r.stderr, " INF 2 commits scanned.\n") {
			t.Errorf("standard error:\n%s", r.stderr)
		}
	},
	"spindle dir --redact -r leaks.sarif .": func(t *testing.T) {
		root, want := secretTree(t)
		r := runLine(t, root, "spindle dir --redact -r leaks.sarif .")
		if r.code != 1 || r.stdout != "" {
			t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
		}
		data, err := os.ReadFile(filepath.Join(root, "leaks.sarif"))
		if err != nil {
			t.Fatal(err)
		}
		var log struct {
			Runs []struct {
				Results []struct {
					PartialFingerprints map[string]string `json:"partialFingerprints"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) != len(want) {
			t.Fatalf("sarif: %v\n%s", err, data)
		}
		if _, ok := log.Runs[0].Results[0].PartialFingerprints["commitSha"]; !ok {
			t.Errorf("not gitleaks' SARIF shape: %v", log.Runs[0].Results[0].PartialFingerprints)
		}
		for _, w := range want {
			if strings.Contains(string(data), w.secret) {
				t.Errorf("--redact: the report holds %s", w.secret)
			}
		}
	},
	"git diff | spindle stdin --no-banner": func(t *testing.T) {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{".gitleaks.toml": testRules, "app.env": "k=\n"})
		gitIn(t, dir, "init", "-q")
		gitIn(t, dir, "add", ".")
		gitIn(t, dir, "commit", "-qm", "add")
		writeTree(t, dir, map[string]string{"app.env": "k=" + token(8) + "\n"})
		r := runLine(t, dir, "git diff | spindle stdin --no-banner")
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, " WRN leaks found: 1\n") || strings.Contains(r.stderr, token(8)) {
			t.Errorf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
		}
	},
	"exec spindle git --pre-commit --redact --staged --verbose": func(t *testing.T) {
		// The hook as the README shows it, in a repository's hooks.
		var hook string
		for _, b := range codeBlocks(readme(t), "sh") {
			if strings.HasPrefix(b, "#!/bin/sh\n") && strings.Contains(b, "pre-commit") {
				hook = b + "\n"
			}
		}
		if hook == "" {
			t.Fatal("the README shows no hook")
		}
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{".gitleaks.toml": testRules})
		gitIn(t, dir, "init", "-q")
		gitIn(t, dir, "add", ".")
		gitIn(t, dir, "commit", "-qm", "rules")
		hookPath := filepath.Join(dir, ".git", "hooks", "pre-commit")
		if err := os.WriteFile(hookPath, []byte(hook), 0o755); err != nil {
			t.Fatal(err)
		}
		writeTree(t, dir, map[string]string{"leak.env": "TOKEN=" + token(9) + "\n", "ok.txt": "fine\n"})
		gitIn(t, dir, "add", "leak.env")
		if r := runLine(t, dir, "git commit -qm leak"); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "File:        leak.env") {
			t.Errorf("a commit of a secret: exit %d, want a failure naming leak.env\n%s%s", r.code, r.stdout, r.stderr)
		} else if strings.Contains(r.stdout+r.stderr, token(9)) || !strings.Contains(r.stdout+r.stderr, "REDACTED") {
			t.Errorf("the hook printed the secret, or nothing redacted, as gitleaks' hook does not:\n%s%s", r.stdout, r.stderr)
		}
		gitIn(t, dir, "reset", "-q", "leak.env")
		gitIn(t, dir, "add", "ok.txt")
		if r := runLine(t, dir, "git commit -qm ok"); r.code != 0 {
			t.Errorf("a clean commit: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	},
	"spindle scan .": func(t *testing.T) {
		root, _ := secretTree(t)
		if r := invoke(t, root, "scan", "."); r.code != 1 || !strings.Contains(r.stderr, "3 findings") {
			t.Errorf("exit %d, want 1 with 3 findings\n%s", r.code, r.stderr)
		}
	},
	// The full run takes about a minute; --quick runs the same code on
	// small inputs.
	"spindle bench": func(t *testing.T) {
		if r := invoke(t, t.TempDir(), "bench", "--quick"); r.code != 0 || !strings.Contains(r.stdout, "baseline") {
			t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	},
	"spindle bench --plot bench.svg": func(t *testing.T) {
		dir := t.TempDir()
		if r := invoke(t, dir, "bench", "--quick", "--plot", "bench.svg"); r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		data, err := os.ReadFile(filepath.Join(dir, "bench.svg"))
		if err != nil {
			t.Fatal(err)
		}
		if err := xml.Unmarshal(data, new(struct{})); err != nil {
			t.Errorf("bench.svg is not XML: %v", err)
		}
	},
	"spindle scan -f json -o baseline.json .": func(t *testing.T) {
		root, want := secretTree(t)
		if r := invoke(t, root, "scan", "-f", "json", "-o", "baseline.json", "."); r.code != 1 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		data, err := os.ReadFile(filepath.Join(root, "baseline.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := parseJSON(t, string(data)); len(got) != len(want) {
			t.Errorf("%d findings, want %d", len(got), len(want))
		}
	},
	"spindle scan --baseline baseline.json .": func(t *testing.T) {
		root, _ := secretTree(t)
		invoke(t, root, "scan", "-f", "json", "-o", "baseline.json", ".")
		if r := invoke(t, root, "scan", "--baseline", "baseline.json", "."); r.code != 0 || r.stdout != "" {
			t.Errorf("exit %d, report %q", r.code, r.stdout)
		}
	},
	"spindle scan -f sarif -o spindle.sarif .": func(t *testing.T) {
		root, want := secretTree(t)
		invoke(t, root, "scan", "-f", "sarif", "-o", "spindle.sarif", ".")
		data, err := os.ReadFile(filepath.Join(root, "spindle.sarif"))
		if err != nil {
			t.Fatal(err)
		}
		var log sarifLog
		if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) != len(want) {
			t.Errorf("sarif: %v, %d runs", err, len(log.Runs))
		}
	},
	"spindle scan --gitignore --redact -f jsonl src/": func(t *testing.T) {
		root, want := secretTree(t)
		// The rules of a PATH come from PATH/.gitleaks.toml.
		writeTree(t, root, map[string]string{"src/.gitignore": "deep/\n", "src/.gitleaks.toml": testRules})
		r := invoke(t, root, "scan", "--gitignore", "--redact", "-f", "jsonl", "src/")
		// src/deep holds the only secret under src, and it is ignored.
		if r.code != 0 || r.stdout != "" {
			t.Errorf("exit %d, report %q", r.code, r.stdout)
		}
		writeTree(t, root, map[string]string{"src/.gitignore": ""})
		r = invoke(t, root, "scan", "--gitignore", "--redact", "-f", "jsonl", "src/")
		if fs := parseJSONL(t, r.stdout); len(fs) != 1 || fs[0].Secret != "REDACTED" || strings.Contains(r.stdout, want[1].secret) {
			t.Errorf("want one redacted finding:\n%s", r.stdout)
		}
	},
	"spindle rules": func(t *testing.T) {
		r := invoke(t, t.TempDir(), "rules")
		if r.code != 0 || !strings.Contains(r.stdout, "aws-access-token") || !strings.Contains(r.stderr, "built-in rules") {
			t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	},
	"spindle rules -c .gitleaks.toml": func(t *testing.T) {
		root, _ := secretTree(t)
		if r := invoke(t, root, "rules", "-c", ".gitleaks.toml"); r.code != 0 || !strings.Contains(r.stdout, "e2e-token") {
			t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	},
	"spindle rules --check": func(t *testing.T) {
		if r := invoke(t, t.TempDir(), "rules", "--check"); r.code != 0 {
			t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	},
	"source <(spindle completion bash)": func(t *testing.T) {
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Skip("no bash")
		}
		script := "source <(spindle completion bash) && complete -p spindle"
		cmd := exec.Command(bash, "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "spindle") {
			t.Errorf("%s: %v\n%s", script, err, out)
		}
	},
	// CI runs this line: .ci/run must hold both commands.
	"go vet ./... && go test -race -short ./...": func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(repoRoot(t), ".ci", "run"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"go vet ./...", "go test -race -short ./..."} {
			if !strings.Contains(string(data), want) {
				t.Errorf(".ci/run does not run %q", want)
			}
		}
	},
	// The full complexity check takes minutes on two cores; one package
	// of it checks that the command works.
	"go test -run '^TestLinear' -count 1 -timeout 60m ./...": func(t *testing.T) {
		if testing.Short() {
			t.Skip("the complexity check at full sizes runs for minutes; not with -short")
		}
		goCmd(t, repoRoot(t), "test", "-run", "^TestLinear", "-count", "1", "./internal/lincheck", "./scan/internal/gitrepo")
	},
	// Sixty seconds of fuzzing has no place in a test run; two seconds
	// check that the command works.
	"go test -run '^$' -fuzz FuzzReadBaseline -fuzztime 60s ./scan/report": func(t *testing.T) {
		if testing.Short() {
			t.Skip("fuzzing compiles an instrumented test binary; not with -short")
		}
		goCmd(t, repoRoot(t), "test", "-run", "^$", "-fuzz", "FuzzReadBaseline", "-fuzztime", "2s", "./scan/report")
	},
}

// goCmd runs the go command in dir and fails the test if it fails.
func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return goCmdStatus(t, dir, []int{0}, args...)
}

// goCmdStatus runs the go command in dir and fails the test unless it
// exits with one of ok.
func goCmdStatus(t *testing.T, dir string, ok []int, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	code := 0
	if exit, isExit := err.(*exec.ExitError); isExit {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	for _, c := range ok {
		if code == c {
			return string(out)
		}
	}
	t.Fatalf("go %s: exit %d\n%s", strings.Join(args, " "), code, out)
	return ""
}

func TestReadmeCommandsAllRun(t *testing.T) {
	cmds := readmeShellCommands(readme(t))
	inReadme := map[string]bool{}
	for _, c := range cmds {
		inReadme[c] = true
		if readmeCommands[c] == nil {
			t.Errorf("README command %q is not run by any test: add it to readmeCommands", c)
		}
	}
	for c := range readmeCommands {
		if !inReadme[c] {
			t.Errorf("readmeCommands has %q, which the README no longer shows", c)
		}
	}
	for _, c := range cmds {
		if check := readmeCommands[c]; check != nil {
			t.Run(c, func(t *testing.T) {
				t.Parallel()
				check(t)
			})
		}
	}
}

func TestReadmeSnippetsAreExamples(t *testing.T) {
	var src []byte
	for _, name := range []string{"readme_example_test.go", "readme_scan_example_test.go"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, b...)
	}
	// The examples' bodies, one tab of indentation removed, so a README
	// block (written at the left margin) can be found in them verbatim.
	var bodies strings.Builder
	for line := range strings.Lines(string(src)) {
		bodies.WriteString(strings.TrimPrefix(line, "\t"))
	}
	blocks := codeBlocks(readme(t), "go")
	if len(blocks) < 4 {
		t.Errorf("%d Go blocks in the README, want one for each of spindle, fork, flow and scan", len(blocks))
	}
	for _, b := range blocks {
		// A block may also be a top-level declaration of those files,
		// such as a function the examples call.
		if !strings.Contains(bodies.String(), b+"\n") && !strings.Contains(string(src), "\n"+b+"\n") {
			t.Errorf("README block is not part of an example in readme_example_test.go:\n%s", b)
		}
	}
}

// The commands of the README's integration sections (install, CI,
// pre-commit, across machines) are run by integration_readme_test.go.
func init() { maps.Copy(readmeCommands, sectionCommands) }
