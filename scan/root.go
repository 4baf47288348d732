package scan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spindle-go/spindle/scan/archive"
	"github.com/spindle-go/spindle/scan/ignore"
)

// rootCtx is what the objects under one scan root share: how their names
// are made from their paths, the root's archive budgets, and the
// .gitleaksignore found at its top.
//
// Names do not depend on how a root was spelled: when Scan is given one
// directory, findings name files relative to it, so `spindle scan .` in a
// repository, `spindle scan ../repo` and `spindle scan /abs/repo` report
// (and fingerprint) the same paths, and a baseline or .gitleaksignore made
// by one matches the others. With several roots, or a file as the root,
// names keep the root as it was given (cleaned, slash-separated), since
// relative names could not tell the roots apart.
type rootCtx struct {
	strip   int           // bytes cut from a path on disk to make its name
	archive *archive.Root // archive budgets; nil with archives off
	ignore  *ignore.Fingerprints
	// prefixes are the root as given and its base name, each with a
	// trailing slash: a .gitleaksignore written by a scan run from
	// elsewhere (gitleaks names files as its PATH was spelled, and from
	// the parent directory that is the base name) lists fingerprints with
	// one of them in front.
	prefixes []string
	// named is the prefix the names of the root's files carry when they
	// are not relative to it (several roots): the root as given.
	named string
}

// name is the reported name of the file at path under the root.
func (rc *rootCtx) name(path string) string {
	switch {
	case rc.strip == 0:
		return path
	case len(path) < rc.strip:
		return "."
	}
	return path[rc.strip:]
}

// ignored reports whether the root's .gitleaksignore lists fp: as the
// finding has it, relative to the root, or with one of the root's
// spellings in front.
func (rc *rootCtx) ignored(fp string) bool {
	if rc == nil || rc.ignore == nil {
		return false
	}
	if rc.ignore.Has(fp) {
		return true
	}
	rel := fp
	if rc.named != "" {
		rel = strings.TrimPrefix(fp, rc.named)
		if rc.ignore.Has(rel) {
			return true
		}
	}
	for _, p := range rc.prefixes {
		if rc.ignore.Has(p + rel) {
			return true
		}
	}
	return false
}

// newRootCtx makes the context of a root given as path ("" for a Source);
// relative says names are relative to it.
func (e *engine) newRootCtx(path string, relative bool) *rootCtx {
	rc := &rootCtx{}
	if e.s.ArchiveDepth > 0 {
		rc.archive = archive.NewRoot(e.s.limits)
	}
	if path == "" {
		return rc
	}
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return rc
	}
	given := ""
	if path != "." {
		given = strings.TrimSuffix(path, "/") + "/"
		rc.prefixes = append(rc.prefixes, given)
		if relative {
			rc.strip = len(given)
			if path == "/" {
				rc.strip = 1
			}
		} else {
			rc.named = given
		}
	}
	if abs, err := filepath.Abs(path); err == nil {
		if base := filepath.Base(abs) + "/"; base != given && base != "//" {
			rc.prefixes = append(rc.prefixes, base)
		}
	}
	if !e.s.NoGitleaksIgnore {
		name := filepath.Join(path, ignore.GitleaksIgnoreName)
		fp, err := ignore.LoadFingerprints(name)
		switch {
		case err == nil:
			rc.ignore = fp
		case !errors.Is(err, fs.ErrNotExist):
			// A warning of lost data, not a stop: the scan goes on and
			// reports what the file would have suppressed (a link to a
			// FIFO or a device is never opened), and fails unless a
			// partial result is accepted.
			e.warn(name, "ignore", err)
		}
	}
	return rc
}

// exclusions are the files Options.Exclude names, by base name, so the
// common case (another base name) costs one map lookup and no system
// call.
type exclusions struct {
	byBase map[string][]string // base name -> absolute, cleaned paths
	cwd    string
}

func newExclusions(names []string) *exclusions {
	if len(names) == 0 {
		return nil
	}
	cwd, _ := os.Getwd()
	x := &exclusions{byBase: map[string][]string{}, cwd: cwd}
	for _, n := range names {
		if n == "" {
			continue
		}
		abs := x.abs(n)
		x.byBase[filepath.Base(abs)] = append(x.byBase[filepath.Base(abs)], abs)
	}
	return x
}

func (x *exclusions) abs(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(x.cwd, p)
	}
	return filepath.Clean(p)
}

// excluded reports whether path, a file on disk, is one Options.Exclude
// names.
func (e *engine) excluded(path string) bool {
	x := e.exclude
	if x == nil {
		return false
	}
	cands := x.byBase[filepath.Base(path)]
	if cands == nil {
		return false
	}
	abs := x.abs(path)
	for _, c := range cands {
		if c == abs {
			return true
		}
	}
	return false
}
