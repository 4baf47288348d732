package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A binary must say what it was built from. Three ways to build it, three
// sources of that answer: -ldflags "-X main.version=..." for release builds
// (the Dockerfile, the GitHub Action), the VCS information Go records when
// it builds in a git checkout (go install ./cmd/spindle from a clone), and
// the module version of go install ...@version.

func TestVersionLinkerFlagNamesTheRelease(t *testing.T) {
	// Not parallel: it sets the package variable the linker would.
	defer func(v string) { version = v }(version)
	version = "v9.8.7"
	if got := versionString(); !strings.HasPrefix(got, "spindle v9.8.7 ") || !strings.Contains(got, " go1.") {
		t.Errorf("versionString() = %q, want spindle v9.8.7 and the toolchain", got)
	}
	if got := moduleVersion(); got != "v9.8.7" {
		t.Errorf("moduleVersion() = %q, want v9.8.7 (SARIF's tool version)", got)
	}
}

// gitEnv is the environment for git commands in tests: a fixed identity,
// no user or system configuration, nothing inherited that points git at
// another repository.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
}

// gitIn runs git in dir and returns its trimmed standard output, failing
// the test on error.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, gitEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// snapshotRepo makes a git repository in a new directory holding this
// repository's work tree as it is now (the files git tracks or would
// track, uncommitted edits included), in one commit, and returns the
// directory and the commit. It stands for "a clone" in tests: unlike a
// clone of HEAD it has the code under test, and unlike a git worktree
// (whose .git is a file) Go recognises it as a checkout.
func snapshotRepo(t *testing.T) (dir, commit string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := repoRoot(t)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout?)", err)
	}
	dir = t.TempDir()
	for name := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, filepath.FromSlash(name))
		if st, err := os.Lstat(src); name == "" || err != nil || !st.Mode().IsRegular() {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(src, dst); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "snapshot")
	return dir, gitIn(t, dir, "rev-parse", "HEAD")
}

// sharedBuildEnv is the environment for builds of the command outside the
// module directory: CGO_ENABLED=0 and -trimpath, as the Dockerfile builds,
// so that every such build shares one set of compiled packages in Go's
// cache (without -trimpath a package's directory is part of its cache
// key). Neither changes what the tests check. GOFLAGS from this machine is
// dropped: it may turn VCS stamping off.
func sharedBuildEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOFLAGS=") && !strings.HasPrefix(kv, "CGO_ENABLED=") && !strings.HasPrefix(kv, "GOBIN=") {
			env = append(env, kv)
		}
	}
	return append(append(env, "CGO_ENABLED=0", "GOFLAGS=-trimpath"), extra...)
}

// goInstallFromClone runs the README's install command, go install
// ./cmd/spindle, in a snapshot of this repository, and returns the
// installed binary and the snapshot's commit.
func goInstallFromClone(t *testing.T) (bin, commit string) {
	t.Helper()
	dir, commit := snapshotRepo(t)
	gobin := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "install", "./cmd/spindle")
	cmd.Dir, cmd.Env = dir, sharedBuildEnv("GOBIN="+gobin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/spindle: %v\n%s", err, out)
	}
	return filepath.Join(gobin, "spindle"), commit
}

func TestVersionFromAGitCheckoutNamesTheCommit(t *testing.T) {
	t.Parallel()
	bin, commit := goInstallFromClone(t)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	v := string(out)
	// Go 1.24 and later also derive a pseudo-version from the commit.
	pseudo := regexp.MustCompile(`^spindle v0\.0\.0-\d{14}-` + commit[:12] + ` `)
	if !strings.Contains(v, "(commit "+commit[:12]+", ") || !pseudo.MatchString(v) {
		t.Errorf("spindle version = %q, want the pseudo-version and commit of %s", v, commit[:12])
	}
	if strings.Contains(v, "modified") || strings.Contains(v, "(devel)") {
		t.Errorf("spindle version = %q: a clean checkout is neither modified nor (devel)", v)
	}
}
