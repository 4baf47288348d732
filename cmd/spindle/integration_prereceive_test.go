package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreReceiveHookRecipe installs the README's pre-receive hook in a
// bare repository and pushes to it with git: a push whose new commits add
// a secret is refused (the pushed objects are in git's quarantine, which
// only git's environment names), a clean push and a new branch pass, and
// a later push of a secret on that branch is refused.
func TestPreReceiveHookRecipe(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	var hook string
	for _, b := range codeBlocks(readme(t), "bash") {
		if strings.Contains(b, "hooks/pre-receive") {
			hook = b + "\n"
		}
	}
	if hook == "" {
		t.Fatal("the README shows no pre-receive hook")
	}
	srv := filepath.Join(t.TempDir(), "srv.git")
	gitIn(t, t.TempDir(), "init", "-q", "--bare", srv)
	if err := os.WriteFile(filepath.Join(srv, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "rules.toml")
	os.WriteFile(cfg, []byte(testRules), 0o644)
	work := t.TempDir()
	gitIn(t, work, "init", "-q", "-b", "main")
	gitIn(t, work, "remote", "add", "origin", srv)
	env := append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITLEAKS_CONFIG="+cfg, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x",
		"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x")
	push := func(args ...string) (int, string) {
		cmd := exec.Command("git", append([]string{"push", "-q", "origin"}, args...)...)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	commit := func(file, body string) {
		writeTree(t, work, map[string]string{file: body})
		gitIn(t, work, "add", file)
		gitIn(t, work, "commit", "-qm", "change "+file)
	}
	commit("README.md", "# app\n")
	if code, out := push("main"); code != 0 {
		t.Fatalf("a clean first push was refused:\n%s", out)
	}
	commit("README.md", "# app\nmore\n")
	commit("config.env", "TOKEN="+token(3)+"\n")
	if code, out := push("main"); code == 0 || !strings.Contains(out, "config.env") {
		t.Fatalf("a push adding a secret passed (exit %d):\n%s", code, out)
	}
	gitIn(t, work, "reset", "-q", "--hard", "HEAD~1")
	if code, out := push("main"); code != 0 {
		t.Fatalf("a clean push was refused:\n%s", out)
	}
	gitIn(t, work, "checkout", "-q", "-b", "feature")
	commit("notes.txt", "notes\n")
	if code, out := push("feature"); code != 0 {
		t.Fatalf("a clean new branch was refused:\n%s", out)
	}
	commit("notes.txt", "notes\nkey "+token(4)+"\n")
	if code, out := push("feature"); code == 0 || !strings.Contains(out, "notes.txt") {
		t.Fatalf("a secret pushed to a branch passed (exit %d):\n%s", code, out)
	}
}
