package report

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// randomFindings makes n findings with many ties in file, line and rule, a
// few history findings and a few exact duplicates, so that sorting has to
// use every key.
func randomFindings(seed uint64, n int) []Finding {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rules := []string{"aws-access-token", "generic-api-key", "github-pat", "private-key"}
	commits := []string{"", "", "", "0f1e2d3c4b5a69788796a5b4c3d2e1f001234567", "9fceb02d0ae598e95dc970b74767f19372d61af8"}
	fs := make([]Finding, 0, n)
	for i := range n {
		if i > 0 && r.IntN(20) == 0 {
			fs = append(fs, fs[r.IntN(len(fs))]) // a duplicate
			continue
		}
		file := "dir" + strconv.Itoa(r.IntN(5)) + "/f" + strconv.Itoa(r.IntN(7)) + ".env"
		rule := rules[r.IntN(len(rules))]
		line := 1 + r.IntN(30)
		secret := "s3cr3t-" + strconv.Itoa(r.IntN(1000))
		f := Finding{
			RuleID: rule, Description: "about " + rule, File: file,
			Line: line, Column: 1 + r.IntN(4), EndLine: line, EndColumn: 10 + r.IntN(40),
			Secret: secret, Match: "k=" + secret, Entropy: float64(r.IntN(800)) / 100,
			Fingerprint: file + ":" + rule + ":" + strconv.Itoa(line),
			Tags:        []string{"t" + strconv.Itoa(r.IntN(3))},
			Commit:      commits[r.IntN(len(commits))],
		}
		if f.Commit != "" {
			f.Author, f.Email, f.Date, f.Message = "Ann", "ann@example.com", "2024-03-01T08:00:00Z", "add keys"
			f.Fingerprint = f.Commit + ":" + f.Fingerprint
		}
		fs = append(fs, f)
	}
	return fs
}

func TestSpillSorterMatchesAnInMemorySort(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		limit int64
		check func(t *testing.T, s *spillSorter)
	}{
		{"in memory", 1500, 1 << 30, func(t *testing.T, s *spillSorter) {
			if len(s.runs) != 0 {
				t.Fatalf("%d runs below the threshold", len(s.runs))
			}
		}},
		{"runs merged into levels", 1500, 2 << 10, func(t *testing.T, s *spillSorter) {
			if !slices.ContainsFunc(s.runs, func(r *spillRun) bool { return r.level > 0 }) {
				t.Fatal("no run was merged into a higher level")
			}
			if len(s.runs) >= 2*mergeFanIn {
				t.Fatalf("%d runs open", len(s.runs))
			}
		}},
		// A run per finding: 63 runs at level 0 and two at level 1 are more
		// than one merge takes, so Close merges in two passes.
		{"more runs than one merge takes", 2*mergeFanIn + mergeFanIn - 1, 1, func(t *testing.T, s *spillSorter) {
			if len(s.runs) <= mergeFanIn {
				t.Fatalf("%d runs; the test means more than %d", len(s.runs), mergeFanIn)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			findings := randomFindings(1, tt.n)
			want := make([]entry, len(findings))
			for i, f := range findings {
				want[i] = entry{f: f, hash: strconv.Itoa(i % 3)}
			}
			slices.SortStableFunc(want, func(a, b entry) int { return compareEntries(compareFindings, &a, &b) })
			s := newSpillSorter(compareFindings, t.TempDir(), tt.limit)
			for i, f := range findings {
				if err := s.add(entry{f: f, hash: strconv.Itoa(i % 3)}); err != nil {
					t.Fatal(err)
				}
			}
			tt.check(t, s)
			var got []entry
			err := s.drain(func(e *entry) error {
				got = append(got, *e)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d entries, want %d", len(got), len(want))
			}
			for i := range want {
				if compareEntries(compareFindings, &got[i], &want[i]) != 0 || !sameFinding(got[i].f, want[i].f) {
					t.Fatalf("entry %d:\n got %+v\nwant %+v", i, got[i], want[i])
				}
			}
		})
	}
}

func TestRunRecordsRoundTripEveryField(t *testing.T) {
	for _, e := range []entry{
		{},
		{f: sampleFindings()[4], hash: "h", artifact: "/abs/x", member: true},
		{f: Finding{RuleID: "\xff\x00", Line: -1 << 40, Column: 1 << 40, Entropy: -0.5, Tags: []string{"", "a"}}},
	} {
		rec := appendEntry(nil, &e)
		var got entry
		// Skip the record's length prefix as the cursor does.
		n, size := uvarintPrefix(rec)
		if int(n) != len(rec)-size || !decodeEntry(string(rec[size:]), &got) {
			t.Fatalf("record for %+v does not decode", e)
		}
		if !sameFinding(got.f, e.f) || got.hash != e.hash || got.artifact != e.artifact || got.member != e.member ||
			got.f.Entropy != e.f.Entropy {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, e)
		}
	}
	// A damaged record is refused, not misread.
	rec := appendEntry(nil, &entry{f: sampleFindings()[0]})
	_, size := uvarintPrefix(rec)
	var e entry
	for cut := size; cut < len(rec)-1; cut += 7 {
		if decodeEntry(string(rec[size:cut]), &e) {
			t.Fatalf("a record cut at %d of %d decodes", cut, len(rec))
		}
	}
}

// uvarintPrefix decodes a record's length prefix.
func uvarintPrefix(b []byte) (uint64, int) {
	d := recordReader{s: string(b)}
	n := d.uvarint()
	return n, len(b) - len(d.s)
}

// sortedFormats are the formats whose output is sorted.
func sortedFormats() []Format {
	return slices.DeleteFunc(allFormats(), func(f Format) bool { return f == FormatJSONL })
}

func TestSortedReportsAreByteIdenticalWhateverTheOrderAndSpilling(t *testing.T) {
	findings := randomFindings(2, 600)
	for _, format := range sortedFormats() {
		t.Run(string(format), func(t *testing.T) {
			opts := Options{Rules: []RuleMeta{{ID: "github-pat", Description: "GitHub"}}}
			want := render(t, format, opts, findings)
			shuffled := slices.Clone(findings)
			rand.New(rand.NewPCG(3, 4)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			opts.spillAt, opts.TempDir = 4<<10, t.TempDir()
			if got := render(t, format, opts, shuffled); got != want {
				t.Fatalf("the report changes with the write order and spilling:\n%s\n---\n%s", head(got), head(want))
			}
		})
	}
}

// head is the start of a long report, for failure messages.
func head(s string) string { return s[:min(len(s), 2000)] }

func TestSpilledRunsLeaveNoFileBehind(t *testing.T) {
	for _, format := range sortedFormats() {
		t.Run(string(format), func(t *testing.T) {
			dir := t.TempDir()
			var out bytes.Buffer
			w := newTestWriter(t, format, &out, Options{TempDir: dir, spillAt: 1 << 10})
			for _, f := range randomFindings(5, 300) {
				if err := w.Write(f); err != nil {
					t.Fatal(err)
				}
			}
			// Where the system allows, run files have no name even while
			// they are in use: a killed scan leaves no secrets in TempDir.
			if runtime.GOOS != "windows" && format != FormatTemplate {
				if names := dirNames(t, dir); len(names) != 0 {
					t.Fatalf("run files visible during the scan: %v", names)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if names := dirNames(t, dir); len(names) != 0 {
				t.Fatalf("files left after Close: %v", names)
			}
		})
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestASpillFailureStopsTheReportAtOnce(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	for _, format := range slices.DeleteFunc(sortedFormats(), func(f Format) bool { return f == FormatTemplate }) {
		t.Run(string(format), func(t *testing.T) {
			var out bytes.Buffer
			w := newTestWriter(t, format, &out, Options{TempDir: missing, spillAt: 1})
			err := w.Write(sampleFindings()[0])
			if err == nil {
				t.Fatal("Write succeeded although the run could not be written")
			}
			if again := w.Write(sampleFindings()[1]); !errors.Is(again, err) && again.Error() != err.Error() {
				t.Errorf("second Write = %v, want the first error %v", again, err)
			}
			if cerr := w.Close(); cerr == nil || cerr.Error() != err.Error() {
				t.Errorf("Close = %v, want the first error %v", cerr, err)
			}
		})
	}
}

func TestAnUnwritableDestinationFailsTheFirstWrite(t *testing.T) {
	for _, format := range allFormats() {
		if format == FormatText || format == FormatTemplate || format == FormatCSV || format == FormatGitleaksCSV {
			continue // nothing to write before Close: the error comes there
		}
		t.Run(string(format), func(t *testing.T) {
			w := newTestWriter(t, format, &failWriter{err: errDisk}, Options{})
			if err := w.Write(sampleFindings()[0]); !errors.Is(err, errDisk) {
				t.Fatalf("first Write = %v, want the destination's error", err)
			}
			if err := w.Write(sampleFindings()[1]); !errors.Is(err, errDisk) {
				t.Fatalf("second Write = %v, want the destination's error", err)
			}
		})
	}
}
