package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	if fs := parseJSON(t, r.stdout); len(fs) != 1 || fs[0].File != "app.log" || fs[0].Line != 50001 {
		t.Errorf("findings %+v, want app.log:50001", fs)
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

	r := invoke(t, dir, "git", "-r", "-", "-f", "json", "--no-banner")
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
	if r := invoke(t, dir, "git", "--staged", "-v"); r.code != 1 || !strings.Contains(r.stdout, "File:        new.env\n") {
		t.Errorf("--staged with a staged token: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// As gitleaks: an error is exit 1.
	if r := invoke(t, t.TempDir(), "git"); r.code != 1 || !strings.Contains(r.stderr, "not a git repository") {
		t.Errorf("outside a repository: exit %d, %q", r.code, r.stderr)
	}
}

// TestWarningsClassesAndStrict: lost data fails the scan by default (exit
// 2, naming what was lost, even with -q), noise does not; --strict is
// accepted and changes nothing; --allow-partial accepts a partial result
// and says so; repeated warnings collapse unless -v.
func TestWarningsClassesAndStrict(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("some text to compress\n"), 5000))
	zw.Close()
	files := map[string]string{".gitleaks.toml": testRules, "ok.txt": "k=" + token(1) + "\n"}
	for i := range 8 {
		files[fmt.Sprintf("broken%d.gz", i)] = string(gz.Bytes()[:gz.Len()/2]) // truncated: lost data
	}
	files["links/ok.txt"] = "k=" + token(2) + "\n"
	writeTree(t, dir, files)
	os.Symlink("missing", filepath.Join(dir, "links", "dangling"))

	noise := invoke(t, dir, "scan", "-c", ".gitleaks.toml", "--strict", "--follow-symlinks", "links")
	if noise.code != 1 || !strings.Contains(noise.stderr, "dangling") {
		t.Errorf("noise only: exit %d, want 1 (a finding)\n%s", noise.code, noise.stderr)
	}
	if plain := invoke(t, dir, "scan", "-c", ".gitleaks.toml", "--follow-symlinks", "links"); plain.code != 1 {
		t.Errorf("noise only, without --strict: exit %d, want 1 (a finding)\n%s", plain.code, plain.stderr)
	}
	for _, args := range [][]string{{"scan", "."}, {"scan", "--strict", "."}} {
		lost := invoke(t, dir, args...)
		if lost.code != 2 || !strings.Contains(lost.stderr, "the scan lost data: 8 warnings (8× archive: unexpected EOF); first: broken") ||
			!strings.Contains(lost.stderr, "--allow-partial") {
			t.Errorf("%v: lost data: exit %d, want 2 naming what was lost\n%s", args, lost.code, lost.stderr)
		}
	}
	partial := invoke(t, dir, "scan", "--allow-partial", ".")
	if partial.code != 1 || !strings.Contains(partial.stderr, "partial result (--allow-partial): 8 warnings lost data") {
		t.Errorf("--allow-partial: exit %d, want 1 (the findings) and the summary saying the result is partial\n%s", partial.code, partial.stderr)
	}
	lost := invoke(t, dir, "scan", ".")
	if n := strings.Count(lost.stderr, "spindle: warning: broken"); n != warnRepeat || !strings.Contains(lost.stderr, "3 warnings more like that") {
		t.Errorf("%d broken-archive warnings printed, want %d and a count of the rest\n%s", n, warnRepeat, lost.stderr)
	}
	if v := invoke(t, dir, "scan", "-v", "."); strings.Count(v.stderr, "spindle: warning: broken") != 8 {
		t.Errorf("-v: want all 8 warnings\n%s", v.stderr)
	}
	if q := invoke(t, dir, "scan", "-q", "."); strings.Contains(q.stderr, "spindle: warning") || q.code != 2 || !strings.Contains(q.stderr, "the scan lost data: 8 warnings") {
		t.Errorf("-q: exit %d, want 2, no warnings printed but the error naming what was lost\n%s", q.code, q.stderr)
	}
	// Nothing readable at all: exit 2 whatever the flags. (Root reads
	// every file, so only another user can make one unreadable here.)
	if os.Geteuid() != 0 {
		locked := filepath.Join(dir, "locked.txt")
		os.WriteFile(locked, []byte("k="+token(3)), 0)
		if r := invoke(t, dir, "scan", "locked.txt"); r.code != 2 || !strings.Contains(r.stderr, "nothing could be read") {
			t.Errorf("nothing readable: exit %d\n%s", r.code, r.stderr)
		}
	}
}

func TestGitSeveralRepositories(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	for i, name := range []string{"alpha", "beta", "gamma"} {
		dir := filepath.Join(root, name)
		writeTree(t, dir, map[string]string{"app.env": "k=" + token(i) + "\n"})
		for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "init"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x",
				"GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	writeTree(t, root, map[string]string{"repos.txt": "# more\ngamma\n", ".gitleaks.toml": testRules})
	r := invoke(t, root, "git", "-c", ".gitleaks.toml", "-r", "-", "-f", "jsonl", "alpha", "beta", "--repos", "repos.txt")
	if r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{`"file":"alpha/app.env"`, `"file":"beta/app.env"`, `"file":"gamma/app.env"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %s:\n%s", want, r.stdout)
		}
	}
	if r := invoke(t, root, "git", "nosuch/repo"); r.code != 1 {
		t.Errorf("a missing repository: exit %d\n%s", r.code, r.stderr)
	}
}

// Every archive budget has a flag, and --max-file-size caps members too:
// a member over it is cut with a warning and its siblings are read.
func TestArchiveBudgetFlags(t *testing.T) {
	dir := t.TempDir()
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for i, body := range []string{"k=" + token(1), strings.Repeat("x", 4096) + "\nk=" + token(2), "k=" + token(3), "k=" + token(4)} {
		w, _ := zw.Create(fmt.Sprintf("m%d.txt", i))
		w.Write([]byte(body))
	}
	zw.Close()
	writeTree(t, dir, map[string]string{".gitleaks.toml": testRules, "a.zip": zb.String()})
	count := func(r result) int { return strings.Count(r.stdout, `"rule_id"`) }

	r := invoke(t, dir, "scan", "-f", "jsonl", "--max-file-size", "1k", ".")
	if count(r) != 3 || !strings.Contains(r.stderr, "a.zip!m1.txt") {
		t.Errorf("--max-file-size 1k: %d findings, want 3 (the big member cut, its siblings read)\n%s", count(r), r.stderr)
	}
	r = invoke(t, dir, "scan", "-f", "jsonl", "--archive-max-entries", "2", ".")
	if count(r) != 2 || strings.Count(r.stderr, "warning: a.zip!m") != 2 || r.code != 2 || !strings.Contains(r.stderr, "the scan lost data: 2 warnings (2× archive: entries budget exceeded") {
		t.Errorf("--archive-max-entries 2: %d findings, exit %d; want 2, the 2 entries past it named, and exit 2 for the lost data\n%s", count(r), r.code, r.stderr)
	}
	if r := invoke(t, dir, "scan", "--archive-fail-on-budget", "--archive-max-entries", "2", "."); r.code != 2 {
		t.Errorf("--archive-fail-on-budget: exit %d, want 2\n%s", r.code, r.stderr)
	}
	for _, bad := range [][]string{{"--archive-max-ratio", "0.5"}, {"--archive-timeout", "-1s"}, {"-j", "100000"}, {"--max-decode-depth", "-1"}} {
		if r := invoke(t, dir, append([]string{"scan"}, append(bad, ".")...)...); r.code != 2 || !strings.Contains(r.stderr, bad[0]) {
			t.Errorf("%v: exit %d, want 2 naming the flag\n%s", bad, r.code, r.stderr)
		}
	}
}

// A reader that goes away mid-report (spindle scan | head -1) ends the
// scan cleanly: exit 141 with a line on standard error saying the report
// is incomplete, and no spool file (decoded archive content, secrets and
// all) left in TMPDIR.
func TestBrokenPipeLeavesNothingBehind(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	// A zip inside a tar is spooled (a zip needs random access); make it
	// larger than the in-memory spool so it goes to a file.
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for i := range 300 {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("m%d.txt", i), Method: zip.Store})
		w.Write([]byte(strings.Repeat("filler\n", 3000) + "k=" + token(i) + "\n"))
	}
	zw.Close()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	tw.WriteHeader(&tar.Header{Name: "inner.zip", Mode: 0o600, Size: int64(zb.Len())})
	tw.Write(zb.Bytes())
	tw.Close()
	writeTree(t, dir, map[string]string{".gitleaks.toml": testRules, "bundle.tar": tb.String()})
	cmd := exec.Command(binary, "scan", "-f", "jsonl", "-j", "1", "--archive-spool-memory", "64k", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, "rule_id") {
		t.Fatalf("first line %q: %v", line, err)
	}
	out.Close() // the reader goes away, as head does
	cmd.Wait()
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() || ws.ExitStatus() != exitBrokenPipe {
		t.Errorf("killed by a signal %v / exit %d: want exit %d, the scan ended on its own", ws.Signaled(), ws.ExitStatus(), exitBrokenPipe)
	}
	if !strings.Contains(stderr.String(), "broken pipe): the report is incomplete") {
		t.Errorf("standard error does not say the report is incomplete:\n%s", stderr.String())
	}
	left, _ := os.ReadDir(tmp)
	if len(left) != 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}
