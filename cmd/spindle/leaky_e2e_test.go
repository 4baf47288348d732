package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// leakyHistory makes a repository like the well-known leaky test
// repositories: the files people leak (.env, cloud credentials, keys,
// package manager and CI configs, framework settings), a few dozen
// secrets of varied kinds added over a dozen commits, some edited, moved
// or deleted later, one base64-encoded, some that only spindle's own
// rules find (.netrc, .pgpass, a URL's password), on a branch merged
// back. The secrets are drawn from a seeded generator, so the history is
// the same on every run. It returns the repository's directory.
func leakyHistory(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	rng := rand.New(rand.NewPCG(30, 2026))
	const (
		upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		lower  = "abcdefghijklmnopqrstuvwxyz"
		digits = "0123456789"
		alnum  = upper + lower + digits
		hexd   = digits + "abcdef"
	)
	draw := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(gitEnv(), "GIT_AUTHOR_DATE=2025-06-01T10:00:00Z", "GIT_COMMITTER_DATE=2025-06-01T10:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	commit := func(msg string, files map[string]string) {
		t.Helper()
		writeTree(t, dir, files)
		git("add", "-A")
		git("commit", "-q", "--allow-empty", "-m", msg)
	}
	pem := func(kind string) string {
		var b strings.Builder
		b.WriteString("-----BEGIN " + kind + " PRIVATE KEY-----\n")
		for range 12 {
			b.WriteString(draw(alnum+"+/", 64) + "\n")
		}
		b.WriteString(draw(alnum+"+/", 20) + "==\n-----END " + kind + " PRIVATE KEY-----\n")
		return b.String()
	}
	jwt := func() string {
		enc := base64.RawURLEncoding.EncodeToString
		return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(`{"sub":"`+draw(digits, 10)+`","name":"svc","iat":1717000000}`)) + "." + draw(alnum+"-_", 43)
	}
	git("init", "-q", "-b", "main")
	commit("initial commit", map[string]string{"README.md": "# shop\n\nAn online shop.\n", "src/app.py": "print('hello')\n"})
	commit("add environment", map[string]string{
		".env": "DEBUG=true\nAWS_ACCESS_KEY_ID=AKIA" + draw(upper+"234567", 16) + "\nAWS_SECRET_ACCESS_KEY=" + draw(alnum+"/+", 40) +
			"\nSTRIPE_SECRET_KEY=sk_live_" + draw(alnum, 24) + "\nSENDGRID_API_KEY=SG." + draw(alnum+"-_", 22) + "." + draw(alnum+"-_", 43) + "\n",
		".aws/credentials": "[default]\naws_access_key_id = AKIA" + draw(upper+"234567", 16) + "\naws_secret_access_key = " + draw(alnum+"/+", 40) + "\n",
	})
	commit("deploy keys", map[string]string{
		"deploy/id_rsa":         pem("RSA"),
		"deploy/server.key":     pem("EC"),
		"deploy/deploy.sh":      "#!/bin/sh\nexport GITHUB_TOKEN=ghp_" + draw(alnum, 36) + "\ncurl -H \"Authorization: token $GITHUB_TOKEN\" https://api.github.com/\n",
		"deploy/.npmrc":         "//registry.npmjs.org/:_authToken=npm_" + draw(alnum, 36) + "\n",
		"deploy/notify.py":      "SLACK_WEBHOOK = 'https://hooks.slack.com/services/T" + draw(upper+digits, 8) + "/B" + draw(upper+digits, 10) + "/" + draw(alnum, 24) + "'\n",
		"deploy/.gitlab-ci.yml": "variables:\n  GITLAB_TOKEN: glpat-" + draw(alnum+"_-", 20) + "\n",
	})
	commit("settings", map[string]string{
		"src/settings.py": "SECRET_KEY = '" + draw(alnum, 50) + "'\nDATABASES = {'default': {'PASSWORD': '" + draw(alnum, 16) + "'}}\n" +
			"SLACK_BOT_TOKEN = 'xoxb-" + draw(digits, 12) + "-" + draw(digits, 13) + "-" + draw(alnum, 24) + "'\n",
		"src/config.json": `{"api_key": "` + draw(hexd, 32) + `", "jwt": "` + jwt() + `", "google": "AIza` + draw(alnum+"-_", 35) + `"}` + "\n",
		"wp-config.php":   "<?php\ndefine('DB_PASSWORD', '" + draw(alnum, 18) + "');\ndefine('AUTH_KEY', '" + draw(alnum+"!@#", 64) + "');\n",
	})
	commit("credentials for tools", map[string]string{
		".netrc":             "machine api.example.com\n  login deploy\n  password " + draw(alnum, 20) + "\n",
		".pgpass":            "db.internal:5432:shop:shop:" + draw(alnum, 20) + "\n",
		"docker/config.json": `{"auths": {"registry.example.com": {"auth": "` + base64.StdEncoding.EncodeToString([]byte("ci:"+draw(alnum, 20))) + `"}}}` + "\n",
		"src/db.py":          "DSN = 'postgres://shop:" + draw(alnum, 16) + "@db.internal:5432/shop'\n",
	})
	commit("encoded config", map[string]string{
		"k8s/secret.yaml": "apiVersion: v1\nkind: Secret\ndata:\n  token: " + base64.StdEncoding.EncodeToString([]byte("GITHUB_TOKEN=ghp_"+draw(alnum, 36))) + "\n",
		"src/payments.js": "const stripe = require('stripe')('sk_live_" + draw(alnum, 24) + "');\nconst twilio = 'SK" + draw(hexd, 32) + "';\n",
	})
	// A branch, merged back without conflicts.
	git("checkout", "-q", "-b", "feature")
	commit("feature: analytics", map[string]string{
		"src/analytics.py": "MIXPANEL = '" + draw(hexd, 32) + "'\nOPENAI_API_KEY = 'sk-" + draw(alnum, 20) + "T3BlbkFJ" + draw(alnum, 20) + "'\n",
		"src/pypi.cfg":     "[pypi]\npassword = pypi-AgEIcHlwaS5vcmc" + draw(alnum+"-_", 60) + "\n",
	})
	git("checkout", "-q", "main")
	commit("hotfix", map[string]string{"src/app.py": "print('hello, world')\napi_token = \"" + draw(alnum, 32) + "\"\n"})
	mergeCmd := exec.Command("git", "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
	mergeCmd.Dir, mergeCmd.Env = dir, append(gitEnv(), "GIT_AUTHOR_DATE=2025-06-01T10:00:00Z", "GIT_COMMITTER_DATE=2025-06-01T10:00:00Z")
	if out, err := mergeCmd.CombinedOutput(); err != nil {
		t.Fatalf("git merge: %v\n%s", err, out)
	}
	// Secrets removed, moved and edited: still in the history.
	if err := os.Remove(filepath.Join(dir, ".env")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "deploy", "keys"), 0o755); err != nil {
		t.Fatal(err)
	}
	git("mv", "deploy/id_rsa", "deploy/keys/id_rsa")
	commit("remove .env, move the key", map[string]string{
		"src/settings.py": "import os\nSECRET_KEY = os.environ['SECRET_KEY']\nSLACK_BOT_TOKEN = 'xoxb-" + draw(digits, 12) + "-" + draw(digits, 13) + "-" + draw(alnum, 24) + "'\n",
	})
	commit("rotate", map[string]string{
		"deploy/deploy.sh": "#!/bin/sh\nexport GITHUB_TOKEN=ghp_" + draw(alnum, 36) + "\n# old: ghp_" + draw(alnum, 36) + "\n",
		"src/config.json":  `{"api_key": "` + draw(hexd, 32) + `", "google": "AIza` + draw(alnum+"-_", 35) + `"}` + "\n",
	})
	return dir
}

// TestDropInIsGitleaksOnALeakyHistory runs gitleaks and spindle's drop-ins
// with no config on leakyHistory, its history (git) and its files (dir),
// and wants the same exit status and the same findings: rule ids, files,
// lines, commits, secrets and fingerprints, none of spindle's own rules.
// With gitleaks' report as the baseline, spindle finds nothing new and
// exits 0. Then gitleaks-action's command line (detect --redact -v
// --exit-code=2 -f sarif -r results.sarif -l debug --log-opts=...) exits
// 2 in both, and the SARIF reports hold the same results.
func TestDropInIsGitleaksOnALeakyHistory(t *testing.T) {
	gl, _ := gitleaksBinary(t)
	repo := leakyHistory(t)
	type outcome struct {
		code int
		keys []string
	}
	scan := func(bin, report string, args ...string) outcome {
		t.Helper()
		cmd := exec.Command(bin, append(args, "--no-banner", "-l", "error", "-f", "json", "-r", report)...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s %v: %v\n%s", bin, args, err, out)
		}
		return outcome{code, keysOf(readGLFindings(t, report))}
	}
	work := t.TempDir()
	for _, mode := range [][]string{{"git", "."}, {"dir", "."}} {
		name := mode[0]
		g := scan(gl, filepath.Join(work, name+"-gl.json"), mode...)
		s := scan(binary, filepath.Join(work, name+"-sp.json"), mode...)
		t.Logf("%s: gitleaks exit %d, %d findings; spindle exit %d, %d findings", name, g.code, len(g.keys), s.code, len(s.keys))
		if least := map[string]int{"git": 25, "dir": 15}[name]; len(g.keys) < least {
			t.Fatalf("%s: gitleaks finds %d secrets, want %d or more: the test's history is wrong", name, len(g.keys), least)
		}
		if g.code != s.code {
			t.Errorf("%s: exit %d, gitleaks %d", name, s.code, g.code)
		}
		if !slices.Equal(g.keys, s.keys) {
			t.Errorf("%s: findings differ\n%s", name, keyDiff(g.keys, s.keys))
		}
		b := scan(binary, filepath.Join(work, name+"-bl.json"), append(mode, "-b", filepath.Join(work, name+"-gl.json"))...)
		if b.code != 0 || len(b.keys) != 0 {
			t.Errorf("%s with gitleaks' report as the baseline: exit %d, %d findings; want 0 and none", name, b.code, len(b.keys))
		}
		// spindle's own rules, asked for, find more (the .netrc, .pgpass
		// and URL passwords) and keep every finding of gitleaks'.
		more := scan(binary, filepath.Join(work, name+"-more.json"), append(mode, "--spindle-rules")...)
		if len(more.keys) <= len(g.keys) {
			t.Errorf("%s --spindle-rules: %d findings, want more than gitleaks' %d", name, len(more.keys), len(g.keys))
		}
	}

	// gitleaks-action's invocation on a push of the last commits.
	action := func(bin, report string) (int, []string) {
		cmd := exec.Command(bin, "detect", "--redact", "-v", "--exit-code=2", "-f", "sarif", "-r", report, "-l", "debug",
			"--log-opts=--no-merges --first-parent HEAD~3^..HEAD")
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s detect: %v\n%s", bin, err, out)
		}
		return code, sarifResults(t, report)
	}
	gCode, gRes := action(gl, filepath.Join(work, "gl.sarif"))
	sCode, sRes := action(binary, filepath.Join(work, "sp.sarif"))
	if gCode != 2 || sCode != 2 {
		t.Errorf("gitleaks-action's command line: exit %d, gitleaks %d; want 2 (leaks)", sCode, gCode)
	}
	if len(gRes) == 0 {
		t.Fatal("gitleaks' SARIF holds no result: the range is wrong")
	}
	if !slices.Equal(gRes, sRes) {
		t.Errorf("SARIF results differ\n%s", keyDiff(gRes, sRes))
	}
}

// sarifResults returns a SARIF report's results, each as its JSON, sorted:
// columns and tags included, which the drop-ins write as gitleaks does.
func sarifResults(t *testing.T, path string) []string {
	t.Helper()
	var log struct {
		Runs []struct {
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(mustRead(t, path), &log); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, r := range log.Runs {
		for _, res := range r.Results {
			var v map[string]any
			if err := json.Unmarshal(res, &v); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(v) // keys sorted
			out = append(out, string(b))
		}
	}
	slices.Sort(out)
	return out
}

// keyDiff lists what only one side has.
func keyDiff(want, got []string) string {
	var b strings.Builder
	for _, k := range want {
		if !slices.Contains(got, k) {
			fmt.Fprintf(&b, "  gitleaks only: %s\n", k)
		}
	}
	for _, k := range got {
		if !slices.Contains(want, k) {
			fmt.Fprintf(&b, "  spindle only:  %s\n", k)
		}
	}
	return b.String()
}
