package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spindle-go/spindle/scan"
)

// gitleaksIgnoreName is the fingerprint file gitleaks reads from the root
// of a scan; spindle reads the same file from each directory PATH.
const gitleaksIgnoreName = ".gitleaksignore"

// rootedIgnore is one .gitleaksignore, with the PATH it was found in.
type rootedIgnore struct {
	// prefix is PATH as it starts the File of every finding under it
	// ("repo/" for `spindle scan repo`), "" for the current directory.
	prefix string
	set    scan.Fingerprints
}

// ignoreSet is every .gitleaksignore of a scan. A finding is ignored when a
// file lists its fingerprint either as the finding has it or relative to the
// file's own directory: fingerprints are written relative to the root of a
// repository, and `spindle scan repo` from the parent directory must honour
// repo/.gitleaksignore all the same.
type ignoreSet []rootedIgnore

// Has implements scan.Fingerprints.
func (s ignoreSet) Has(fp string) bool {
	for _, r := range s {
		if r.set.Has(fp) {
			return true
		}
		if r.prefix != "" && strings.HasPrefix(fp, r.prefix) && r.set.Has(fp[len(r.prefix):]) {
			return true
		}
	}
	return false
}

// loadIgnores reads .gitleaksignore from every PATH that is a directory. A
// missing file is normal; an unreadable one is an error, since ignoring it
// would report findings the user has suppressed.
func loadIgnores(paths []string) (scan.Fingerprints, error) {
	var set ignoreSet
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			continue
		}
		name := filepath.Join(p, gitleaksIgnoreName)
		ign, err := readIgnoreFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		prefix := filepath.Clean(p)
		if prefix == "." {
			prefix = ""
		} else if !strings.HasSuffix(prefix, string(filepath.Separator)) {
			prefix += string(filepath.Separator)
		}
		set = append(set, rootedIgnore{prefix: prefix, set: ign})
	}
	if len(set) == 0 {
		return nil, nil
	}
	return set, nil
}

// fingerprintFile is the set of fingerprints one .gitleaksignore lists.
type fingerprintFile map[string]struct{}

func (f fingerprintFile) Has(fp string) bool { _, ok := f[fp]; return ok }

// readIgnoreFile reads a .gitleaksignore: one fingerprint per line, blank
// lines and lines starting with # skipped. gitleaks also writes
// commit:file:rule:line for git scans; such a line is kept as well and
// also matched without its commit, since a directory scan has no commits.
func readIgnoreFile(name string) (fingerprintFile, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	set := fingerprintFile{}
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		set[line] = struct{}{}
		if commit, rest, ok := strings.Cut(line, ":"); ok && isCommitHash(commit) {
			set[rest] = struct{}{}
		}
	}
	return set, nil
}

// isCommitHash reports whether s looks like a full git object name.
func isCommitHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
