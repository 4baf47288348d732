package main

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
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
		// Another kind inside a long segment, which gitleaks decodes at
		// the next depth and reports the finding touching it again (a
		// history's line: a percent-encoded URL, %3D to %3D, holding a
		// \u0026); to depth 3; one secret twice in one string; base64
		// whose padding a JSON encoder escaped, kilobytes from the secret.
		name, val, _ := strings.Cut(strings.NewReplacer(" = ", "=", ": ", "=", " ", "=").Replace(line), "=")
		val = strings.Trim(val, `"`)
		url := func(esc string) string {
			return `  "image": "https://cdn.example.com/3/eyJoIjo2NDAsInYiOiIzIn0%3D%3D/media/x?time=2145916800` + esc + name + "=" + val + `%3D",` + "\n"
		}
		files[fmt.Sprintf("repeats/url%d.json", i)] = url(`\u0026`)
		files[fmt.Sprintf("repeats/url2_%d.json", i)] = url(`\\u0026`)
		files[fmt.Sprintf("repeats/urlcp%d.json", i)] = url("U+0026 ")
		files[fmt.Sprintf("repeats/b64esc%d.txt", i)] = "blob: " + encoders["b64"](`a=1\u0026`+name+"="+val+"\n") + "\n"
		files[fmt.Sprintf("repeats/deep%d.txt", i)] = "u=" + encoders["pctall"](encoders["b64"](`x\u0026`+name+"="+val+" ")) + "\n"
		files[fmt.Sprintf("repeats/twice%d.txt", i)] = "x: " + encoders["b64"](line+" and again "+line+"\n") + "\n"
		var cfg strings.Builder
		for j := range 120 {
			fmt.Fprintf(&cfg, "setting_%d = value %d\n", j, j*7)
		}
		cfg.WriteString(line + "\n")
		for cfg.Len()%3 == 0 {
			cfg.WriteString("#")
		}
		files[fmt.Sprintf("repeats/json%d.json", i)] = `{"config":"` + strings.ReplaceAll(encoders["b64"](cfg.String()), "=", `\u003d`) + "\"}\n"
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
	// As multisets: gitleaks reports one secret twice in one encoded
	// string twice, and a finding again at each depth it touches.
	count := map[string]int{}
	for _, k := range want {
		count[k]++
	}
	for _, k := range got {
		count[k]--
	}
	for _, k := range slices.Sorted(maps.Keys(count)) {
		switch n := count[k]; {
		case n > 0:
			t.Errorf("missed %d: %s", n, k)
		case n < 0:
			t.Errorf("extra %d:  %s", -n, k)
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

// TestDropInReportsDecodingRepeats runs the drop-in dir over three files
// whose findings gitleaks v8.30.1 reported (gitleaks dir -c with these
// rules), written down here: a history's line, a percent-encoded URL
// (one segment from the first %3D to the last) holding a \u0026 that
// gitleaks decodes at depth 2 and reports the finding touching it again;
// one secret twice in one base64 string, two findings; and base64 whose
// padding a JSON encoder wrote as \u003d, one run 4 KB long once the
// \u003d is decoded. The findings, their tags included, must be gitleaks'
// as a multiset: equal ones count.
func TestDropInReportsDecodingRepeats(t *testing.T) {
	const rules = `
[[rules]]
id = "aws-access-token"
regex = '''\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b'''
keywords = ["akia"]

[[rules]]
id = "hash-param"
regex = '''(?i)[a-z0-9_-]{0,20}hash=([A-Za-z0-9_=-]{16,64})(?:[\s"&;]|$)'''
keywords = ["hash="]
`
	const key = "AKIAQYLPMN5HHHFPZAM2"
	var cfg strings.Builder
	for i := range 120 {
		fmt.Fprintf(&cfg, "setting_%d = value %d\n", i, i*7)
	}
	cfg.WriteString("aws_access_key_id = " + key + "\n#")
	b64 := encoders["b64"]
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"rules.toml": rules,
		"url.json": `    "image_small_url": "https://c10.patreonusercontent.com/3/eyJoIjo2NDAsInYiOiIzIiwidyI6NjQwfQ%3D%3D/patreon-media/campaign/1493621/91a5dc5347a741af89aaed35d2a82b5c?token-time=2145916800` +
			`\u0026token-hash=Qznpm_uHiQAba4K3HTRZjrhQei4dU0tmZbaavLrM2FY%3D",` + "\n",
		"twice.txt": "x: " + b64("id: "+key+" and again "+key+"\n") + "\n",
		"json.json": `{"kubeconfig":"` + strings.ReplaceAll(b64(cfg.String()), "=", `\u003d`) + "\"}\n",
	})
	keys := func(report []byte) []string {
		var findings []struct {
			File, RuleID, Secret string
			StartLine            int
			Tags                 []string
		}
		if err := json.Unmarshal(report, &findings); err != nil {
			t.Fatalf("%v\n%s", err, report)
		}
		var out []string
		for _, f := range findings {
			out = append(out, fmt.Sprintf("%s:%d %s %s %s", filepath.ToSlash(f.File), f.StartLine, f.RuleID, f.Secret, strings.Join(f.Tags, ",")))
		}
		slices.Sort(out)
		return out
	}
	want := []string{
		"url.json:1 hash-param Qznpm_uHiQAba4K3HTRZjrhQei4dU0tmZbaavLrM2FY= decoded:percent,decode-depth:1",
		"url.json:1 hash-param Qznpm_uHiQAba4K3HTRZjrhQei4dU0tmZbaavLrM2FY= decoded:percent,decoded:unicode,decode-depth:2",
		"twice.txt:1 aws-access-token " + key + " decoded:base64,decode-depth:1",
		"twice.txt:1 aws-access-token " + key + " decoded:base64,decode-depth:1",
		"json.json:1 aws-access-token " + key + " decoded:unicode,decoded:base64,decode-depth:2",
	}
	slices.Sort(want)
	r := invoke(t, dir, "dir", "-c", "rules.toml", "-f", "json", "-r", "-", "--no-banner", "--exit-code", "0", ".")
	if r.code != 0 {
		t.Fatalf("spindle dir: exit %d\n%s", r.code, r.stderr)
	}
	if got := keys([]byte(r.stdout)); !slices.Equal(got, want) {
		t.Errorf("spindle dir:\n%s\nwant, as gitleaks reported:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Where gitleaks is installed, what is written down is what it reports.
	t.Run("gitleaks", func(t *testing.T) {
		gl, _ := gitleaksBinary(t)
		report := filepath.Join(t.TempDir(), "r.json")
		cmd := exec.Command(gl, "dir", "-c", "rules.toml", "-r", report, "--no-banner", "-l", "error", "--exit-code", "0", ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gitleaks: %v\n%s", err, out)
		}
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		if got := keys(data); !slices.Equal(got, want) {
			t.Errorf("gitleaks dir:\n%s\nwritten down:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}
