// Command spindle finds secrets in files and archives, and measures the
// work-stealing runtime it runs on against plain goroutines.
//
//	spindle scan [flags] [PATH ...]   find secrets; exit 0 clean, 1 findings, 2 error
//	spindle rules [flags] [PATH]      list and validate the rules a scan would use
//	spindle bench [flags] [GROUP ...] executor, fork and flow against goroutines
//	spindle version                   module version, commit, Go toolchain
//	spindle completion SHELL          shell completion (bash, zsh, fish, powershell)
//
// Run any of them with --help for flags and examples.
//
// # Shape
//
// The command only wires flags to the libraries: scan.Scan walks and
// matches, scan/rules loads and compiles the gitleaks-schema config,
// scan/report writes every format, reads baselines and formats the summary.
// Nothing here inspects file contents. What the command adds is what only a
// process has: flags, exit codes, a terminal, and the files it writes.
//
// # Streams and exit codes
//
// Standard output carries the report and nothing else, so that
// `spindle scan -f json > out.json` is always valid JSON. Standard error
// carries, in order, the progress line (a terminal only), warnings as they
// happen, and the summary. A console type serialises the two writers of
// standard error, the progress renderer's goroutine and the engine's
// warning callback, so a warning never lands inside the progress line.
//
// Every error is returned up to run and printed there, once, as
// "spindle: message"; cobra's own error and usage printing is off, because a
// usage dump after a typo buries the line that says what was wrong. The exit
// status is decided in one place per command: 2 for any error (a bad flag,
// an invalid config, rule or baseline, a missing PATH, a failed write), 1 or
// --exit-code for findings, 0 otherwise; 130 after SIGINT or SIGTERM, which
// cancel the scan's context so the report written so far is closed
// properly. Warnings never change the status unless --strict.
//
// All inputs are validated before the scan starts, in the order a user
// would fix them (flags, paths, config, baseline, output file), so a mistake
// costs no scanning time and leaves no half-written report.
//
// # Files the scan must not read
//
// The report (--output), the baseline and the config are excluded from the
// scan by wrapping the detector's SkipPath. A report written inside the tree
// it describes holds every secret it found: scanned again, the next run
// would report each secret twice, and a jsonl report streamed into the tree
// would feed on itself. gitleaks skips its config for the same reason.
//
// # Progress
//
// The progress line is drawn when standard error is a terminal (and neither
// --no-progress nor --quiet is given): files, bytes, findings, warnings,
// throughput, elapsed time, redrawn eight times a second from the engine's
// atomic counters. It is a small renderer of its own rather than a progress
// bar library; progress.go says why.
//
// # Bench
//
// spindle bench runs each workload's implementations in turn on this
// machine: one untimed warm-up, then --count samples, each a batch of runs
// lasting about 50ms, and reports the median time per task, node or hop and
// the ratio to the goroutine version. The workloads are the ones the
// project's target figures are stated for (BENCHMARKS.md), the same as the
// testing.B benchmarks beside each package, so
// `go test -bench` and the command agree; the command exists so that a user
// can see the numbers on their own hardware without the repository.
// --plot draws the table as SVG, which any browser renders (a .png name
// is refused with a note on converting the SVG).
package main
