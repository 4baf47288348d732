package rules

import (
	"sync"
	"testing"
)

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
