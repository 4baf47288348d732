package scan

import "github.com/spindle-go/spindle/scan/rules"

// Detector is what the engine needs from a rule set. Rules adapts a
// *rules.Detector to it; tests and other detectors implement it directly.
// Its methods are called concurrently from every worker, each with its own
// scratch: the working memory NewScratch returned for that worker, opaque
// to the engine, which the path methods may use to remember a path's
// verdicts for the Scan of its chunks.
//
// The chunking contract (see doc.go): whether a match is reported, and what
// it contains, depends only on the bytes within MaxWindow of it on either
// side. The engine relies on this to give the same findings for every chunk
// size. A match is reported in byte offsets into the data given (see
// rules.Match); the engine turns it into a report.Finding: the line and
// column of data[Start], the end line and column of data[End-1], and the
// fingerprint file:rule:line.
type Detector interface {
	// MaxWindow is the detector's reach in bytes: the engine carries
	// 2*MaxWindow bytes from one chunk into the next.
	MaxWindow() int
	// NewScratch returns working memory for one worker.
	NewScratch() any
	// SkipPath reports whether a path is excluded as a whole (global
	// allowlist paths). It is asked for directories too.
	SkipPath(scratch any, path string) bool
	// ScanPath reports the path-only rules that match path.
	ScanPath(scratch any, path string, emit func(rules.Match))
	// Scan reports the matches in data, a chunk of the object at path.
	Scan(scratch any, path string, data []byte, emit func(rules.Match))
}

// MayFinder is implemented by a Detector that can tell, cheaply and for
// certain, that data at path would give no finding: no keyword of any
// rule occurs in it, no path rule applies, nothing in it decodes. Sources
// that do costly work before handing content to the engine (a history
// source diffs files) ask it first. Rules implements it.
type MayFinder interface {
	MayFind(scratch any, path string, data []byte) bool
}

// WholeScanner is implemented by a Detector that can be more exact on an
// object's whole content than the chunking contract lets Scan be. The
// engine calls ScanWhole instead of Scan for an object whose content is
// in memory (Object.Data), which it scans in one buffer. Rules implements
// it: decoding as gitleaks does, it decodes encoded text of any length
// there, as gitleaks decodes a fragment of a history, where Scan keeps to
// a budget that chunks can carry.
type WholeScanner interface {
	ScanWhole(scratch any, path string, data []byte, emit func(rules.Match))
}

// CommitAllower is implemented by a Detector whose allowlists may name
// commits, which only a history source can check: it asks, for each
// finding and each commit that makes it, whether an allowlist drops it.
// Rules implements it.
type CommitAllower interface {
	HasCommitAllowlists() bool
	CommitAllows(commit, ruleID, path string, secret, match []byte) bool
}

// Keyed is implemented by a Detector that can name what it finds: two
// detectors with the same Key, built by the same code, report the same
// findings on the same input. A history scan's store keys what it keeps
// by it (package scan/git); a Detector without it is not cached. Rules
// implements it (see rules.Detector.Key).
type Keyed interface {
	Key() string
}

// Rules adapts a compiled rule set to the engine:
//
//	det, err := rules.Compile(rules.Default())
//	...
//	scan.Scan(ctx, scan.Options{Detector: scan.Rules(det)}, paths...)
func Rules(d *rules.Detector) Detector { return rulesDetector{d} }

type rulesDetector struct{ d *rules.Detector }

func (r rulesDetector) MaxWindow() int  { return r.d.MaxWindow() }
func (r rulesDetector) NewScratch() any { return r.d.NewScratch() }

func (r rulesDetector) SkipPath(s any, path string) bool {
	return s.(*rules.Scratch).SkipPath(path)
}

func (r rulesDetector) ScanPath(s any, path string, emit func(rules.Match)) {
	s.(*rules.Scratch).ScanPath(path, emit)
}

func (r rulesDetector) Scan(s any, path string, data []byte, emit func(rules.Match)) {
	r.d.Scan(s.(*rules.Scratch), path, data, emit)
}

func (r rulesDetector) ScanWhole(s any, path string, data []byte, emit func(rules.Match)) {
	r.d.ScanWhole(s.(*rules.Scratch), path, data, emit)
}

func (r rulesDetector) MayFind(s any, path string, data []byte) bool {
	return s.(*rules.Scratch).MayFind(path, data)
}

func (r rulesDetector) Key() string { return r.d.Key() }

func (r rulesDetector) HasCommitAllowlists() bool { return r.d.HasCommitAllowlists() }

func (r rulesDetector) CommitAllows(commit, ruleID, path string, secret, match []byte) bool {
	return r.d.CommitAllows(commit, ruleID, path, secret, match)
}
