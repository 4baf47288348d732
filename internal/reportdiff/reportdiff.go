package reportdiff

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// SameUpToOrder checks that got is want but for the order of the items
// that items finds in both: equal item sets, byte for byte, and equal
// text around them. what names the comparison in failure messages.
func SameUpToOrder(t testing.TB, what string, got, want []byte, items func([]byte) []string) {
	t.Helper()
	skeleton := func(doc []byte) (string, []string) {
		its := items(doc)
		s := string(doc)
		for _, it := range its {
			s = strings.Replace(s, it, "\x00", 1)
		}
		slices.Sort(its)
		return s, its
	}
	gs, gi := skeleton(got)
	ws, wi := skeleton(want)
	if len(wi) == 0 {
		t.Fatalf("%s: gitleaks' report holds no findings: the test is wrong", what)
	}
	if !slices.Equal(gi, wi) {
		t.Errorf("%s: findings differ from gitleaks':\n got %q\nwant %q", what, gi, wi)
	}
	if gs != ws {
		t.Errorf("%s: the report around the findings differs from gitleaks':\n got %q\nwant %q", what, gs, ws)
	}
}

var junitCase = regexp.MustCompile(`(?s)\n\t\t<testcase .*?</testcase>`)

// Items finds the findings of a report in each format, as written: json
// (the array's elements), sarif (every run's results), junit (the test
// cases), csv (the rows below the header) and verbose (gitleaks' console
// blocks, separated by blank lines).
var Items = map[string]func([]byte) []string{
	"json": func(doc []byte) []string {
		var raw []json.RawMessage
		json.Unmarshal(doc, &raw)
		var out []string
		for _, r := range raw {
			out = append(out, string(r))
		}
		return out
	},
	"sarif": func(doc []byte) []string {
		var log struct {
			Runs []struct {
				Results []json.RawMessage `json:"results"`
			} `json:"runs"`
		}
		json.Unmarshal(doc, &log)
		var out []string
		for _, run := range log.Runs {
			for _, r := range run.Results {
				out = append(out, string(r))
			}
		}
		return out
	},
	"junit": func(doc []byte) []string {
		var out []string
		for _, m := range junitCase.FindAll(doc, -1) {
			out = append(out, string(m))
		}
		return out
	},
	"csv": func(doc []byte) []string {
		lines := strings.SplitAfter(string(doc), "\n")
		if len(lines) < 2 {
			return nil
		}
		return lines[1 : len(lines)-1]
	},
	"verbose": func(doc []byte) []string {
		return slices.DeleteFunc(strings.SplitAfter(string(doc), "\n\n"), func(s string) bool { return s == "" })
	},
}
