package scan

import "github.com/spindle-go/spindle/scan/rules"

// Match is one hit reported by a detector, in byte offsets into the data it
// was given (see rules.Match). The engine turns it into a report.Finding:
// the line and column of data[Start], the end line and column of
// data[End-1], and the fingerprint file:rule:line. A match belongs to the
// chunk its End falls in (see chunk).
type Match = rules.Match

// Scratch is a detector's per-worker working memory, opaque to the engine.
type Scratch = any

// Detector is what the engine needs from a rule set. Rules adapts a
// *rules.Detector to it; tests and other detectors implement it directly.
// Its methods are called concurrently from every worker, each with its own
// Scratch.
//
// The chunking contract (see doc.go): whether a match is reported, and what
// it contains, depends only on the bytes within MaxWindow of it on either
// side. The engine relies on this to give the same findings for every chunk
// size.
type Detector interface {
	// MaxWindow is the detector's reach in bytes: the engine carries
	// 2*MaxWindow bytes from one chunk into the next.
	MaxWindow() int
	// SkipPath reports whether a path is excluded as a whole (global
	// allowlist paths). It is asked for directories too.
	SkipPath(path string) bool
	// NewScratch returns working memory for Scan, used by one worker.
	NewScratch() Scratch
	// ScanPath reports the path-only rules that match path.
	ScanPath(path string, emit func(Match))
	// Scan reports the matches in data, a chunk of the file at path.
	Scan(s Scratch, path string, data []byte, emit func(Match))
}

// Rules adapts a compiled rule set to the engine:
//
//	det, err := rules.Compile(rules.Default())
//	...
//	scan.Scan(ctx, scan.Options{Detector: scan.Rules(det)}, paths...)
func Rules(d *rules.Detector) Detector { return rulesDetector{d} }

type rulesDetector struct{ d *rules.Detector }

func (r rulesDetector) MaxWindow() int                         { return r.d.MaxWindow() }
func (r rulesDetector) SkipPath(path string) bool              { return r.d.SkipPath(path) }
func (r rulesDetector) NewScratch() Scratch                    { return r.d.NewScratch() }
func (r rulesDetector) ScanPath(path string, emit func(Match)) { r.d.ScanPath(path, emit) }

func (r rulesDetector) Scan(s Scratch, path string, data []byte, emit func(Match)) {
	r.d.Scan(s.(*rules.Scratch), path, data, emit)
}
