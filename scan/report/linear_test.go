package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/internal/lincheck"
)

// The complexity checks of the report writers and of merge
// (internal/lincheck): n and 8n findings, in every format, on shapes that
// stress sorting and grouping (every finding in one file, on one line, of
// one rule; every finding in its own file; long secrets).
//
//	go test -run '^TestLinear' -count 1 ./scan/report          # full sizes
//	go test -short -run '^TestLinear' -count 1 ./scan/report   # CI's: fewer shapes

var findingShapes = []struct {
	name string
	make func(i int) Finding
}{
	{"one-file-one-line", func(i int) Finding {
		return Finding{RuleID: "r", File: "a.txt", Line: 1, Column: i, Secret: "s", Match: "m",
			Fingerprint: "a.txt:r:1", Tags: []string{"t"}}
	}},
	{"one-file-many-lines", func(i int) Finding {
		return Finding{RuleID: fmt.Sprint("r", i%7), File: "a.txt", Line: i, Column: 1, Secret: "s", Match: "m",
			Fingerprint: fmt.Sprintf("a.txt:r:%d", i)}
	}},
	{"file-per-finding", func(i int) Finding {
		f := fmt.Sprintf("dir%d/file%d.go", i%100, i)
		return Finding{RuleID: "r", File: f, Line: 3, Column: 1, Secret: "s", Match: "m", Fingerprint: f + ":r:3",
			Commit: fmt.Sprintf("%040d", i), Author: "a", Email: "a@b", Date: "2024-01-01T00:00:00Z", Message: "m"}
	}},
	{"long-secrets", func(i int) Finding {
		s := strings.Repeat("x", 500) + fmt.Sprint(i)
		return Finding{RuleID: "r", File: "a.txt", Line: i, Column: 1, Secret: s, Match: "key=" + s,
			Fingerprint: fmt.Sprintf("a.txt:r:%d", i)}
	}},
}

func findingsOf(n int, one func(int) Finding) []Finding {
	fs := make([]Finding, 0, n)
	for i := range n {
		// In reverse order, so that the sorted formats sort.
		fs = append(fs, one(n-i))
	}
	return fs
}

func TestLinearWriters(t *testing.T) {
	n := lincheck.Size(200, 5000)
	shapes := findingShapes
	if testing.Short() {
		shapes = shapes[:1] // every finding in one place: the sort's worst
	}
	for _, format := range formats {
		for _, sh := range shapes {
			t.Run(string(format)+"/"+sh.name, func(t *testing.T) {
				opts := Options{}
				if format == FormatTemplate {
					opts.Template = `{{ range . }}{{ .RuleID }} {{ .File }}:{{ .StartLine }} {{ .Secret }}{{ "\n" }}{{ end }}`
				}
				lincheck.Check(t, n, func(n int) []Finding { return findingsOf(n, sh.make) }, func(fs []Finding) {
					w, err := NewWriter(format, io.Discard, opts)
					if err != nil {
						t.Fatal(err)
					}
					for _, f := range fs {
						if err := w.Write(f); err != nil {
							t.Fatal(err)
						}
					}
					if err := w.Close(); err != nil {
						t.Fatal(err)
					}
				}, lincheck.Options{})
			})
		}
	}
}

// TestLinearMerge merges two reports of n findings each, half of them in
// both (duplicates to drop), in each of the schemas merge reads (jsonl
// alone under -short).
func TestLinearMerge(t *testing.T) {
	n := lincheck.Size(100, 5000)
	formats, shapes := []Format{FormatJSON, FormatJSONL, FormatGitleaks}, findingShapes
	if testing.Short() {
		formats, shapes = formats[1:2], shapes[:2]
	}
	for _, format := range formats {
		for _, sh := range shapes {
			t.Run(string(format)+"/"+sh.name, func(t *testing.T) {
				dir := t.TempDir()
				lincheck.Check(t, n, func(n int) []string {
					fs := findingsOf(2*n, sh.make)
					var paths []string
					for k, part := range [][]Finding{fs[:n+n/2], fs[n/2:]} {
						p := filepath.Join(dir, fmt.Sprintf("%d-%d.json", n, k))
						f, err := os.Create(p)
						if err != nil {
							t.Fatal(err)
						}
						w, err := NewWriter(format, f, Options{})
						if err != nil {
							t.Fatal(err)
						}
						for _, x := range part {
							w.Write(x)
						}
						if err := w.Close(); err != nil {
							t.Fatal(err)
						}
						f.Close()
						paths = append(paths, p)
					}
					return paths
				}, func(paths []string) {
					w, err := NewWriter(FormatJSON, io.Discard, Options{})
					if err != nil {
						t.Fatal(err)
					}
					if _, err := Merge(w, paths...); err != nil {
						t.Fatal(err)
					}
					if err := w.Close(); err != nil {
						t.Fatal(err)
					}
				}, lincheck.Options{})
			})
		}
	}
}
