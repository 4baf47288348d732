package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeReport renders findings in format into dir/name.
func writeReport(t *testing.T, dir, name string, format Format, findings []Finding) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(render(t, format, Options{}, findings)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// mergeTo merges paths into a json report and reads it back.
func mergeTo(t *testing.T, paths ...string) ([]Finding, MergeSummary, error) {
	t.Helper()
	var out bytes.Buffer
	w := newTestWriter(t, FormatJSON, &out, Options{})
	sum, err := Merge(w, paths...)
	if err != nil {
		return nil, sum, err
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return decodeJSON(t, out.String()), sum, nil
}

func TestMergeJoinsShardsIntoTheWholeReport(t *testing.T) {
	all := randomFindings(7, 600)
	// The whole scan, as one report: every finding once.
	var whole []Finding
	for _, f := range sortedCopy(all) {
		if len(whole) == 0 || comparePlace(&whole[len(whole)-1], &f) != 0 {
			whole = append(whole, f)
		}
	}
	dir := t.TempDir()
	// Three shards in three forms: json, jsonl, and gitleaks' schema.
	var shards [3][]Finding
	for i, f := range all {
		shards[i%3] = append(shards[i%3], f)
	}
	paths := []string{
		writeReport(t, dir, "0.json", FormatJSON, shards[0]),
		writeReport(t, dir, "1.jsonl", FormatJSONL, shards[1]),
		writeReport(t, dir, "2.json", FormatGitleaks, shards[2]),
	}
	got, sum, err := mergeTo(t, paths...)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(whole) {
		t.Fatalf("merged %d findings, the whole scan has %d", len(got), len(whole))
	}
	for i := range whole {
		if !sameFinding(got[i], whole[i]) {
			t.Fatalf("finding %d:\n got %+v\nwant %+v", i, got[i], whole[i])
		}
	}
	perRule := map[string]int64{}
	for _, f := range whole {
		perRule[f.RuleID]++
	}
	want := MergeSummary{Reports: 3, Read: int64(len(all)), Duplicates: int64(len(all) - len(whole)), Findings: int64(len(whole)), PerRule: perRule}
	if sum.Reports != want.Reports || sum.Read != want.Read || sum.Duplicates != want.Duplicates || sum.Findings != want.Findings ||
		len(sum.PerRule) != len(want.PerRule) {
		t.Fatalf("summary = %+v, want %+v", sum, want)
	}
	for r, n := range want.PerRule {
		if sum.PerRule[r] != n {
			t.Errorf("findings of %s = %d, want %d", r, sum.PerRule[r], n)
		}
	}
}

func TestMergeKeepsTwoSecretsThatShareAFingerprint(t *testing.T) {
	a := Finding{RuleID: "r", File: "f", Line: 1, Column: 5, Secret: "one-secret", Fingerprint: "f:r:1"}
	b := Finding{RuleID: "r", File: "f", Line: 1, Column: 30, Secret: "two-secret", Fingerprint: "f:r:1"}
	dir := t.TempDir()
	p1 := writeReport(t, dir, "1.json", FormatJSON, []Finding{a, b})
	p2 := writeReport(t, dir, "2.json", FormatGitleaks, []Finding{b}) // the same b, in gitleaks' form
	got, sum, err := mergeTo(t, p1, p2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || sum.Duplicates != 1 {
		t.Fatalf("merged %d findings with %d duplicates, want both secrets and one duplicate: %+v", len(got), sum.Duplicates, got)
	}
}

func TestMergeReadsStandardInputAndNamesTheBadReport(t *testing.T) {
	dir := t.TempDir()
	good := writeReport(t, dir, "good.json", FormatJSON, sampleFindings())
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"rule_id":"r","file":"f"}, {"rule_id":"r"}]`), 0o600)
	sarif := writeReport(t, dir, "scan.sarif", FormatSARIF, sampleFindings())
	trunc := filepath.Join(dir, "cut.jsonl")
	os.WriteFile(trunc, []byte(`{"rule_id":"r","file":"f"}`+"\n"+`{"rule_id":"r","fi`), 0o600)
	tests := []struct {
		paths []string
		want  string
	}{
		{[]string{good, bad}, "report: merge " + bad + `: finding 2: no "file" (or "File") key`},
		{[]string{sarif}, "report: merge " + sarif + ": finding 1: this is a SARIF log"},
		{[]string{trunc}, "report: merge " + trunc + ": finding 2: truncated JSON"},
		{[]string{filepath.Join(dir, "missing.json")}, "missing.json: no such file"},
		{[]string{dir}, "not a regular file"},
	}
	for _, tt := range tests {
		_, _, err := mergeTo(t, tt.paths...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Merge(%v) = %v, want an error containing %q", tt.paths, err, tt.want)
		}
	}

	// "-" is standard input.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = stdin }()
	go func() {
		w.Write([]byte(render(t, FormatJSONL, Options{}, sampleFindings()[:2])))
		w.Close()
	}()
	got, sum, err := mergeTo(t, "-", good)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(sampleFindings()) || sum.Duplicates != 2 || sum.Reports != 2 {
		t.Fatalf("merged %d findings, %d duplicates, %d reports", len(got), sum.Duplicates, sum.Reports)
	}
}

func TestMergeWritesAnyFormatAndStopsOnAWriteError(t *testing.T) {
	dir := t.TempDir()
	p := writeReport(t, dir, "a.json", FormatJSON, sampleFindings())
	for _, format := range allFormats() {
		var out bytes.Buffer
		w := newTestWriter(t, format, &out, Options{})
		if _, err := Merge(w, p); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if err := w.Close(); err != nil || out.Len() == 0 {
			t.Fatalf("%s: Close = %v, %d bytes", format, err, out.Len())
		}
	}
	w := newTestWriter(t, FormatJSONL, &failWriter{err: errDisk}, Options{})
	if _, err := Merge(w, p); !errors.Is(err, errDisk) {
		t.Fatalf("Merge into a failing writer = %v, want the writer's error", err)
	}
}

func TestMergeSummaryText(t *testing.T) {
	var b strings.Builder
	s := MergeSummary{Reports: 3, Read: 124, Duplicates: 4, Findings: 120, PerRule: map[string]int64{"generic-api-key": 20, "aws-access-token": 100, "gone": 0}}
	s.WriteText(&b)
	want := "merged 3 reports: 120 findings, 4 duplicates removed\nby rule: 100 aws-access-token, 20 generic-api-key\n"
	if b.String() != want {
		t.Fatalf("WriteText =\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	(MergeSummary{Reports: 1}).WriteText(&b)
	if b.String() != "merged 1 report: 0 findings, 0 duplicates removed\n" {
		t.Fatalf("empty merge: %q", b.String())
	}
}

// FuzzMerge feeds arbitrary bytes to Merge as a shard report next to a good
// one: it must never panic, and whatever it accepts it writes as a valid
// json report holding at least the good shard's findings.
func FuzzMerge(f *testing.F) {
	for _, seed := range []string{
		`[]`, `null`, `{"rule_id":"r","file":"f"}`, `[{"RuleID":"r","File":"f","StartLine":2,"Tags":["a"]}]`,
		`[{"rule_id":"r","file":"f\udcff","tags":[1]}]`, `[{"rule_id":"r","file":"f","entropy":"x"}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		good := writeReport(t, dir, "good.json", FormatJSON, sampleFindings()[:2])
		odd := filepath.Join(dir, "odd.json")
		os.WriteFile(odd, data, 0o600)
		got, sum, err := mergeTo(t, good, odd)
		if err != nil {
			if !strings.Contains(err.Error(), odd) {
				t.Fatalf("error does not name the report: %v", err)
			}
			return
		}
		if int64(len(got)) != sum.Findings || sum.Findings+sum.Duplicates != sum.Read || len(got) < 2 {
			t.Fatalf("summary %+v for %d findings", sum, len(got))
		}
		if !slices.IsSortedFunc(got, func(a, b Finding) int { return compareFindings(&a, &b) }) {
			t.Fatal("merged report is not sorted")
		}
	})
}
