package rules

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Ignore is a set of finding fingerprints read from a .gitleaksignore file.
// A fingerprint is "file:rule-id:line". gitleaks also writes
// "commit:file:rule-id:line" for git scans; the commit part is dropped, so
// such an entry suppresses the finding wherever it is found. Backslashes
// in the file part are read as '/', as gitleaks does. The zero value and
// nil are empty sets.
type Ignore struct {
	set map[string]struct{}
}

// LoadIgnore reads the ignore file at path; a directory means the
// .gitleaksignore file inside it.
func LoadIgnore(path string) (*Ignore, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, ".gitleaksignore")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rules: open ignore file: %w", err)
	}
	defer f.Close()
	ig, err := ParseIgnore(f)
	if err != nil {
		return nil, fmt.Errorf("rules: %s: %w", path, err)
	}
	return ig, nil
}

// ParseIgnore reads fingerprints, one per line; blank lines and lines
// starting with '#' are skipped.
func ParseIgnore(r io.Reader) (*Ignore, error) {
	ig := &Ignore{set: map[string]struct{}{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ig.set[normalizeFingerprint(line)] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read ignore file: %w", err)
	}
	return ig, nil
}

// Has reports whether fingerprint ("file:rule-id:line") is ignored.
func (i *Ignore) Has(fingerprint string) bool {
	if i == nil || len(i.set) == 0 {
		return false
	}
	_, ok := i.set[normalizeFingerprint(fingerprint)]
	return ok
}

// Len returns the number of distinct fingerprints.
func (i *Ignore) Len() int {
	if i == nil {
		return 0
	}
	return len(i.set)
}

// normalizeFingerprint splits "[commit:]file:rule:line" from the right (a
// file name may contain ':'), drops a leading commit hash, and turns
// backslashes in the file part into slashes. Anything else is kept as is.
func normalizeFingerprint(fp string) string {
	j := strings.LastIndexByte(fp, ':')
	if j < 0 {
		return fp
	}
	i := strings.LastIndexByte(fp[:j], ':')
	if i < 0 {
		return fp
	}
	file := fp[:i]
	if c, rest, ok := strings.Cut(file, ":"); ok && isCommitHash(c) {
		file = rest
	}
	return strings.ReplaceAll(file, `\`, "/") + fp[i:]
}

// isCommitHash reports whether s looks like an abbreviated or full git
// object id.
func isCommitHash(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
