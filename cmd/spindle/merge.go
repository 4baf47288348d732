package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-go/spindle/scan/report"
)

// mergeOptions are the merge command's flags.
type mergeOptions struct {
	format   string
	output   string
	redact   int
	template string
	exitCode int
	quiet    bool
}

const mergeLong = `merge joins the reports of the shards of one scan (spindle scan or git with
--shard I/N, each writing -f json or -f jsonl; gitleaks' JSON schema is read
too) into one report in any format. A finding that several reports hold is
written once; the summary counts reports, findings and duplicates. The
result is the same report a scan without --shard would have written.

Exit status: 0 no findings, 1 findings (see --exit-code), 2 an error (a
report that cannot be read names its file and entry).`

func newMergeCmd(e env) *cobra.Command {
	o := mergeOptions{}
	c := &cobra.Command{
		Use:   "merge [flags] REPORT...",
		Short: "Join the reports of a scan's shards into one",
		Long:  mergeLong,
		Example: `  spindle merge -f sarif -o spindle.sarif shard-*.json
  spindle merge -o all.json shard-0.jsonl shard-1.jsonl shard-2.jsonl`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			return runMerge(c, e, o, args)
		},
	}
	f := c.Flags()
	f.SortFlags = false
	f.StringVarP(&o.format, "format", "f", "json", "report `FORMAT`: "+strings.Join(report.Formats(), ", "))
	f.StringVarP(&o.output, "output", "o", "", "write the report to `FILE` instead of standard output")
	f.StringVar(&o.template, "report-template", "", "a Go text/template `FILE` (with --format template)")
	f.IntVar(&o.redact, "redact", 0, "hide secrets in the report; =`PCT` hides that share of each (bare --redact: 100)")
	f.Lookup("redact").NoOptDefVal = "100"
	f.IntVar(&o.exitCode, "exit-code", exitFindings, "exit status `N` when the merged report has findings")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no summary")
	c.MarkFlagFilename("output")
	return c
}

func runMerge(c *cobra.Command, e env, o mergeOptions, paths []string) error {
	if o.template != "" && o.format == "json" && !c.Flags().Changed("format") {
		o.format = string(report.FormatTemplate)
	}
	format, err := report.ParseFormat(o.format)
	switch {
	case err != nil:
		return &usageError{cmd: c, err: fmt.Errorf("invalid argument %q for \"-f, --format\": want one of %s", o.format, strings.Join(report.Formats(), ", "))}
	case o.redact < 0 || o.redact > 100:
		return &usageError{cmd: c, err: fmt.Errorf("invalid argument %d for \"--redact\": want a percentage, 0 to 100", o.redact)}
	case o.exitCode < 0 || o.exitCode > 125:
		return &usageError{cmd: c, err: fmt.Errorf("invalid argument %d for \"--exit-code\": want 0 to 125", o.exitCode)}
	case format == report.FormatTemplate && o.template == "":
		return &usageError{cmd: c, err: errors.New("the template format needs --report-template FILE")}
	}
	for _, p := range paths {
		if o.output != "" && o.output != "-" && p != "-" && report.SameFile(o.output, p) {
			return &usageError{cmd: c, err: fmt.Errorf("the merged report %s would overwrite the report %s it reads", o.output, p)}
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
	out := e.stdout
	var file *report.AtomicFile
	if o.output != "" && o.output != "-" {
		if file, err = report.CreateAtomic(o.output); err != nil {
			return exitWith(exitError, fmt.Errorf("merge: %w", err))
		}
		defer file.Abort()
		out = file
	}
	w, err := report.NewWriter(format, out, report.Options{Redact: o.redact, ToolVersion: moduleVersion(), Template: tmpl})
	if err != nil {
		return exitWith(exitError, err)
	}
	sum, err := report.Merge(w, paths...)
	if err != nil {
		w.Close()
		return exitWith(exitError, fmt.Errorf("merge: %w", err))
	}
	if err := w.Close(); err != nil {
		return exitWith(exitError, fmt.Errorf("merge: write report: %w", err))
	}
	if file != nil {
		if err := file.Commit(); err != nil {
			return exitWith(exitError, fmt.Errorf("merge: write report: %w", err))
		}
	}
	if !o.quiet {
		sum.WriteText(e.stderr)
	}
	if sum.Findings > 0 {
		return exitWith(o.exitCode, nil)
	}
	return nil
}
