package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/rules"
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
		ign, err := rules.LoadIgnore(name)
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
