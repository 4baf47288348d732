package main

import (
	"os"
	"path/filepath"

	"github.com/spindle-go/spindle/scan"
)

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
