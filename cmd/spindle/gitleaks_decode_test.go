package main

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Encoders for the decoding tests, each the way such text appears in real
// files.
var encoders = map[string]func(string) string{
	"b64":    func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
	"b64url": func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) },
	"hex":    func(s string) string { return hex.EncodeToString([]byte(s)) },
	"pct":    func(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") },
	"pctall": func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, "%%%02X", s[i])
		}
		return b.String()
	},
	"uni": func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, "\\u%04x", r)
		}
		return b.String()
	},
}

// encodedSamples writes files holding secrets that gitleaks' default
// rules find, encoded in every way and nesting both tools decode, whole
// lines and values alone, and returns their names.
func encodedSamples(t *testing.T, dir string) {
	t.Helper()
	lines := []string{
		"aws_access_key_id = AKIAQYLPMN5HHHFPZAM2",
		"GITHUB_TOKEN=ghp_" + "R8kz2Lq9Xw4Vt7Ny1Pc6Hs3Jd5Fg0Bm2Ae9U",
		`stripe = "sk_live_` + `4eC39HqLyjWDarjtT1zdp7dc"`,
		"slack: xoxb-" + "263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1",
		"gitlab glpat-" + "Qf3xW9kLm2Np8RtVy7Zb",
		"SENDGRID_API_KEY=SG." + "ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
	}
	names := []string{"b64", "b64url", "hex", "pct", "pctall", "uni"}
	files := map[string]string{}
	for i, line := range lines {
		value := line[strings.IndexAny(line, "=:")+1:]
		value = strings.Trim(strings.TrimSpace(value), `"`)
		for _, n := range names {
			enc := encoders[n]
			files[fmt.Sprintf("%s/line%d.txt", n, i)] = "before\nconfig: " + enc(line) + "\nafter\n"
			files[fmt.Sprintf("%s/value%d.yaml", n, i)] = "kind: Secret\ndata:\n  token: " + enc(value) + "\n"
		}
		// Nested: base64 of base64, base64 of hex, percent of base64.
		files[fmt.Sprintf("nested/b64b64_%d.txt", i)] = "x " + encoders["b64"](encoders["b64"](line)) + "\n"
		files[fmt.Sprintf("nested/b64hex_%d.txt", i)] = "x " + encoders["b64"](encoders["hex"](line)) + "\n"
		files[fmt.Sprintf("nested/pctb64_%d.txt", i)] = "u=" + encoders["pctall"](encoders["b64"](line)) + "\n"
		// Two on a line, and one in the middle of a long line.
		files[fmt.Sprintf("mixed/two%d.txt", i)] = "a=" + encoders["b64"](line) + " b=" + encoders["hex"](line) + "\n"
		files[fmt.Sprintf("mixed/long%d.txt", i)] = strings.Repeat("lorem ipsum ", 300) + encoders["b64"](line) + strings.Repeat(" dolor", 300) + "\n"
	}
	writeTree(t, dir, files)
}

// TestDecodedFindingsMatchGitleaks scans encoded secrets with gitleaks and
// spindle, both with gitleaks' default config and decoding depth, and
// compares file, line, rule, secret and tags of every finding. Columns
// are left out: gitleaks counts a column after the first line from the
// newline before it (one more than spindle), and a decoded match that
// ends on the newline after the encoded text gets an end column of 0 on
// the next line.
func TestDecodedFindingsMatchGitleaks(t *testing.T) {
	gl, config := gitleaksBinary(t)
	dir := t.TempDir()
	encodedSamples(t, dir)
	keys := func(bin string) []string {
		report := filepath.Join(t.TempDir(), "r.json")
		cmd := exec.Command(bin, "dir", "-c", config, "-r", report, "--no-banner", "-l", "error", "--exit-code", "0", ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", bin, err, out)
		}
		var out []string
		for _, f := range readGitleaksJSON(t, report) {
			var tags []string
			for _, tag := range f["Tags"].([]any) {
				tags = append(tags, tag.(string))
			}
			slices.Sort(tags)
			out = append(out, strings.Join([]string{str(f["File"]), str(f["StartLine"]),
				str(f["RuleID"]), str(f["Secret"]), strings.Join(tags, ",")}, "|"))
		}
		slices.Sort(out)
		return out
	}
	want, got := keys(gl), keys(binary)
	decoded := 0
	for _, k := range want {
		if strings.Contains(k, "decode-depth:") {
			decoded++
		}
	}
	if decoded < 50 {
		t.Fatalf("gitleaks decoded only %d findings; the samples are wrong:\n%s", decoded, strings.Join(want, "\n"))
	}
	for _, k := range want {
		if !slices.Contains(got, k) {
			t.Errorf("missed: %s", k)
		}
	}
	for _, k := range got {
		if !slices.Contains(want, k) {
			t.Errorf("extra:  %s", k)
		}
	}
	t.Logf("%d findings, %d decoded, equal to gitleaks'", len(want), decoded)
}

// TestDecodingFlags checks the two flags that reach the detector's
// settings: --max-decode-depth (0 turns decoding off, 1 stops before a
// second level) and --ignore-gitleaks-allow, in spindle scan and in the
// drop-in dir.
func TestDecodingFlags(t *testing.T) {
	dir := t.TempDir()
	once := encoders["b64"](token(1))
	twice := encoders["b64"](encoders["hex"](token(2)))
	writeTree(t, dir, map[string]string{
		"rules.toml": testRules,
		"app.env":    "ONE=" + once + "\nTWO=" + twice + "\nRAW=" + token(3) + " # gitleaks:allow\n",
	})
	count := func(args ...string) int {
		t.Helper()
		r := invoke(t, dir, args...)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("spindle %v: exit %d\n%s", args, r.code, r.stderr)
		}
		return strings.Count(r.stdout, `"rule_id"`) + strings.Count(r.stdout, `"RuleID"`)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"scan", "-c", "rules.toml", "-f", "json", "app.env"}, 2},
		{[]string{"scan", "-c", "rules.toml", "-f", "json", "--max-decode-depth", "1", "app.env"}, 1},
		{[]string{"scan", "-c", "rules.toml", "-f", "json", "--max-decode-depth", "0", "app.env"}, 0},
		{[]string{"scan", "-c", "rules.toml", "-f", "json", "--ignore-gitleaks-allow", "app.env"}, 3},
		{[]string{"dir", "-c", "rules.toml", "-f", "json", "-r", "-", "--no-banner", "app.env"}, 2},
		{[]string{"dir", "-c", "rules.toml", "-f", "json", "-r", "-", "--no-banner", "--max-decode-depth", "0", "app.env"}, 0},
		{[]string{"dir", "-c", "rules.toml", "-f", "json", "-r", "-", "--no-banner", "--ignore-gitleaks-allow", "app.env"}, 3},
	} {
		if got := count(c.args...); got != c.want {
			t.Errorf("spindle %s: %d findings, want %d", strings.Join(c.args, " "), got, c.want)
		}
	}
}

// TestNoFindingIsADecodedKeyName: a Kubernetes Secret whose value is the
// base64 of a key name ("aws_secret_access_key", as a secretKeyRef-style
// manifest holds) gives gitleaks' findings with gitleaks' rules: none
// whose secret is the decoded name, and one finding per fingerprint and
// secret in spindle scan (gitleaks' own decoding repeats a finding at
// depth 2 with new tags; the drop-ins keep those, as gitleaks does).
func TestNoFindingIsADecodedKeyName(t *testing.T) {
	gl, config := gitleaksBinary(t)
	dir := t.TempDir()
	name := encoders["b64"]("aws_secret_access_key")
	writeTree(t, dir, map[string]string{
		"k8s/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: aws\ndata:\n  key-name: " + name + "\n  aws_secret_access_key: " +
			encoders["b64"]("wJalrXUtnFEMIK7MDENGbPxRfiCYzEXAMPLEKEY1") + "\n",
	})
	keys := func(bin string, args ...string) []string {
		report := filepath.Join(t.TempDir(), "r.json")
		cmd := exec.Command(bin, append(args, "-c", config, "-r", report, "--no-banner", "-l", "error", "--exit-code", "0", ".")...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", bin, err, out)
		}
		var out []string
		for _, f := range readGitleaksJSON(t, report) {
			if s := str(f["Secret"]); strings.Contains(s, `"aws_secret_access_key"`) {
				t.Errorf("%s: a finding whose secret is the decoded key name: %v", bin, f)
			}
			out = append(out, str(f["Fingerprint"])+"|"+str(f["Secret"])+"|"+str(f["Tags"]))
		}
		slices.Sort(out)
		return out
	}
	want, got := keys(gl, "dir"), keys(binary, "dir")
	if !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("spindle dir:\n%q\ngitleaks:\n%q", got, want)
	}
	r := invoke(t, dir, "scan", "-c", config, "-f", "jsonl", ".")
	seen := map[string]bool{}
	for _, f := range parseJSONL(t, r.stdout) {
		k := f.Fingerprint + "|" + f.Secret
		if seen[k] {
			t.Errorf("spindle scan reports %s twice", k)
		}
		seen[k] = true
	}
}
