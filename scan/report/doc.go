// Package report turns a scan's findings into the outputs people and tools
// read: text for a terminal, json, jsonl, sarif for code-scanning services,
// and csv for spreadsheets. It also holds the two things the command needs
// around a report: a Baseline of findings already known, and the Summary
// printed at the end of a scan.
//
// # Shape
//
// One Finding type, fixed by DESIGN.md §5, is what every writer consumes.
// NewWriter picks the writer for a Format; each format lives in its own file
// (text.go, json.go, sarif.go, csv.go) behind the two-method Writer
// interface, so a new format touches one file and one switch. The package
// does not depend on the scanner: any Go program can build findings and write
// them, and the command only wires flags (--format, --redact, --baseline) to
// ParseFormat, Options, and LoadBaseline.
//
// # Streaming and buffering
//
// Findings arrive one at a time, in no particular order, from a scan that may
// run for minutes. jsonl writes each finding before Write returns, so a
// pipeline can act while the scan runs. json writes each element as it comes
// and closes the array at Close. csv writes rows through a buffer flushed at
// Close. text and sarif must see every finding first (text groups and sorts
// by file; a SARIF log is one document) and write everything at Close; their
// memory grows with the number of findings, which is small next to the data
// scanned. text and sarif sort their output, so it is the same for every
// worker count; json, jsonl and csv keep arrival order.
//
// Writers are not safe for concurrent use. The scan engine already funnels
// findings through one goroutine, and a lock inside every writer would be
// paid by every caller for the benefit of none.
//
// # Redaction
//
// Options.Redact (--redact[=PCT]) is applied by every writer to every finding
// before anything is formatted, with gitleaks' semantics: 100 prints
// "REDACTED", a smaller percentage keeps a leading share of the secret and
// appends "...". Redact replaces the secret wherever it appears in the
// finding, not only in Secret and Match, so a file name or description that
// quotes it does not leak it. A redacted SARIF log also drops the secret-based
// fingerprint (see sarifWriter). Redaction is for output; the Baseline
// compares unredacted findings.
//
// # Baseline
//
// A baseline is a previous json (or jsonl, or gitleaks JSON) report. A finding
// is known when the baseline has the same rule, file and secret; lines are
// ignored so that edits above a secret do not resurface it. gitleaks compares
// every field, lines included; see Baseline for the trade-off and for how
// redacted baselines are matched. The parser streams, reads untrusted input,
// never quotes a value from it in an error (a baseline holds secrets), and is
// fuzzed against encoding/json as an oracle (FuzzReadBaseline).
//
// # SARIF and archive members
//
// The sarif writer emits SARIF 2.1.0 as GitHub code scanning accepts it:
// $schema and version, a driver with the run's rules, and per result a rule
// ID and index, a message, a location with a region (endColumn converted
// from Finding's inclusive end to SARIF's exclusive one), and
// partialFingerprints. A finding inside an archive (a.zip!dir/x.env) is
// reported against the outermost archive, the only one of those paths that
// exists in a repository; the member path is kept in the message and in
// result.properties.file. The details are on sarifWriter.
//
// # Hostile content
//
// Every string in a finding comes from scanned files. The text writer
// escapes control characters, bidirectional overrides and invalid UTF-8 so a
// finding cannot drive the terminal; JSON and SARIF encode them as JSON
// escapes (invalid UTF-8 becomes U+FFFD, as encoding/json does); csv writes
// them exactly, quoted. csv does not defuse spreadsheet formulas: a field
// starting with '=' is written as found, because changing it would change
// the secret. FuzzWriters checks these properties on arbitrary findings: the
// machine formats parse back to the finding, text carries no control
// character, and a report redacted at 100 does not contain the secret.
package report
