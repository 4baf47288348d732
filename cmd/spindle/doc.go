// Command spindle finds secrets in files, archives and git history, as a
// drop-in for gitleaks or with its own defaults, and measures the
// work-stealing runtime it runs on against plain goroutines.
//
//	spindle scan [flags] [PATH ...]   find secrets; exit 0 clean, 1 findings, 2 error
//	spindle dir|git|stdin [flags]     gitleaks' commands, flags, output and exit codes
//	spindle merge [flags] REPORT...   join the reports of a scan's shards
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
// matches, scan/git reads history, scan/rules loads and compiles the
// gitleaks-schema config, scan/report writes every format, reads
// baselines and shard reports and formats the summary. Nothing here
// inspects file contents. What the command adds is what only a process
// has: flags, exit codes, a terminal, signals, and the files it writes.
//
// The scanning commands share one path (report.go): the console (a
// progress line, the drop-ins' banner and log lines), the inputs read
// before anything is scanned (rules, ignore files, template, baseline), the
// outputs (the report, written beside its target; the findings -v prints),
// the scan, and the end (the report kept only if the scan completed, the
// summary, the exit status). What differs between commands is a scanJob
// (what is scanned, where its rules are looked for) and the options their
// flags set.
//
// # Two families of commands
//
// dir, git and stdin (and gitleaks' older detect and protect) are
// gitleaks' commands: its flags with its meanings and defaults
// (gitleaks.go), its rules (with no config gitleaks' defaults alone;
// --spindle-rules or a config's [extend] useSpindleRules adds spindle's),
// its console (a banner; log lines such as "WRN leaks found: 2", and at
// -l debug the config found, the rules and the phase times; findings on
// standard output only with -v), reports only where --report-path says, in
// gitleaks' shapes, and its exit codes.
// scan and merge are spindle's own: a report to standard output by
// default, spindle's richer shapes, a summary on standard error, every
// warning with -v. A flag exists once per meaning in each command's help;
// the older spellings of a gitleaks meaning are hidden aliases. Format
// names (formats.go) mean one shape per command family, and json means
// gitleaks' schema in every command.
//
// # Streams and exit codes
//
// Standard output carries the report (or the drop-ins' -v findings) and
// nothing else, so that `spindle scan -f json > out.json` is always valid
// JSON. Standard error carries, in order, the progress line (a terminal
// only), warnings as they happen, and the summary. A console type
// serialises the two writers of standard error, the progress renderer's
// goroutine and the engine's warning callback, so a warning never lands
// inside the progress line.
//
// Every error is returned up to run and printed there, once, as
// "spindle: message"; cobra's own error and usage printing is off, because a
// usage dump after a typo buries the line that says what was wrong. The exit
// status is decided in one function (exitStatus, exit.go): for spindle's
// commands 2 for any error (a bad flag, an invalid config, rule or
// baseline, a missing PATH, a failed write), 1 or --exit-code for findings,
// 0 otherwise; the drop-ins exit --exit-code N for leaks whatever N is (as
// gitleaks, any int: os.Exit keeps its low 8 bits), gitleaks' 1 for every
// error and 126 for an unknown flag. A command fails with
// exitWith(exitError, err) and reports leaks with leaksFound(code), so
// the two never mix, even when --exit-code is 2. SIGINT and SIGTERM
// cancel the scan's context and give 130; a read of standard input that
// cancellation cannot interrupt is abandoned (stdin.go), and a command that
// has not stopped 3 seconds after the signal is ended. A warning of noise
// never changes the status; a warning that lost data (something the scan
// was asked to read and did not) is an error, in every command, unless
// --allow-partial accepts a partial result: the summary, SARIF's
// executionSuccessful and JUnit then say what was lost, and no command
// says "no leaks found" of a scan that lost data.
//
// All inputs are validated before the scan starts, in the order a user
// would fix them (flags, paths, config, baseline, output file), so a mistake
// costs no scanning time. A report file is written beside its target and
// renamed over it only when the scan completed, so an interrupted, timed
// out or failed scan leaves the previous report as it was.
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
