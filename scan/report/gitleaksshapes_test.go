package report

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/internal/reportdiff"
)

// The shapes-* files in testdata/gitleaks are what gitleaks v8.30.1 wrote
// for one scan in each of its formats: `gitleaks dir tree` and `gitleaks
// git tree` with the rules of shapes.toml, -f json, sarif, junit and csv,
// on a tree of three files (one named "we<i>rd & co.txt", one holding a
// quoted secret after a tab) committed once to a repository whose remote
// is https://github.com/acme/widgets.git. The tests give this package
// gitleaks' findings (its json report) and check that each gitleaks format
// comes out as gitleaks wrote it, but for the order of the findings.

// shapesRules are the rules of shapes.toml, in its order.
func shapesRules(t *testing.T) []RuleMeta {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "gitleaks", "shapes.toml"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^id = "([^"]+)"\ndescription = "([^"]+)"`)
	var out []RuleMeta
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		out = append(out, RuleMeta{ID: m[1], Description: m[2]})
	}
	if len(out) != 3 {
		t.Fatalf("shapes.toml: %d rules read, want 3", len(out))
	}
	return out
}

func shapesFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "gitleaks", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestGitleaksSARIFAndJUnitReproduceGitleaksReports(t *testing.T) {
	rules := shapesRules(t)
	for _, mode := range []string{"dir", "git"} {
		findings := readAll(t, string(shapesFile(t, "shapes-"+mode+".json")))
		opts := Options{Rules: rules, ToolName: "gitleaks", ToolVersion: "v8.0.0", RemoteURL: "https://github.com/acme/widgets.git"}
		t.Run(mode+"/sarif", func(t *testing.T) {
			want := strings.Replace(string(shapesFile(t, "shapes-"+mode+".sarif")), "https://github.com/gitleaks/gitleaks", sarifInfoURI, 1)
			got := render(t, FormatGitleaksSARIF, opts, findings)
			reportdiff.SameUpToOrder(t, mode+"/sarif", []byte(got), []byte(want), reportdiff.Items["sarif"])
		})
		t.Run(mode+"/junit", func(t *testing.T) {
			got := render(t, FormatGitleaksJUnit, opts, findings)
			reportdiff.SameUpToOrder(t, mode+"/junit", []byte(got), shapesFile(t, "shapes-"+mode+".junit"), reportdiff.Items["junit"])
			if err := xml.Unmarshal([]byte(got), new(struct{})); err != nil {
				t.Errorf("not XML: %v", err)
			}
		})
		t.Run(mode+"/csv", func(t *testing.T) {
			got := render(t, FormatGitleaksCSV, opts, findings)
			reportdiff.SameUpToOrder(t, mode+"/csv", []byte(got), shapesFile(t, "shapes-"+mode+".csv"), reportdiff.Items["csv"])
		})
		t.Run(mode+"/json", func(t *testing.T) {
			sameElements(t, []byte(render(t, FormatGitleaks, opts, findings)), shapesFile(t, "shapes-"+mode+".json"))
		})
	}
}

func TestGitleaksSARIFAndJUnitOfNoFindingsAreGitleaks(t *testing.T) {
	opts := Options{ToolName: "gitleaks", ToolVersion: "v8.0.0"}
	junit := render(t, FormatGitleaksJUnit, opts, nil)
	want := xml.Header + "<testsuites>\n\t<testsuite failures=\"0\" name=\"gitleaks\" tests=\"0\" time=\"\"></testsuite>\n</testsuites>"
	if junit != want {
		t.Errorf("empty junit:\n%q\nwant (gitleaks')\n%q", junit, want)
	}
	sarif := render(t, FormatGitleaksSARIF, opts, nil)
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []any `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []any `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarif), &log); err != nil || len(log.Runs) != 1 || log.Runs[0].Results == nil || log.Runs[0].Tool.Driver.Rules == nil {
		t.Errorf("empty sarif: %v, want one run with [] rules and [] results:\n%s", err, sarif)
	}
}

// TestFindingPrinterPrintsAsGitleaksVerbose compares with what gitleaks
// -v --no-color printed for the same findings (testdata/gitleaks/shapes-*
// .verbose), block for block, in any order.
func TestFindingPrinterPrintsAsGitleaksVerbose(t *testing.T) {
	blocks := func(doc string) []string {
		out := slices.DeleteFunc(strings.SplitAfter(doc, "\n\n"), func(b string) bool { return b == "" })
		slices.Sort(out)
		return out
	}
	for _, mode := range []string{"dir", "git"} {
		findings := readAll(t, string(shapesFile(t, "shapes-"+mode+".json")))
		var out strings.Builder
		w, err := NewFindingPrinter(&out, Options{RemoteURL: "https://github.com/acme/widgets.git"})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			if err := w.Write(f); err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(out.String(), "\n\n") {
				t.Fatal("a finding is not printed whole when Write returns")
			}
		}
		w.Close()
		want := string(shapesFile(t, "shapes-"+mode+".verbose"))
		if got := blocks(out.String()); !slices.Equal(got, blocks(want)) || len(got) != 3 {
			t.Errorf("%s:\n%s\nwant (gitleaks -v)\n%s", mode, out.String(), want)
		}
	}
}

func TestFindingPrinterRedactsColoursAndDefusesControls(t *testing.T) {
	f := Finding{RuleID: "r", File: "a\x1b]0;x\x07.env", Line: 3, Secret: "s3cr3tvalue", Match: "key=s3cr3tvalue\r", Fingerprint: "a.env:r:3"}
	var out strings.Builder
	w, _ := NewFindingPrinter(&out, Options{Redact: 100, Color: true})
	w.Write(f)
	got := out.String()
	if strings.Contains(got, "s3cr3t") || !strings.Contains(got, "REDACTED") {
		t.Errorf("not redacted:\n%q", got)
	}
	if strings.ContainsAny(strings.ReplaceAll(strings.ReplaceAll(got, sgrGLMatch, ""), sgrGLSecret, ""), "\x07\r") ||
		strings.Contains(got, "\x1b]") || !strings.Contains(got, `\x1b]0;x\a.env`) {
		t.Errorf("control characters from the file reach the terminal:\n%q", got)
	}
	if !strings.Contains(got, sgrGLSecret+"REDACTED"+sgrReset) {
		t.Errorf("the secret is not painted:\n%q", got)
	}
}
