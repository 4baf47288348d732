package main

import (
	"fmt"
	"strings"

	"github.com/spindle-go/spindle/scan/report"
)

// Report formats on the command line. Every report shape has a name that
// means it in every command (json, jsonl, text, template, and the
// spindle-* and gitleaks-* names); the plain names sarif, csv and junit
// are each command family's own: spindle's shapes in scan and merge,
// gitleaks' in the drop-ins (dir, git, stdin), where -f/--report-format
// takes gitleaks' vocabulary with gitleaks' meaning. json is gitleaks'
// JSON schema in every command, so that one name is one schema; spindle's
// own (snake_case keys) is jsonl, a finding per line (why: scan/report's
// package doc, "Two JSON schemas").

// formatName is one name a command accepts for -f.
type formatName struct {
	name   string
	format report.Format
	hidden bool // accepted, not listed in help
}

// spindleFormats are the names of spindle scan and spindle merge.
var spindleFormats = []formatName{
	{"text", report.FormatText, false},
	{"json", report.FormatGitleaks, false},
	{"jsonl", report.FormatJSONL, false},
	{"sarif", report.FormatSARIF, false},
	{"csv", report.FormatCSV, false},
	{"junit", report.FormatJUnit, false},
	{"template", report.FormatTemplate, false},
	{"gitleaks-sarif", report.FormatGitleaksSARIF, false},
	{"gitleaks-csv", report.FormatGitleaksCSV, false},
	{"gitleaks-junit", report.FormatGitleaksJUnit, false},
	{"gitleaks", report.FormatGitleaks, true},
	{"spindle-sarif", report.FormatSARIF, true},
	{"spindle-csv", report.FormatCSV, true},
	{"spindle-junit", report.FormatJUnit, true},
}

// dropInFormats are the names of dir, git and stdin: gitleaks' five, then
// spindle's shapes under names that say so.
var dropInFormats = []formatName{
	{"json", report.FormatGitleaks, false},
	{"csv", report.FormatGitleaksCSV, false},
	{"junit", report.FormatGitleaksJUnit, false},
	{"sarif", report.FormatGitleaksSARIF, false},
	{"template", report.FormatTemplate, false},
	{"jsonl", report.FormatJSONL, false},
	{"text", report.FormatText, false},
	{"spindle-sarif", report.FormatSARIF, false},
	{"spindle-csv", report.FormatCSV, false},
	{"spindle-junit", report.FormatJUnit, false},
	{"gitleaks", report.FormatGitleaks, true},
	{"gitleaks-sarif", report.FormatGitleaksSARIF, true},
	{"gitleaks-csv", report.FormatGitleaksCSV, true},
	{"gitleaks-junit", report.FormatGitleaksJUnit, true},
}

// listed is the names help shows.
func listed(names []formatName) []string {
	var out []string
	for _, n := range names {
		if !n.hidden {
			out = append(out, n.name)
		}
	}
	return out
}

// parseFormatName finds name (any case, surrounding space ignored) among
// names; the error names the flag and lists the valid names.
func parseFormatName(names []formatName, name, flag string) (report.Format, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	for _, n := range names {
		if n.name == key {
			return n.format, nil
		}
	}
	return "", fmt.Errorf("invalid argument %q for %q: want one of %s", name, flag, strings.Join(listed(names), ", "))
}
