package scan

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/spindle-go/spindle/scan/rules"
)

// TestGitleaksColumns: with Options.GitleaksColumns a finding on a line
// after an object's first has gitleaks' columns (one more than the true
// ones), and a match that spans a newline and runs into a last line no
// newline ends has gitleaks' end (its start's line, column 0); without it,
// columns are true. The expected figures are what gitleaks v8.30.1 reports
// for these files.
func TestGitleaksColumns(t *testing.T) {
	cfg, err := rules.Parse([]byte(`
[[rules]]
id = "one-line"
regex = '''tok_[a-z0-9]{12}'''
[[rules]]
id = "block"
regex = '''BEGIN KEY[\s\S]{1,40}?END KEY'''
`), "columns.toml")
	if err != nil {
		t.Fatal(err)
	}
	det, err := rules.Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.txt": "tok_aaaaaaaaaaaa\nx tok_bbbbbbbbbbbb\n",
		"b.txt": "pad\nBEGIN KEY\nabc\nEND KEY",
		"c.txt": "pad\nBEGIN KEY\nabc\nEND KEY\n",
	})
	type place struct {
		file                             string
		line, column, endLine, endColumn int
	}
	for _, c := range []struct {
		gitleaks bool
		want     []place
	}{
		{false, []place{{"a.txt", 1, 1, 1, 16}, {"a.txt", 2, 3, 2, 18}, {"b.txt", 2, 1, 4, 7}, {"c.txt", 2, 1, 4, 7}}},
		{true, []place{{"a.txt", 1, 1, 1, 16}, {"a.txt", 2, 4, 2, 19}, {"b.txt", 2, 2, 2, 0}, {"c.txt", 2, 2, 4, 8}}},
	} {
		found, warns, _, err := collect(t, Options{Detector: Rules(det), GitleaksColumns: c.gitleaks}, dir)
		if err != nil || len(warns) > 0 {
			t.Fatal(err, warns)
		}
		var got []place
		for _, f := range found {
			got = append(got, place{filepath.Base(f.File), f.Line, f.Column, f.EndLine, f.EndColumn})
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("gitleaks columns %v:\n got %v\nwant %v", c.gitleaks, got, c.want)
		}
	}
}
