package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// writeBaseline renders findings in format into a temporary file.
func writeBaseline(t *testing.T, format Format, opts Options, findings []Finding) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "baseline."+string(format))
	if err := os.WriteFile(path, []byte(render(t, format, opts, findings)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBaselineRoundTripContainsEveryWrittenFinding(t *testing.T) {
	findings := sampleFindings()
	for _, format := range []Format{FormatJSON, FormatJSONL, FormatGitleaks} {
		t.Run(string(format), func(t *testing.T) {
			b, err := LoadBaseline(writeBaseline(t, format, Options{}, findings))
			if err != nil {
				t.Fatal(err)
			}
			if b.Len() != len(findings) {
				t.Errorf("Len = %d, want %d", b.Len(), len(findings))
			}
			for _, f := range findings {
				if !b.Contains(f) {
					t.Errorf("baseline lacks %s:%d %s", f.File, f.Line, f.RuleID)
				}
			}
		})
	}
}

func TestBaselineIdentityIsRuleFileAndSecretNotLine(t *testing.T) {
	known := sampleFindings()[0]
	b, err := LoadBaseline(writeBaseline(t, FormatJSON, Options{}, []Finding{known}))
	if err != nil {
		t.Fatal(err)
	}
	change := func(edit func(*Finding)) Finding {
		f := known
		edit(&f)
		return f
	}
	tests := []struct {
		name string
		f    Finding
		want bool
	}{
		{"same finding", known, true},
		{"moved down by an edit above", change(func(f *Finding) { f.Line += 40; f.EndLine += 40; f.Fingerprint = "x" }), true},
		{"moved along the line", change(func(f *Finding) { f.Column += 3; f.EndColumn += 3 }), true},
		{"other description and entropy", change(func(f *Finding) { f.Description = "new text"; f.Entropy = 1 }), true},
		{"path spelled differently", change(func(f *Finding) { f.File = "./config/../config/app.env" }), true},
		{"other secret", change(func(f *Finding) { f.Secret = "AKIAOTHERSECRET00000" }), false},
		{"same secret in another file", change(func(f *Finding) { f.File = "config/prod.env" }), false},
		{"same secret under another rule", change(func(f *Finding) { f.RuleID = "generic-api-key" }), false},
	}
	for _, tt := range tests {
		if got := b.Contains(tt.f); got != tt.want {
			t.Errorf("%s: Contains = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBaselineMatchesHistoryFindingsByCommitToo(t *testing.T) {
	known := sampleFindings()[4]
	plain := sampleFindings()[0]
	for _, format := range []Format{FormatJSON, FormatGitleaks} {
		b, err := LoadBaseline(writeBaseline(t, format, Options{}, []Finding{known, plain}))
		if err != nil {
			t.Fatal(err)
		}
		change := func(f Finding, edit func(*Finding)) Finding {
			edit(&f)
			return f
		}
		tests := []struct {
			name string
			f    Finding
			want bool
		}{
			{"same commit, rule, file and secret", known, true},
			{"moved in a later edit of the same commit's file", change(known, func(f *Finding) { f.Line += 5; f.Fingerprint = "y" }), true},
			{"another message or author date text", change(known, func(f *Finding) { f.Message = "other"; f.Date = "2024-03-01T10:00:00+02:00" }), true},
			{"re-added in a new commit", change(known, func(f *Finding) { f.Commit = "feedface" + f.Commit[8:] }), false},
			{"the same secret found outside history", change(known, func(f *Finding) { f.Commit = "" }), false},
			{"a baseline entry outside history does not hide a history finding", change(plain, func(f *Finding) { f.Commit = known.Commit }), false},
		}
		for _, tt := range tests {
			if got := b.Contains(tt.f); got != tt.want {
				t.Errorf("%s: %s: Contains = %v, want %v", format, tt.name, got, tt.want)
			}
		}
	}
}

func TestBaselineMatchesFileNamesThatAreNotUTF8(t *testing.T) {
	// A name in Latin-1 and a secret with a stray byte: a scan against its
	// own baseline must find both known, so they must come back exactly.
	odd := Finding{RuleID: "r", File: "caf\xe9/cl\xe9.env", Line: 1, Secret: "tok\xff3n", Match: "k=tok\xff3n"}
	near := odd
	near.File = "caf\ufffd/cl\ufffd.env" // what a lossy report would have held
	for _, format := range []Format{FormatJSON, FormatJSONL, FormatGitleaks} {
		b, err := LoadBaseline(writeBaseline(t, format, Options{}, []Finding{odd}))
		if err != nil {
			t.Fatal(err)
		}
		if !b.Contains(odd) {
			t.Errorf("%s: the finding the baseline was written from is new again", format)
		}
		if b.Contains(near) {
			t.Errorf("%s: a different name matched", format)
		}
	}
}

func TestBaselineRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadBaseline(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: %v, want ErrNotRegular", err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := LoadBaseline(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("a FIFO: %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("LoadBaseline hangs on a FIFO")
	}
}

func TestBaselineLimitsEndHostileInputWithAClearError(t *testing.T) {
	big := func(n int, b byte) string { return strings.Repeat(string(b), n) }
	tests := []struct {
		name, in, want string
	}{
		{"one giant string", `[{"rule_id":"r","file":"` + big(maxReportString+10, 'a') + `"}]`, "a string longer than 1.0 MiB at byte 23"},
		{"a giant string as a jsonl entry", `{"rule_id":"r","file":"f"} "` + big(maxReportString+10, 'a'), "a string longer than 1.0 MiB at byte 27"},
		{"escapes count", `[{"rule_id":"r","file":"` + strings.Repeat(`\n`, maxReportString/2+10) + `"}]`, "a string longer than"},
		{"a giant entry of short strings", `[{"rule_id":"r","file":"f"` + strings.Repeat(`,"k":"vvvvvvvv"`, maxReportEntry/14+10) + `}]`, "a finding larger than 4.0 MiB at byte 1"},
		{"deep nesting", strings.Repeat("[", maxReportDepth+5), "nested deeper than 32 at byte 32"},
		{"a giant number", `[` + big(maxReportString+10, '1') + `]`, "a value longer than 1.0 MiB at byte 1"},
		{"deep nesting inside an entry", `[{"rule_id":"r","file":"f","x":` + strings.Repeat(`{"a":`, 40), "nested deeper than 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadBaseline(strings.NewReader(tt.in))
			if !errors.Is(err, ErrReportLimit) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %.300v, want ErrReportLimit with %q", err, tt.want)
			}
		})
	}
	// The size limit, at a small bound: the parser stops reading there.
	in := `[` + strings.Repeat(`{"rule_id":"r","file":"f"},`, 1000) + `{"rule_id":"r","file":"f"}]`
	if _, err := parseBaseline(strings.NewReader(in), 4096); !errors.Is(err, ErrReportLimit) || !strings.Contains(err.Error(), "larger than 4.0 KiB") {
		t.Fatalf("size limit: %v", err)
	}
	if _, err := parseBaseline(strings.NewReader(in), int64(len(in))); err != nil {
		t.Fatalf("a baseline at the size limit: %v", err)
	}
}

func TestRedactedBaselineMatchesByLineAndKeptPrefix(t *testing.T) {
	known := sampleFindings()[0]
	for _, pct := range []int{100, 50} {
		b, err := LoadBaseline(writeBaseline(t, FormatJSON, Options{Redact: pct}, []Finding{known}))
		if err != nil {
			t.Fatal(err)
		}
		moved := known
		moved.Line++
		other := known
		other.Secret = "ZZZZ" + known.Secret[4:]
		if !b.Contains(known) {
			t.Errorf("redact %d: the redacted baseline lacks the finding it was written from", pct)
		}
		if b.Contains(moved) {
			t.Errorf("redact %d: a redacted entry matched another line", pct)
		}
		if want := pct == 100; b.Contains(other) != want {
			t.Errorf("redact %d: Contains(other secret, same line) = %v, want %v", pct, !want, want)
		}
	}
}

func TestBaselineReadsGitleaksReports(t *testing.T) {
	const gitleaks = `[
 {
  "RuleID": "aws-access-token",
  "Description": "AWS",
  "StartLine": 3, "EndLine": 3, "StartColumn": 11, "EndColumn": 30,
  "Line": "AWS_KEY=AKIAZ7QKXW3VUMPLR2TD",
  "Match": "AWS_KEY=AKIAZ7QKXW3VUMPLR2TD",
  "Secret": "AKIAZ7QKXW3VUMPLR2TD",
  "File": "config/app.env",
  "SymlinkFile": "", "Commit": "", "Entropy": 3.68, "Author": "", "Email": "",
  "Date": "", "Message": "", "Tags": [],
  "Fingerprint": "config/app.env:aws-access-token:3"
 }
]`
	b, err := ReadBaseline(strings.NewReader(gitleaks))
	if err != nil {
		t.Fatal(err)
	}
	if !b.Contains(sampleFindings()[0]) {
		t.Fatal("gitleaks entry not matched")
	}
}

func TestNilBaselineContainsNothing(t *testing.T) {
	var b *Baseline
	if b.Contains(sampleFindings()[0]) || b.Len() != 0 {
		t.Fatal("nil baseline is not empty")
	}
}

func TestBaselineAcceptsEmptyReports(t *testing.T) {
	for _, in := range []string{"[]", " [ ] \n", "null", "\xEF\xBB\xBF[]"} {
		b, err := ReadBaseline(strings.NewReader(in))
		if err != nil || b.Len() != 0 {
			t.Errorf("ReadBaseline(%q) = %v, %v; want an empty baseline", in, b, err)
		}
	}
}

func TestBaselineRejectsMalformedInputWithAClearError(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty file", "", "empty file"},
		{"white space only", " \n\t", "empty file"},
		{"object not array", `{"rule_id": 1}`, `key "rule_id": got a JSON number, want a string`},
		{"scalar", `42`, "want a JSON array"},
		{"string", `"x"`, "want a JSON array"},
		{"truncated", `[{"rule_id":"r","file":"f"}`, "truncated"},
		{"truncated inside entry", `[{"rule_id":"r","fi`, "truncated"},
		{"syntax error", `[{"rule_id":"r",,}]`, "at byte 16"},
		{"syntax error after BOM and space", "\xEF\xBB\xBF  [x]", "at byte 6"},
		{"element not object", `[{"rule_id":"r","file":"f"}, 7]`, "finding 2: is a JSON number"},
		{"null element", `[null]`, "finding 1: is null"},
		{"missing rule", `[{"file":"f"}]`, `finding 1: no "rule_id" (or "RuleID") key`},
		{"missing file", `[{"RuleID":"r"}]`, `no "file" (or "File") key`},
		{"line not a number", `[{"rule_id":"r","file":"f","line":"7"}]`, `key "line": got a JSON string, want a whole number`},
		{"fractional line", `[{"rule_id":"r","file":"f","line":7.5}]`, `key "line": got a JSON number`},
		{"secret an object", `[{"rule_id":"r","file":"f","secret":{}}]`, `key "secret": got a JSON object`},
		{"trailing data", `[] []`, "unexpected data after the report"},
		{"trailing garbage", `[] x`, "invalid character"},
		{"sarif log", `{"$schema":"x","version":"2.1.0","runs":[]}`, "SARIF log"},
		{"two arrays in jsonl", `{"rule_id":"r","file":"f"} [1]`, "finding 2: is a JSON array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadBaseline(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "report: baseline: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

func TestBaselineErrorsNameTheFileAndNeverQuoteValues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old-report.json")
	os.WriteFile(path, []byte(`[{"rule_id":"r","file":"f","line":"AKIA-SECRET-VALUE"}]`), 0o600)
	_, err := LoadBaseline(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error = %v, want it to name %s", err, path)
	}
	if strings.Contains(err.Error(), "AKIA-SECRET-VALUE") {
		t.Fatalf("error quotes a value from the baseline: %v", err)
	}
	_, err = LoadBaseline(filepath.Join(t.TempDir(), "missing.json"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("missing file error = %v", err)
	}
}

// FuzzReadBaseline feeds the parser arbitrary bytes. It must never panic,
// and whenever it accepts a JSON array it must contain every entry that an
// independent decoding (encoding/json into generic values) finds, with the
// same keys the parser documents.
func FuzzReadBaseline(f *testing.F) {
	for _, seed := range []string{
		`[]`, `null`, ``, `[{"rule_id":"r","file":"a.zip!b.env","line":3,"secret":"s"}]`,
		`{"rule_id":"r","file":"f","secret":"x"}` + "\n" + `{"rule_id":"q","file":"g","match":"m"}`,
		`[{"RuleID":"r","File":"f","StartLine":1,"Secret":"REDACTED"}]`,
		`[{"rule_id":"r","file":"f","line":2,"secret":"abc..."}]`,
		"\xEF\xBB\xBF[{\"rule_id\":\"r\",\"file\":\"./x/../f\",\"secret\":null,\"match\":\"m\"}]",
		`[{"rule_id":"r","file":"f","line":1e3}]`, `[[[[[[[[[[`, `[{"rule_id":"\ud800","file":"f"}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ReadBaseline(strings.NewReader(string(data)))
		if err != nil {
			if b != nil {
				t.Fatal("non-nil baseline with an error")
			}
			return
		}
		body := strings.TrimLeft(strings.TrimPrefix(string(data), "\xEF\xBB\xBF"), " \t\r\n")
		if !strings.HasPrefix(body, "[") {
			return // jsonl and null: no independent decoder to compare with
		}
		var entries []map[string]any
		if err := json.Unmarshal([]byte(body), &entries); err != nil {
			t.Fatalf("accepted input that encoding/json rejects: %v", err)
		}
		if len(entries) != b.Len() {
			t.Fatalf("Len = %d, encoding/json found %d entries", b.Len(), len(entries))
		}
		for _, e := range entries {
			if strings.Contains(fmt.Sprint(e), "\uFFFD") {
				// encoding/json replaced something (a byte that is not
				// UTF-8, a lone surrogate) that the reader keeps exactly;
				// the two no longer name the same finding.
				continue
			}
			pick := func(keys []string) any {
				for _, k := range keys {
					if v, ok := e[k]; ok && v != nil {
						return v
					}
				}
				return nil
			}
			f := Finding{RuleID: pick(ruleKeys).(string), File: pick(fileKeys).(string)}
			if v, ok := pick(lineKeys).(float64); ok {
				f.Line = int(v)
			}
			f.Commit, _ = pick(commitKeys).(string)
			f.Secret, _ = pick(secretKeys).(string)
			f.Match, _ = pick(matchKeys).(string)
			if !b.Contains(f) {
				t.Fatalf("accepted entry %v is not contained", e)
			}
		}
	})
}

func TestBaselineIsSafeForConcurrentReaders(t *testing.T) {
	defer goleak.VerifyNone(t)
	findings := sampleFindings()
	b, err := ReadBaseline(strings.NewReader(render(t, FormatJSON, Options{}, findings)))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				f := findings[(g+i)%len(findings)]
				if !b.Contains(f) {
					t.Errorf("goroutine %d: lost %s", g, f.RuleID)
					return
				}
			}
		})
	}
	wg.Wait()
}

// endless is a reader of head followed by fill bytes for ever: a baseline
// of unbounded size that costs the test nothing to hold.
type endless struct {
	head string
	fill byte
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.head)
	e.head = e.head[n:]
	for i := n; i < len(p); i++ {
		p[i] = e.fill
	}
	return len(p), nil
}

func TestAnEndlessBaselineStringCostsBoundedMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadBaseline(&endless{head: `[{"rule_id":"r","file":"`, fill: 'a'})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrReportLimit) {
		t.Fatalf("error = %v, want ErrReportLimit", err)
	}
	// The decoder buffers up to the string limit (1 MiB), growing its
	// buffer by doubling; nothing near the 5 GiB this once took.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Fatalf("reading to the limit allocated %d MiB", alloc>>20)
	}
}
