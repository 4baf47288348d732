package main

import (
	"os"
	"path/filepath"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/rules"
)

// rulesDetector adapts a compiled rule set to the engine's Detector
// interface. The two Match types have the same fields; the engine keeps its
// own so that it does not depend on the rules package.
type rulesDetector struct{ d *rules.Detector }

func detectorFor(d *rules.Detector) scan.Detector { return rulesDetector{d} }

func (r rulesDetector) MaxWindow() int            { return r.d.MaxWindow() }
func (r rulesDetector) SkipPath(path string) bool { return r.d.SkipPath(path) }
func (r rulesDetector) NewScratch() scan.Scratch  { return r.d.NewScratch() }
func (r rulesDetector) ScanPath(path string, emit func(scan.Match)) {
	r.d.ScanPath(path, func(m rules.Match) { emit(scan.Match(m)) })
}
func (r rulesDetector) Scan(s scan.Scratch, path string, data []byte, emit func(scan.Match)) {
	r.d.Scan(s.(*rules.Scratch), path, data, func(m rules.Match) { emit(scan.Match(m)) })
}

// excludingDetector skips the command's own files: the report being
// written, the baseline and the config. A report written into the tree it
// describes holds every secret found, so without this the second scan
// reports them all again, in the report, and a jsonl report streamed into
// the tree would grow as the scan reads it. gitleaks skips its config file
// for the same reason.
type excludingDetector struct {
	scan.Detector
	// byBase maps the base names of the excluded files to their absolute
	// paths, so the common case (a different base name) costs one map
	// lookup and no system call.
	byBase map[string][]string
	cwd    string
}

// excludeFiles returns d skipping the named files (empty names ignored).
func excludeFiles(d scan.Detector, names ...string) scan.Detector {
	cwd, err := os.Getwd()
	if err != nil {
		return d
	}
	x := excludingDetector{Detector: d, byBase: map[string][]string{}, cwd: cwd}
	for _, n := range names {
		if n == "" {
			continue
		}
		abs := n
		if !filepath.IsAbs(n) {
			abs = filepath.Join(cwd, n)
		}
		abs = filepath.Clean(abs)
		x.byBase[filepath.Base(abs)] = append(x.byBase[filepath.Base(abs)], abs)
	}
	if len(x.byBase) == 0 {
		return d
	}
	return x
}

// SkipPath reports whether path is one of the excluded files, else asks
// the rules.
func (x excludingDetector) SkipPath(path string) bool {
	if candidates := x.byBase[filepath.Base(path)]; candidates != nil {
		abs := path
		if !filepath.IsAbs(path) {
			abs = filepath.Join(x.cwd, path)
		}
		abs = filepath.Clean(abs)
		for _, c := range candidates {
			if c == abs {
				return true
			}
		}
	}
	return x.Detector.SkipPath(path)
}
