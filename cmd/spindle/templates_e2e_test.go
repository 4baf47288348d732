package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// templateDate is what gitleaks' templates print of the time they were
// rendered ({{ now | date "Jan 02, 2006 15:04:05 MST" }}): the one part of
// their output that two runs cannot share.
var templateDate = regexp.MustCompile(`[A-Z][a-z]{2} \d\d, \d{4} \d\d:\d\d:\d\d [A-Z]+`)

// TestGitleaksReportTemplatesRenderAsGitleaks renders every template in
// gitleaks v8.30.1's report_templates with gitleaks and with spindle, on
// the same scans (a directory, a history with a remote for links, redacted,
// and a scan that finds nothing), with gitleaks' default rules and no
// config, and wants the same bytes but for the rendering time. Each scan
// finds at most one secret: gitleaks passes its templates the findings in
// the order its goroutines found them, which is not repeatable, where
// spindle sorts them.
func TestGitleaksReportTemplatesRenderAsGitleaks(t *testing.T) {
	gl, config := gitleaksBinary(t)
	templates, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(config)), "report_templates", "*.tmpl"))
	if len(templates) < 5 {
		t.Fatalf("report_templates: %d templates, want gitleaks' 5", len(templates))
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"one/deploy/app.env": "x\nSTRIPE=\"sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc\" # <prod> & \"more\"\n",
		"none/readme.md":     "nothing here\n",
		"repo/src/main.go":   "package main\n\nconst key = \"AKIAQYLPMN5HHHFPZAM2\"\n",
	})
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = filepath.Join(dir, "repo")
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Ann <x>", "GIT_AUTHOR_EMAIL=ann@example.com",
			"GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("remote", "add", "origin", "https://github.com/acme/widgets.git")
	git("add", ".")
	git("commit", "-qm", "add the key & <more>")
	scans := map[string][]string{
		"dir":      {"dir", "one"},
		"git":      {"git", "repo"},
		"redacted": {"git", "repo", "--redact=40"},
		"none":     {"dir", "none"},
	}
	for _, tmpl := range templates {
		for name, scan := range scans {
			t.Run(filepath.Base(tmpl)+"/"+name, func(t *testing.T) {
				render := func(bin string) string {
					out := filepath.Join(t.TempDir(), "report.html")
					args := append(append([]string(nil), scan...), "--no-banner", "-l", "error", "--exit-code", "0",
						"--report-template", tmpl, "-f", "template", "-r", out)
					cmd := exec.Command(bin, args...)
					cmd.Dir = dir
					if b, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("%s %v: %v\n%s", bin, args, err, b)
					}
					return templateDate.ReplaceAllString(string(mustRead(t, out)), "DATE")
				}
				want, got := render(gl), render(binary)
				if name != "none" && !strings.Contains(want, "main.go") && !strings.Contains(want, "app.env") {
					t.Fatalf("gitleaks' report names no finding; the test tree is wrong:\n%s", want)
				}
				if got != want {
					t.Errorf("spindle's report differs from gitleaks':\n%s", lineDiff(want, got))
				}
			})
		}
	}
}

// lineDiff shows the first lines where two texts differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 8; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  gitleaks: " + wl + "\n  spindle:  " + gl + "\n")
			shown++
		}
	}
	return b.String()
}
