package report

import (
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"

	"github.com/spindle-go/spindle/internal/smallfile"
)

// Baseline is the set of findings a previous report already contained, so
// that a scan reports only what is new (--baseline FILE).
//
// Identity. A finding is known when the baseline holds one with the same
// rule, the same file, and the same secret. The line is deliberately not part
// of it: an edit above a secret moves it without making it new, and
// gitleaks' field-by-field comparison (which includes lines and columns)
// resurfaces every such secret. Two consequences, both intended: a known
// secret repeated in the same file under the same rule is known at every
// occurrence (the remedy, rotating the secret, is per secret, not per
// occurrence), and the same secret in another file is new (a new exposure).
// Paths are compared after cleaning ("./a/../b.env" is "b.env") and with
// slashes, so a report written on Windows matches on Linux. File names and
// secrets are compared as bytes: a name that is not UTF-8 comes back from
// the report exactly (see jsonenc.go), so a scan against its own baseline
// finds it known.
//
// History. A finding from a repository's history (one with a Commit) is
// known when the baseline holds one with the same commit as well: the same
// commit, rule, file and secret. A commit is immutable, so a baseline of an
// earlier history scan keeps matching every finding it held however far the
// history has grown, and a secret added again in a new commit is new, as in
// gitleaks (which matches commit, author, email, date and message too, all
// of which the commit fixes, and also the line, columns, entropy and
// description, which this identity leaves out for the reasons above). A
// finding outside history matches only entries without a commit, and the
// other way round: a directory scan's baseline does not hide history
// findings.
//
// Redacted baselines. A report written with --redact holds "REDACTED" or a
// prefix followed by "..." instead of the secret. Such an entry cannot be
// matched by secret, so it matches a finding with the same rule, file and
// line whose secret starts with the kept prefix; it is line-sensitive
// because nothing else identifies it. Unredacted baselines are the better
// kind; the command's documentation should say so.
//
// A nil *Baseline contains nothing. A Baseline is read-only once loaded and
// safe for concurrent use.
type Baseline struct {
	known    map[baselineKey]struct{}
	redacted map[baselineLoc][]string // kept prefixes of redacted secrets
	n        int
}

// baselineKey is a finding's identity for Contains.
type baselineKey struct{ rule, file, commit, secret string }

// baselineLoc locates a redacted entry, which has no usable secret.
type baselineLoc struct {
	rule, file, commit string
	line               int
}

// LoadBaseline reads the report at path: a JSON array of findings as the
// json format writes it, or one finding per line as jsonl writes it. The keys
// of gitleaks' JSON report (RuleID, File, StartLine, Secret, Match, Commit)
// are read too, so a gitleaks baseline can be reused when migrating. Unknown
// keys are ignored. Errors name the file and, for a malformed entry, its
// position.
//
// A baseline is untrusted input (it may come with the repository scanned):
// path must name a regular file (a FIFO or a device is refused before it is
// opened, so it cannot hang the scan), of at most MaxBaselineSize bytes,
// and within the limits on strings, entries and nesting that ErrReportLimit
// reports.
func LoadBaseline(path string) (*Baseline, error) {
	file, err := smallfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("report: baseline: %w", err)
	}
	defer file.Close()
	b, err := parseBaseline(file, MaxBaselineSize)
	if err != nil {
		return nil, fmt.Errorf("report: baseline %s: %w", path, err)
	}
	return b, nil
}

// ReadBaseline is LoadBaseline for a report that is not in a file (standard
// input, an embedded test fixture), with the same limits.
func ReadBaseline(r io.Reader) (*Baseline, error) {
	b, err := parseBaseline(r, MaxBaselineSize)
	if err != nil {
		return nil, fmt.Errorf("report: baseline: %w", err)
	}
	return b, nil
}

// ErrNotRegular is wrapped by the error for a baseline or report path that
// names something other than a regular file (a directory, a FIFO, a device).
var ErrNotRegular = smallfile.ErrNotRegular

// Len returns the number of findings the baseline was read from.
func (b *Baseline) Len() int {
	if b == nil {
		return 0
	}
	return b.n
}

// Contains reports whether f was already in the baseline (see Baseline for
// what "the same finding" means). f must be unredacted: call Contains before
// Redact, or before a writer redacts it.
func (b *Baseline) Contains(f Finding) bool {
	if b == nil {
		return false
	}
	secret := secretOf(f)
	file := cleanFile(f.File)
	if _, ok := b.known[baselineKey{f.RuleID, file, f.Commit, secret}]; ok {
		return true
	}
	for _, prefix := range b.redacted[baselineLoc{f.RuleID, file, f.Commit, f.Line}] {
		if strings.HasPrefix(secret, prefix) {
			return true
		}
	}
	return false
}

// add records one baseline entry.
func (b *Baseline) add(rule, file, commit string, line int, secret string) {
	file = cleanFile(file)
	b.n++
	// Every entry is known literally: a real secret may end in "...".
	b.known[baselineKey{rule, file, commit, secret}] = struct{}{}
	var prefix string
	switch {
	case secret == redactedMark:
		prefix = ""
	case strings.HasSuffix(secret, partialMark):
		prefix = strings.TrimSuffix(secret, partialMark)
	default:
		return
	}
	loc := baselineLoc{rule, file, commit, line}
	b.redacted[loc] = append(b.redacted[loc], prefix)
}

// secretOf is the secret that identifies f; Redact treats Match as the
// secret when Secret is empty, and so does the baseline.
func secretOf(f Finding) string {
	if f.Secret != "" {
		return f.Secret
	}
	return f.Match
}

// cleanFile is the form paths are compared in.
func cleanFile(p string) string {
	if p == "" {
		return ""
	}
	return path.Clean(filepath.ToSlash(p))
}

// parseBaseline reads a report as LoadBaseline describes. It streams: memory
// is one entry's raw fields plus the baseline itself, whatever the file
// size. maxTotal bounds the input's size (0: no bound).
func parseBaseline(r io.Reader, maxTotal int64) (*Baseline, error) {
	rr, err := newReportReader(r, maxTotal)
	if err != nil {
		return nil, err
	}
	b := &Baseline{known: map[baselineKey]struct{}{}, redacted: map[baselineLoc][]string{}}
	for {
		f, ok, err := rr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return b, nil
		}
		b.add(f.RuleID, f.File, f.Commit, f.Line, secretOf(f))
	}
}
