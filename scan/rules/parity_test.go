package rules

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestGitleaksParity compares, file by file, this package's findings with
// a gitleaks JSON report of the same directory, scanned with gitleaks'
// default config. It runs only when SPINDLE_GITLEAKS_REPORT names the
// report and SPINDLE_GITLEAKS_DIR the directory gitleaks scanned, e.g.
//
//	gitleaks dir --no-banner -f json -r /tmp/gl.json $(go env GOROOT)/src
//	SPINDLE_GITLEAKS_REPORT=/tmp/gl.json SPINDLE_GITLEAKS_DIR=$(go env GOROOT)/src go test -run Parity
//
// Each file is scanned whole (gitleaks splits files above 100 KB at blank
// lines; findings that straddle such a split can differ). Binary files are
// skipped by a NUL byte in the first 8 KiB, as the scan engine does.
func TestGitleaksParity(t *testing.T) {
	report, dir := os.Getenv("SPINDLE_GITLEAKS_REPORT"), os.Getenv("SPINDLE_GITLEAKS_DIR")
	if report == "" || dir == "" {
		t.Skip("set SPINDLE_GITLEAKS_REPORT and SPINDLE_GITLEAKS_DIR")
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var gl []struct {
		File      string
		StartLine int
		RuleID    string
	}
	if err := json.Unmarshal(raw, &gl); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, f := range gl {
		want[f.File+":"+f.RuleID+":"+strconv.Itoa(f.StartLine)] = true
	}
	d := gitleaksDetector(t)
	s := d.NewScratch()
	got := map[string]bool{}
	filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || !de.Type().IsRegular() || d.SkipPath(p) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || len(data) == 0 || bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
			return nil
		}
		d.ScanPath(p, func(m Match) { got[p+":"+m.RuleID+":0"] = true })
		d.Scan(s, p, data, func(m Match) {
			got[p+":"+m.RuleID+":"+strconv.Itoa(1+bytes.Count(data[:m.Start], []byte("\n")))] = true
		})
		return nil
	})
	var missing, extra []string
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	t.Logf("gitleaks %d findings, spindle %d", len(want), len(got))
	if len(missing)+len(extra) > 0 {
		t.Errorf("missing (gitleaks only):\n%s\nextra (spindle only):\n%s", strings.Join(missing, "\n"), strings.Join(extra, "\n"))
	}
}
