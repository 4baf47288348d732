package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// invokeStdin is invoke with standard input.
func invokeStdin(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

func TestScanStandardInput(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{".gitleaks.toml": testRules})
	in := strings.Repeat("log line\n", 50000) + "key=" + token(1) + "\n"
	r := invokeStdin(t, dir, in, "scan", "-f", "json", "--stdin-name", "app.log", "-")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	var fs []struct {
		File string `json:"file"`
		Line int    `json:"line"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &fs); err != nil || len(fs) != 1 || fs[0].File != "app.log" || fs[0].Line != 50001 {
		t.Errorf("findings %+v (%v), want app.log:50001", fs, err)
	}
	if r := invokeStdin(t, dir, "", "scan", "-", "."); r.code != 2 || !strings.Contains(r.stderr, "cannot be combined") {
		t.Errorf("- with another PATH: exit %d, %s", r.code, r.stderr)
	}
}

func TestScanConfigWarningsAndHostileConfigs(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitleaks.toml": "[extend]\nuseDefault = true\ndisabledRules = [\"no-such-rule\"]\n",
		"a.txt":          "nothing here\n",
	})
	r := invoke(t, dir, "scan", ".")
	if r.code != 0 || !strings.Contains(r.stderr, "no-such-rule") {
		t.Errorf("unknown rule id: exit %d, stderr %q: want exit 0 and a warning naming it", r.code, r.stderr)
	}
	if r := invoke(t, dir, "scan", "-q", "."); strings.Contains(r.stderr, "no-such-rule") {
		t.Errorf("-q printed %q", r.stderr)
	}
	// A pull request adds a hostile config: bounded time and a clear
	// message, exit 2.
	for name, cfg := range map[string]string{
		"nested": "a = " + strings.Repeat("{b = ", 4000) + "1" + strings.Repeat("}", 4000) + "\n",
		"extend": "[extend]\npath = \"/dev/zero\"\n",
	} {
		hostile := t.TempDir()
		writeTree(t, hostile, map[string]string{".gitleaks.toml": cfg, "a.txt": "x"})
		start := time.Now()
		r := invoke(t, hostile, "scan", ".")
		if r.code != 2 || !strings.Contains(r.stderr, ".gitleaks.toml") || time.Since(start) > 30*time.Second {
			t.Errorf("%s: exit %d in %v, stderr %q", name, r.code, time.Since(start), r.stderr)
		}
	}
}

func TestGitCommand(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x",
			"GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	writeTree(t, dir, map[string]string{".gitleaks.toml": testRules, "app.env": "k=" + token(1) + "\n"})
	git("add", ".")
	git("commit", "-qm", "add a token")
	writeTree(t, dir, map[string]string{"app.env": "k=redacted\n"})
	git("commit", "-qam", "remove it")

	r := invoke(t, dir, "git", "-f", "json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1: the deleted token is still in history\n%s", r.code, r.stderr)
	}
	var fs []struct {
		Commit, File, Message, Fingerprint string
	}
	if err := json.Unmarshal([]byte(r.stdout), &fs); err != nil || len(fs) != 1 || fs[0].Message != "add a token" ||
		fs[0].Fingerprint != fs[0].Commit+":app.env:e2e-token:1" {
		t.Errorf("findings %+v (%v)", fs, err)
	}
	// Staged: nothing staged is clean; a staged token fails the hook.
	if r := invoke(t, dir, "git", "--staged"); r.code != 0 {
		t.Errorf("--staged with nothing staged: exit %d\n%s", r.code, r.stderr)
	}
	writeTree(t, dir, map[string]string{"new.env": "k=" + token(2) + "\n"})
	git("add", "new.env")
	if r := invoke(t, dir, "git", "--staged"); r.code != 1 || !strings.Contains(r.stdout, "new.env") {
		t.Errorf("--staged with a staged token: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := invoke(t, t.TempDir(), "git"); r.code != 2 || !strings.Contains(r.stderr, "not a git repository") {
		t.Errorf("outside a repository: exit %d, %q", r.code, r.stderr)
	}
}
