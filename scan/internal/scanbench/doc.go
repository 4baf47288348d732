//go:build spindletools

// Command scanbench runs the scan engine over a tree with a gitleaks-schema
// config and prints what the comparisons with gitleaks and ripgrep need:
// one "file<TAB>line<TAB>rule" line per finding (with -out), and the stats.
// It is a measuring tool for the engine's figures, not a user command; the
// numbers it produced are in BENCHMARKS.md.
//
//	go run -tags spindletools ./scan/internal/scanbench -c gitleaks.toml -out /tmp/sp.tsv $(go env GOROOT)/src
//	go run -tags spindletools ./scan/internal/scanbench -null $(go env GOROOT)/src   # the engine alone
package main
