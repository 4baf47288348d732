package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDropInLogsWhatGitleaksLogs checks the drop-ins' log lines that
// gitleaks has too, in its words: at -l debug the config found, the
// --enable-rule notice, and the warning for each file
// --max-target-megabytes skips; and spindle's own debug lines (the rules
// by catalog, what is scanned, the phase times). With gitleaks installed,
// every one of its lines checked here must be among spindle's.
func TestDropInLogsWhatGitleaksLogs(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"tree/app.env": "AWS_KEY=AKIAZ7QKXW3VUMPLR2TD\nSTRIPE=sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc\n",
		"tree/big.txt": strings.Repeat("0123456789abcdef\n", 2_500_000/17+1),
	})
	args := []string{"dir", "tree", "--no-banner", "--no-color", "-l", "debug", "--max-target-megabytes", "1", "--enable-rule", "aws-access-token,stripe-access-token"}
	r := runIn(t, binary, dir, args...)
	lines := logLines(r.stderr)
	want := []string{
		"T DBG no gitleaks config found in path tree/.gitleaks.toml, using default gitleaks config",
		"T INF Overriding enabled rules: aws-access-token, stripe-access-token",
		"T WRN skipping file: too large max_size=1MB, size=2MB path=tree/big.txt",
		"T WRN leaks found: 2",
	}
	for _, w := range want {
		if !slices.Contains(lines, w) {
			t.Errorf("spindle's log lacks %q:\n%s", w, strings.Join(lines, "\n"))
		}
	}
	for _, prefix := range []string{"T DBG rules: 2: 2 of gitleaks v8.30.1 defaults, 0 of spindle's own, 0 of the config", "T DBG scanning: ", "T DBG phases: enumerate "} {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, prefix) }) {
			t.Errorf("spindle's log lacks a line %q...:\n%s", prefix, strings.Join(lines, "\n"))
		}
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	// At the default level, neither the debug lines nor the phases.
	if r := runIn(t, binary, dir, "dir", "tree", "--no-banner", "--max-target-megabytes", "1"); strings.Contains(r.stderr, "DBG") || !strings.Contains(r.stderr, "WRN skipping file: too large") {
		t.Errorf("-l info: debug lines shown, or no too-large warning:\n%s", r.stderr)
	}
	if gl, err := exec.LookPath(filepath.Join(gitleaksHome(), "gitleaks")); err == nil {
		g := runIn(t, gl, dir, args...)
		// gitleaks colours the lines it logs before it reads --no-color.
		glLines := logLines(regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(g.stderr, ""))
		for _, w := range want {
			if !slices.Contains(glLines, w) {
				t.Errorf("the test's line %q is not gitleaks' (its log:\n%s)", w, strings.Join(glLines, "\n"))
			}
		}
		if g.code != r.code {
			t.Errorf("exit %d, gitleaks %d", r.code, g.code)
		}
	}
}

// gitleaksHome is where go install puts gitleaks: $(go env GOPATH)/bin.
func gitleaksHome() string {
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return ""
	}
	return filepath.Join(strings.TrimSpace(string(out)), "bin")
}

// TestDetectAndProtectTakeGitleaksFlags runs gitleaks' older commands with
// flags gitleaks v8.30.1 accepts there: detect --no-git --follow-symlinks
// -s, a list flag carried over to the directory scan whole, arguments
// ignored as gitleaks ignores them; protect with --log-opts, which it
// ignores; each finding what dir and git find.
func TestDetectAndProtectTakeGitleaksFlags(t *testing.T) {
	dir := dropInTree(t)
	dirRun := runIn(t, binary, dir, "dir", "tree", "-c", "rules.toml", "--no-banner", "-f", "json", "-r", "-")
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"detect", "--no-git", "--follow-symlinks", "-s", "tree", "-c", "rules.toml", "--no-banner", "-f", "json", "-r", "-", "ignored-arg"}, 3},
		{[]string{"detect", "--no-git", "-s", "tree", "-c", "rules.toml", "--no-banner", "-f", "json", "-r", "-", "--enable-rule", "acme-key,github-pat"}, 2},
		{[]string{"detect", "--source", "tree", "-c", "rules.toml", "--no-banner", "-f", "json", "-r", "-", "--log-opts=--all", "--platform", "github"}, 3},
	} {
		r := runIn(t, binary, dir, c.args...)
		if r.code != 1 {
			t.Errorf("%v: exit %d, want 1\n%s", c.args, r.code, r.stderr)
			continue
		}
		if n := len(parseJSON(t, r.stdout)); n != c.want {
			t.Errorf("%v: %d findings, want %d\n%s", c.args, n, c.want, r.stdout)
		}
		if c.want == 3 && c.args[1] == "--no-git" && r.stdout != dirRun.stdout {
			t.Errorf("detect --no-git reports differ from dir's:\n%s\n%s", r.stdout, dirRun.stdout)
		}
	}
	gitIn(t, filepath.Join(dir, "tree"), "add", "-A")
	if r := runIn(t, binary, dir, "protect", "--staged", "--log-opts=--all", "-s", "tree", "-c", "rules.toml", "--no-banner", "extra"); r.code != 0 {
		t.Errorf("protect --staged --log-opts, nothing staged: exit %d, want 0\n%s", r.code, r.stderr)
	}
}
