package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Key identifies what the detector finds: "sha256:" and the SHA-256, in
// hex, of its configuration as compiled (every rule and global
// allowlist, after the config's [extend] chain was applied, the built-in
// rules included when it extends them) and its Settings, resolved.
// Detectors with the same Key, built by the same code, report the same
// findings on the same input. A history scan's store keys what it keeps
// with it (package scan/git), beside the code's own version.
//
// Rules' examples are left out: they are checked by CheckExamples and
// change nothing a scan finds. The config's file name and title are left
// out too.
func (d *Detector) Key() string { return d.key }

// configKey computes Detector.Key for a config and its settings. JSON
// tells a nil bound of a required rule from a zero one, and floats keep
// every bit (encoding/json writes the shortest text that reads back to
// the same float).
func configKey(cfg *Config, set Settings, decodeDepth int) string {
	rs := make([]Rule, len(cfg.Rules))
	for i, r := range cfg.Rules {
		r.Examples, r.Negatives = nil, nil
		rs[i] = r
	}
	set.MaxDecodeDepth = decodeDepth
	data, err := json.Marshal(struct {
		Rules      []Rule
		Allowlists []Allowlist
		Settings   Settings
	}{rs, cfg.Allowlists, set})
	if err != nil {
		// Every field is a string, a number, a bool or a slice of them.
		panic("rules: config key: " + err.Error())
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
