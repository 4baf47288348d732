package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

// Ranges of the numeric flags. More workers than cores buys nothing; each
// costs a chunk buffer and a goroutine, and a mistyped -j 2147483647 must
// be an error, not an out-of-memory crash. Archives nested deeper than 16
// are bombs, not releases.
const (
	maxWorkers      = 1024
	maxArchiveDepth = 16
	maxDecodeDepth  = 64
)

// scanOptions are the flags of the scanning commands: spindle scan, and
// the gitleaks drop-ins dir, git and stdin, which set the fields below
// dropIn from gitleaks' flags (gitleaks.go).
type scanOptions struct {
	config         string
	format         string
	output         string
	workers        int
	gitignore      bool
	followSymlinks bool
	archiveDepth   int
	maxFileSize    sizeValue
	redact         int
	baseline       string
	noProgress     bool
	quiet          bool
	color          string
	exitCode       int
	strict         bool // accepted, and the default: lost data fails the scan unless allowPartial
	allowPartial   bool // --allow-partial: a scan that lost data exits as if it had not
	allWarnings    bool // print every warning (spindle scan's -v)
	shard          string
	template       string // --report-template FILE
	archive        archiveFlags
	decodeDepth    int    // --max-decode-depth; 0: off
	decoders       string // --decoders: all, or gitleaks' kinds only
	ignoreAllow    bool   // --ignore-gitleaks-allow
	stdinName      string

	// The drop-ins' (see gitleaks.go).
	dropIn        bool         // dir, git or stdin: gitleaks' console and exit codes
	formats       []formatName // the names -f takes
	configTOML    string       // a config's text (GITLEAKS_CONFIG_TOML)
	configFrom    string       // what named the config: --config, GITLEAKS_CONFIG, GITLEAKS_CONFIG_TOML; "" none
	debug         []string     // debug lines the flags' reading left for the console
	ignorePaths   []string     // .gitleaksignore files or folders holding one (-i)
	enableRules   []string     // --enable-rule: only these rules
	timeout       int          // --timeout seconds; 0: none
	namesAsGiven  bool         // names keep the PATH as given
	platform      string       // --platform, for links in history reports
	printFindings bool         // -v: print each finding as gitleaks does
	noBanner      bool
	logLevel      logLevel
	implausible   bool // --skip-implausible
	// spindleRules is --spindle-rules: the built-in rules include
	// spindle's own (spindle scan's default; the drop-ins run gitleaks'
	// defaults alone unless it is given).
	spindleRules bool
}

// builtin is the set the built-in rules are: what runs with no config,
// and what a config's [extend] useDefault = true builds on.
func (o *scanOptions) builtin() rules.Builtin {
	if o.spindleRules {
		return rules.WithSpindle
	}
	return rules.GitleaksOnly
}

// spindleRulesUsage is --spindle-rules' help, the same in every command.
const spindleRulesUsage = "run spindle's own rules (for kinds of secret gitleaks' rules miss: .netrc, .pgpass, URLs with passwords, ...) beside gitleaks' defaults, where the built-in rules apply: with no config, or a config whose [extend] has useDefault = true (a config's [extend] useSpindleRules decides for it)"

const scanLong = `scan searches files, directories and the archives inside them for secrets, with
gitleaks-compatible rules, on every core. Findings go to standard output (or
--output); progress, warnings and a summary go to standard error.

A PATH of - scans standard input, as one file named by --stdin-name; a FIFO
or a device given as a PATH (/dev/stdin, <(cmd)) is read as a stream too.
With one directory PATH, findings name files relative to it, so the same
tree gives the same report however it is named; with several PATHs, files
are named as the PATHs were given.

Rules come from --config, else from .gitleaks.toml in the first PATH that is a
directory, else from the built-in set: gitleaks' default rules (v8.30.1's,
from its Go module) and spindle's own for what they miss (.netrc, .pgpass,
URLs with passwords, ...). --spindle-rules=false runs gitleaks' alone, as
the gitleaks drop-ins (dir, git, stdin) do by default; a config that
[extend]s the defaults gets both unless its [extend] says useSpindleRules =
false. Findings whose fingerprint
(file:rule:line) is listed in a .gitleaksignore file at the top of a scanned
directory are not reported, nor are lines that carry a gitleaks:allow or
spindle:allow comment. The report, the baseline and the config file are never
scanned.

Reports: text for people; json is gitleaks' JSON schema (RuleID, StartLine,
...), as in every spindle command; jsonl is spindle's own, a finding per line
as it is found (rule_id, line, ...); sarif, csv and junit are spindle's, which
say more than gitleaks' (gitleaks-sarif, gitleaks-csv and gitleaks-junit write
those). A report file is replaced only when the scan completes: an
interrupted or failed scan leaves it as it was.

Exit status: 0 no findings, 1 findings (see --exit-code), 2 an error: a bad
flag, an unreadable or invalid config or baseline, a PATH that does not exist,
a failed write, nothing readable at all, and any warning that lost data (an
unreadable file, an archive budget hit, a truncated archive): a scan that did
not read what it was asked to read is not a clean result (--allow-partial
accepts one; --strict, the default, is accepted). 130 when interrupted.

Warnings are printed as they come; after the first few of one kind (the
same operation and cause), the rest are counted and summed up at the end
(-v prints them all, -q none). The summary counts both classes: lost data,
and noise such as a dangling link or a corrupt archive with nothing to lose.`

const scanExamples = `  spindle scan                                 # the current directory
  spindle scan --gitignore src/ deploy/        # skip what .gitignore excludes
  spindle scan -f json -o leaks.json .         # a report a later --baseline can read
  spindle scan --baseline leaks.json .         # only what is new since then
  spindle scan -f sarif -o spindle.sarif .     # for GitHub code scanning
  spindle scan --redact -f jsonl . | jq .file  # stream findings, secrets hidden
  git diff | spindle scan --stdin-name patch.diff -
  spindle scan --max-file-size 10MB --archive-depth 0 /srv/data`

func newScanCmd(e env) *cobra.Command {
	o := scanOptions{maxFileSize: sizeValue{text: "0"}, formats: spindleFormats}
	c := &cobra.Command{
		Use:     "scan [flags] [PATH ...]",
		Short:   "Find secrets in files, directories and archives",
		Long:    scanLong,
		Example: scanExamples,
		RunE: func(c *cobra.Command, args []string) error {
			return runScan(c, e, o, args)
		},
	}
	f := c.Flags()
	f.SortFlags = false
	f.StringVarP(&o.config, "config", "c", "", "gitleaks-schema rules `FILE` (default: .gitleaks.toml at the top of what is scanned, else built-in rules)")
	f.BoolVar(&o.spindleRules, "spindle-rules", true, spindleRulesUsage+"; --spindle-rules=false runs gitleaks' defaults alone")
	f.BoolVar(&o.implausible, "skip-implausible", false, "do not report findings tagged placeholder, checksum:invalid or malformed (reported by default, as gitleaks reports them)")
	f.StringVarP(&o.format, "format", "f", "text", "report `FORMAT`: "+strings.Join(listed(spindleFormats), ", "))
	f.StringVar(&o.template, "report-template", "", "a Go text/template `FILE` for the report (implies --format template; gitleaks' templates work)")
	f.StringVarP(&o.output, "output", "o", "", "write the report to `FILE` instead of standard output, replaced only when the scan completes")
	f.IntVarP(&o.workers, "workers", "j", runtime.GOMAXPROCS(0), "run `N` workers")
	f.BoolVar(&o.gitignore, "gitignore", false, "skip files that .gitignore and .ignore exclude (default: scan all but .git/)")
	f.BoolVar(&o.followSymlinks, "follow-symlinks", false, "follow symbolic links (loops are detected)")
	f.IntVar(&o.archiveDepth, "archive-depth", scan.DefaultArchiveDepth, "open archives nested up to `N` deep; 0 turns archives off")
	o.archive.register(f)
	f.Var(&o.maxFileSize, "max-file-size", "skip files larger than `SIZE` (10MB, 1GiB, 500k, bytes); 0: no limit")
	f.IntVar(&o.decodeDepth, "max-decode-depth", 5, "decode encoded text recursively up to `N` levels; 0 turns decoding off")
	f.StringVar(&o.decoders, "decoders", "all", "the `SET` of encodings decoded: all (base64, hex, percent, \\u and \\x escapes, HTML references; runs up to 8 KiB) or gitleaks (its four, runs up to 96 KiB, as the drop-ins decode)")
	f.BoolVar(&o.ignoreAllow, "ignore-gitleaks-allow", false, "report findings on lines marked gitleaks:allow or spindle:allow too")
	f.IntVar(&o.redact, "redact", 0, "hide secrets in the report; =`PCT` hides that share of each (bare --redact: 100)")
	f.Lookup("redact").NoOptDefVal = "100"
	f.StringVar(&o.baseline, "baseline", "", "a previous json or jsonl report `FILE`: its findings are not reported again")
	f.StringVar(&o.stdinName, "stdin-name", "-", "the `NAME` standard input (PATH -) has in reports and path rules")
	f.StringVar(&o.shard, "shard", "", "scan only shard `I/N` of the work (I from 0; N processes, one per shard, cover it all; see spindle merge)")
	f.IntVar(&o.exitCode, "exit-code", exitFindings, "exit status `N` when there are findings")
	f.BoolVar(&o.allowPartial, "allow-partial", false, "accept a partial result: exit 0 or 1 even if data went unscanned (an unreadable file or object, an archive budget hit, a damaged pack), which by default exits 2")
	f.BoolVar(&o.strict, "strict", false, "fail if data went unscanned: the default, accepted for scripts that pass it")
	f.BoolVar(&o.noProgress, "no-progress", false, "no progress line (it is shown only when standard error is a terminal)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress line and no summary; warnings and errors still print")
	f.BoolVarP(&o.allWarnings, "verbose", "v", false, "print every warning (by default, after a few of one kind the rest are counted)")
	f.StringVar(&o.color, "color", "auto", "colour the text report `WHEN`: auto (on a terminal, unless NO_COLOR is set), always, never")
	registerCompletions(c, spindleFormats)
	return c
}

// registerCompletions completes the scanning commands' flags.
func registerCompletions(c *cobra.Command, formats []formatName) {
	flags := c.Flags()
	c.MarkFlagFilename("config", "toml")
	for _, name := range []string{"report-template", "output", "report-path"} {
		if flags.Lookup(name) != nil {
			c.MarkFlagFilename(name)
		}
	}
	for _, name := range []string{"format", "report-format"} {
		if flags.Lookup(name) != nil {
			c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(completions(listed(formats)), cobra.ShellCompDirectiveNoFileComp))
		}
	}
	for _, name := range []string{"baseline", "baseline-path"} {
		if flags.Lookup(name) != nil {
			c.MarkFlagFilename(name, "json", "jsonl")
		}
	}
	if flags.Lookup("color") != nil {
		c.RegisterFlagCompletionFunc("color", cobra.FixedCompletions(completions([]string{"auto", "always", "never"}), cobra.ShellCompDirectiveNoFileComp))
	}
	c.RegisterFlagCompletionFunc("decoders", cobra.FixedCompletions(completions([]string{"all", "gitleaks"}), cobra.ShellCompDirectiveNoFileComp))
	for _, name := range []string{"workers", "archive-depth", "max-archive-depth", "max-file-size", "max-target-megabytes", "exit-code"} {
		if flags.Lookup(name) != nil {
			c.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
		}
	}
}

func completions(names []string) []cobra.Completion {
	out := make([]cobra.Completion, len(names))
	for i, n := range names {
		out[i] = cobra.Completion(n)
	}
	return out
}

// check validates what pflag cannot: ranges and enumerations. Each
// message names the flag as --help prints it. The format is "" when no
// report is written (a drop-in without --report-path).
func (o *scanOptions) check() (report.Format, error) {
	var format report.Format
	if o.writesReport() {
		if o.template != "" && (o.format == "" || o.format == "text") {
			o.format = string(report.FormatTemplate)
		}
		flag := "-f, --format"
		if o.dropIn {
			flag = "-f, --report-format"
		}
		var err error
		if format, err = parseFormatName(o.formats, o.format, flag); err != nil {
			return "", err
		}
	}
	switch {
	case o.workers < 1 || o.workers > maxWorkers:
		return "", fmt.Errorf("invalid argument %d for \"-j, --workers\": want 1 to %d", o.workers, maxWorkers)
	case o.archiveDepth < 0 || o.archiveDepth > maxArchiveDepth:
		return "", fmt.Errorf("invalid argument %d for %q: want 0 (off) to %d", o.archiveDepth, o.archiveDepthFlag(), maxArchiveDepth)
	case o.decodeDepth < 0 || o.decodeDepth > maxDecodeDepth:
		return "", fmt.Errorf("invalid argument %d for \"--max-decode-depth\": want 0 (off) to %d", o.decodeDepth, maxDecodeDepth)
	case o.decoders != "all" && o.decoders != "gitleaks":
		return "", fmt.Errorf("invalid argument %q for \"--decoders\": want all or gitleaks", o.decoders)
	case o.redact < 0 || o.redact > 100:
		return "", fmt.Errorf("invalid argument %d for \"--redact\": want a percentage, 0 to 100", o.redact)
	case !o.dropIn && (o.exitCode < 0 || o.exitCode > 125):
		// 126 and up mean "not executable", "not found" and "killed by a
		// signal" to shells; a finding must not look like one. The
		// drop-ins take any int, as gitleaks does (see exitStatus).
		return "", fmt.Errorf("invalid argument %d for \"--exit-code\": want 0 to 125", o.exitCode)
	}
	if err := o.archive.check(); err != nil {
		return "", err
	}
	switch o.color {
	case "auto", "always", "never":
	default:
		return "", fmt.Errorf("invalid argument %q for \"--color\": want auto, always or never", o.color)
	}
	switch {
	case format == report.FormatTemplate && o.template == "":
		return "", errors.New("the template format needs --report-template FILE")
	case o.template != "" && format != "" && format != report.FormatTemplate:
		return "", fmt.Errorf("--report-template goes with the template format, not %s", o.format)
	case o.output != "" && o.output != "-" && o.baseline != "" && report.SameFile(o.output, o.baseline):
		// The baseline is read first and the report would replace it with
		// what the baseline suppressed: nothing.
		return "", fmt.Errorf("the report %s would overwrite the baseline it is compared with", o.output)
	}
	if o.shard != "" {
		switch format {
		case report.FormatGitleaks, report.FormatJSONL, report.FormatSARIF, report.FormatGitleaksSARIF:
		case "":
			return "", errors.New("--shard writes a shard's report for spindle merge: give --report-path FILE")
		default:
			return "", fmt.Errorf("--shard writes a shard's report for spindle merge: json or jsonl (or sarif), not %s", o.format)
		}
	}
	return format, nil
}

// writesReport reports whether the command writes a report: spindle scan
// always (to standard output by default), a drop-in only when
// --report-path names where, as gitleaks does.
func (o *scanOptions) writesReport() bool { return !o.dropIn || o.output != "" }

func (o *scanOptions) archiveDepthFlag() string {
	if o.dropIn {
		return "--max-archive-depth"
	}
	return "--archive-depth"
}

// runScan is `spindle scan`, and dir and stdin after their flags are read.
// The order matters for error reporting: every input is validated (flags,
// paths, config, baseline, output file) before anything is scanned, so a
// mistake costs no time and leaves no partial report.
func runScan(c *cobra.Command, e env, o scanOptions, paths []string) (err error) {
	format, err := o.check()
	if err != nil {
		return &usageError{cmd: c, err: err}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	stdin := slices.Contains(paths, "-")
	if stdin && len(paths) > 1 {
		return &usageError{cmd: c, err: errors.New("PATH - (standard input) cannot be combined with other PATHs")}
	}
	for _, p := range paths {
		if p == "-" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return exitWith(exitError, fmt.Errorf("scan: %s: %w", p, err))
		}
	}
	job := scanJob{configRoot: ".", scanned: strings.Join(append([]string{c.Name()}, scannedNames(paths)...), " "), run: func(ctx context.Context, opts scan.Options) (scan.Stats, error) {
		opts.Gitignore = o.gitignore
		opts.FollowSymlinks = o.followSymlinks
		if stdin {
			return scan.ScanReader(ctx, opts, o.stdinName, newContextReader(ctx, e.stdin))
		}
		return scan.Scan(ctx, opts, paths...)
	}}
	if !stdin {
		job.configRoot = configRoot(paths)
		if st, err := os.Stat(paths[0]); err == nil && !st.IsDir() && o.dropIn {
			// gitleaks reads no .gitleaks.toml for a file: its
			// default config, or what --config and its variables name.
			job.configRoot, job.source = "", paths[0]
		}
	}
	return runReport(c, e, o, format, job)
}

// scanJob is what differs between the scanning commands: where the rules
// are looked for, the scan itself given the options every command sets
// the same way, and what a shard's report says was scanned.
type scanJob struct {
	configRoot string // "": no .gitleaks.toml is looked for
	source     string // a drop-in's file PATH, for its debug line
	run        func(ctx context.Context, opts scan.Options) (scan.Stats, error)
	remoteURL  string // the repository's remote, for links in history reports
	scanned    string // the source, as a shard's report records it
	// commits is the number of commits a history scan read, for the
	// drop-ins' "N commits scanned."; nil outside history.
	commits func() int64
	// cached is how many of those came from the history store, and the
	// store's directory; nil without a store.
	cached func() (int64, string)
}

// scannedNames names what a shard scanned for its report's header: each
// PATH or repository by its last element, since the machines that scan the
// shards of one scan check it out in different places (/builds/1/repo,
// /home/ci/repo); - stays standard input.
func scannedNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if p == "-" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			out[i] = filepath.Base(abs)
		}
	}
	return out
}

// configRoot is the directory whose .gitleaks.toml applies when --config is
// not given: the first PATH that is a directory, else the directory of the
// first PATH.
func configRoot(paths []string) string {
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
	}
	return filepath.Dir(paths[0])
}

// ruleSettings are the detector's settings the flags choose.
func (o *scanOptions) ruleSettings() rules.Settings {
	set := rules.Settings{MaxDecodeDepth: o.decodeDepth, IgnoreInlineAllow: o.ignoreAllow, GitleaksDecoding: o.decoders == "gitleaks", SkipImplausible: o.implausible}
	if o.decodeDepth == 0 {
		set.MaxDecodeDepth = -1 // the flag's 0 is off; the library's is its default
	}
	return set
}
