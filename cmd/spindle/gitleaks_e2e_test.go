package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitleaksBinary finds gitleaks v8.30.1's binary and default config, or
// skips.
func gitleaksBinary(t *testing.T) (bin, config string) {
	t.Helper()
	bin, err := exec.LookPath("gitleaks")
	if err != nil {
		gopath, _ := exec.Command("go", "env", "GOPATH").Output()
		bin = filepath.Join(strings.TrimSpace(string(gopath)), "bin", "gitleaks")
		if _, err := os.Stat(bin); err != nil {
			t.Skip("gitleaks not installed")
		}
	}
	modcache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	config = filepath.Join(strings.TrimSpace(string(modcache)), "github.com/zricethezav/gitleaks/v8@v8.30.1/config/gitleaks.toml")
	if _, err := os.Stat(config); err != nil {
		t.Skip("gitleaks' config not in the module cache")
	}
	return bin, config
}

// glReport is the identity of a finding in gitleaks' JSON report.
type glReport []map[string]any

func readGitleaksJSON(t *testing.T, path string) glReport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r glReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return r
}

func (r glReport) keys() []string {
	var out []string
	for _, f := range r {
		out = append(out, strings.Join([]string{str(f["Commit"]), str(f["File"]), str(f["StartLine"]), str(f["RuleID"]), str(f["Secret"])}, "|"))
	}
	slices.Sort(out)
	return out
}

func str(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestGitleaksDropIn runs the same command lines through gitleaks and
// spindle (the binary's name changed, nothing else) and compares exit
// codes, the report's fields and the findings, on a directory and on a
// repository's history.
func TestGitleaksDropIn(t *testing.T) {
	gl, config := gitleaksBinary(t)
	cfgText, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"deploy/app.env": "AWS_ACCESS_KEY_ID=AKIAQYLPMN5HHHFPZAM2\nGITHUB_TOKEN=ghp_" + "R8kz2Lq9Xw4Vt7Ny1Pc6Hs3Jd5Fg0Bm2Ae9U\n",
		"src/main.go":    "package main\n\nconst stripe = \"sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc\"\n",
		"docs/readme.md": "nothing to see\n",
		".gitleaks.toml": string(cfgText), // the third command finds it, as gitleaks does
	})
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x",
			"GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "add things")
	os.Remove(filepath.Join(dir, "src/main.go"))
	git("commit", "-qam", "remove the stripe key")

	for _, args := range [][]string{
		{"dir", "-c", config, "-r", "REPORT", "--no-banner", "-l", "error", "."},
		// gitleaks names files with the PATH as spelled: relative, absolute.
		{"dir", "-c", config, "-r", "REPORT", "--no-banner", "-l", "error", "../" + filepath.Base(dir)},
		{"dir", "-c", config, "-r", "REPORT", "--no-banner", "-l", "error", dir + "/"},
		{"git", "-c", config, "-r", "REPORT", "-f", "json", "--no-banner", "-l", "error", "."},
		{"git", "-r", "REPORT", "--report-format", "json", "--redact", "--exit-code", "7", "-l", "error", "."},
	} {
		name := strings.Join(args[:3], " ")
		run := func(bin, report string) (int, glReport) {
			a := slices.Clone(args)
			a[slices.Index(a, "REPORT")] = report
			cmd := exec.Command(bin, a...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("%s %v: %v\n%s", bin, a, err, out)
			}
			if _, err := os.Stat(report); err != nil {
				t.Fatalf("%s %v: exit %d, no report\n%s", bin, a, code, out)
			}
			return code, readGitleaksJSON(t, report)
		}
		glCode, glRep := run(gl, filepath.Join(t.TempDir(), "gl.json"))
		spCode, spRep := run(binary, filepath.Join(t.TempDir(), "sp.json"))
		if glCode != spCode {
			t.Errorf("%s: exit %d, gitleaks %d", name, spCode, glCode)
		}
		if len(glRep) == 0 {
			t.Fatalf("%s: gitleaks found nothing; the test tree is wrong", name)
		}
		if g, s := glRep.keys(), spRep.keys(); !slices.Equal(g, s) {
			t.Errorf("%s: findings\n%v\ngitleaks\n%v", name, s, g)
		}
		for k := range glRep[0] {
			if _, ok := spRep[0][k]; !ok {
				t.Errorf("%s: the report lacks gitleaks' field %s", name, k)
			}
		}
	}
}
