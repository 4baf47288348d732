// Package report turns a scan's findings into the outputs people and tools
// read, and reads them back. Writers: text for a terminal, json and jsonl
// (spindle's own schema), sarif for code-scanning services, csv, junit for
// CI test reports, gitleaks, gitleaks-csv, gitleaks-sarif and
// gitleaks-junit (gitleaks v8's JSON, CSV, SARIF and JUnit reports, key for
// key), and template (a Go text/template over findings with gitleaks'
// field names). Around a report it holds what the command needs: a
// Baseline of findings already known, a Merger for reports written by
// shards of one scan, AtomicFile for replacing a report file whole, and
// the Summary printed at the end of a scan.
//
// # Shape
//
// One Finding type is what every writer consumes; a history finding (from a
// repository's history) also carries its commit, author, email, date and
// message. NewWriter picks the writer for a Format; each format lives in its
// own file behind the two-method Writer interface, so a new format touches
// one file and one switch. The package does not depend on the scanner: any Go
// program can build findings and write them, and the command only wires
// flags (--format, --report-template, --redact, --baseline, -o) to
// ParseFormat, Options, LoadBaseline and CreateAtomic.
//
// # Two JSON schemas
//
// Findings are written as JSON in two schemas. Gitleaks' (FormatGitleaks:
// RuleID, StartLine, File, ... in gitleaks' key order) is what tools built
// on gitleaks' reports parse, so the command's -f json means it in every
// command, spindle's own and the drop-ins alike: one name, one schema, and
// a pipeline that reads gitleaks' JSON reads spindle's unchanged.
// Spindle's schema (rule_id, line, column, end_line, ... in snake_case, as
// JSON Lines tools and Go's json tags usually spell keys) is the one for
// what gitleaks has no format of: a finding per line, streamed as it is
// found (jsonl), with nothing to stay compatible with. FormatJSON is the
// same schema as one sorted array, for Go programs; the command does not
// offer it under -f json. Baselines and Merge read both schemas.
//
// # Order and bounded memory
//
// Every format but jsonl is sorted: by commit (history findings only), file,
// line, column and rule, then by every other field (compareFindings), so two
// runs of the same scan give the same bytes whatever the worker count; junit
// sorts by rule first, for its suite per rule. jsonl streams: each finding
// reaches the destination before Write returns, in arrival order, so a
// pipeline can act while the scan runs.
//
// A sorted report cannot be written until every finding is in, and a scan
// may report millions, so sorted writers hold findings with bounded memory
// (sorted.go, spill.go): findings are buffered up to a threshold (32 MiB of
// estimated size), then sorted and written as a run to a temporary file;
// every 64 runs of one size are merged into one run of the next (as a
// log-structured merge does, so open files stay at a few dozen), and at
// Close the runs are merged straight into the report.
// Memory is the buffer plus a read buffer per merged run, whatever the
// number of findings; 10M findings stay under 100 MiB of peak RSS in every
// format (TestWritersBoundMemoryAtTenMillionFindings measures it in a child
// process). Run files hold findings, so they are unlinked as soon as they
// are created (delete-on-close on Windows) and closed on every path: a
// killed scan leaves none behind. The template format alone holds every
// finding in memory, since a template may index them.
//
// Errors stop a report at once. A sorted writer writes its format's fixed
// opening at the first Write (json, sarif, junit; csv and text have none),
// so that a destination that cannot be written fails the first Write
// rather than the last Close; a temporary file that cannot be written fails
// the Write that spilled. The first error sticks: every later Write and
// Close returns it, and the engine cancels the scan.
//
// # A scan that did not complete
//
// A report must never read as the report of a whole scan when the scan
// stopped early (interrupted, timed out, failed). CloseIncomplete ends such
// a report instead of Close: SARIF is finished and says so
// (invocations[0].executionSuccessful is false; a complete run says true),
// text is finished for the person reading it, and every other format
// writes nothing beyond what it has: a json report's opening bracket alone,
// junit's XML declaration alone, nothing at all for csv, which writes its
// header at Close for this reason, and no run of the template. The command
// adds the other half: a report file is replaced only when the scan
// completed (AtomicFile).
//
// # Redaction
//
// Options.Redact (--redact[=PCT]) is applied by every writer to every finding
// before anything is formatted, with gitleaks' semantics: 100 prints
// "REDACTED", a smaller percentage keeps a leading share of the secret and
// appends "...". Redact replaces the secret wherever it appears in the
// finding, not only in Secret and Match, so a file name or description that
// quotes it does not leak it. Text a writer derives from a finding (SARIF's
// cleaned artifact path) is derived from the unredacted finding and then
// redacted, since deriving can join pieces into the secret. A redacted
// SARIF log also drops the secret-based fingerprint. Redaction is for
// output; the Baseline compares unredacted findings.
//
// # Names that are not UTF-8
//
// File names in legacy encodings, and secrets with stray bytes, must come
// back from a report exactly, or a scan against its own baseline reports
// them again. The JSON reports write each byte that is not part of valid
// UTF-8 as \udcXX, the lone low surrogate U+DC00+byte (PEP 383's
// "surrogateescape"): valid UTF-8 never encodes a surrogate, so the escape
// cannot be confused with a real character, and strings that are UTF-8 are
// written exactly as encoding/json writes them. This package's reader turns
// the escape back into the byte; encoding/json and most other readers show
// U+FFFD, as they always did. csv writes the bytes as they are; text and
// junit show them as \xXX; SARIF keeps encoding/json's U+FFFD for the strict
// parsers of code-scanning services.
//
// # gitleaks compatibility
//
// The gitleaks format writes gitleaks' report/Finding as its JSON encoder
// does: field names and order, one-space indentation, <, > and & escaped,
// Entropy as a float32, Link only when set, dates in UTC. Link is built as
// gitleaks builds it, from Options.RemoteURL and Options.Platform (github,
// gitlab, azuredevops, gitea, bitbucket, or recognised from the host).
// gitleaks-csv, gitleaks-sarif and gitleaks-junit are gitleaks' other
// reports in the same way: its columns; its SARIF keys, with the commit,
// author, email, date and message as partialFingerprints; its single JUnit
// suite with the finding's JSON as each failure's text. Beside them the
// package's own csv, sarif and junit say more (a description column; rule
// tags, archive members, repository provenance and a secret hash in SARIF;
// a suite per rule in junit), which is why both exist. The tests compare
// every gitleaks format with reports gitleaks v8.30.1 wrote
// (testdata/gitleaks), finding for finding and byte for byte around them,
// and with a live gitleaks when one is installed. Differences on purpose: findings are sorted, and bytes that are
// not UTF-8 are escaped reversibly where gitleaks writes U+FFFD. gitleaks'
// Message is the whole commit message and Line the whole source line;
// they are whatever the Finding holds (Line holds the Match).
//
// Templates receive the sorted findings as gitleaks' templates do, with the
// functions of the Sprig library (github.com/Masterminds/sprig/v3), a
// dependency chosen because it is what gitleaks gives its templates:
// the same version, wired as gitleaks wires it (sprig.TxtFuncMap() less
// env, expandenv and getHostByName, so a template reads neither the
// environment nor the network). Any template written for gitleaks finds
// the functions it calls with their exact behaviour, and gitleaks'
// report_templates render byte for byte as gitleaks renders them (the
// tests compare); writing the functions here would drift from Sprig with
// every template that uses one more of them.
//
// # Reading reports back
//
// LoadBaseline and Merge read json and jsonl reports in spindle's schema
// or gitleaks' (reader.go). Both are untrusted input: a baseline may come
// with the repository being scanned. The reader streams entry by entry, and
// a guard on the raw bytes (before encoding/json buffers anything) bounds a
// string to 1 MiB, an entry to 4 MiB and nesting to 32, so a report that is
// one 5 GiB string fails after reading 1 MiB of it; a baseline, held in
// memory, is also bounded in size (MaxBaselineSize) and must be a regular
// file, checked before it is opened so that a FIFO cannot hang the scan.
// Errors name the file, the entry and the byte offset, and never quote a
// value: reports hold secrets and errors reach CI logs. The reader is fuzzed
// against encoding/json as an oracle (FuzzReadBaseline, FuzzMerge).
//
// # Baseline
//
// A finding is known when the baseline has one with the same rule, file and
// secret, and for a history finding the same commit; lines are ignored so
// that edits above a secret do not resurface it. gitleaks compares every
// field, lines included; see Baseline for the trade-off, for history, and
// for how redacted baselines are matched.
//
// # Merge
//
// A Merger joins the json and jsonl reports of the shards of one scan, in
// either schema, into one report of any format, dropping findings that
// appear more than once. A duplicate agrees on commit, file, position,
// rule, secret, match and fingerprint; the fingerprint alone would merge
// two secrets found on one line by one rule. It sorts with the same
// spilling sorter, so its memory is bounded too, and duplicates are
// dropped as the sorted stream passes.
//
// A shard's report (Options.Shard) starts with a header naming its shard
// i/n, what the scan read and a hash of its rules and settings. The Merger
// refuses a set of shard reports that is not one whole scan, naming the
// reports: a shard missing, one given twice, one of another scan, a report
// without a header among shard reports. Schema tells the command which
// schema the inputs share, so that shards written as gitleaks' json merge
// into gitleaks' json.
//
// # Replacing report files
//
// AtomicFile writes a report to a temporary file beside the target and
// renames it over the target on Commit (os.Rename replaces an existing file
// on Windows too), so a reader or the next run never sees half a report. On
// Linux the temporary file has no name until Commit (O_TMPFILE), so even a
// SIGKILL leaves nothing behind; elsewhere Abort removes it. Devices and
// FIFOs (/dev/stdout) are written in place. SameFile lets the command refuse
// an output that is the baseline it read, which the new report would
// replace with what that baseline suppressed.
//
// # Hostile content
//
// Every string in a finding comes from scanned files. The text writer
// escapes control characters, bidirectional overrides and invalid UTF-8 so a
// finding cannot drive the terminal; JSON, SARIF and junit encode them as
// their escapes; csv writes them exactly, quoted. csv does not defuse
// spreadsheet formulas: a field starting with '=' is written as found,
// because changing it would change the secret. FuzzWriters checks these
// properties on arbitrary findings: the machine formats parse back to the
// finding, text carries no control character, junit is well-formed XML, and
// a report redacted at 100 does not contain the secret.
package report
