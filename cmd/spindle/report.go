package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/spindle-go/spindle/internal/smallfile"
	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/ignore"
	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

// runReport runs a scan and writes its report, the same for every scanning
// command, in five steps, each its own function: the console (progress,
// banner), the inputs (rules, ignore files, template, baseline), the
// outputs (the report and where it goes, the findings printed with -v),
// the scan itself, and the end: the report kept or left out, the summary,
// the exit status.
func runReport(c *cobra.Command, e env, o scanOptions, format report.Format, job scanJob) error {
	con, prog := newScanConsole(e, o)
	// Every return erases the progress line first, so an error message
	// starts on a clean line; the normal path stops it before the summary.
	defer con.stop()
	if o.dropIn && !o.noBanner {
		con.Print(banner)
	}
	in, err := loadInputs(con, o, job)
	if err != nil {
		return exitWith(exitError, err)
	}
	out, err := openOutputs(e, o, format, in, job)
	if err != nil {
		return exitWith(exitError, err)
	}
	defer out.abort() // nothing after a commit
	res, err := execute(c, o, in, out, job, con, prog)
	if err != nil {
		return err
	}
	return finish(e, o, job, con, out, res)
}

// scanProgress is what the progress line reads while the scan runs.
type scanProgress struct {
	counters  scan.Progress
	phase     atomic.Pointer[string]
	scanStart atomic.Int64 // UnixNano when the scan began, 0 before
}

func (p *scanProgress) setPhase(s string) { p.phase.Store(&s) }

// newScanConsole sets up standard error: a progress line on a terminal
// (unless --no-progress, -q, or a drop-in printing findings on standard
// output, which would cut through it), and the drop-ins' log lines.
func newScanConsole(e env, o scanOptions) (*console, *scanProgress) {
	con := &console{w: e.stderr, logs: o.dropIn, level: o.logLevel, now: time.Now,
		color: e.stderrTTY && !o.noColorOut() && e.getenv("NO_COLOR") == ""}
	prog := &scanProgress{}
	prog.setPhase("loading rules")
	if e.stderrTTY && !o.noProgress && !o.quiet && !o.printFindings {
		con.line = startProgress(e.stderr, e.stderrWidth, func() progressStats {
			return progressStats{
				phase:    *prog.phase.Load(),
				commits:  prog.counters.Commits.Load(),
				files:    prog.counters.Files.Load(),
				bytes:    prog.counters.Bytes.Load(),
				findings: prog.counters.Findings.Load(),
				warnings: prog.counters.Warnings.Load(),
				scanning: sinceUnixNano(prog.scanStart.Load()),
			}
		})
	}
	return con, prog
}

// noColorOut reports whether colour is off by flag (--color never, or the
// drop-ins' --no-color).
func (o *scanOptions) noColorOut() bool { return o.color == "never" }

// scanInputs are what a scan reads before it starts.
type scanInputs struct {
	det      *rules.Detector
	cfgPath  string             // the config's file, which the scan leaves out
	config   *report.ConfigInfo // the rules that ran, for the summary and SARIF
	ignores  scan.Fingerprints
	tmpl     string
	baseline scan.Known
	meta     []report.RuleMeta
	shard    *report.Shard // for --shard
}

// loadInputs reads the rules (--config, else the drop-ins' environment,
// else .gitleaks.toml at the top of what is scanned, else the built-in
// set), the .gitleaksignore files, the report template and the baseline.
func loadInputs(con *console, o scanOptions, job scanJob) (*scanInputs, error) {
	cfg, cfgPath, err := loadRules(job.configRoot, o)
	if err != nil {
		return nil, err
	}
	if o.dropIn {
		for _, line := range o.debug {
			con.log(levelDebug, line)
		}
		for _, line := range configDebug(o, job, cfgPath, cfg) {
			con.log(levelDebug, line)
		}
		if len(o.enableRules) > 0 {
			con.log(levelInfo, "Overriding enabled rules: "+strings.Join(o.enableRules, ", "))
		}
	}
	if !o.quiet {
		for _, w := range cfg.Warnings {
			con.warn(w.String())
		}
	}
	det, err := rules.CompileWith(cfg, o.ruleSettings())
	if err != nil {
		return nil, err
	}
	in := &scanInputs{det: det, cfgPath: cfgPath, meta: ruleMeta(det.Rules())}
	in.config = &report.ConfigInfo{Name: cfgPath, Hash: configHash(cfg, o)}
	switch {
	case cfgPath != "":
	case o.config == "" && o.configTOML != "":
		in.config.Name = "GITLEAKS_CONFIG_TOML"
	default:
		in.config.Name = "built-in rules"
	}
	if len(o.ignorePaths) > 0 {
		if in.ignores, err = loadIgnoreFiles(o.ignorePaths); err != nil {
			return nil, err
		}
	}
	if o.template != "" {
		b, err := smallfile.Read(o.template, 1<<20)
		if err != nil {
			return nil, fmt.Errorf("report template: %w", err)
		}
		in.tmpl = string(b)
	}
	if o.baseline != "" {
		bl, err := report.LoadBaseline(o.baseline)
		if err != nil {
			return nil, err
		}
		in.baseline = bl
	}
	if o.shard != "" {
		sh, err := scan.ParseShard(o.shard)
		if err != nil {
			return nil, fmt.Errorf("invalid argument for \"--shard\": %w", err)
		}
		in.shard = &report.Shard{Index: sh.Index, Count: sh.Count, Scanned: job.scanned, Config: in.config.Hash}
	}
	return in, nil
}

// configHash identifies the rules and the settings that change what a scan
// finds, so that spindle merge can tell shards of one scan from shards of
// another: a SHA-256 of them as JSON. The config's file name is left out
// (machines check out the same config in different places).
func configHash(cfg *rules.Config, o scanOptions) string {
	data, _ := json.Marshal(struct {
		Rules      []rules.Rule
		Allowlists []rules.Allowlist
		Settings   rules.Settings
		Archives   int
		MaxFile    int64
		Gitignore  bool
		Symlinks   bool
		Names      bool
	}{cfg.Rules, cfg.Allowlists, o.ruleSettings(), o.archiveDepth, o.maxFileSize.bytes, o.gitignore, o.followSymlinks, o.namesAsGiven})
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// scanOutputs are where a scan's findings go.
type scanOutputs struct {
	report  report.Writer      // nil: no report (a drop-in without --report-path)
	file    *report.AtomicFile // the report file; nil for standard output
	target  string             // the file's name, for messages
	printer report.Writer      // the drop-ins' -v; nil otherwise
}

// openOutputs creates the report's writer and, for a report file, the
// file it is written to beside its target: it is renamed over the target
// only when the scan completes, so that an interrupted or failed scan
// never leaves half a report, nor destroys the previous one.
func openOutputs(e env, o scanOptions, format report.Format, in *scanInputs, job scanJob) (*scanOutputs, error) {
	out := &scanOutputs{}
	opts := report.Options{
		Redact:      o.redact,
		Rules:       in.meta,
		ToolVersion: moduleVersion(),
		Template:    in.tmpl,
		RemoteURL:   job.remoteURL,
		Platform:    o.platform,
		Shard:       in.shard,
		Config:      in.config,
	}
	if e.stdoutClosed && (o.printFindings || format != "" && (o.output == "" || o.output == "-")) {
		// Written to the runtime's /dev/null, the report would be lost
		// without an error.
		return nil, errors.New("standard output is closed: the report would be lost (give -o FILE, or send it to /dev/null to discard it)")
	}
	if o.printFindings {
		p := opts
		p.Color = e.stdoutTTY && !o.noColorOut() && e.getenv("NO_COLOR") == ""
		var err error
		if out.printer, err = report.NewFindingPrinter(e.stdout, p); err != nil {
			return nil, err
		}
	}
	if format == "" {
		return out, nil
	}
	w, tty := e.stdout, e.stdoutTTY
	if o.output != "" && o.output != "-" {
		f, err := report.CreateAtomic(o.output)
		if err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		out.file, out.target, w, tty = f, o.output, f, false
	}
	opts.Color = o.color == "always" || o.color == "auto" && tty && e.getenv("NO_COLOR") == ""
	var err error
	if out.report, err = report.NewWriter(format, w, opts); err != nil {
		out.abort()
		return nil, err
	}
	return out, nil
}

// abort discards the report file unless it was committed.
func (out *scanOutputs) abort() {
	if out.file != nil {
		out.file.Abort()
	}
}

// scanResult is how a scan ended.
type scanResult struct {
	st          scan.Stats
	scanErr     error // the scan's error, if it stopped
	writeErr    error // the first error writing the report or the printed findings
	interrupted bool  // by SIGINT or SIGTERM
	timedOut    bool  // by --timeout
	elapsed     time.Duration
	warns       *warnPrinter
	config      *report.ConfigInfo // the rules that ran
}

// complete reports whether the scan read everything it was to read.
func (r *scanResult) complete() bool { return r.scanErr == nil && r.writeErr == nil }

// execute runs the scan, feeding every finding to the outputs.
func execute(c *cobra.Command, o scanOptions, in *scanInputs, out *scanOutputs, job scanJob, con *console, prog *scanProgress) (*scanResult, error) {
	prog.setPhase("scanning")
	start := time.Now()
	prog.scanStart.Store(start.UnixNano())
	parent := c.Context()
	if o.timeout > 0 {
		var stop context.CancelFunc
		parent, stop = context.WithTimeout(parent, time.Duration(o.timeout)*time.Second)
		defer stop()
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	res := &scanResult{warns: newWarnPrinter(con, o.quiet, o.allWarnings || o.dropIn && o.logLevel <= levelDebug), config: in.config}
	depth := o.archiveDepth
	if depth == 0 {
		depth = scan.NoArchives
	}
	var shard scan.Shard
	if in.shard != nil {
		shard = scan.Shard{Index: in.shard.Index, Count: in.shard.Count}
	}
	opts := scan.Options{
		Archive:      o.archive.limits(),
		Shard:        shard,
		NamesAsGiven: o.namesAsGiven,
		Workers:      o.workers,
		MaxFileSize:  o.maxFileSize.bytes,
		ArchiveDepth: depth,
		Detector:     scan.Rules(in.det),
		Baseline:     in.baseline,
		Ignore:       in.ignores,
		Exclude:      []string{o.output, o.baseline, in.cfgPath},
		Progress:     &prog.counters,
		OnFinding: func(f report.Finding) {
			// Calls are serialised by the engine.
			if res.writeErr != nil {
				return
			}
			for _, w := range []report.Writer{out.printer, out.report} {
				if w == nil {
					continue
				}
				if err := w.Write(f); err != nil {
					res.writeErr = err
					cancel(err)
					return
				}
			}
		},
		OnWarning: res.warns.print,
		// The drop-ins' reports are gitleaks' to the column.
		GitleaksColumns: o.dropIn,
	}
	if o.dropIn {
		// gitleaks' warning for each file --max-target-megabytes skips,
		// in its words.
		opts.OnSkip = func(path, reason string, size int64) {
			if reason == scan.SkipSize {
				con.log(levelWarn, fmt.Sprintf("skipping file: too large max_size=%dMB, size=%dMB path=%s", o.maxFileSize.bytes/1_000_000, size/1_000_000, path))
			}
		}
		con.log(levelDebug, fmt.Sprintf("scanning: %s, %d workers", job.scanned, o.workers))
	}
	res.st, res.scanErr = job.run(ctx, opts)
	res.elapsed = time.Since(start)
	if o.dropIn {
		ph := res.st.Phases
		con.log(levelDebug, fmt.Sprintf("phases: enumerate %v (%d tasks), fetch %v (%d), scan %v (%d), CPU time summed over workers; %v in all",
			ph.Enumerate.Busy.Round(time.Millisecond), ph.Enumerate.Tasks, ph.Fetch.Busy.Round(time.Millisecond), ph.Fetch.Tasks,
			ph.Scan.Busy.Round(time.Millisecond), ph.Scan.Tasks, res.elapsed.Round(time.Millisecond)))
	}
	// A stop is told by the contexts, not by the scan's error: a read the
	// stop cut short may have ended as a warning, and the scan "completed"
	// without what that read would have returned.
	res.interrupted = c.Context().Err() != nil
	res.timedOut = !res.interrupted && errors.Is(parent.Err(), context.DeadlineExceeded)
	if (res.interrupted || res.timedOut) && res.scanErr == nil {
		res.scanErr = context.Cause(ctx)
	}
	prog.setPhase("writing report")
	return res, nil
}

// finish ends the report (kept only if the scan completed: see
// report.CloseIncomplete for what a stopped scan's report on standard
// output holds), prints the summary, and returns the exit status.
func finish(e env, o scanOptions, job scanJob, con *console, out *scanOutputs, res *scanResult) error {
	var closeErr error
	if out.printer != nil {
		out.printer.Close()
	}
	if out.report != nil {
		if res.complete() {
			if res.st.Lost > 0 {
				report.MarkLost(out.report, report.Lost{Warnings: res.st.Lost, Kinds: res.warns.lostKinds(10), First: res.warns.firstLost})
			}
			closeErr = out.report.Close()
		} else {
			_, closeErr = report.CloseIncomplete(out.report)
		}
	}
	con.stop()
	if out.file != nil && res.complete() && closeErr == nil {
		if err := out.file.Commit(); err != nil {
			return exitWith(exitError, fmt.Errorf("scan: write report: %w", err))
		}
	} else if out.file != nil && !o.quiet {
		con.Print(fmt.Sprintf("spindle: %s left as it was: the scan did not complete\n", out.target))
	}
	if res.interrupted || res.timedOut {
		summarize(e, o, job, con, res)
	}
	switch {
	case errors.Is(res.writeErr, syscall.EPIPE) || errors.Is(closeErr, syscall.EPIPE):
		// Nobody reads the report any more; standard error says why it
		// is incomplete, for a pipeline whose reader went away by mistake.
		return exitWith(exitBrokenPipe, errors.New("scan: write report: the report's reader went away (broken pipe): the report is incomplete"))
	case res.writeErr != nil:
		return exitWith(exitError, fmt.Errorf("scan: write report: %w", res.writeErr))
	case res.interrupted:
		return exitWith(exitInterrupted, errors.New("interrupted"))
	case res.timedOut:
		return exitWith(exitError, fmt.Errorf("timed out after %ds (--timeout)", o.timeout))
	case res.scanErr != nil:
		return exitWith(exitError, res.scanErr)
	case closeErr != nil:
		return exitWith(exitError, fmt.Errorf("scan: write report: %w", closeErr))
	}
	summarize(e, o, job, con, res)
	switch {
	case res.st.Lost > 0 && !o.allowPartial:
		return exitWith(exitError, lostError(res.st.Lost, res.warns))
	case res.st.Findings > 0:
		return leaksFound(o.exitCode)
	}
	return nil
}

// summarize prints what the scan did: spindle's summary, or in the
// drop-ins gitleaks' log lines ("leaks found: N").
func summarize(e env, o scanOptions, job scanJob, con *console, res *scanResult) {
	res.warns.flush()
	st := res.st
	if o.quiet {
		return
	}
	if !o.dropIn {
		sum := report.Summary{
			Files: st.Files, Members: st.Members, Bytes: st.Bytes, Duration: st.Duration,
			Findings: int(st.Findings), Lost: st.Lost, Noise: st.Noise, Warnings: int(st.Warnings), Skipped: st.Skipped,
		}
		sum.WriteText(e.stderr)
		if st.Lost > 0 && o.allowPartial {
			fmt.Fprintf(e.stderr, "partial result (--allow-partial): %s lost data; what was not read was not searched\n", plural(st.Lost, "warning", "warnings"))
		}
		if c := res.config; c != nil {
			fmt.Fprintf(e.stderr, "rules: %s (%s)\n", c.Name, shortHash(c.Hash))
		}
		if n := st.Known; n > 0 {
			fmt.Fprintf(e.stderr, "%s already in the baseline, not reported\n", plural(n, "finding", "findings"))
		}
		if line := storeLine(job); line != "" {
			fmt.Fprintln(e.stderr, line)
		}
		return
	}
	if c := res.config; c != nil {
		con.log(levelInfo, fmt.Sprintf("rules: %s (%s)", c.Name, shortHash(c.Hash)))
	}
	if job.commits != nil {
		con.log(levelInfo, fmt.Sprintf("%d commits scanned.", job.commits()))
	}
	if line := storeLine(job); line != "" {
		con.log(levelDebug, line)
	}
	if n := st.Lost + st.Noise; n > 0 && res.complete() {
		con.log(levelWarn, fmt.Sprintf("%s (%d lost data, %d noise)", plural(n, "warning", "warnings"), st.Lost, st.Noise))
	}
	bytes := fmt.Sprintf("scanned ~%d bytes (%s)", st.Bytes, humanSI(st.Bytes))
	took := roundDuration(res.elapsed)
	if res.complete() && st.Lost > 0 {
		// Never "no leaks found" for a scan that did not read what it was
		// asked to: the count is of what was read.
		con.log(levelWarn, fmt.Sprintf("%s in %s", bytes, took))
		con.log(levelWarn, fmt.Sprintf("partial scan: %s lost data, not searched", plural(st.Lost, "warning", "warnings")))
		con.log(levelWarn, fmt.Sprintf("leaks found in what was read: %d", st.Findings))
		return
	}
	if res.complete() {
		con.log(levelInfo, fmt.Sprintf("%s in %s", bytes, took))
		if st.Findings > 0 {
			con.log(levelWarn, fmt.Sprintf("leaks found: %d", st.Findings))
		} else {
			con.log(levelInfo, "no leaks found")
		}
		return
	}
	con.log(levelWarn, bytes)
	con.log(levelWarn, fmt.Sprintf("partial scan completed in %s", took))
	if st.Findings > 0 {
		con.log(levelWarn, fmt.Sprintf("%d leaks found in partial scan", st.Findings))
	} else {
		con.log(levelWarn, "0 leaks found in partial scan")
	}
}

// storeLine says how many of a history scan's commits came from its
// store and how many were scanned; "" without a store.
func storeLine(job scanJob) string {
	if job.cached == nil || job.commits == nil {
		return ""
	}
	cached, dir := job.cached()
	if dir == "" {
		return ""
	}
	return fmt.Sprintf("history store: %d of %s from the store, %d scanned (%s)",
		cached, plural(job.commits(), "commit", "commits"), job.commits()-cached, dir)
}

// shortHash shortens "sha256:<64 hex>" to its first 12 digits for the
// console; reports keep it whole.
func shortHash(h string) string {
	if len(h) > len("sha256:")+12 {
		return h[:len("sha256:")+12]
	}
	return h
}

// sinceUnixNano is the time since t (UnixNano), or 0 if t is 0.
func sinceUnixNano(t int64) time.Duration {
	if t == 0 {
		return 0
	}
	return time.Since(time.Unix(0, t))
}

// ruleMeta turns the detector's rules into the rule table SARIF needs.
func ruleMeta(infos []rules.RuleInfo) []report.RuleMeta {
	out := make([]report.RuleMeta, len(infos))
	for i, r := range infos {
		out[i] = report.RuleMeta{ID: r.ID, Description: r.Description, Tags: r.Tags}
	}
	return out
}

// configDebug is what the drop-ins say at -l debug of the config they
// chose, gitleaks' lines first (the same words), then the rules it holds
// by catalog, which gitleaks does not say.
func configDebug(o scanOptions, job scanJob, path string, cfg *rules.Config) []string {
	gitleaksPath := filepath.Join(job.configRoot, ".gitleaks.toml")
	var lines []string
	switch {
	case o.configFrom == "--config":
		lines = append(lines, fmt.Sprintf("using gitleaks config %s from `--config`", o.config))
	case o.configFrom == "GITLEAKS_CONFIG":
		lines = append(lines, "using gitleaks config from GITLEAKS_CONFIG env var: "+o.config)
	case o.configFrom == "GITLEAKS_CONFIG_TOML":
		lines = append(lines, "using gitleaks config from GITLEAKS_CONFIG_TOML env var content")
	case path != "":
		lines = append(lines, fmt.Sprintf("using existing gitleaks config %s from `(--source)/.gitleaks.toml`", path))
	case job.configRoot == "":
		lines = append(lines, fmt.Sprintf("unable to load gitleaks config from %s since --source=%s is a file, using default config",
			filepath.Join(job.source, ".gitleaks.toml"), job.source))
	default:
		lines = append(lines, fmt.Sprintf("no gitleaks config found in path %s, using default gitleaks config", gitleaksPath))
	}
	switch {
	case cfg.Extend.UseDefault:
		lines = append(lines, "extending config with default config")
	case cfg.Extend.Path != "":
		lines = append(lines, "extending config with "+cfg.Extend.Path)
	}
	count := map[rules.Provenance]int{}
	for _, r := range cfg.Rules {
		count[r.From]++
	}
	line := fmt.Sprintf("rules: %d: %d of gitleaks %s defaults, %d of spindle's own, %d of the config", len(cfg.Rules),
		count[rules.FromGitleaks], rules.GitleaksVersion, count[rules.FromSpindle], count[rules.FromConfig])
	if !o.spindleRules && count[rules.FromSpindle] == 0 {
		line += " (--spindle-rules, or [extend] useSpindleRules = true, adds spindle's own)"
	}
	return append(lines, line)
}

// loadRules finds the rules a scan uses: --config, else (for the
// gitleaks-compatible commands) a config's text from GITLEAKS_CONFIG_TOML,
// else .gitleaks.toml at root, else the built-in set (o.builtin: gitleaks'
// defaults alone in the drop-ins, with spindle's own in spindle scan, as
// --spindle-rules says); then keeps only the rules --enable-rule names, if
// any. It returns the config's file, which the scan leaves out.
func loadRules(root string, o scanOptions) (*rules.Config, string, error) {
	var (
		cfg  *rules.Config
		path string
		err  error
	)
	builtin := o.builtin()
	if o.config == "" && o.configTOML != "" {
		cfg, err = rules.ParseWith([]byte(o.configTOML), "GITLEAKS_CONFIG_TOML", builtin)
	} else {
		cfg, path, err = rules.FindWith(root, o.config, builtin)
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
