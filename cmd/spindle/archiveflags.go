package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/spindle-go/spindle/scan/archive"
)

// archiveFlags are the archive budgets, one flag each (see scan/archive's
// Limits for what each defends). Zero values keep the defaults.
type archiveFlags struct {
	maxEntries  int
	maxBytes    sizeValue
	maxRoot     sizeValue
	maxRatio    float64
	ratioFloor  sizeValue
	timeout     time.Duration
	maxWindow   sizeValue
	maxHeader   sizeValue
	spoolMemory sizeValue
	tempDir     string
	failOn      bool
}

func (a *archiveFlags) register(f *pflag.FlagSet) {
	d := archive.DefaultLimits()
	for _, v := range []*sizeValue{&a.maxBytes, &a.maxRoot, &a.ratioFloor, &a.maxWindow, &a.maxHeader, &a.spoolMemory} {
		*v = sizeValue{text: "0"}
	}
	f.IntVar(&a.maxEntries, "archive-max-entries", 0, fmt.Sprintf("archive budget: entries per archive, each one past it named in a warning (default %d)", d.MaxEntries))
	f.Var(&a.maxBytes, "archive-max-bytes", fmt.Sprintf("archive budget: decoded bytes per archive, nested ones included (`SIZE`; default %s)", humanSize(d.MaxArchiveBytes)))
	f.Var(&a.maxRoot, "archive-max-root-bytes", fmt.Sprintf("archive budget: decoded bytes per PATH before it is held to the ratio (`SIZE`; default %s)", humanSize(d.MaxRootBytes)))
	f.Float64Var(&a.maxRatio, "archive-max-ratio", 0, fmt.Sprintf("archive budget: decoded bytes per compressed byte, past --archive-ratio-floor (default %.0f)", d.MaxRatio))
	f.Var(&a.ratioFloor, "archive-ratio-floor", fmt.Sprintf("archive budget: what a decoder may produce before the ratio applies (`SIZE`; default %s)", humanSize(d.RatioFloor)))
	f.DurationVar(&a.timeout, "archive-timeout", 0, fmt.Sprintf("archive budget: time spent in one archive (default %v)", d.MaxDuration))
	f.Var(&a.maxWindow, "archive-max-window", fmt.Sprintf("archive budget: the decoder window a stream may ask for (xz, zstd, 7z; `SIZE`; default %s)", humanSize(d.MaxWindow)))
	f.Var(&a.maxHeader, "archive-max-header-bytes", fmt.Sprintf("archive budget: a 7z header's decoded size (`SIZE`; default %s)", humanSize(d.MaxHeaderBytes)))
	f.Var(&a.spoolMemory, "archive-spool-memory", fmt.Sprintf("memory for a zip met inside a stream, the rest spooled to an unnamed temporary file (`SIZE`; default %s)", humanSize(d.SpoolMemory)))
	f.StringVar(&a.tempDir, "archive-temp-dir", "", "`DIR` for spooled archives (default: the system's temporary directory)")
	f.BoolVar(&a.failOn, "archive-fail-on-budget", false, "fail the scan at the first archive budget hit instead of skipping what it covers")
}

// check refuses values out of range: a budget of zero or less would mean
// "default" or "none" where the user meant a limit.
func (a *archiveFlags) check() error {
	switch {
	case a.maxEntries < 0 || a.maxEntries > 1<<30:
		return fmt.Errorf("invalid argument %d for \"--archive-max-entries\": want 1 to %d", a.maxEntries, 1<<30)
	case a.maxRatio < 0 || a.maxRatio != 0 && a.maxRatio < 1:
		return fmt.Errorf("invalid argument %g for \"--archive-max-ratio\": want at least 1", a.maxRatio)
	case a.timeout < 0:
		return fmt.Errorf("invalid argument %v for \"--archive-timeout\": want a positive duration", a.timeout)
	}
	return nil
}

// limits returns the archive.Limits the flags set; zero fields take the
// defaults.
func (a *archiveFlags) limits() archive.Limits {
	return archive.Limits{
		MaxEntries:      a.maxEntries,
		MaxArchiveBytes: a.maxBytes.bytes,
		MaxRootBytes:    a.maxRoot.bytes,
		MaxRatio:        a.maxRatio,
		RatioFloor:      a.ratioFloor.bytes,
		MaxDuration:     a.timeout,
		MaxWindow:       a.maxWindow.bytes,
		MaxHeaderBytes:  a.maxHeader.bytes,
		SpoolMemory:     a.spoolMemory.bytes,
		TempDir:         a.tempDir,
		FailOnBudget:    a.failOn,
	}
}

// humanSize prints a default size in binary units.
func humanSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprint(n)
}
