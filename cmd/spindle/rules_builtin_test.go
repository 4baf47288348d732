package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/rules"
)

// These tests hold the built-in rules to their figures against the
// gitleaks binary itself (v8.30.1, with its own default config): on
// gitleaks' rule examples, on a tree of leaked password files, and for a
// gitleaks user's files (a baseline report, a .gitleaksignore) on a tree
// and on a history. They skip when gitleaks (or git) is not installed.

// runGitleaks runs gitleaks in dir; exit status 1 means findings.
func runGitleaks(t *testing.T, bin, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("gitleaks %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// builtinFrom maps each built-in rule id to where it comes from.
func builtinFrom() map[string]rules.Provenance {
	out := map[string]rules.Provenance{}
	for _, r := range rules.Default().Rules {
		out[r.ID] = r.From
	}
	return out
}

// glFinding is the part of a gitleaks JSON finding the tests compare.
type glFinding struct {
	RuleID      string
	File        string
	StartLine   int
	Secret      string
	Commit      string
	Fingerprint string
	Tags        []string
	StartColumn int
	EndColumn   int
}

func readGLFindings(t *testing.T, path string) []glFinding {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []glFinding
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// keysOf is the sorted keys of fs, with each one's fingerprint.
func keysOf(fs []glFinding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%s|%s|%d-%d|%q", f.key(), f.Fingerprint, f.StartColumn, f.EndColumn, f.Tags)
	}
	slices.Sort(out)
	return out
}

func (f glFinding) key() string {
	return strings.Join([]string{f.Commit, f.File, strconv.Itoa(f.StartLine), f.RuleID, f.Secret}, "|")
}

// writeGitleaksExamples lays gitleaks' rule examples out under dir, one
// file each (RULE/tp-NNNN.txt, RULE/fp-NNNN.txt, or under RULE/tp-NNNN/
// at the path gitleaks checks the example at), at most limit per rule
// and kind (0: all).
func writeGitleaksExamples(t *testing.T, dir string, limit int) {
	t.Helper()
	files := map[string]string{}
	for _, r := range rules.Default().Rules {
		if r.From != rules.FromGitleaks {
			continue
		}
		tps, fps := rules.ExamplesOf(r)
		for kind, list := range map[string][]rules.Example{"tp": tps, "fp": fps} {
			for i, ex := range list {
				if limit > 0 && i >= limit {
					break
				}
				base := fmt.Sprintf("%s/%s-%04d", r.ID, kind, i)
				if ex.Path != "" {
					files[base+"/"+ex.Path] = ex.Text
				} else {
					files[base+".txt"] = ex.Text
				}
			}
		}
	}
	writeTree(t, dir, files)
}

// TestBuiltinRulesAgainstGitleaksOnItsExamples runs gitleaks (its default
// config) and spindle (its built-in rules) over gitleaks' own rule
// examples: spindle finds at least 99.9% of gitleaks' findings (file,
// line, rule, secret) on the true positives and flags no more
// false-positive examples; with gitleaks' report as the baseline, or its
// fingerprints in .gitleaksignore, spindle reports no finding under a
// rule id of gitleaks'.
func TestBuiltinRulesAgainstGitleaksOnItsExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("gitleaks takes about 10 s over its 6,770 examples: not with -short")
	}
	gl, _ := gitleaksBinary(t)
	work := t.TempDir()
	writeGitleaksExamples(t, filepath.Join(work, "ex"), 0)
	runGitleaks(t, gl, work, "dir", "--no-banner", "--report-format", "json", "--report-path", "gl.json", "ex")
	if r := invoke(t, work, "dir", "--spindle-rules", "--report-format", "json", "--report-path", "sp.json", "ex"); r.code != 1 {
		t.Fatalf("spindle dir: exit %d\n%s", r.code, r.stderr)
	}
	glF, spF := readGLFindings(t, filepath.Join(work, "gl.json")), readGLFindings(t, filepath.Join(work, "sp.json"))
	spKeys := map[string]bool{}
	spFP, glFP := map[string]bool{}, map[string]bool{}
	for _, f := range spF {
		spKeys[f.key()] = true
		if strings.Contains(f.File, "/fp-") {
			spFP[f.File] = true
		}
	}
	found, total := 0, 0
	for _, f := range glF {
		if strings.Contains(f.File, "/fp-") {
			glFP[f.File] = true
			continue
		}
		total++
		if spKeys[f.key()] {
			found++
		} else {
			t.Logf("missed: %s", f.key())
		}
	}
	recall := float64(found) / float64(max(total, 1))
	t.Logf("gitleaks' examples: spindle finds %d of gitleaks' %d findings (recall %.4f); false-positive examples flagged %d, gitleaks %d", found, total, recall, len(spFP), len(glFP))
	if total < 6000 || recall < 0.999 {
		t.Errorf("recall %.4f of %d findings, want at least 0.999", recall, total)
	}
	if len(spFP) > len(glFP) {
		t.Errorf("%d false-positive examples flagged, gitleaks flags %d", len(spFP), len(glFP))
	}

	from := builtinFrom()
	onlySpindles := func(report string) int {
		n := 0
		for _, f := range readGLFindings(t, filepath.Join(work, report)) {
			if from[f.RuleID] != rules.FromSpindle {
				t.Errorf("%s: %s under gitleaks' rule %s comes back", report, f.key(), f.RuleID)
			}
			n++
		}
		return n
	}
	invoke(t, work, "dir", "--spindle-rules", "--report-format", "json", "--report-path", "base.json", "--baseline-path", "gl.json", "ex")
	var fps []string
	for _, f := range glF {
		fps = append(fps, f.Fingerprint)
	}
	writeTree(t, work, map[string]string{"ex/.gitleaksignore": strings.Join(fps, "\n") + "\n"})
	invoke(t, work, "dir", "--spindle-rules", "--report-format", "json", "--report-path", "ignore.json", "ex")
	t.Logf("with gitleaks' report as baseline: %d findings, all spindle's; with its fingerprints in .gitleaksignore: %d", onlySpindles("base.json"), onlySpindles("ignore.json"))
}

// TestBuiltinRulesAgainstGitleaksOnLeakedFiles runs both over a tree of
// the files people leak (scan/rules/testdata/leaked): spindle finds at
// least twice the risk lines gitleaks finds.
func TestBuiltinRulesAgainstGitleaksOnLeakedFiles(t *testing.T) {
	gl, _ := gitleaksBinary(t)
	src, err := filepath.Abs(filepath.Join("..", "..", "scan", "rules", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	riskText, err := os.ReadFile(filepath.Join(src, "leaked.risk"))
	if err != nil {
		t.Fatal(err)
	}
	risk := map[string]bool{}
	for _, l := range strings.Split(string(riskText), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			risk[l] = true
		}
	}
	work := t.TempDir()
	runGitleaks(t, gl, filepath.Join(src, "leaked"), "dir", "--no-banner", "--report-format", "json", "--report-path", filepath.Join(work, "gl.json"), ".")
	invoke(t, filepath.Join(src, "leaked"), "dir", "--spindle-rules", "--report-format", "json", "--report-path", filepath.Join(work, "sp.json"), ".")
	// Without --spindle-rules, the drop-in runs gitleaks' rules alone.
	invoke(t, filepath.Join(src, "leaked"), "dir", "--report-format", "json", "--report-path", filepath.Join(work, "gl-rules.json"), ".")
	// A multi-line finding (a .netrc entry over three lines) covers the
	// line of its password; count by the lines each finding spans.
	spans := func(report string) int {
		data, err := os.ReadFile(filepath.Join(work, report))
		if err != nil {
			t.Fatal(err)
		}
		var fs []struct {
			File               string
			StartLine, EndLine int
		}
		if err := json.Unmarshal(data, &fs); err != nil {
			t.Fatal(err)
		}
		lines := map[string]bool{}
		for _, f := range fs {
			for l := f.StartLine; l <= max(f.StartLine, f.EndLine); l++ {
				lines[f.File+":"+strconv.Itoa(l)] = true
			}
		}
		n := 0
		for l := range risk {
			if lines[l] {
				n++
			}
		}
		return n
	}
	sp, g := spans("sp.json"), spans("gl.json")
	t.Logf("risk lines found: spindle %d, gitleaks %d, of %d", sp, g, len(risk))
	if d := spans("gl-rules.json"); d != g {
		t.Errorf("spindle dir without --spindle-rules finds %d risk lines, gitleaks %d: want the same", d, g)
	}
	if g, s := readGLFindings(t, filepath.Join(work, "gl.json")), readGLFindings(t, filepath.Join(work, "gl-rules.json")); len(g) != len(s) {
		t.Errorf("spindle dir without --spindle-rules: %d findings, gitleaks %d", len(s), len(g))
	}
	if g == 0 || sp < 2*g {
		t.Errorf("spindle finds %d risk lines, gitleaks %d: want at least twice as many", sp, g)
	}
}

// TestBuiltinRulesCarryOverGitleaksHistory commits some of gitleaks' rule
// examples to a repository over several commits, scans its history with
// gitleaks, and checks that spindle git, given gitleaks' report as the
// baseline or its fingerprints in .gitleaksignore, reports nothing under
// a rule id of gitleaks'.
func TestBuiltinRulesCarryOverGitleaksHistory(t *testing.T) {
	gl, _ := gitleaksBinary(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	work := t.TempDir()
	repo := filepath.Join(work, "repo")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	// Three commits: the first examples of every rule, then the second,
	// then the first of each rule edited (a line added above).
	stage := filepath.Join(work, "stage")
	writeGitleaksExamples(t, stage, 2)
	var names []string
	if err := filepath.WalkDir(stage, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(stage, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	copyFiles := func(keep func(string) bool, edit bool) {
		files := map[string]string{}
		for _, n := range names {
			if !keep(n) {
				continue
			}
			data, err := os.ReadFile(filepath.Join(stage, filepath.FromSlash(n)))
			if err != nil {
				t.Fatal(err)
			}
			if edit {
				data = append([]byte("# edited\n"), data...)
			}
			files[n] = string(data)
		}
		writeTree(t, repo, files)
	}
	first := func(n string) bool { return strings.Contains(n, "-0000") }
	copyFiles(first, false)
	git("add", "-A")
	git("commit", "-q", "-m", "first examples")
	copyFiles(func(n string) bool { return !first(n) }, false)
	git("add", "-A")
	git("commit", "-q", "-m", "second examples")
	copyFiles(first, true)
	git("add", "-A")
	git("commit", "-q", "-m", "edited")

	runGitleaks(t, gl, work, "git", "--no-banner", "--report-format", "json", "--report-path", "gl.json", "repo")
	glF := readGLFindings(t, filepath.Join(work, "gl.json"))
	if len(glF) < 300 {
		t.Fatalf("gitleaks found %d secrets in the history, want hundreds", len(glF))
	}
	from := builtinFrom()
	check := func(name string, args ...string) {
		t.Helper()
		r := invoke(t, work, append([]string{"git", "--spindle-rules", "--report-format", "json", "--report-path", name}, args...)...)
		if r.code > 1 {
			t.Fatalf("spindle git: exit %d\n%s", r.code, r.stderr)
		}
		n := 0
		for _, f := range readGLFindings(t, filepath.Join(work, name)) {
			if from[f.RuleID] != rules.FromSpindle {
				t.Errorf("%s: %s under gitleaks' rule %s comes back", name, f.key(), f.RuleID)
			}
			n++
		}
		t.Logf("%s: %d findings left, all spindle's (gitleaks found %d)", name, n, len(glF))
	}
	check("base.json", "--baseline-path", "gl.json", "repo")
	// Without --spindle-rules, the drop-in runs gitleaks' rules: with
	// gitleaks' report as the baseline nothing is new, and it exits 0.
	if r := invoke(t, work, "git", "--report-format", "json", "--report-path", "nothing.json", "--baseline-path", "gl.json", "repo"); r.code != 0 {
		t.Errorf("spindle git with gitleaks' report as the baseline: exit %d, want 0\n%s", r.code, r.stderr)
	} else if n := len(readGLFindings(t, filepath.Join(work, "nothing.json"))); n != 0 {
		t.Errorf("spindle git with gitleaks' report as the baseline: %d findings, want none", n)
	}
	if r := invoke(t, work, "git", "--report-format", "json", "--report-path", "all.json", "repo"); r.code != 1 {
		t.Errorf("spindle git: exit %d, want 1", r.code)
	} else if g, s := keysOf(glF), keysOf(readGLFindings(t, filepath.Join(work, "all.json"))); !slices.Equal(g, s) {
		t.Errorf("spindle git finds %d, gitleaks %d: want the same findings\n%s", len(s), len(g), keyDiff(g, s))
	}
	var fps []string
	for _, f := range glF {
		fps = append(fps, f.Fingerprint)
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitleaksignore"), []byte(strings.Join(fps, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("ignore.json", "repo")
}

// TestSkipImplausibleDropsTaggedFindings checks the flag in scan and in
// the drop-in dir: by default spindle scan reports a GitHub token whose
// checksum fails tagged checksum:invalid, and the drop-in reports it as
// gitleaks does, untagged (gitleaks' rules alone carry no check), or
// tagged with spindle's rules; with --skip-implausible neither reports it.
func TestSkipImplausibleDropsTaggedFindings(t *testing.T) {
	dir := t.TempDir()
	// A token of GitHub's format whose CRC-32 does not hold (split so
	// that this file holds no token).
	writeTree(t, dir, map[string]string{"app.env": "GITHUB_TOKEN=gh" + "p_r0y4v0qn46j606ytslghtv1cr7nqn6jotzrw\n"})
	for _, c := range []struct {
		args  []string
		found bool
		tag   bool
	}{
		{[]string{"scan", "-f", "json", "app.env"}, true, true},
		{[]string{"scan", "-f", "json", "--skip-implausible", "app.env"}, false, false},
		{[]string{"dir", "--report-format", "json", "-r", "-", "app.env"}, true, false},
		{[]string{"dir", "--report-format", "json", "-r", "-", "--spindle-rules", "app.env"}, true, true},
		{[]string{"dir", "--report-format", "json", "-r", "-", "--skip-implausible", "app.env"}, false, false},
	} {
		r := invoke(t, dir, c.args...)
		if c.found {
			if r.code != 1 || !strings.Contains(r.stdout, "github-pat") || strings.Contains(r.stdout, rules.TagChecksumInvalid) != c.tag {
				t.Errorf("%v: exit %d, want the finding, tagged %s: %v:\n%s%s", c.args, r.code, rules.TagChecksumInvalid, c.tag, r.stdout, r.stderr)
			}
		} else if r.code != 0 || strings.Contains(r.stdout, "github-pat") {
			t.Errorf("%v: exit %d, want no finding:\n%s%s", c.args, r.code, r.stdout, r.stderr)
		}
	}
}
