package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The gitleaks-compatible commands: dir, git and stdin take gitleaks v8's
// flags with gitleaks' meanings and defaults and behave as gitleaks does
// on the console, so that a script, a hook or a CI job that runs gitleaks
// runs spindle by changing the binary's name:
//
//   - standard error: a banner (unless --no-banner), then log lines as
//     gitleaks' logger writes them ("3:04PM INF scanned ~N bytes ...",
//     "WRN leaks found: N" or "INF no leaks found"), filtered by
//     -l/--log-level; spindle's warnings are WRN lines;
//   - standard output: nothing, unless -v prints each finding as gitleaks
//     does, or --report-path - sends the report there;
//   - a report only where --report-path says, in gitleaks' shapes (json,
//     csv, junit, sarif), the format taken from the file's extension when
//     --report-format is not given;
//   - exit status: 0 nothing found, --exit-code (default 1) when something
//     was, 1 on any error, 126 for an unknown flag; 130 when interrupted;
//   - archives closed unless --max-archive-depth opens them, decoding of
//     gitleaks' four kinds only (--decoders all adds spindle's), files
//     named with the PATH as given, the config from --config,
//     GITLEAKS_CONFIG, GITLEAKS_CONFIG_TOML or the target's .gitleaks.toml.
//
// Spindle's own flags with meanings gitleaks has no flag for (workers,
// archive budgets, --allow-partial, --shard, --all-warnings) are there too. The
// older spellings of flags that mean what a gitleaks flag means (-o for
// -r, --baseline for -b, --max-file-size, --archive-depth, --format, -q,
// --color) still work, hidden from help: one flag per meaning.

// gitleaksOptions are gitleaks' flags whose values need turning into
// spindle's options.
type gitleaksOptions struct {
	reportFormat    string
	ignorePath      string
	maxTargetMB     int
	maxArchiveDepth int
	noColor         bool
	logLevel        string
	diagnostics     string
	diagnosticsDir  string
}

// dropInAnnotation marks a drop-in command, whose errors exit as gitleaks'
// do (see run).
const dropInAnnotation = "gitleaks-drop-in"

// addDropInFlags registers the drop-ins' flags: gitleaks', then spindle's,
// then the hidden older spellings. history adds nothing here; git adds
// its own after.
func addDropInFlags(c *cobra.Command, o *scanOptions, g *gitleaksOptions, shard bool) {
	c.Annotations = map[string]string{dropInAnnotation: "true"}
	o.dropIn, o.formats = true, dropInFormats
	o.maxFileSize = sizeValue{text: "0"}
	f := c.Flags()
	f.SortFlags = false
	f.StringVarP(&o.config, "config", "c", "", "config `FILE`; else GITLEAKS_CONFIG, else GITLEAKS_CONFIG_TOML (the text), else .gitleaks.toml in the target, else the built-in rules")
	f.StringVarP(&o.output, "report-path", "r", "", "write a report to `FILE` (- for standard output); none without it")
	f.StringVarP(&g.reportFormat, "report-format", "f", "", "report `FORMAT`: "+strings.Join(listed(dropInFormats), ", ")+" (default: from the report's extension, else json)")
	f.StringVar(&o.template, "report-template", "", "a Go text/template `FILE` for the report (implies --report-format template)")
	f.StringVarP(&o.baseline, "baseline-path", "b", "", "a previous report `FILE` whose findings are not reported again")
	f.StringVarP(&g.ignorePath, "gitleaks-ignore-path", "i", ".", "a .gitleaksignore `PATH`, or a folder holding one")
	f.StringSliceVar(&o.enableRules, "enable-rule", nil, "only use the rules with these `IDS`")
	f.IntVar(&o.exitCode, "exit-code", exitFindings, "exit status `N` when leaks are found")
	f.IntVar(&o.redact, "redact", 0, "hide secrets in the report and on the console; =`PCT` hides that share of each (bare --redact: 100)")
	f.Lookup("redact").NoOptDefVal = "100"
	f.IntVar(&g.maxTargetMB, "max-target-megabytes", 0, "skip files larger than `N` megabytes (0: no limit)")
	f.IntVar(&o.decodeDepth, "max-decode-depth", 5, "decode encoded text recursively up to `N` levels; 0 turns decoding off")
	f.IntVar(&g.maxArchiveDepth, "max-archive-depth", 0, "open archives nested up to `N` deep (0: archives closed)")
	f.IntVar(&o.timeout, "timeout", 0, "stop the scan after `SECONDS` (0: no limit); a stopped scan writes no report file")
	f.BoolVarP(&o.printFindings, "verbose", "v", false, "print each finding on standard output as it is found")
	f.StringVarP(&g.logLevel, "log-level", "l", "info", "`LEVEL` of the messages on standard error: trace, debug, info, warn, error, fatal")
	f.BoolVar(&o.noBanner, "no-banner", false, "no banner")
	f.BoolVar(&g.noColor, "no-color", false, "no colour on the console")
	f.BoolVar(&o.ignoreAllow, "ignore-gitleaks-allow", false, "report findings on lines marked gitleaks:allow too")
	f.StringVar(&g.diagnostics, "diagnostics", "", "accepted and ignored (profile with go tool pprof instead)")
	f.StringVar(&g.diagnosticsDir, "diagnostics-dir", "", "accepted and ignored")
	f.MarkHidden("diagnostics")
	f.MarkHidden("diagnostics-dir")

	// Spindle's own.
	f.BoolVar(&o.spindleRules, "spindle-rules", false, spindleRulesUsage+" (default: gitleaks' defaults alone, as gitleaks runs them)")
	f.IntVarP(&o.workers, "workers", "j", runtime.GOMAXPROCS(0), "run `N` workers")
	f.BoolVar(&o.implausible, "skip-implausible", false, "do not report findings tagged placeholder, checksum:invalid or malformed (reported by default, as gitleaks reports them)")
	f.StringVar(&o.decoders, "decoders", "gitleaks", "the `SET` of encodings decoded: gitleaks (its four: base64, hex, percent, \\u escapes; runs up to 96 KiB) or all (also \\x escapes and HTML references; runs up to 8 KiB)")
	if shard {
		f.StringVar(&o.shard, "shard", "", "scan only shard `I/N` of the work (I from 0; see spindle merge); the report must be json or jsonl")
	}
	o.archive.register(f)
	f.BoolVar(&o.allowPartial, "allow-partial", false, "accept a partial result: exit as if complete even if data went unscanned (an unreadable file or object, a budget hit, a damaged pack), which by default is an error")
	f.BoolVar(&o.strict, "strict", false, "fail if data went unscanned: the default, accepted for scripts that pass it")
	f.BoolVar(&o.allWarnings, "all-warnings", false, "print every warning (by default, after a few of one kind the rest are counted)")
	f.BoolVar(&o.noProgress, "no-progress", false, "no progress line (it is shown only when standard error is a terminal)")

	// Older spellings of the flags above, for scripts written for them.
	f.StringVarP(&o.output, "output", "o", "", "--report-path")
	f.StringVar(&o.format, "format", "", "--report-format")
	f.StringVar(&o.baseline, "baseline", "", "--baseline-path")
	f.IntVar(&g.maxArchiveDepth, "archive-depth", 0, "--max-archive-depth")
	f.Var(&o.maxFileSize, "max-file-size", "--max-target-megabytes, as a `SIZE` (10MB, 1GiB, 500k)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "-l error, and no progress line")
	f.StringVar(&o.color, "color", "auto", "--no-color: auto, always, never")
	for _, name := range []string{"output", "format", "baseline", "archive-depth", "max-file-size", "quiet", "color"} {
		f.MarkHidden(name)
	}
	registerCompletions(c, dropInFormats)
}

// apply turns gitleaks' flags into spindle's options.
func (g *gitleaksOptions) apply(c *cobra.Command, e env, o *scanOptions) error {
	flags := c.Flags()
	set := flags.Changed
	level, err := parseLogLevel(g.logLevel)
	if err != nil {
		return err
	}
	o.logLevel = level
	if o.quiet {
		o.logLevel = max(o.logLevel, levelError)
	}
	switch {
	case g.reportFormat != "":
		o.format = g.reportFormat
	case o.format != "":
	case o.template != "":
		o.format = "template"
	default:
		// gitleaks takes the format from the report's extension.
		defer func() {
			if o.output != "" {
				o.debug = append(o.debug, fmt.Sprintf("No report format specified, inferred %q from %q", o.format, filepath.Ext(o.output)))
			}
		}()
		switch strings.ToLower(filepath.Ext(o.output)) {
		case ".csv":
			o.format = "csv"
		case ".sarif":
			o.format = "sarif"
		case ".xml":
			o.format = "junit"
		case ".jsonl":
			o.format = "jsonl"
		default:
			o.format = "json"
		}
	}
	if set("max-target-megabytes") {
		if set("max-file-size") {
			return errors.New("--max-target-megabytes and --max-file-size say the same thing: give one")
		}
		if g.maxTargetMB < 0 {
			return errors.New(`invalid argument for "--max-target-megabytes": want 0 (no limit) or more`)
		}
		o.maxFileSize.bytes = int64(g.maxTargetMB) * 1_000_000
	}
	o.archiveDepth = g.maxArchiveDepth
	if g.noColor {
		o.color = "never"
	}
	if o.timeout < 0 {
		return errors.New(`invalid argument for "--timeout": want 0 (none) or more seconds`)
	}
	o.namesAsGiven = true // gitleaks names files with its PATH as given
	// The .gitleaksignore files: -i's (a file, or a folder holding one),
	// as gitleaks reads it; the target's own is read by the scan.
	o.ignorePaths = append(o.ignorePaths, g.ignorePath)
	// The config: --config, else GITLEAKS_CONFIG, else GITLEAKS_CONFIG_TOML,
	// else the target's .gitleaks.toml, else the built-in rules.
	switch {
	case o.config != "":
		o.configFrom = "--config"
	case e.getenv("GITLEAKS_CONFIG") != "":
		o.config, o.configFrom = e.getenv("GITLEAKS_CONFIG"), "GITLEAKS_CONFIG"
	case e.getenv("GITLEAKS_CONFIG_TOML") != "":
		o.configTOML, o.configFrom = e.getenv("GITLEAKS_CONFIG_TOML"), "GITLEAKS_CONFIG_TOML"
	}
	return nil
}

const dirLong = `dir scans files and directories for secrets as gitleaks dir does, with
gitleaks' flags, defaults, console output, reports and exit status: a script
that runs gitleaks dir runs spindle by changing the binary's name.

Findings are printed only with -v; otherwise standard error says how many
were found ("leaks found: N"). A report is written only to --report-path, in
gitleaks' shapes (json, csv, junit, sarif), and only when the scan completes.
Archives are closed unless --max-archive-depth opens them.

` + dropInRulesHelp + `

` + dropInExitHelp + `
See spindle scan for spindle's own defaults and reports.`

// dropInRulesHelp and dropInExitHelp are the drop-ins' help on rules and
// exit status, the same in each.
const (
	dropInRulesHelp = `Rules: --config, else GITLEAKS_CONFIG, else GITLEAKS_CONFIG_TOML, else
.gitleaks.toml in the target, else gitleaks' default rules alone (v8.30.1's,
from its Go module), so findings, rule ids and fingerprints are gitleaks'.
--spindle-rules adds spindle's own rules (for .netrc, .pgpass, URLs with
passwords and more that gitleaks' rules miss), there and in a config that
[extend]s the defaults; such a config may say useSpindleRules = true (or
false) in its [extend] table instead.`
	dropInExitHelp = `Exit status: 0 nothing found; --exit-code N (default 1) leaks found, any
N as gitleaks takes it (the process keeps its low 8 bits); 1 an error, 126
an unknown flag, 130 interrupted. --exit-code 2 tells leaks from errors.`
)

func newDirCmd(e env) *cobra.Command {
	var o scanOptions
	var g gitleaksOptions
	c := &cobra.Command{
		Use:     "dir [flags] [PATH...]",
		Aliases: []string{"directory", "file", "files"},
		Short:   "Find secrets in files, as gitleaks dir does",
		Long:    dirLong,
		Example: `  spindle dir -v --report-path leaks.json .
  GITLEAKS_CONFIG=ci.toml spindle dir --redact --exit-code 3 src/`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := g.apply(c, e, &o); err != nil {
				return &usageError{cmd: c, err: err}
			}
			return runScan(c, e, o, args)
		},
	}
	addDropInFlags(c, &o, &g, true)
	c.Flags().BoolVar(&o.followSymlinks, "follow-symlinks", false, "follow symbolic links (loops are detected)")
	return c
}

const stdinLong = `stdin scans standard input for secrets as gitleaks stdin does, with
gitleaks' flags, console output, reports and exit status:
git diff | spindle stdin -v.

` + dropInRulesHelp + `

` + dropInExitHelp

func newStdinCmd(e env) *cobra.Command {
	var o scanOptions
	var g gitleaksOptions
	c := &cobra.Command{
		Use:   "stdin [flags]",
		Short: "Find secrets in standard input, as gitleaks stdin does",
		Long:  stdinLong,
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			if err := g.apply(c, e, &o); err != nil {
				return &usageError{cmd: c, err: err}
			}
			return runScan(c, e, o, []string{"-"})
		},
	}
	addDropInFlags(c, &o, &g, false)
	c.Flags().StringVar(&o.stdinName, "stdin-name", "", "the `NAME` standard input has in reports and path rules (gitleaks: none)")
	return c
}

// newDetectCmd and newProtectCmd are gitleaks' older commands, hidden as
// gitleaks hides them, with every flag gitleaks v8.30.1 gives them: detect
// scans a repository's history (or, with --no-git, a directory, following
// links with --follow-symlinks; with --pipe, standard input), protect the
// changes not committed yet (--staged: the index's). Like gitleaks, both
// ignore arguments (the target is --source), and protect ignores
// --log-opts.
func newDetectCmd(e env) *cobra.Command {
	c := newGitCmd(e)
	c.Use, c.Short, c.Hidden, c.Aliases = "detect [flags]", "gitleaks detect (deprecated there): use spindle git or dir", true, nil
	c.Args = cobra.ArbitraryArgs
	var source string
	var noGit, pipe, followSymlinks bool
	c.Flags().StringVarP(&source, "source", "s", ".", "the `PATH` to scan")
	c.Flags().BoolVar(&noGit, "no-git", false, "scan the files, not the history (--log-opts has no effect then)")
	c.Flags().BoolVar(&pipe, "pipe", false, "scan standard input")
	c.Flags().BoolVar(&followSymlinks, "follow-symlinks", false, "with --no-git, follow symbolic links (loops are detected)")
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		switch {
		case noGit:
			// gitleaks tests --no-git first: --no-git --pipe scans the
			// directory.
			return redirect(cmd, e, newDirCmd(e), []string{source})
		case pipe:
			return redirect(cmd, e, newStdinCmd(e), nil)
		}
		return run(cmd, []string{source})
	}
	return c
}

func newProtectCmd(e env) *cobra.Command {
	c := newGitCmd(e)
	c.Use, c.Short, c.Hidden, c.Aliases = "protect [flags]", "gitleaks protect (deprecated there): use spindle git --pre-commit or --staged", true, nil
	c.Args = cobra.ArbitraryArgs
	var source string
	c.Flags().StringVarP(&source, "source", "s", ".", "the repository")
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if !cmd.Flags().Changed("staged") {
			cmd.Flags().Set("pre-commit", "true")
		}
		return run(cmd, []string{source})
	}
	return c
}

// redirect runs another command with the flags given to cmd.
func redirect(cmd *cobra.Command, e env, to *cobra.Command, args []string) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		t := to.Flags().Lookup(f.Name)
		if err != nil || t == nil {
			return
		}
		// A list's String is "[a,b]", which Set would take as two
		// values "[a" and "b]": lists are copied as lists.
		if from, ok := f.Value.(pflag.SliceValue); ok {
			if dst, ok := t.Value.(pflag.SliceValue); ok {
				err = dst.Replace(from.GetSlice())
				t.Changed = true
				return
			}
		}
		err = to.Flags().Set(f.Name, f.Value.String())
	})
	if err != nil {
		return &usageError{cmd: cmd, err: err}
	}
	to.SetContext(cmd.Context())
	return to.RunE(to, args)
}
