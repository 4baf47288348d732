package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-go/spindle/internal/smallfile"
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
	// allowPartial accepts shards whose trailers count warnings that lost
	// data (a merge of them is a partial result).
	allowPartial bool
}

const mergeLong = `merge joins the reports of the shards of one scan (spindle scan, git or dir
with --shard I/N, each writing json or jsonl) into one report: by default in
the schema the shards were written in (json, gitleaks' schema; jsonl,
spindle's), or in any format -f names. A finding that several reports hold
is written once; the summary counts reports, findings and duplicates. The
result is the same report a scan without --shard would have written.

Each shard's report says which shard it is and of which scan (what was
scanned, and a hash of the rules and settings). merge refuses, naming the
reports, a set that is not one whole scan: a shard missing, a shard given
twice, a shard of another scan, or a report that is not a shard's beside
ones that are. Reports without shard headers (baselines, whole scans) are
joined as they are.

Each shard's report ends with a trailer that counts and sums its findings
and counts the warnings of its scan that lost data: a shard's report cut
short (even at a line boundary, or to its header alone), or whose findings
do not add up to its trailer, is refused; a shard whose scan lost data makes
the merge fail too, unless --allow-partial accepts a partial result (the
merged report then says what was lost where its format can: SARIF, JUnit).

Exit status: 0 no findings, 1 findings (see --exit-code), 2 an error (a
report that cannot be read names its file and entry; a shard that lost
data).`

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
			return interruptible(c.Context(), func() error { return runMerge(c, e, o, args) })
		},
	}
	f := c.Flags()
	f.SortFlags = false
	f.StringVarP(&o.format, "format", "f", "", "report `FORMAT`: "+strings.Join(listed(spindleFormats), ", ")+" (default: the shards' own, json or jsonl)")
	f.StringVarP(&o.output, "output", "o", "", "write the report to `FILE` instead of standard output")
	f.StringVar(&o.template, "report-template", "", "a Go text/template `FILE` (with --format template)")
	f.IntVar(&o.redact, "redact", 0, "hide secrets in the report; =`PCT` hides that share of each (bare --redact: 100)")
	f.Lookup("redact").NoOptDefVal = "100"
	f.IntVar(&o.exitCode, "exit-code", exitFindings, "exit status `N` when the merged report has findings")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no summary")
	f.BoolVar(&o.allowPartial, "allow-partial", false, "accept shards whose scans lost data (by default an error)")
	c.MarkFlagFilename("output")
	return c
}

func runMerge(c *cobra.Command, e env, o mergeOptions, paths []string) error {
	if o.template != "" && o.format == "" {
		o.format = "template"
	}
	var format report.Format
	if o.format != "" {
		var err error
		if format, err = parseFormatName(spindleFormats, o.format, "-f, --format"); err != nil {
			return &usageError{cmd: c, err: err}
		}
	}
	switch {
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
		b, err := smallfile.Read(o.template, 1<<20)
		if err != nil {
			return exitWith(exitError, fmt.Errorf("report template: %w", err))
		}
		tmpl = string(b)
	}
	// Read every report and check that they are one scan's shards before
	// anything is written.
	m := report.NewMerger()
	defer m.Close()
	for _, p := range paths {
		if err := m.Read(p); err != nil {
			return exitWith(exitError, err)
		}
	}
	if err := m.Check(); err != nil {
		return exitWith(exitError, err)
	}
	if format == "" {
		schema, err := m.Schema()
		if err != nil {
			return exitWith(exitError, err)
		}
		format = schema.Format()
	}
	out := e.stdout
	var file *report.AtomicFile
	if o.output != "" && o.output != "-" {
		var err error
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
	lost := m.Lost()
	if lost > 0 {
		report.MarkLost(w, report.Lost{Warnings: lost, Kinds: "counted by the shards' trailers"})
	}
	sum, err := m.Write(w)
	if err != nil {
		report.CloseIncomplete(w)
		return exitWith(exitError, err)
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
	if lost > 0 && !o.allowPartial {
		return exitWith(exitError, fmt.Errorf("merge: the shards' scans lost data: %s (their trailers count them); what was not read was not searched (--allow-partial accepts a partial result)", plural(lost, "warning", "warnings")))
	}
	if sum.Findings > 0 {
		return leaksFound(o.exitCode)
	}
	return nil
}

// interruptible runs f, returning at once with an interruption when ctx
// is done first (SIGINT, SIGTERM): reading reports has no other point to
// stop at, and a report named on the command line may be a FIFO whose
// writer never comes. f's deferred cleanup (the half-written output's
// removal) runs when f returns; an interrupted process exits before that
// if f is blocked, and the output it was writing is a temporary file that
// never took the report's name.
func interruptible(ctx context.Context, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return exitWith(exitInterrupted, errors.New("interrupted"))
	}
}
