//go:build !race

package rules

// raceEnabled is true in race-detector builds (see ruleEngine).
const raceEnabled = false

// defaultEngine is the engine rule regexes use unless a test overrides
// ruleEngine: the per-rule choice (see chooseEngine).
const defaultEngine = engineAuto
