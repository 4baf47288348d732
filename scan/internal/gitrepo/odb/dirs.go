package odb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spindle-go/spindle/internal/smallfile"
)

// maxAlternateDepth is how deep alternates may chain (git's limit).
const maxAlternateDepth = 5

// maxAlternatesFile bounds an info/alternates file. A real one names a few
// directories; a repository made to hurt a scanner could point it at a
// device or a huge file.
const maxAlternatesFile = 64 << 10

// objectDirs lists the objects directories a repository's reads go
// through: primary first, then the alternates it names in
// info/alternates and the extra ones (GIT_ALTERNATE_OBJECT_DIRECTORIES),
// each followed recursively to git's depth limit. Relative alternates are
// relative to the objects directory that names them (extra ones to the
// current directory, as git takes them). A directory is listed once. An
// alternate that is missing, not a directory, or too deep, and an
// alternates file that is not a small regular file, are warnings.
func objectDirs(primary string, extra []string) (dirs []string, warnings []error) {
	seen := map[string]bool{}
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		d = filepath.Clean(d)
		if seen[d] {
			return
		}
		seen[d] = true
		dirs = append(dirs, d)
		lines, err := readAlternates(filepath.Join(d, "info", "alternates"))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, fmt.Errorf("odb: alternates of %s: %w", d, err))
			}
			return
		}
		for _, alt := range lines {
			if !filepath.IsAbs(alt) {
				alt = filepath.Join(d, alt)
			}
			follow(alt, depth+1, walk, &warnings)
		}
	}
	walk(primary, 0)
	for _, alt := range extra {
		if abs, err := filepath.Abs(alt); err == nil {
			alt = abs
		}
		follow(alt, 1, walk, &warnings)
	}
	return dirs, warnings
}

// follow walks alternate alt at depth if it is a directory within the
// depth limit, and adds a warning otherwise.
func follow(alt string, depth int, walk func(string, int), warnings *[]error) {
	if depth > maxAlternateDepth {
		*warnings = append(*warnings, fmt.Errorf("odb: alternate %s: nested deeper than %d", alt, maxAlternateDepth))
		return
	}
	if st, err := os.Stat(alt); err != nil || !st.IsDir() {
		*warnings = append(*warnings, fmt.Errorf("odb: alternate %s is not a directory", alt))
		return
	}
	walk(alt, depth)
}

// readAlternates reads an info/alternates file: one path a line, '#'
// comments, a path in double quotes with C escapes. Only a regular file
// of at most maxAlternatesFile bytes is read: it is opened without
// blocking, so a FIFO put in its place cannot hang the scan.
func readAlternates(path string) ([]string, error) {
	b, err := smallfile.Read(path, maxAlternatesFile)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '"' {
			if u, err := strconv.Unquote(line); err == nil {
				line = u
			}
		}
		out = append(out, line)
	}
	return out, nil
}

// listPacks lists the pack indexes of the objects directories, newest
// pack first as git orders them (recent objects are looked up most).
func listPacks(dirs []string) []string {
	type found struct {
		idx   string
		mtime int64
	}
	var all []found
	for _, d := range dirs {
		names, err := filepath.Glob(filepath.Join(d, "pack", "pack-*.idx"))
		if err != nil {
			continue
		}
		for _, n := range names {
			var mt int64
			if st, err := os.Stat(strings.TrimSuffix(n, ".idx") + ".pack"); err == nil {
				mt = st.ModTime().UnixNano()
			}
			all = append(all, found{n, mt})
		}
	}
	slices.SortStableFunc(all, func(a, b found) int {
		switch {
		case a.mtime > b.mtime:
			return -1
		case a.mtime < b.mtime:
			return 1
		}
		return 0
	})
	idx := make([]string, len(all))
	for i, f := range all {
		idx[i] = f.idx
	}
	return idx
}
