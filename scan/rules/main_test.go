package rules

import (
	"os"
	"sync"
	"testing"
)

// TestMain runs the tests with the standard library as the only regex
// engine under the race detector: go-re2 runs RE2 as Go code translated
// from WebAssembly, which the race detector slows down about a
// hundredfold. The engine choice is exercised by the tests without -race.
func TestMain(m *testing.M) {
	if raceEnabled {
		ruleEngine = engineStdlib
	}
	os.Exit(m.Run())
}

var detectorCache sync.Map // cacheKey -> *Detector

type cacheKey struct {
	name   string
	engine engine
}

// cachedDetector compiles a detector once per name and engine; Detectors
// are immutable, so tests can share them.
func cachedDetector(t testing.TB, name string, mk func(testing.TB) *Detector) *Detector {
	k := cacheKey{name, ruleEngine}
	if d, ok := detectorCache.Load(k); ok {
		return d.(*Detector)
	}
	d := mk(t)
	detectorCache.Store(k, d)
	return d
}
