package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/spindle-go/spindle/scan/report"
)

// The gitleaks-compatible commands: dir, git and stdin take gitleaks v8's
// flags with the same meanings, so a script that runs gitleaks runs
// spindle by changing the binary's name. Spindle's own flags work on them
// too. What differs from `spindle scan`: archives are closed unless
// --max-archive-depth (or --archive-depth) opens them, as in gitleaks; a
// json report is gitleaks' schema (RuleID, StartLine, Commit, ...) and csv
// its columns (spindle's own schema is -f jsonl); the config may come from
// GITLEAKS_CONFIG or GITLEAKS_CONFIG_TOML.

// gitleaksOptions are gitleaks' flags, beyond those spindle shares.
type gitleaksOptions struct {
	reportPath      string
	reportFormat    string
	baselinePath    string
	ignorePath      string
	enableRules     []string
	maxTargetMB     int
	maxDecodeDepth  int
	maxArchiveDepth int
	noBanner        bool
	noColor         bool
	ignoreAllow     bool
	logLevel        string
	timeout         int
	platform        string
	diagnostics     string
	diagnosticsDir  string
}

// addGitleaksFlags registers gitleaks' flags on c.
func addGitleaksFlags(c *cobra.Command, g *gitleaksOptions) {
	f := c.Flags()
	f.StringVarP(&g.reportPath, "report-path", "r", "", "gitleaks: write the report to `FILE` (- for standard output); json and csv are gitleaks' schemas")
	f.StringVar(&g.reportFormat, "report-format", "", "gitleaks: report `FORMAT` (json, csv, junit, sarif, template; default from the --report-path extension)")
	f.StringVarP(&g.baselinePath, "baseline-path", "b", "", "gitleaks: a previous report `FILE` whose findings are not reported again")
	f.StringVarP(&g.ignorePath, "gitleaks-ignore-path", "i", ".", "gitleaks: a .gitleaksignore `PATH`, or a folder holding one")
	f.StringSliceVar(&g.enableRules, "enable-rule", nil, "gitleaks: only use the rules with these `IDS`")
	f.IntVar(&g.maxTargetMB, "max-target-megabytes", 0, "gitleaks: skip files larger than `N` megabytes (0: no limit)")
	f.IntVar(&g.maxDecodeDepth, "max-decode-depth", 5, "gitleaks: decode encoded text (base64, hex, ...) recursively up to `N` levels; 0 turns decoding off")
	f.IntVar(&g.maxArchiveDepth, "max-archive-depth", 0, "gitleaks: open archives nested up to `N` deep (default 0: archives closed)")
	f.BoolVar(&g.noBanner, "no-banner", false, "gitleaks: no banner (spindle prints none)")
	f.BoolVar(&g.noColor, "no-color", false, "gitleaks: no colour")
	f.BoolVar(&g.ignoreAllow, "ignore-gitleaks-allow", false, "gitleaks: report findings on lines marked gitleaks:allow too")
	f.StringVarP(&g.logLevel, "log-level", "l", "info", "gitleaks: `LEVEL` of messages: trace, debug (every warning), info, warn, error, fatal (none)")
	f.IntVar(&g.timeout, "timeout", 0, "gitleaks: stop the scan after `SECONDS` (0: no limit)")
	f.StringVar(&g.platform, "platform", "", "gitleaks: the `PLATFORM` links in a history report point to (github, gitlab, azuredevops, gitea, bitbucket, none)")
	f.StringVar(&g.diagnostics, "diagnostics", "", "gitleaks: accepted and ignored (use go tool pprof with spindle bench)")
	f.StringVar(&g.diagnosticsDir, "diagnostics-dir", "", "gitleaks: accepted and ignored")
	f.MarkHidden("diagnostics")
	f.MarkHidden("diagnostics-dir")
	c.MarkFlagFilename("report-path")
	c.MarkFlagFilename("baseline-path", "json")
}

// apply folds gitleaks' flags into spindle's options.
func (g *gitleaksOptions) apply(c *cobra.Command, e env, o *scanOptions) error {
	flags := c.Flags()
	set := func(name string) bool { return flags.Changed(name) }
	if g.reportPath != "" {
		o.output = g.reportPath
		if !set("format") && g.reportFormat == "" {
			// gitleaks infers the format from the report's extension.
			switch ext := strings.ToLower(filepath.Ext(g.reportPath)); ext {
			case ".csv":
				o.format = "csv"
			case ".sarif":
				o.format = "sarif"
			case ".xml":
				o.format = "junit"
			default:
				o.format = "json"
			}
		}
	}
	if g.reportFormat != "" {
		o.format = g.reportFormat
	}
	// json and csv are gitleaks' schemas in these commands.
	switch strings.ToLower(o.format) {
	case "json":
		o.format = string(report.FormatGitleaks)
	case "csv":
		o.gitleaksCSV = true
	}
	if g.baselinePath != "" {
		o.baseline = g.baselinePath
	}
	if set("max-target-megabytes") {
		if g.maxTargetMB < 0 {
			return errors.New(`invalid argument for "--max-target-megabytes": want 0 (no limit) or more`)
		}
		o.maxFileSize.bytes = int64(g.maxTargetMB) * 1_000_000
	}
	if !set("archive-depth") {
		o.archiveDepth = g.maxArchiveDepth // gitleaks' default: closed
	}
	if g.maxDecodeDepth < 0 || g.maxDecodeDepth > 64 {
		return errors.New(`invalid argument for "--max-decode-depth": want 0 (off) to 64`)
	}
	o.decodeDepth = g.maxDecodeDepth
	o.ignoreAllow = g.ignoreAllow
	o.namesAsGiven = true // gitleaks names files with its PATH as given
	if g.noColor {
		o.color = "never"
	}
	switch strings.ToLower(g.logLevel) {
	case "trace", "debug":
		o.verbose = true
	case "info", "warn", "warning", "":
	case "error", "fatal", "panic":
		o.quiet = true
	default:
		return fmt.Errorf("invalid argument %q for \"-l, --log-level\": want trace, debug, info, warn, error or fatal", g.logLevel)
	}
	if g.timeout < 0 {
		return errors.New(`invalid argument for "--timeout": want 0 (none) or more seconds`)
	}
	o.timeout = g.timeout
	o.enableRules = g.enableRules
	o.platform = g.platform
	// The .gitleaksignore files: -i's (a file, or a folder holding one),
	// as gitleaks reads it; the target's own is read by the scan.
	o.ignorePaths = append(o.ignorePaths, g.ignorePath)
	// The config: --config, else GITLEAKS_CONFIG, else GITLEAKS_CONFIG_TOML,
	// else the target's .gitleaks.toml, else the built-in rules.
	if o.config == "" {
		if p := e.getenv("GITLEAKS_CONFIG"); p != "" {
			o.config = p
		} else if text := e.getenv("GITLEAKS_CONFIG_TOML"); text != "" {
			o.configTOML = text
		}
	}
	return nil
}

const dirLong = `dir scans files and directories for secrets, as gitleaks dir does, and takes
gitleaks' flags with the same meanings (and spindle's own): a script that runs
gitleaks dir runs spindle by changing the binary's name. Archives are closed
unless --max-archive-depth opens them; --report-format json writes gitleaks'
JSON schema. See spindle scan for spindle's own defaults.`

func newDirCmd(e env) *cobra.Command {
	o := scanOptions{maxFileSize: sizeValue{text: "0"}}
	var g gitleaksOptions
	c := &cobra.Command{
		Use:     "dir [flags] [PATH]",
		Aliases: []string{"directory", "files"},
		Short:   "Find secrets in files (gitleaks-compatible flags)",
		Long:    dirLong,
		Example: `  spindle dir -v --report-path leaks.json --report-format json .
  GITLEAKS_CONFIG=ci.toml spindle dir --redact --exit-code 3 src/`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := g.apply(c, e, &o); err != nil {
				return &usageError{cmd: c, err: err}
			}
			return runScan(c, e, o, args)
		},
	}
	addReportFlags(c, &o)
	addGitleaksFlags(c, &g)
	c.Flags().BoolVar(&o.followSymlinks, "follow-symlinks", false, "follow symbolic links (loops are detected)")
	return c
}

const stdinLong = `stdin scans standard input for secrets, as gitleaks stdin does, with gitleaks'
flags (and spindle's own): git diff | spindle stdin -r - -f json.`

func newStdinCmd(e env) *cobra.Command {
	o := scanOptions{maxFileSize: sizeValue{text: "0"}}
	var g gitleaksOptions
	c := &cobra.Command{
		Use:   "stdin [flags]",
		Short: "Find secrets in standard input (gitleaks-compatible flags)",
		Long:  stdinLong,
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			if err := g.apply(c, e, &o); err != nil {
				return &usageError{cmd: c, err: err}
			}
			return runScan(c, e, o, []string{"-"})
		},
	}
	addReportFlags(c, &o)
	addGitleaksFlags(c, &g)
	c.Flags().StringVar(&o.stdinName, "stdin-name", "", "the `NAME` standard input has in reports and path rules (gitleaks: none)")
	return c
}

// newDetectCmd and newProtectCmd are gitleaks' older commands, hidden as
// gitleaks hides them: detect scans a repository's history (or, with
// --no-git, a directory; with --pipe, standard input), protect the
// changes not committed yet.
func newDetectCmd(e env) *cobra.Command {
	c := newGitCmd(e)
	c.Use, c.Short, c.Hidden, c.Aliases = "detect [flags]", "gitleaks detect (deprecated there): use spindle git or dir", true, nil
	c.Args = usageArgs(cobra.NoArgs)
	var source string
	var noGit, pipe bool
	c.Flags().StringVarP(&source, "source", "s", ".", "gitleaks: the `PATH` to scan")
	c.Flags().BoolVar(&noGit, "no-git", false, "gitleaks: scan the files, not the history")
	c.Flags().BoolVar(&pipe, "pipe", false, "gitleaks: scan standard input")
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		switch {
		case pipe:
			return redirect(cmd, e, newStdinCmd(e), nil)
		case noGit:
			return redirect(cmd, e, newDirCmd(e), []string{source})
		}
		return run(cmd, []string{source})
	}
	return c
}

func newProtectCmd(e env) *cobra.Command {
	c := newGitCmd(e)
	c.Use, c.Short, c.Hidden, c.Aliases = "protect [flags]", "gitleaks protect (deprecated there): use spindle git --staged or --unstaged", true, nil
	c.Args = usageArgs(cobra.NoArgs)
	var source string
	c.Flags().StringVarP(&source, "source", "s", ".", "gitleaks: the repository")
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
		if err == nil && to.Flags().Lookup(f.Name) != nil {
			err = to.Flags().Set(f.Name, f.Value.String())
		}
	})
	if err != nil {
		return &usageError{cmd: cmd, err: err}
	}
	to.SetContext(cmd.Context())
	return to.RunE(to, args)
}
