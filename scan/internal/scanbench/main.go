//go:build spindletools

package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"time"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/git"
	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

func main() {
	start := time.Now()
	config := flag.String("c", "", "gitleaks-schema config (default: built-in rules)")
	workers := flag.Int("j", 0, "workers (default GOMAXPROCS)")
	chunk := flag.Int("chunk", 0, "chunk size")
	out := flag.String("out", "", "write file<TAB>line<TAB>rule per finding, sorted")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile")
	traceFile := flag.String("trace", "", "write an execution trace")
	binary := flag.Bool("binary", false, "scan binary files too")
	gitignore := flag.Bool("gitignore", false, "honour .gitignore and .ignore files")
	repeat := flag.Int("n", 1, "repeat the scan n times (for profiles)")
	null := flag.Bool("null", false, "a detector that finds nothing: measures the engine alone")
	archives := flag.Int("archives", scan.NoArchives, "archive depth (default: archives closed, as gitleaks dir)")
	decode := flag.Int("decode", 0, "decoding depth (0: the default, 5; -1: off)")
	history := flag.Bool("git", false, "scan the history of the repository given (spindle git) instead of a tree")
	flag.Parse()

	var cfg *rules.Config
	if *config == "" {
		cfg = rules.Default()
	} else {
		var err error
		if cfg, err = rules.LoadFile(*config); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	det, err := rules.CompileWith(cfg, rules.Settings{MaxDecodeDepth: *decode})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if *cpuprofile != "" {
		f, _ := os.Create(*cpuprofile)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if *traceFile != "" {
		f, _ := os.Create(*traceFile)
		trace.Start(f)
		defer trace.Stop()
	}
	fmt.Fprintf(os.Stderr, "ready after %v (config read, rules compiled)\n", time.Since(start))
	if *history {
		for range *repeat {
			var n int
			t0 := time.Now()
			st, err := git.Scan(context.Background(), flag.Arg(0), git.Options{}, scan.Options{
				Detector: scan.Rules(det), Workers: *workers, ArchiveDepth: *archives,
				OnFinding: func(report.Finding) { n++ },
				OnWarning: func(w scan.Warning) { fmt.Fprintln(os.Stderr, "warning:", w) },
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			fmt.Fprintf(os.Stderr, "findings %d commits %d changes %d pairs %d (diffed %d, quiet %d, binary %d) fragments %d (%.1f MB scanned), blobs %.1f MB; walk %v, tree diffs %v, line diffs %v (summed), total %v\n",
				n, st.Commits, st.Changes, st.Pairs, st.Diffed, st.Quiet, st.Binary, st.Fragments, float64(st.Bytes)/1e6,
				float64(st.BlobBytes)/1e6, st.Walk, st.TreeDiff, st.LineDiff, st.Duration)
			fmt.Fprintf(os.Stderr, "git.Scan returned after %v\n", time.Since(t0))
		}
		return
	}
	for range *repeat - 1 {
		scanOnce(det, *null, *workers, *chunk, *archives, *binary, *gitignore, nil)
	}
	var lines []string
	st, err := scanOnce(det, *null, *workers, *chunk, *archives, *binary, *gitignore, &lines)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	if *out != "" {
		sort.Strings(lines)
		f, _ := os.Create(*out)
		w := bufio.NewWriter(f)
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
		w.Flush()
		f.Close()
	}
	fmt.Fprintf(os.Stderr, "files %d dirs %d bytes %d findings %d warnings %d skipped %v in %v (%.0f MB/s, GOMAXPROCS %d)\n",
		st.Files, st.Dirs, st.Bytes, st.Findings, st.Warnings, st.Skipped, st.Duration,
		float64(st.Bytes)/st.Duration.Seconds()/1e6, runtime.GOMAXPROCS(0))
	fmt.Fprintf(os.Stderr, "phases: enumerate %d tasks %v, fetch %d %v, scan %d %v, inline %d, backpressure %d\n",
		st.Phases.Enumerate.Tasks, st.Phases.Enumerate.Busy, st.Phases.Fetch.Tasks, st.Phases.Fetch.Busy,
		st.Phases.Scan.Tasks, st.Phases.Scan.Busy, st.Phases.InlineScans, st.Phases.Backpressure)
}

func scanOnce(det *rules.Detector, null bool, workers, chunk, archives int, binary, gitignore bool, lines *[]string) (scan.Stats, error) {
	d := scan.Rules(det)
	if null {
		d = nullDetector{}
	}
	return scan.Scan(context.Background(), scan.Options{
		Detector:     d,
		Workers:      workers,
		ChunkSize:    chunk,
		ArchiveDepth: archives,
		ScanBinary:   binary,
		Gitignore:    gitignore,
		OnFinding: func(f report.Finding) {
			if lines != nil {
				*lines = append(*lines, fmt.Sprintf("%s\t%d\t%s", f.File, f.Line, f.RuleID))
			}
		},
		OnWarning: func(w scan.Warning) { fmt.Fprintln(os.Stderr, "warning:", w) },
	}, flag.Args()...)
}

type nullDetector struct{}

func (nullDetector) MaxWindow() int                              { return 16 << 10 }
func (nullDetector) SkipPath(any, string) bool                   { return false }
func (nullDetector) NewScratch() any                             { return nil }
func (nullDetector) ScanPath(any, string, func(rules.Match))     {}
func (nullDetector) Scan(any, string, []byte, func(rules.Match)) {}
