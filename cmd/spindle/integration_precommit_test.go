package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The hooks in .pre-commit-hooks.yaml, run by the pre-commit tool itself on
// a repository made here, as a user's repository would use them: this
// repository (a snapshot of its work tree, so the hooks file under test is
// the one used) is the hook repository, pinned at its commit.

// preCommit runs the pre-commit tool (or git, which runs the installed
// hook) in dir and returns its exit status and combined output.
func preCommit(t *testing.T, dir string, env []string, name string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "InvalidManifestError") {
		v, _ := exec.Command("pre-commit", "--version").Output()
		t.Fatalf("%s rejects .pre-commit-hooks.yaml: the hooks must load in the pre-commit versions users have "+
			"(stage names such as pre-commit in stages: need pre-commit 3.2 or later; Debian 12 ships 3.0.4)\n%s", strings.TrimSpace(string(v)), out)
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	case err != nil:
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return 0, string(out)
}

// hookUserRepo makes a repository with a first commit holding the test
// rules and a .pre-commit-config.yaml that uses hook id from hookRepo at
// rev, and returns it.
func hookUserRepo(t *testing.T, hookRepo, rev, id string) string {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	writeTree(t, dir, map[string]string{
		".gitleaks.toml": testRules,
		".pre-commit-config.yaml": "repos:\n" +
			"  - repo: " + hookRepo + "\n" +
			"    rev: " + rev + "\n" +
			"    hooks:\n" +
			"      - id: " + id + "\n",
		"README.md": "# a project\n",
	})
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// checkHookGatesCommits runs the hook the way users meet it: pre-commit
// run on a clean index passes; with a secret staged it fails with exit 1
// and names the file; installed as the git hook, it stops git commit and
// lets the commit through once the secret is gone.
func checkHookGatesCommits(t *testing.T, repo string, env []string) {
	t.Helper()
	if code, out := preCommit(t, repo, env, "pre-commit", "run"); code != 0 {
		t.Fatalf("pre-commit run with nothing staged: exit %d, want 0\n%s", code, out)
	}

	writeTree(t, repo, map[string]string{"config/leak.env": "API_TOKEN=" + token(41) + "\n", "clean.txt": "nothing\n"})
	gitIn(t, repo, "add", "config/leak.env", "clean.txt")
	code, out := preCommit(t, repo, env, "pre-commit", "run")
	if code != 1 || !strings.Contains(out, "config/leak.env") || !strings.Contains(out, "e2e-token") || !strings.Contains(out, "Failed") {
		t.Fatalf("pre-commit run with a staged secret: exit %d, want 1 naming config/leak.env and the rule\n%s", code, out)
	}
	if strings.Contains(out, "clean.txt") {
		t.Errorf("the report names clean.txt, which has no secret:\n%s", out)
	}
	if strings.Contains(out, token(41)) || !strings.Contains(out, "REDACTED") {
		t.Errorf("the hook printed the secret (gitleaks' hook redacts):\n%s", out)
	}

	if code, out := preCommit(t, repo, env, "pre-commit", "install"); code != 0 {
		t.Fatalf("pre-commit install: exit %d\n%s", code, out)
	}
	if code, out := preCommit(t, repo, env, "git", "commit", "-q", "-m", "leak"); code == 0 {
		t.Fatalf("git commit of a secret went through the hook:\n%s", out)
	}
	gitIn(t, repo, "rm", "-q", "--cached", "config/leak.env")
	if code, out := preCommit(t, repo, env, "git", "commit", "-q", "-m", "clean"); code != 0 {
		t.Fatalf("git commit without the secret: exit %d, want 0\n%s", code, out)
	}
	// The secret is still in the work tree, unstaged: the hook looks at
	// what the commit records, not at the work tree.
	if _, err := os.Stat(filepath.Join(repo, "config", "leak.env")); err != nil {
		t.Fatal(err)
	}
}

// preCommitEnv is the environment for pre-commit: its own cache in a
// temporary directory, git without user configuration, and PATH starting
// with pathDirs.
func preCommitEnv(t *testing.T, pathDirs ...string) []string {
	t.Helper()
	env := []string{"PRE_COMMIT_HOME=" + t.TempDir()}
	for _, kv := range gitEnv() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "PRE_COMMIT") {
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+strings.Join(append(pathDirs, os.Getenv("PATH")), string(os.PathListSeparator)))
}

func needPreCommit(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"pre-commit", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
}

func TestPreCommitSystemHookFailsOnAStagedSecret(t *testing.T) {
	needPreCommit(t)
	t.Parallel()
	hookRepo, rev := snapshotRepo(t)
	repo := hookUserRepo(t, hookRepo, rev, "spindle-system")
	// language: system runs the spindle on PATH: the one under test.
	checkHookGatesCommits(t, repo, preCommitEnv(t, filepath.Dir(binary)))
}

// The golang hook has pre-commit build spindle itself with go install ./...
// in its own clone of the hook repository. It runs offline here: Go takes
// modules from this machine's module cache (GOPROXY=off) and uses the
// local toolchain (GOTOOLCHAIN=local), so the test skips when the cache
// does not hold every module the build needs.
func TestPreCommitGolangHookBuildsSpindleAndFailsOnAStagedSecret(t *testing.T) {
	needPreCommit(t)
	if testing.Short() {
		t.Skip("pre-commit builds the command from source; not with -short")
	}
	t.Parallel()
	hookRepo, rev := snapshotRepo(t)
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	offline := sharedBuildEnv("GOMODCACHE="+strings.TrimSpace(string(modcache)), "GOPROXY=off", "GOTOOLCHAIN=local")
	check := exec.Command("go", "list", "-deps", "./...")
	check.Dir, check.Env = hookRepo, offline
	if out, err := check.CombinedOutput(); err != nil {
		t.Skipf("the module cache cannot build the hook offline: %v\n%s", err, out)
	}
	repo := hookUserRepo(t, hookRepo, rev, "spindle")
	// No spindle on PATH: the hook must run the one pre-commit built.
	env := preCommitEnv(t)
	for _, kv := range offline {
		if k, _, _ := strings.Cut(kv, "="); k == "GOMODCACHE" || k == "GOPROXY" || k == "GOTOOLCHAIN" || k == "GOFLAGS" || k == "CGO_ENABLED" {
			env = append(env, kv)
		}
	}
	if code, out := preCommit(t, repo, env, "pre-commit", "install-hooks"); code != 0 {
		t.Fatalf("pre-commit install-hooks (go install ./... in the hook repository): exit %d\n%s", code, out)
	}
	checkHookGatesCommits(t, repo, env)
}

// TestPreCommitGolangHookInstallsOnlySpindle: pre-commit's golang hooks run
// `go install ./...` in the hook repository, which installs every main
// package the default build sees; the project's measuring and generating
// tools carry the spindletools build tag so that only cmd/spindle is
// installed.
func TestPreCommitGolangHookInstallsOnlySpindle(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	mains := strings.Fields(string(out))
	if want := []string{"github.com/spindle-go/spindle/cmd/spindle"}; !slices.Equal(mains, want) {
		t.Errorf("go install ./... would install %v, want only %v", mains, want)
	}
}
