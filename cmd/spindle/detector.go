package main

import (
	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/rules"
)

// rulesDetector adapts a compiled rule set to the engine's Detector
// interface. The two Match types have the same fields; the engine keeps its
// own so that it does not depend on the rules package.
type rulesDetector struct{ d *rules.Detector }

func detectorFor(d *rules.Detector) scan.Detector { return rulesDetector{d} }

func (r rulesDetector) MaxWindow() int            { return r.d.MaxWindow() }
func (r rulesDetector) SkipPath(path string) bool { return r.d.SkipPath(path) }
func (r rulesDetector) NewScratch() scan.Scratch  { return r.d.NewScratch() }
func (r rulesDetector) ScanPath(path string, emit func(scan.Match)) {
	r.d.ScanPath(path, func(m rules.Match) { emit(scan.Match(m)) })
}
func (r rulesDetector) Scan(s scan.Scratch, path string, data []byte, emit func(scan.Match)) {
	r.d.Scan(s.(*rules.Scratch), path, data, func(m rules.Match) { emit(scan.Match(m)) })
}
