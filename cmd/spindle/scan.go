package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/ignore"
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

// scanOptions are the scan command's flags.
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
	strict         bool
	verbose        bool
	shard          string
	template       string // --report-template FILE
	archive        archiveFlags

	// Set by the gitleaks-compatible commands (see gitleaks.go).
	configTOML   string   // a config's text (GITLEAKS_CONFIG_TOML)
	ignorePaths  []string // .gitleaksignore files or folders holding one (-i)
	enableRules  []string // --enable-rule: only these rules
	timeout      int      // --timeout seconds; 0: none
	gitleaksCSV  bool     // csv means gitleaks' columns
	decodeDepth  int      // --max-decode-depth; 0: off
	ignoreAllow  bool     // --ignore-gitleaks-allow
	implausible  bool     // --skip-implausible
	namesAsGiven bool     // the gitleaks drop-ins: names keep the PATH as given
	platform     string   // --platform, for links in history reports
	stdinName    string
}

const scanLong = `scan searches files, directories and the archives inside them for secrets, with
gitleaks-compatible rules, on every core. Findings go to standard output (or
--output); progress, warnings and a summary go to standard error.

A PATH of - scans standard input, as one file named by --stdin-name; a FIFO
or a device given as a PATH (/dev/stdin, <(cmd)) is read as a stream too.
With one directory PATH, findings name files relative to it, so the same
tree gives the same report however it is named; with several PATHs, files
are named as the PATHs were given.

Rules come from --config, else from .gitleaks.toml in the first PATH that is a
directory, else from the built-in set. Findings whose fingerprint
(file:rule:line) is listed in a .gitleaksignore file at the top of a scanned
directory are not reported, nor are lines that carry a gitleaks:allow or
spindle:allow comment. The report, the baseline and the config file are never
scanned.

Exit status: 0 no findings, 1 findings (see --exit-code), 2 an error: a bad
flag, an unreadable or invalid config or baseline, a PATH that does not exist,
a failed write, nothing readable at all; with --strict, also a warning that
lost data (an unreadable file, an archive budget hit, a truncated archive).
130 when interrupted.

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
	o := scanOptions{maxFileSize: sizeValue{text: "0"}}
	c := &cobra.Command{
		Use:     "scan [flags] [PATH ...]",
		Short:   "Find secrets in files, directories and archives",
		Long:    scanLong,
		Example: scanExamples,
		RunE: func(c *cobra.Command, args []string) error {
			return runScan(c, e, o, args)
		},
	}
	addReportFlags(c, &o)
	f := c.Flags()
	f.BoolVar(&o.gitignore, "gitignore", false, "skip files that .gitignore and .ignore exclude (default: scan all but .git/)")
	f.BoolVar(&o.followSymlinks, "follow-symlinks", false, "follow symbolic links (loops are detected)")
	f.StringVar(&o.stdinName, "stdin-name", "-", "the `NAME` standard input (PATH -) has in reports and path rules")
	f.IntVar(&o.decodeDepth, "max-decode-depth", 5, "decode encoded text (base64, hex, percent, escapes) recursively up to `N` levels; 0 turns decoding off")
	f.BoolVar(&o.ignoreAllow, "ignore-gitleaks-allow", false, "report findings on lines marked gitleaks:allow or spindle:allow too")
	return c
}

// addReportFlags adds the flags every scanning command shares: rules,
// report, workers, limits, exit status.
func addReportFlags(c *cobra.Command, o *scanOptions) {
	f := c.Flags()
	f.SortFlags = false
	f.StringVarP(&o.config, "config", "c", "", "gitleaks-schema rules `FILE` (default: .gitleaks.toml at the top of what is scanned, else built-in rules)")
	f.BoolVar(&o.implausible, "skip-implausible", false, "do not report findings tagged placeholder, checksum:invalid or malformed (reported by default, as gitleaks reports them)")
	f.StringVarP(&o.format, "format", "f", "text", "report `FORMAT`: "+strings.Join(report.Formats(), ", "))
	f.StringVar(&o.template, "report-template", "", "a Go text/template `FILE` for the report (implies --format template; gitleaks' templates work)")
	f.StringVarP(&o.output, "output", "o", "", "write the report to `FILE` instead of standard output")
	f.IntVarP(&o.workers, "workers", "j", runtime.GOMAXPROCS(0), "run `N` workers")
	f.IntVar(&o.archiveDepth, "archive-depth", scan.DefaultArchiveDepth, "open archives nested up to `N` deep; 0 turns archives off")
	o.archive.register(f)
	f.Var(&o.maxFileSize, "max-file-size", "skip files larger than `SIZE` (10MB, 1GiB, 500k, bytes); 0: no limit")
	f.IntVar(&o.redact, "redact", 0, "hide secrets in the report; =`PCT` hides that share of each (bare --redact: 100)")
	f.Lookup("redact").NoOptDefVal = "100"
	f.StringVar(&o.baseline, "baseline", "", "a previous json report `FILE`: its findings are not reported again")
	f.BoolVar(&o.noProgress, "no-progress", false, "no progress line (it is shown only when standard error is a terminal)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress line and no summary; warnings and errors still print")
	f.StringVar(&o.color, "color", "auto", "colour the text report `WHEN`: auto (on a terminal, unless NO_COLOR is set), always, never")
	f.IntVar(&o.exitCode, "exit-code", exitFindings, "exit status `N` when there are findings")
	f.BoolVar(&o.strict, "strict", false, "exit 2 if data went unscanned (an unreadable file, an archive budget hit, a truncated archive)")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "print every warning (by default, after a few of one kind the rest are counted)")
	f.StringVar(&o.shard, "shard", "", "scan only shard `I/N` of the work (I from 0; N processes, one per shard, cover it all; see spindle merge)")

	c.MarkFlagFilename("config", "toml")
	c.MarkFlagFilename("report-template")
	c.MarkFlagFilename("output")
	c.MarkFlagFilename("baseline", "json", "jsonl")
	c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(completions(report.Formats()), cobra.ShellCompDirectiveNoFileComp))
	c.RegisterFlagCompletionFunc("color", cobra.FixedCompletions(completions([]string{"auto", "always", "never"}), cobra.ShellCompDirectiveNoFileComp))
	c.RegisterFlagCompletionFunc("workers", cobra.NoFileCompletions)
	c.RegisterFlagCompletionFunc("archive-depth", cobra.NoFileCompletions)
	c.RegisterFlagCompletionFunc("max-file-size", cobra.NoFileCompletions)
	c.RegisterFlagCompletionFunc("exit-code", cobra.NoFileCompletions)
}

func completions(names []string) []cobra.Completion {
	out := make([]cobra.Completion, len(names))
	for i, n := range names {
		out[i] = cobra.Completion(n)
	}
	return out
}

// check validates what pflag cannot: ranges and enumerations. Each
// message names the flag as --help prints it.
func (o *scanOptions) check() (report.Format, error) {
	if o.template != "" && (o.format == "" || o.format == "text") {
		o.format = string(report.FormatTemplate)
	}
	format, err := report.ParseFormat(o.format)
	if err != nil {
		return "", fmt.Errorf("invalid argument %q for \"-f, --format\": want one of %s", o.format, strings.Join(report.Formats(), ", "))
	}
	switch {
	case o.workers < 1 || o.workers > maxWorkers:
		return "", fmt.Errorf("invalid argument %d for \"-j, --workers\": want 1 to %d", o.workers, maxWorkers)
	case o.archiveDepth < 0 || o.archiveDepth > maxArchiveDepth:
		return "", fmt.Errorf("invalid argument %d for \"--archive-depth\": want 0 (off) to %d", o.archiveDepth, maxArchiveDepth)
	case o.decodeDepth < 0 || o.decodeDepth > maxDecodeDepth:
		return "", fmt.Errorf("invalid argument %d for \"--max-decode-depth\": want 0 (off) to %d", o.decodeDepth, maxDecodeDepth)
	case o.redact < 0 || o.redact > 100:
		return "", fmt.Errorf("invalid argument %d for \"--redact\": want a percentage, 0 to 100", o.redact)
	case o.exitCode < 0 || o.exitCode > 125:
		// 126 and up mean "not executable", "not found" and "killed by a
		// signal" to shells; a finding must not look like one.
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
	case o.template != "" && format != report.FormatTemplate:
		return "", fmt.Errorf("--report-template goes with --format template, not %s", format)
	case o.output != "" && o.output != "-" && o.baseline != "" && report.SameFile(o.output, o.baseline):
		// The baseline is read first and the report would replace it with
		// what the baseline suppressed: nothing.
		return "", fmt.Errorf("the report %s would overwrite the baseline it is compared with", o.output)
	}
	return format, nil
}

// runScan is `spindle scan`. The order matters for error reporting: every
// input is validated (flags, paths, config, baseline, output file) before
// anything is scanned, so a mistake costs no time and leaves no partial
// report.
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
	job := scanJob{configRoot: ".", run: func(ctx context.Context, opts scan.Options) (scan.Stats, error) {
		opts.Gitignore = o.gitignore
		opts.FollowSymlinks = o.followSymlinks
		if stdin {
			return scan.ScanReader(ctx, opts, o.stdinName, e.stdin)
		}
		return scan.Scan(ctx, opts, paths...)
	}}
	if !stdin {
		job.configRoot = configRoot(paths)
	}
	return runReport(c, e, o, format, job)
}

// scanJob is what differs between the scanning commands: where the rules
// are looked for, and the scan itself, given the options every command
// sets the same way.
type scanJob struct {
	configRoot string
	run        func(ctx context.Context, opts scan.Options) (scan.Stats, error)
	remoteURL  string // the repository's remote, for links in history reports
}

// runReport runs a scan and writes its report: rules, baseline, output,
// progress, summary and exit status, the same for every scanning command.
func runReport(c *cobra.Command, e env, o scanOptions, format report.Format, job scanJob) (err error) {
	// stderr is shared by the progress line, warnings and the summary; the
	// console keeps them from interleaving.
	con := &console{w: e.stderr}
	var progress scan.Progress
	var phase atomic.Pointer[string]
	setPhase := func(s string) { phase.Store(&s) }
	var scanStart atomic.Int64 // UnixNano when the scan began, 0 before
	setPhase("loading rules")
	if e.stderrTTY && !o.noProgress && !o.quiet {
		con.line = startProgress(e.stderr, e.stderrWidth, func() progressStats {
			return progressStats{
				phase:    *phase.Load(),
				files:    progress.Files.Load(),
				bytes:    progress.Bytes.Load(),
				findings: progress.Findings.Load(),
				warnings: progress.Warnings.Load(),
				scanning: sinceUnixNano(scanStart.Load()),
			}
		})
	}
	// Every return erases the line first, so an error message starts on a
	// clean line; the normal path stops it before the summary.
	defer con.stop()

	// Rules: --config, else .gitleaks.toml at the top of what is scanned,
	// else the built-in set.
	cfg, cfgPath, err := loadRules(job.configRoot, o)
	if err != nil {
		return exitWith(exitError, err)
	}
	if !o.quiet {
		for _, w := range cfg.Warnings {
			con.Print(fmt.Sprintf("spindle: warning: %s\n", w))
		}
	}
	det, err := rules.CompileWith(cfg, o.ruleSettings())
	if err != nil {
		return exitWith(exitError, err)
	}
	var ignores scan.Fingerprints
	if len(o.ignorePaths) > 0 {
		if ignores, err = loadIgnoreFiles(o.ignorePaths); err != nil {
			return exitWith(exitError, err)
		}
	}
	var tmpl string
	if o.template != "" {
		b, err := readSmallFile(o.template, 1<<20)
		if err != nil {
			return exitWith(exitError, fmt.Errorf("report template: %w", err))
		}
		tmpl = string(b)
	}
	var baseline scan.Known
	if o.baseline != "" {
		bl, err := report.LoadBaseline(o.baseline)
		if err != nil {
			return exitWith(exitError, err)
		}
		baseline = bl
	}

	// A report file is written beside its target and renamed over it
	// once complete: an interrupted or killed run never leaves half a
	// report, nor destroys the previous one.
	out := e.stdout
	outTTY := e.stdoutTTY
	var outFile *report.AtomicFile
	if o.output != "" && o.output != "-" {
		if outFile, err = report.CreateAtomic(o.output); err != nil {
			return exitWith(exitError, fmt.Errorf("scan: %w", err))
		}
		out, outTTY = outFile, false
		defer outFile.Abort() // nothing after Commit
	}
	color := o.color == "always" || o.color == "auto" && outTTY && e.getenv("NO_COLOR") == ""
	meta := ruleMeta(det.Rules())
	if format == report.FormatCSV && o.gitleaksCSV {
		format = report.FormatGitleaksCSV
	}
	w, err := report.NewWriter(format, out, report.Options{
		Redact:      o.redact,
		Color:       color,
		Rules:       meta,
		ToolVersion: moduleVersion(),
		Template:    tmpl,
		RemoteURL:   job.remoteURL,
		Platform:    o.platform,
	})
	if err != nil {
		return exitWith(exitError, err)
	}

	setPhase("scanning")
	scanStart.Store(time.Now().UnixNano())
	parent := c.Context()
	if o.timeout > 0 {
		var stop context.CancelFunc
		parent, stop = context.WithTimeout(parent, time.Duration(o.timeout)*time.Second)
		defer stop()
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	var writeErr error
	warns := newWarnPrinter(con, o.quiet, o.verbose)
	depth := o.archiveDepth
	if depth == 0 {
		depth = scan.NoArchives
	}
	shard := scan.Shard{}
	if o.shard != "" {
		if shard, err = scan.ParseShard(o.shard); err != nil {
			return &usageError{cmd: c, err: fmt.Errorf("invalid argument for \"--shard\": %w", err)}
		}
	}
	opts := scan.Options{
		Archive:      o.archive.limits(),
		Shard:        shard,
		NamesAsGiven: o.namesAsGiven,
		Workers:      o.workers,
		MaxFileSize:  o.maxFileSize.bytes,
		ArchiveDepth: depth,
		Detector:     scan.Rules(det),
		Baseline:     baseline,
		Ignore:       ignores,
		Exclude:      []string{o.output, o.baseline, cfgPath},
		Progress:     &progress,
		OnFinding: func(f report.Finding) {
			// Calls are serialised by the engine.
			if writeErr != nil {
				return
			}
			if err := w.Write(f); err != nil {
				writeErr = err
				cancel(err)
			}
		},
		OnWarning: warns.print,
	}
	st, scanErr := job.run(ctx, opts)
	reported := st.Findings
	setPhase("writing report")
	closeErr := w.Close()
	con.stop()

	interrupted := scanErr != nil && errors.Is(scanErr, context.Canceled) && c.Context().Err() != nil
	if outFile != nil && writeErr == nil && closeErr == nil && (scanErr == nil || interrupted) {
		// An interrupted scan's report is complete for what was scanned,
		// and valid: it replaces the old one, as the user asked.
		if err := outFile.Commit(); err != nil {
			return exitWith(exitError, fmt.Errorf("scan: write report: %w", err))
		}
	}
	switch {
	case errors.Is(writeErr, syscall.EPIPE) || errors.Is(closeErr, syscall.EPIPE):
		return exitWith(exitBrokenPipe, nil) // nobody is reading: nothing to say
	case writeErr != nil:
		return exitWith(exitError, fmt.Errorf("scan: write report: %w", writeErr))
	case interrupted:
		return exitWith(exitInterrupted, errors.New("interrupted"))
	case scanErr != nil:
		return exitWith(exitError, scanErr)
	case closeErr != nil:
		return exitWith(exitError, fmt.Errorf("scan: write report: %w", closeErr))
	}

	warns.flush()
	if !o.quiet {
		sum := report.Summary{
			Files:    st.Files,
			Members:  st.Members,
			Bytes:    st.Bytes,
			Duration: st.Duration,
			Findings: int(reported),
			Lost:     st.Lost,
			Noise:    st.Noise,
			Warnings: int(st.Warnings),
			Skipped:  st.Skipped,
		}
		sum.WriteText(e.stderr)
		if n := st.Known; n > 0 {
			fmt.Fprintf(e.stderr, "%s already in the baseline, not reported\n", plural(n, "finding", "findings"))
		}
	}
	switch {
	case o.strict && st.Lost > 0:
		return exitWith(exitError, fmt.Errorf("failing on %s that lost data (--strict)", plural(st.Lost, "warning", "warnings")))
	case reported > 0:
		return exitWith(o.exitCode, nil)
	}
	return nil
}

// sinceUnixNano is the time since t (UnixNano), or 0 if t is 0.
func sinceUnixNano(t int64) time.Duration {
	if t == 0 {
		return 0
	}
	return time.Since(time.Unix(0, t))
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

// ruleMeta turns the detector's rules into the rule table SARIF needs.
func ruleMeta(infos []rules.RuleInfo) []report.RuleMeta {
	out := make([]report.RuleMeta, len(infos))
	for i, r := range infos {
		out[i] = report.RuleMeta{ID: r.ID, Description: r.Description, Tags: r.Tags}
	}
	return out
}

// console serialises writes to standard error between the progress line
// (if any) and the messages printed while it runs.
type console struct {
	mu   sync.Mutex
	w    io.Writer
	line *progressLine
}

// stop erases the progress line for good, if there is one. It may be
// called more than once.
func (c *console) stop() {
	if c.line != nil {
		c.line.Stop()
		c.line = nil
	}
}

// Print writes text, above the progress line if one is shown.
func (c *console) Print(text string) {
	if c.line != nil {
		c.line.Print(text)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	io.WriteString(c.w, text)
}

// loadRules finds the rules a scan uses: --config, else (for the
// gitleaks-compatible commands) a config's text from GITLEAKS_CONFIG_TOML,
// else .gitleaks.toml at root, else the built-in set; then keeps only the
// rules --enable-rule names, if any. It returns the config's file, which
// the scan leaves out.
func loadRules(root string, o scanOptions) (*rules.Config, string, error) {
	var (
		cfg  *rules.Config
		path string
		err  error
	)
	if o.config == "" && o.configTOML != "" {
		cfg, err = rules.Parse([]byte(o.configTOML), "GITLEAKS_CONFIG_TOML")
	} else {
		cfg, path, err = rules.Find(root, o.config)
	}
	if err != nil {
		return nil, "", err
	}
	if len(o.enableRules) > 0 {
		keep := cfg.Rules[:0:0]
		for _, id := range o.enableRules {
			i := slices.IndexFunc(cfg.Rules, func(r rules.Rule) bool { return r.ID == id })
			if i < 0 {
				return nil, "", fmt.Errorf("--enable-rule: no rule %q in %s", id, cmp.Or(path, "the rules"))
			}
			keep = append(keep, cfg.Rules[i])
		}
		cfg.Rules = keep
	}
	return cfg, path, nil
}

// loadIgnoreFiles reads each .gitleaksignore named (a file, or a folder
// holding one, which may have none).
func loadIgnoreFiles(paths []string) (scan.Fingerprints, error) {
	set := &ignore.Fingerprints{}
	for _, p := range paths {
		fp, err := ignore.LoadFingerprints(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		set.Merge(fp)
	}
	return set, nil
}

// readSmallFile reads a regular file of at most limit bytes.
func readSmallFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > limit {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, limit)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// ruleSettings are the detector's settings the flags choose.
func (o *scanOptions) ruleSettings() rules.Settings {
	set := rules.Settings{MaxDecodeDepth: o.decodeDepth, IgnoreInlineAllow: o.ignoreAllow, SkipImplausible: o.implausible}
	if o.decodeDepth == 0 {
		set.MaxDecodeDepth = -1 // the flag's 0 is off; the library's is its default
	}
	return set
}
