package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testShard(i, n int) *Shard {
	return &Shard{Index: i, Count: n, Scanned: "git . main", Config: "sha256:abc"}
}

// writeShard renders findings as shard i/n in format into dir.
func writeShard(t *testing.T, dir, name string, format Format, sh *Shard, findings []Finding) string {
	t.Helper()
	path := filepath.Join(dir, name)
	writeFile(t, path, render(t, format, Options{Shard: sh}, findings))
	return path
}

func TestShardReportsStartWithTheirHeaderAndReadBackWithout(t *testing.T) {
	findings := sampleFindings()
	for _, format := range []Format{FormatJSON, FormatJSONL, FormatGitleaks} {
		for _, fs := range [][]Finding{findings, nil} {
			out := render(t, format, Options{Shard: testShard(1, 3)}, fs)
			var first map[string]any
			dec := json.NewDecoder(strings.NewReader(out))
			if format != FormatJSONL {
				var all []map[string]any
				if err := json.Unmarshal([]byte(out), &all); err != nil || len(all) == 0 {
					t.Fatalf("%s: %v\n%s", format, err, out)
				}
				first = all[0]
			} else if err := dec.Decode(&first); err != nil {
				t.Fatalf("%s: %v\n%s", format, err, out)
			}
			if first["shard"] != "1/3" || first["scanned"] != "git . main" || first["config"] != "sha256:abc" || len(first) != 3 {
				t.Errorf("%s: first element %v, want the shard header", format, first)
			}
			rr, err := newReportReader(strings.NewReader(out), 0)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				_, ok, err := rr.next()
				if err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				if !ok {
					break
				}
				n++
			}
			if n != len(fs) || rr.shard == nil || *rr.shard != *testShard(1, 3) {
				t.Errorf("%s: read %d findings and header %+v, want %d and the header", format, n, rr.shard, len(fs))
			}
		}
	}
	// A baseline may be a shard's report: the header is not a finding.
	b, err := ReadBaseline(strings.NewReader(render(t, FormatJSON, Options{Shard: testShard(0, 2)}, findings)))
	if err != nil || b.Len() != len(findings) {
		t.Errorf("a shard report as a baseline: %v, %d findings", err, b.Len())
	}
}

func TestSARIFCarriesTheShardInTheRunsProperties(t *testing.T) {
	for _, format := range []Format{FormatSARIF, FormatGitleaksSARIF} {
		var log struct {
			Runs []struct {
				Properties map[string]string `json:"properties"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(render(t, format, Options{Shard: testShard(2, 4)}, sampleFindings())), &log); err != nil {
			t.Fatal(err)
		}
		if p := log.Runs[0].Properties; p["shard"] != "2/4" || p["scanned"] != "git . main" || p["config"] != "sha256:abc" {
			t.Errorf("%s: run properties %v", format, p)
		}
	}
}

func TestMergeRefusesShardSetsThatAreNotOneScan(t *testing.T) {
	dir := t.TempDir()
	fs := sampleFindings()
	s0 := writeShard(t, dir, "s0.json", FormatGitleaks, testShard(0, 3), fs[:2])
	s1 := writeShard(t, dir, "s1.jsonl", FormatJSONL, testShard(1, 3), fs[2:4])
	s2 := writeShard(t, dir, "s2.json", FormatJSON, testShard(2, 3), fs[4:])
	other := writeShard(t, dir, "other.json", FormatJSON, &Shard{Index: 2, Count: 3, Scanned: "git . dev", Config: "sha256:abc"}, fs[4:])
	rules := writeShard(t, dir, "rules.json", FormatJSON, &Shard{Index: 2, Count: 3, Scanned: "git . main", Config: "sha256:def"}, fs[4:])
	four := writeShard(t, dir, "four.json", FormatJSON, testShard(2, 4), fs[4:])
	plain := writeReport(t, dir, "plain.json", FormatJSON, fs[4:])
	tests := []struct {
		name  string
		paths []string
		want  []string // in the error
	}{
		{"a shard missing", []string{s0, s2}, []string{"shard 1/3 is missing", "git . main"}},
		{"two missing", []string{s1}, []string{"shards 0/3, 2/3 are missing"}},
		{"a shard twice", []string{s0, s1, s2, s1}, []string{"shard 1/3 is given twice", s1}},
		{"another source", []string{s0, s1, other}, []string{other, "another scan", "git . dev"}},
		{"other rules", []string{s0, s1, rules}, []string{rules, "sha256:def"}},
		{"another count", []string{s0, s1, four}, []string{four, "split 4 ways"}},
		{"a report without a header", []string{s0, s1, plain}, []string{plain, "not a shard report"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := Merge(newTestWriter(t, FormatJSON, &out, Options{}), tt.paths...)
			if err == nil {
				t.Fatalf("merged %v", tt.paths)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if out.Len() != 0 {
				t.Errorf("a refused merge wrote %q", out.String())
			}
		})
	}
	got, sum, err := mergeTo(t, s2, s0, s1)
	if err != nil || len(got) != len(fs) || sum.Reports != 3 {
		t.Fatalf("the three shards, in any order: %v, %d findings", err, len(got))
	}
}

func TestMergerSchemaIsTheInputsSchema(t *testing.T) {
	dir := t.TempDir()
	fs := sampleFindings()
	gl := writeReport(t, dir, "gl.json", FormatGitleaks, fs[:2])
	gl2 := writeReport(t, dir, "gl2.json", FormatGitleaks, fs[2:])
	glEmpty := writeReport(t, dir, "gl-empty.json", FormatGitleaks, nil)
	sp := writeReport(t, dir, "sp.json", FormatJSON, fs[:2])
	lines := writeReport(t, dir, "a.jsonl", FormatJSONL, fs[:2])
	linesEmpty := writeShard(t, dir, "e.jsonl", FormatJSONL, testShard(0, 1), nil)
	tests := []struct {
		paths []string
		want  Schema
		err   string
	}{
		{[]string{gl, gl2, glEmpty}, SchemaGitleaksJSON, ""},
		{[]string{sp}, SchemaJSON, ""},
		{[]string{lines, linesEmpty}, SchemaJSONL, ""},
		{[]string{glEmpty}, SchemaGitleaksJSON, ""},
		{[]string{linesEmpty}, SchemaJSONL, ""},
		{[]string{gl, sp}, "", "say which to write with -f"},
		{[]string{gl, lines}, "", "say which to write with -f"},
		{[]string{lines, glEmpty}, "", "not both json arrays or both jsonl"},
	}
	for _, tt := range tests {
		m := NewMerger()
		for _, p := range tt.paths {
			if err := m.Read(p); err != nil {
				t.Fatal(err)
			}
		}
		got, err := m.Schema()
		m.Close()
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("Schema(%v) = %q, %v; want %q, %q", tt.paths, got, err, tt.want, tt.err)
		}
	}
}

func TestCloseIncompleteNeverFinishesAReportThatReadsAsComplete(t *testing.T) {
	for _, format := range allFormats() {
		t.Run(string(format), func(t *testing.T) {
			var out bytes.Buffer
			w := newTestWriter(t, format, &out, Options{})
			for _, f := range sampleFindings() {
				if err := w.Write(f); err != nil {
					t.Fatal(err)
				}
			}
			finished, err := CloseIncomplete(w)
			if err != nil {
				t.Fatal(err)
			}
			switch format {
			case FormatSARIF, FormatGitleaksSARIF:
				var log struct {
					Runs []struct {
						Invocations []struct {
							ExecutionSuccessful *bool `json:"executionSuccessful"`
						} `json:"invocations"`
						Results []any `json:"results"`
					} `json:"runs"`
				}
				if err := json.Unmarshal(out.Bytes(), &log); err != nil || !finished {
					t.Fatalf("finished %v, %v\n%s", finished, err, out.String())
				}
				inv := log.Runs[0].Invocations
				if len(inv) != 1 || inv[0].ExecutionSuccessful == nil || *inv[0].ExecutionSuccessful {
					t.Errorf("invocations = %+v, want one with executionSuccessful false", inv)
				}
				if len(log.Runs[0].Results) != len(sampleFindings()) {
					t.Errorf("%d results", len(log.Runs[0].Results))
				}
			case FormatText:
				if !finished || !strings.Contains(out.String(), sampleFindings()[0].File) {
					t.Errorf("a text report for people is finished: %v\n%s", finished, out.String())
				}
			case FormatJSONL:
				// A stream: what was written stays, a line per finding.
				if finished || strings.Count(out.String(), "\n") != len(sampleFindings()) {
					t.Errorf("jsonl: finished %v\n%s", finished, out.String())
				}
			case FormatJUnit, FormatGitleaksJUnit:
				// The XML declaration alone: not a document.
				if finished || out.String() != xml.Header || xml.Unmarshal(out.Bytes(), new(struct{})) == nil {
					t.Errorf("an incomplete %s report holds %q", format, out.String())
				}
			default:
				if finished {
					t.Errorf("finished")
				}
				var v any
				if len(bytes.TrimSpace(out.Bytes())) > 1 || json.Unmarshal(out.Bytes(), &v) == nil {
					t.Errorf("an incomplete %s report holds %q", format, out.String())
				}
			}
			if err := w.Write(sampleFindings()[0]); err == nil {
				t.Error("Write after CloseIncomplete succeeds")
			}
		})
	}
}

func TestSARIFSaysWhenTheRunCompleted(t *testing.T) {
	var log struct {
		Runs []struct {
			Invocations []struct {
				ExecutionSuccessful bool `json:"executionSuccessful"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(render(t, FormatSARIF, Options{}, sampleFindings())), &log); err != nil {
		t.Fatal(err)
	}
	if inv := log.Runs[0].Invocations; len(inv) != 1 || !inv[0].ExecutionSuccessful {
		t.Errorf("a complete run's invocations = %+v", inv)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
