package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLostDataFailsEveryCommand: a scan that lost data never says "no
// leaks found" and never exits 0, in spindle scan (exit 2) and in the
// drop-ins dir, git and stdin (exit 1, as their errors, whatever
// --exit-code says); the error names what was lost. --allow-partial
// accepts the partial result; the SARIF and JUnit reports say what was
// lost either way.
func TestLostDataFailsEveryCommand(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x",
			"GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	// A history whose only secret is in a blob the repository lacks.
	git("init", "-q")
	writeTree(t, dir, map[string]string{".gitleaks.toml": testRules, "app.env": "k=" + token(1) + "\n"})
	git("add", ".")
	git("commit", "-qm", "add a token")
	blob := git("rev-parse", "HEAD:app.env")
	if err := os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	neverClean := func(what string, r result, code int) {
		t.Helper()
		if r.code != code || strings.Contains(r.stderr, "no leaks found") || !strings.Contains(r.stderr, "the scan lost data") ||
			!strings.Contains(r.stderr, "--allow-partial") {
			t.Errorf("%s: exit %d, want %d, an error naming the lost data, and never \"no leaks found\"\n%s", what, r.code, code, r.stderr)
		}
	}
	r := invoke(t, dir, "git", "--no-banner")
	neverClean("git", r, 1)
	if !strings.Contains(r.stderr, blob) {
		t.Errorf("git: the missing blob %s is not named\n%s", blob, r.stderr)
	}
	neverClean("git --exit-code 7", invoke(t, dir, "git", "--no-banner", "--exit-code", "7"), 1)
	neverClean("git --strict", invoke(t, dir, "git", "--no-banner", "--strict"), 1)
	partial := invoke(t, dir, "git", "--no-banner", "--allow-partial")
	if partial.code != 0 || strings.Contains(partial.stderr, "no leaks found") || !strings.Contains(partial.stderr, "partial scan: 1 warning lost data") {
		t.Errorf("git --allow-partial: exit %d, want 0 and the log saying the scan was partial\n%s", partial.code, partial.stderr)
	}
	// The reports say it, with and without --allow-partial.
	for _, extra := range [][]string{nil, {"--allow-partial"}} {
		args := append([]string{"git", "--no-banner", "-f", "sarif", "-r", "out.sarif"}, extra...)
		invoke(t, dir, args...)
		var log struct {
			Runs []struct {
				Invocations []struct {
					ExecutionSuccessful bool `json:"executionSuccessful"`
					Notes               []struct {
						Message struct{ Text string } `json:"message"`
					} `json:"toolExecutionNotifications"`
				} `json:"invocations"`
			} `json:"runs"`
		}
		data, err := os.ReadFile(filepath.Join(dir, "out.sarif"))
		if err != nil || json.Unmarshal(data, &log) != nil || len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 ||
			log.Runs[0].Invocations[0].ExecutionSuccessful || len(log.Runs[0].Invocations[0].Notes) != 1 ||
			!strings.Contains(log.Runs[0].Invocations[0].Notes[0].Message.Text, blob) {
			t.Errorf("sarif %v: %v\n%s", extra, err, data)
		}
		os.Remove(filepath.Join(dir, "out.sarif"))
		args = append([]string{"git", "--no-banner", "-f", "junit", "-r", "out.xml"}, extra...)
		invoke(t, dir, args...)
		data, err = os.ReadFile(filepath.Join(dir, "out.xml"))
		if err != nil || !bytes.Contains(data, []byte(`name="lost data"`)) || !bytes.Contains(data, []byte(blob)) {
			t.Errorf("junit %v: %v\n%s", extra, err, data)
		}
		os.Remove(filepath.Join(dir, "out.xml"))
	}

	// Files: a truncated archive, opened, hid what it held.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("some text to compress\n"), 5000))
	zw.Close()
	cut := gz.Bytes()[:gz.Len()/2]
	files := t.TempDir()
	writeTree(t, files, map[string]string{".gitleaks.toml": testRules, "logs.gz": string(cut)})
	neverClean("dir", invoke(t, files, "dir", "--no-banner", "--max-archive-depth", "1", "."), 1)
	neverClean("scan", invoke(t, files, "scan", "."), 2)
	if r := invoke(t, files, "scan", "--allow-partial", "."); r.code != 0 || !strings.Contains(r.stderr, "partial result") {
		t.Errorf("scan --allow-partial: exit %d\n%s", r.code, r.stderr)
	}
	neverClean("stdin", invokeStdin(t, files, string(cut), "stdin", "--no-banner", "--max-archive-depth", "1"), 1)
}

// TestClosedOrFullStandardOutputIsAnError: a report that cannot be written
// to standard output, closed when spindle started or full, fails the
// command with a message, before the scan when it can be told then; a
// report discarded on purpose (> /dev/null) is not an error.
func TestClosedOrFullStandardOutputIsAnError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{".gitleaks.toml": testRules, "a.env": "k=" + token(1) + "\n"})
	sh := func(command string) (int, string) {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", command)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), stderr.String()
	}
	for _, c := range []struct {
		command, want string
		code          int
	}{
		{`"$0" scan . >&-`, "standard output is closed", 2},
		{`"$0" dir --no-banner -r - . >&-`, "standard output is closed", 1},
		{`"$0" dir --no-banner -v . >&-`, "standard output is closed", 1},
		{`"$0" scan . >/dev/full`, "no space left on device", 2},
		{`"$0" scan -f json . >/dev/full`, "no space left on device", 2},
		{`"$0" dir --no-banner -r - . >/dev/full`, "no space left on device", 1},
	} {
		code, stderr := sh(strings.ReplaceAll(c.command, `"$0"`, "'"+binary+"'"))
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, want %d and %q\n%s", c.command, code, c.code, c.want, stderr)
		}
	}
	if code, stderr := sh("'" + binary + "' scan . >/dev/null"); code != 1 {
		t.Errorf("> /dev/null: exit %d, want 1 (a finding)\n%s", code, stderr)
	}
}
