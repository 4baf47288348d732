package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fakeSecret is the fake detector's pattern. An occurrence starts with
// "SECRET_", which cannot occur inside the hex run, so occurrences never
// overlap and the greedy {16,40} makes the match depend on up to 40 bytes
// after the prefix: the detector is local within fakeWindow, as the engine
// requires, and exercises both sides of the chunk geometry.
var fakeSecret = regexp.MustCompile(`SECRET_[0-9a-f]{16,40}`)

const fakeWindow = 48 // >= the longest match, 7+40 bytes

// fakeDetector is a Detector with one content rule (fakeSecret), an
// optional path-only rule, optional skipped paths, and a hook called on
// every Scan (to remove files, cancel, or count).
type fakeDetector struct {
	window   int
	pathRule *regexp.Regexp
	skip     func(path string) bool
	onScan   func(path string)
}

func newFake() *fakeDetector { return &fakeDetector{window: fakeWindow} }

func (d *fakeDetector) MaxWindow() int { return d.window }

func (d *fakeDetector) SkipPath(_ any, path string) bool { return d.skip != nil && d.skip(path) }

func (d *fakeDetector) NewScratch() any { return nil }

func (d *fakeDetector) ScanPath(_ any, path string, emit func(rules.Match)) {
	if d.pathRule != nil && d.pathRule.MatchString(path) {
		emit(rules.Match{RuleID: "path-rule", Match: "file detected: " + path})
	}
}

func (d *fakeDetector) Scan(_ any, path string, data []byte, emit func(rules.Match)) {
	if d.onScan != nil {
		d.onScan(path)
	}
	for _, loc := range fakeSecret.FindAllIndex(data, -1) {
		s := string(data[loc[0]:loc[1]])
		emit(rules.Match{RuleID: "fake", Start: loc[0], End: loc[1], SecretStart: loc[0] + 7, SecretEnd: loc[1], Secret: s[7:], Match: s})
	}
}

// key is what the tests compare: a finding without the fields that are
// copies of the rule (description, tags).
type key struct {
	File                             string
	Rule                             string
	Line, Column, EndLine, EndColumn int
	Secret                           string
}

func keyOf(f report.Finding) key {
	return key{f.File, f.RuleID, f.Line, f.Column, f.EndLine, f.EndColumn, f.Secret}
}

// collect runs a scan and returns its findings sorted, its warnings and
// its stats.
func collect(t testing.TB, opts Options, paths ...string) ([]key, []Warning, Stats, error) {
	t.Helper()
	var (
		mu    sync.Mutex
		found []key
		warns []Warning
	)
	opts.OnFinding = func(f report.Finding) {
		mu.Lock()
		found = append(found, keyOf(f))
		mu.Unlock()
	}
	opts.OnWarning = func(w Warning) {
		mu.Lock()
		warns = append(warns, w)
		mu.Unlock()
	}
	st, err := Scan(context.Background(), opts, paths...)
	slices.SortFunc(found, compareKeys)
	return found, warns, st, err
}

func compareKeys(a, b key) int {
	if c := strings.Compare(a.File, b.File); c != 0 {
		return c
	}
	if c := a.Line - b.Line; c != 0 {
		return c
	}
	if c := a.Column - b.Column; c != 0 {
		return c
	}
	if c := strings.Compare(a.Rule, b.Rule); c != 0 {
		return c
	}
	return strings.Compare(a.Secret, b.Secret)
}

// wholeBuffer is the reference the engine is compared with: the fake
// detector run once over all of data, lines and columns counted naively.
func wholeBuffer(path string, data []byte) []key {
	var out []key
	newFake().Scan(nil, path, data, func(m rules.Match) {
		l, c := naivePosition(data, m.Start)
		el, ec := naivePosition(data, max(m.End-1, m.Start))
		out = append(out, key{path, m.RuleID, l, c, el, ec, m.Secret})
	})
	slices.SortFunc(out, compareKeys)
	return out
}

func naivePosition(data []byte, off int) (line, col int) {
	line, col = 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// writeTree creates files under dir from a map of slash paths to contents.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// secret returns a distinct fake secret for index i.
func secret(i int) string { return fmt.Sprintf("SECRET_%024x", i+1) }

// filesOf returns the distinct files in found, sorted.
func filesOf(found []key) []string {
	var out []string
	for _, k := range found {
		out = append(out, k.File)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// scanPaths runs an engine made by a test on paths.
func (e *engine) scanPaths(ctx context.Context, paths ...string) (Stats, error) {
	return e.run(ctx, []source{&rootsSource{paths: paths}})
}
