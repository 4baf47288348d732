package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readWhole reads a report to its end and checks it against its trailer,
// as Merge does.
func readWhole(text string) (int64, error) {
	rr, err := newReportReader(strings.NewReader(text), 0)
	if err != nil {
		return 0, err
	}
	rr.sums = true
	var n int64
	for {
		_, ok, err := rr.next()
		if err != nil {
			return n, err
		}
		if !ok {
			break
		}
		n++
	}
	return n, rr.checkTrailer()
}

// TestShardTrailerRefusesReportsThatAreNotWhole: a shard's report of 999
// findings reads back whole; cut at a line boundary, cut to its header,
// with a finding repeated 200,000 times (20,000 with -short), or with one finding changed, it is
// refused with an error that says why, in json, jsonl and gitleaks' json.
func TestShardTrailerRefusesReportsThatAreNotWhole(t *testing.T) {
	all := randomFindings(11, 999)
	repeats := 200_000
	if testing.Short() {
		repeats = 20_000
	}
	for _, format := range []Format{FormatJSONL, FormatJSON, FormatGitleaks} {
		t.Run(string(format), func(t *testing.T) {
			whole := render(t, format, Options{Shard: testShard(0, 1)}, all)
			if n, err := readWhole(whole); err != nil || n != 999 {
				t.Fatalf("the whole report: %d findings, %v", n, err)
			}
			lines := strings.SplitAfter(whole, "\n")
			if last := max(strings.LastIndex(whole, `"secret"`), strings.LastIndex(whole, `"Secret"`)); strings.LastIndex(whole, `"trailer"`) < last {
				t.Fatalf("the trailer is not after the last finding:\n%s", whole[last:])
			}
			single := render(t, format, Options{Shard: testShard(0, 1)}, all[:1])
			singleLines := strings.SplitAfter(single, "\n")
			var cut, header, repeated, repeatedWithTrailer, changed string
			if format == FormatJSONL {
				cut = strings.Join(lines[:824], "") // the header and 823 findings
				header = lines[0]                   // the header alone
				repeated = singleLines[0] + strings.Repeat(singleLines[1], repeats)
				repeatedWithTrailer = repeated + singleLines[2]
			} else {
				// An array cut at an element and closed again.
				elems := splitElements(t, whole)
				cut = "[\n " + strings.Join(elems[:824], ",\n ") + "\n]\n"
				header = "[\n " + elems[0] + "\n]\n"
				one := splitElements(t, single)
				repeated = "[\n " + one[0] + strings.Repeat(",\n "+one[1], repeats) + "\n]\n"
				repeatedWithTrailer = strings.TrimSuffix(repeated, "\n]\n") + ",\n " + one[2] + "\n]\n"
			}
			// One finding's secret changed by one letter, the trailer kept.
			i := strings.Index(whole, all[500].Secret)
			if i < 0 {
				t.Fatal("no secret in the report")
			}
			b := []byte(whole)
			b[i] ^= 1
			changed = string(b)
			for _, c := range []struct{ name, text, want string }{
				{"cut at a line boundary", cut, "no trailer"},
				{"header only", header, "no trailer"},
				{"a finding repeated", repeated, "no trailer"},
				{"a finding repeated, one finding's trailer", repeatedWithTrailer, fmt.Sprintf("the trailer counts 1 finding, the report holds %d", repeats)},
				{"one finding changed", changed, "checksum"},
			} {
				if n, err := readWhole(c.text); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: read %d findings, error %v; want one saying %q", c.name, n, err, c.want)
				}
			}
			// Merge refuses it too, naming the file.
			dir := t.TempDir()
			path := filepath.Join(dir, "cut."+string(format))
			if err := os.WriteFile(path, []byte(cut), 0o600); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if _, err := Merge(newTestWriter(t, FormatJSON, &out, Options{}), path); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("merged a cut shard: %v", err)
			}
		})
	}
}

// splitElements returns the top-level elements of a json report, as text.
func splitElements(t *testing.T, text string) []string {
	t.Helper()
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(raw))
	for i, r := range raw {
		out[i] = string(r)
	}
	return out
}

// TestMarkLostSaysWhatWasLost: a report whose scan lost data says so in
// SARIF (executionSuccessful false and a notification), junit (an errored
// test case, no "no secrets found") and a shard's trailer (which Merger
// sums); with findings too.
func TestMarkLostSaysWhatWasLost(t *testing.T) {
	lost := Lost{Warnings: 3, Kinds: "3× read blob: zlib: invalid header", First: "a.txt@1234567: read blob: zlib: invalid header"}
	renderLost := func(format Format, opts Options, fs []Finding) string {
		var buf bytes.Buffer
		w := newTestWriter(t, format, &buf, opts)
		for _, f := range fs {
			if err := w.Write(f); err != nil {
				t.Fatal(err)
			}
		}
		MarkLost(w, lost)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	for _, fs := range [][]Finding{nil, sampleFindings()} {
		for _, format := range []Format{FormatSARIF, FormatGitleaksSARIF} {
			out := renderLost(format, Options{}, fs)
			var log struct {
				Runs []struct {
					Invocations []struct {
						ExecutionSuccessful bool `json:"executionSuccessful"`
						Notes               []struct {
							Level   string                `json:"level"`
							Message struct{ Text string } `json:"message"`
						} `json:"toolExecutionNotifications"`
					} `json:"invocations"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(out), &log); err != nil {
				t.Fatalf("%s: %v\n%s", format, err, out)
			}
			inv := log.Runs[0].Invocations
			if len(inv) != 1 || inv[0].ExecutionSuccessful || len(inv[0].Notes) != 1 || inv[0].Notes[0].Level != "error" ||
				!strings.Contains(inv[0].Notes[0].Message.Text, "lost data: 3 warnings") || !strings.Contains(inv[0].Notes[0].Message.Text, "zlib: invalid header") {
				t.Errorf("%s with %d findings: invocations %+v", format, len(fs), inv)
			}
		}
		for _, format := range []Format{FormatJUnit, FormatGitleaksJUnit} {
			out := renderLost(format, Options{}, fs)
			if err := xml.Unmarshal([]byte(out), new(any)); err != nil {
				t.Fatalf("%s: %v\n%s", format, err, out)
			}
			if !strings.Contains(out, `name="lost data"`) || !strings.Contains(out, `<error message="the scan lost data: 3 warnings`) ||
				!strings.Contains(out, `errors="1"`) || strings.Contains(out, "no secrets found") {
				t.Errorf("%s with %d findings:\n%s", format, len(fs), out)
			}
		}
		for _, format := range []Format{FormatJSONL, FormatJSON, FormatGitleaks} {
			out := renderLost(format, Options{Shard: testShard(0, 1)}, fs)
			dir := t.TempDir()
			path := filepath.Join(dir, "s")
			if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
				t.Fatal(err)
			}
			m := NewMerger()
			if err := m.Read(path); err != nil || m.Lost() != 3 {
				t.Errorf("%s: read %v, lost %d, want 3", format, err, m.Lost())
			}
			m.Close()
		}
	}
	// A report whose scan lost nothing says it completed.
	if out := render(t, FormatSARIF, Options{}, nil); !strings.Contains(out, `"executionSuccessful": true`) || strings.Contains(out, "toolExecutionNotifications") {
		t.Errorf("a complete run:\n%s", out)
	}
}
