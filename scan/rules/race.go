//go:build race

package rules

// raceEnabled is true in race-detector builds (see ruleEngine).
const raceEnabled = true

// defaultEngine is the engine rule regexes use unless a test overrides
// ruleEngine: the standard library under the race detector.
const defaultEngine = engineStdlib
