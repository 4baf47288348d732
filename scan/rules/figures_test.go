package rules

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The figures of the built-in rules, measured against gitleaks' default
// config compiled by this package (which gives gitleaks' findings: see
// TestGitleaksParity, and the command's tests against the gitleaks binary).

// exampleFile is one of gitleaks' rule examples as a file of a tree.
type exampleFile struct {
	rule     string
	negative bool
	path     string
	text     string
}

// gitleaksExampleFiles lays gitleaks' examples out as files, one per
// example: RULE/tp-NNNN.txt, or RULE/tp-NNNN/PATH for an example that
// gitleaks checks at a path.
func gitleaksExampleFiles() []exampleFile {
	var out []exampleFile
	for _, r := range Default().Rules {
		if r.From != FromGitleaks {
			continue
		}
		tps, fps := ExamplesOf(r)
		for neg, list := range [][]Example{tps, fps} {
			kind := "tp"
			if neg == 1 {
				kind = "fp"
			}
			for i, ex := range list {
				base := r.ID + "/" + kind + "-" + strconv.Itoa(10000 + i)[1:]
				p := base + ".txt"
				if ex.Path != "" {
					p = base + "/" + ex.Path
				}
				out = append(out, exampleFile{rule: r.ID, negative: neg == 1, path: p, text: ex.Text})
			}
		}
	}
	return out
}

// findingKey identifies a finding for comparison: file, line, rule, secret.
type findingKey struct {
	path, rule, secret string
	line               int
}

// scanFiles scans each file as the engine does and returns its findings'
// keys, tags included.
func scanFiles(d *Detector, files []exampleFile) map[findingKey][]string {
	s := d.NewScratch()
	out := map[findingKey][]string{}
	for _, f := range files {
		emit := func(m Match) {
			line := 1 + strings.Count(f.text[:min(m.Start, len(f.text))], "\n")
			out[findingKey{f.path, m.RuleID, m.Secret, line}] = m.Tags
		}
		if s.SkipPath(f.path) {
			continue
		}
		s.ScanPath(f.path, emit)
		d.Scan(s, f.path, []byte(f.text), emit)
	}
	return out
}

// TestBuiltinRulesOnGitleaksExamples holds the built-in rules to the
// figures on gitleaks' own rule examples: they find what gitleaks'
// default config finds on the true positives (recall at least 99.9%;
// by construction all of it, under the same rule ids, with the same
// secrets and lines), and they flag no more false-positive examples than
// gitleaks' config. A finding may carry more tags (placeholder,
// checksum:invalid), never fewer.
func TestBuiltinRulesOnGitleaksExamples(t *testing.T) {
	files := gitleaksExampleFiles()
	minFindings := 6000
	if testing.Short() && raceEnabled {
		// The standard library runs every rule under the race detector:
		// a quarter of the examples (the command's test against the
		// gitleaks binary, and this one without -short, take them all).
		var some []exampleFile
		for i, f := range files {
			if i%4 == 0 {
				some = append(some, f)
			}
		}
		files, minFindings = some, 1500
	}
	for _, c := range []struct {
		name string
		set  Settings
	}{{"decoding off", Settings{MaxDecodeDepth: -1}}, {"decoding on", Settings{}}} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.set.MaxDecodeDepth < 0 {
				t.Skip("-short: decoding on only")
			}
			builtin, err := CompileWith(Default(), c.set)
			if err != nil {
				t.Fatal(err)
			}
			glCfg, err := Parse(gitleaksTOML(), "gitleaks.toml")
			if err != nil {
				t.Fatal(err)
			}
			gl, err := CompileWith(glCfg, c.set)
			if err != nil {
				t.Fatal(err)
			}
			got, want := scanFiles(builtin, files), scanFiles(gl, files)
			isTP := func(p string) bool { return strings.Contains(p, "/tp-") }
			found, total := 0, 0
			flagged := map[string]bool{}
			glFlagged := map[string]bool{}
			tagged := 0
			for k, tags := range want {
				if !isTP(k.path) {
					glFlagged[k.path] = true
					continue
				}
				total++
				gotTags, ok := got[k]
				if !ok {
					t.Errorf("missed gitleaks' finding %+v", k)
					continue
				}
				found++
				var rest []string
				for _, tag := range gotTags {
					if tag != TagPlaceholder && tag != TagChecksumInvalid && tag != TagMalformed {
						rest = append(rest, tag)
					}
				}
				if strings.Join(rest, ",") != strings.Join(tags, ",") {
					t.Errorf("%+v: tags %v, gitleaks' config %v", k, gotTags, tags)
				}
				if implausibleTags(gotTags) {
					tagged++
				}
			}
			for k := range got {
				if !isTP(k.path) {
					flagged[k.path] = true
				}
			}
			recall := float64(found) / float64(total)
			t.Logf("true positives: %d of gitleaks' %d findings (recall %.4f), %d tagged implausible; false-positive examples flagged: %d (gitleaks' config: %d) of %d files",
				found, total, recall, tagged, len(flagged), len(glFlagged), len(files))
			if total < minFindings || recall < 0.999 {
				t.Errorf("recall %.4f of %d findings, want at least 0.999", recall, total)
			}
			if len(flagged) > len(glFlagged) {
				t.Errorf("%d false-positive examples flagged, gitleaks' config flags %d", len(flagged), len(glFlagged))
				for p := range flagged {
					if !glFlagged[p] {
						t.Logf("flagged only by the built-in rules: %s", p)
					}
				}
			}
		})
	}
}

// readRiskLines reads testdata/leaked.risk: the lines of testdata/leaked
// that hold a password or a key, as path:line.
func readRiskLines(t testing.TB) map[string]bool {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "leaked.risk"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out[l] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// riskLinesFound scans testdata/leaked and returns the risk lines some
// finding covers (from its first line to its last).
func riskLinesFound(t *testing.T, d *Detector, risk map[string]bool) map[string]bool {
	t.Helper()
	root := filepath.Join("testdata", "leaked")
	s := d.NewScratch()
	found := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if s.SkipPath(rel) {
			return nil
		}
		d.Scan(s, rel, data, func(m Match) {
			first := 1 + strings.Count(string(data[:m.Start]), "\n")
			last := 1 + strings.Count(string(data[:max(m.Start, m.End-1)]), "\n")
			for l := first; l <= last; l++ {
				if k := rel + ":" + strconv.Itoa(l); risk[k] {
					found[k] = true
				}
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestBuiltinRulesFindLeakedPasswordFiles holds the built-in rules to the
// leaked-password figure: on a tree of the files people leak (.netrc,
// .pgpass, .git-credentials, wp-config.php, .env, shadow and htpasswd
// files, Django and Spring settings, SQL dumps, FileZilla and WinSCP,
// URLs and connection strings with passwords), they find at least twice
// the risk lines gitleaks' default config finds.
func TestBuiltinRulesFindLeakedPasswordFiles(t *testing.T) {
	risk := readRiskLines(t)
	builtin := riskLinesFound(t, defaultDetector(t), risk)
	gl := riskLinesFound(t, gitleaksDetector(t), risk)
	t.Logf("risk lines found: built-in rules %d, gitleaks' config %d, of %d", len(builtin), len(gl), len(risk))
	if len(builtin) < 2*len(gl) || len(gl) == 0 {
		t.Errorf("built-in rules find %d risk lines, gitleaks' config %d: want at least twice as many", len(builtin), len(gl))
	}
	for k := range gl {
		if !builtin[k] {
			t.Errorf("%s: gitleaks' config finds it, the built-in rules do not", k)
		}
	}
}
