package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// benchGroups are the packages `spindle bench` can measure, in table order.
var benchGroups = []string{"executor", "fork", "flow", "classic"}

type benchOptions struct {
	workers int
	count   int
	plot    string
	quick   bool
}

func newBenchCmd(e env) *cobra.Command {
	var o benchOptions
	c := &cobra.Command{
		Use:   "bench [flags] [GROUP ...]",
		Short: "Measure the executor, fork and flow against plain goroutines on this machine",
		Long: `bench runs Spindle's workloads next to the code one would write with plain
goroutines, on this machine, and prints the median time per task, node or hop
and how many times faster than goroutines each way is.

GROUP picks what to run: executor (tiny tasks injected in batches, chained
spawns), fork (tree sums with a fork at every node), flow (a wide graph and a
chain), classic (fib, nqueens, skynet and matmul with a fork at every call,
against a goroutine per fork and a channel-fed pool). The default is all
four. A full run takes well under a minute; close
other programs first, since the numbers are only as quiet as the machine.`,
		Example: `  spindle bench                      # every group, GOMAXPROCS workers
  spindle bench -j 2 fork            # the fork workloads on 2 workers
  spindle bench --plot bench.svg     # also draw the results as SVG`,
		Args:      usageArgs(cobra.OnlyValidArgs),
		ValidArgs: benchGroups,
		RunE: func(c *cobra.Command, args []string) error {
			return runBench(c, e, o, args)
		},
	}
	f := c.Flags()
	f.IntVarP(&o.workers, "workers", "j", runtime.GOMAXPROCS(0), "workers for each parallel implementation")
	f.IntVar(&o.count, "count", 5, "timed runs of each implementation; the median is printed")
	f.StringVar(&o.plot, "plot", "", "also draw the results as an SVG chart to `FILE` (.svg)")
	f.BoolVar(&o.quick, "quick", false, "small workloads, one run each: checks that everything works, measures nothing")
	c.MarkFlagFilename("plot", "svg")
	return c
}

// benchResult is one implementation's median on one workload.
type benchResult struct {
	w       *workload
	impl    string
	nsUnit  float64 // median ns per unit
	speedup float64 // goroutine baseline's ns per unit / nsUnit; 0 if no baseline
}

func runBench(c *cobra.Command, e env, o benchOptions, groups []string) error {
	if o.workers < 1 {
		return &usageError{cmd: c, err: fmt.Errorf("invalid argument %d for \"-j, --workers\": want at least 1", o.workers)}
	}
	if o.count < 1 {
		return &usageError{cmd: c, err: fmt.Errorf("invalid argument %d for \"--count\": want at least 1", o.count)}
	}
	var render func(io.Writer, []benchResult, string) error
	if o.plot != "" {
		var err error
		if render, err = chartWriter(o.plot); err != nil {
			return &usageError{cmd: c, err: err}
		}
	}
	if len(groups) == 0 {
		groups = benchGroups
	}
	shrink, sample, count := 1, 50*time.Millisecond, o.count
	if o.quick {
		shrink, sample, count = 64, time.Millisecond, 1
	}

	var results []benchResult
	all := workloads(shrink)
	for i := range all {
		w := &all[i]
		if !slices.Contains(groups, w.group) {
			continue
		}
		rs, err := measureWorkload(e, w, o.workers, count, sample)
		if err != nil {
			return err
		}
		results = append(results, rs...)
	}
	if e.stderrTTY {
		fmt.Fprint(e.stderr, "\r\x1b[K")
	}

	title := fmt.Sprintf("spindle bench: %d workers, GOMAXPROCS %d, %d CPUs, %s/%s, %s, median of %d",
		o.workers, runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), count)
	if o.quick {
		title += " (--quick: not a measurement)"
	}
	if err := writeBenchTable(e.stdout, title, results); err != nil {
		return err
	}
	if render == nil {
		return nil
	}
	f, err := os.Create(o.plot)
	if err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	if err := render(f, results, title); err != nil {
		f.Close()
		return fmt.Errorf("--plot %s: %w", o.plot, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", o.plot)
	return nil
}

// measureWorkload times every implementation of w: one untimed warm-up op,
// then count samples, each a batch of ops long enough (about sample) that
// the clock's resolution and a single scheduling hiccup do not matter.
func measureWorkload(e env, w *workload, workers, count int, sample time.Duration) ([]benchResult, error) {
	impls, cleanup := w.setup(workers)
	defer cleanup()
	var out []benchResult
	var baseline float64
	for _, im := range impls {
		if e.stderrTTY {
			fmt.Fprintf(e.stderr, "\r\x1b[K%s: %s: %s", w.group, w.name, im.name)
		}
		runtime.GC() // start each implementation without the last one's garbage
		start := time.Now()
		if err := im.op(); err != nil { // warm-up, and the size of a batch
			return nil, fmt.Errorf("bench %s %s, %s: %w", w.group, w.name, im.name, err)
		}
		one := max(time.Since(start), time.Microsecond)
		reps := max(1, int(sample/one))
		samples := make([]float64, 0, count)
		for range count {
			start := time.Now()
			for range reps {
				if err := im.op(); err != nil {
					return nil, fmt.Errorf("bench %s %s, %s: %w", w.group, w.name, im.name, err)
				}
			}
			samples = append(samples, float64(time.Since(start).Nanoseconds())/float64(reps*w.units))
		}
		slices.Sort(samples)
		r := benchResult{w: w, impl: im.name, nsUnit: samples[len(samples)/2]}
		if im.name == goroutineImpl {
			baseline = r.nsUnit
		}
		out = append(out, r)
	}
	for i := range out {
		if baseline > 0 && out[i].nsUnit > 0 {
			out[i].speedup = baseline / out[i].nsUnit
		}
	}
	return out, nil
}

// writeBenchTable prints results as an aligned table, one row per
// implementation, the workload named on its first row only.
func writeBenchTable(w io.Writer, title string, results []benchResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\n\n", title)
	fmt.Fprintln(tw, "GROUP\tWORKLOAD\tIMPLEMENTATION\tTIME\tVS GOROUTINES")
	var last *workload
	for _, r := range results {
		group, name := "", ""
		if r.w != last {
			group, name, last = r.w.group, r.w.name, r.w
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s/%s\t%s\n", group, name, r.impl, formatNanos(r.nsUnit), r.w.unit, formatSpeedup(r))
	}
	return tw.Flush()
}

// formatNanos writes a duration in ns with three significant digits.
func formatNanos(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	case ns >= 100:
		return fmt.Sprintf("%.0f ns", ns)
	}
	return fmt.Sprintf("%.3g ns", ns)
}

// formatSpeedup says how r compares with the goroutine baseline.
func formatSpeedup(r benchResult) string {
	switch {
	case r.impl == goroutineImpl:
		return "baseline"
	case r.speedup == 0:
		return "-"
	case r.speedup >= 1:
		return fmt.Sprintf("%.3g× faster", r.speedup)
	}
	return fmt.Sprintf("%.3g× slower", 1/r.speedup)
}
