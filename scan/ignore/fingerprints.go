package ignore

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spindle-go/spindle/internal/smallfile"
)

// GitleaksIgnoreName is the fingerprint file a scan reads at the top of
// each directory it is given, as gitleaks does.
const GitleaksIgnoreName = ".gitleaksignore"

// Fingerprints is a set of finding fingerprints read from a
// .gitleaksignore file: "file:rule-id:line" for a finding in a file, and
// "commit:file:rule-id:line" for one in a repository's history.
//
// Has follows gitleaks: a history finding is suppressed by an entry with
// its commit, or by the entry without a commit (which suppresses it in
// every commit); an entry with a commit suppresses nothing else.
// Backslashes in the file part are read as '/', so a file written on
// Windows works elsewhere. The zero value and nil are empty sets.
type Fingerprints struct {
	set map[string]struct{}
}

// LoadFingerprints reads the fingerprint file at path; a directory means
// the .gitleaksignore file inside it. The file is input from the tree
// being scanned: it must be a regular file of at most 16 MiB, with lines
// of at most 1 MiB.
func LoadFingerprints(path string) (*Fingerprints, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, GitleaksIgnoreName)
	}
	b, err := smallfile.Read(path, maxFile)
	if err != nil {
		return nil, fmt.Errorf("ignore: %w", err)
	}
	fp, err := ParseFingerprints(strings.NewReader(string(b)))
	if err != nil {
		return nil, fmt.Errorf("ignore: %s: %w", path, err)
	}
	return fp, nil
}

// ParseFingerprints reads fingerprints, one per line; blank lines and
// lines starting with '#' are skipped.
func ParseFingerprints(r io.Reader) (*Fingerprints, error) {
	fp := &Fingerprints{set: map[string]struct{}{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fp.set[normalize(line)] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read fingerprints: %w", err)
	}
	return fp, nil
}

// Add adds a fingerprint to the set.
func (f *Fingerprints) Add(fingerprint string) {
	if f.set == nil {
		f.set = map[string]struct{}{}
	}
	f.set[normalize(fingerprint)] = struct{}{}
}

// Merge adds the fingerprints of other to the set.
func (f *Fingerprints) Merge(other *Fingerprints) {
	if other == nil {
		return
	}
	if f.set == nil {
		f.set = map[string]struct{}{}
	}
	for fp := range other.set {
		f.set[fp] = struct{}{}
	}
}

// Has reports whether the set suppresses a finding with this fingerprint.
func (f *Fingerprints) Has(fingerprint string) bool {
	if f == nil || len(f.set) == 0 {
		return false
	}
	fp := normalize(fingerprint)
	if _, ok := f.set[fp]; ok {
		return true
	}
	if _, global, ok := splitCommit(fp); ok {
		_, ok := f.set[global]
		return ok
	}
	return false
}

// Len returns the number of distinct fingerprints.
func (f *Fingerprints) Len() int {
	if f == nil {
		return 0
	}
	return len(f.set)
}

// normalize turns backslashes in the file part of "[commit:]file:rule:line"
// into slashes. The parts are found from the right, since a file name may
// contain ':'.
func normalize(fp string) string {
	if !strings.Contains(fp, `\`) {
		return fp
	}
	j := strings.LastIndexByte(fp, ':')
	if j < 0 {
		return fp
	}
	i := strings.LastIndexByte(fp[:j], ':')
	if i < 0 {
		return fp
	}
	return strings.ReplaceAll(fp[:i], `\`, "/") + fp[i:]
}

// splitCommit splits "commit:file:rule:line" into the commit and
// "file:rule:line"; ok is false when fp has no commit part.
func splitCommit(fp string) (commit, global string, ok bool) {
	j := strings.LastIndexByte(fp, ':')
	if j < 0 {
		return "", "", false
	}
	i := strings.LastIndexByte(fp[:j], ':')
	if i < 0 {
		return "", "", false
	}
	c, rest, found := strings.Cut(fp[:i], ":")
	if !found || !isCommitHash(c) {
		return "", "", false
	}
	return c, rest + fp[i:], true
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
