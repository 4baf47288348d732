package archive

import (
	"errors"
	"math"
	"os"
	"strconv"
	"time"
)

// Limits are the budgets a walk runs under. Every field is a configuration
// option; DefaultLimits documents the defaults and why.
//
// A zero field takes its default and a negative one means no limit, except
// MaxDepth, where 0 (or less) turns archives off: Walk then hands its input
// to visit as it is. So Limits{} walks nothing, and Limits{MaxDepth: 3} is
// DefaultLimits.
type Limits struct {
	// MaxDepth is how many archive levels deep Walk opens. A compressed
	// tar (x.tar.gz) is one level, as its name suggests; any other
	// compressed stream is a level of its own. A nested archive past the
	// limit is skipped with a warning; its parent goes on.
	MaxDepth int

	// MaxEntries is how many member headers one archive may have,
	// directories and skipped members included.
	MaxEntries int

	// MaxMemberBytes caps the decoded bytes of one member. For a zip that
	// must be spooled it also caps the spool.
	MaxMemberBytes int64

	// MaxArchiveBytes caps the decoded bytes of all members of one
	// archive together. A top-level zip that must be spooled (its reader
	// has no ReadAt) is held to it as well.
	MaxArchiveBytes int64

	// MaxRootBytes caps the decoded bytes of all archives walked through
	// one Root, across its walks: one scan root, typically.
	MaxRootBytes int64

	// MaxRatio caps how many bytes a decoder may produce per compressed
	// byte it has read (checked once it has produced 1 MiB, so that small
	// highly compressible files pass).
	MaxRatio float64

	// MaxDuration caps the time spent in one archive, from when it is
	// opened; time spent in visit counts too.
	MaxDuration time.Duration

	// MaxWindow caps the history buffer a stream may ask the decoder to
	// allocate: the xz dictionary or the zstd window. Without it a
	// 30-byte xz header can demand a 4 GiB allocation.
	MaxWindow int64

	// SpoolMemory is how many bytes of a zip read from a stream are kept
	// in memory; a larger one goes to a temporary file, removed when the
	// zip is done. Negative: always a file.
	SpoolMemory int64

	// TempDir is where spooled zips go; "" is os.TempDir().
	TempDir string

	// FailOnBudget makes a budget hit end the walk with a *BudgetError
	// instead of a warning: the run-wide "fail" policy.
	FailOnBudget bool
}

// maxSpoolMemory keeps SpoolMemory+1 from overflowing; no one has 1 TiB
// of memory to spool a zip into.
const maxSpoolMemory = 1 << 40

// ratioGrace is the output a decoder may produce before MaxRatio applies:
// a 4 KiB file of one repeated byte compresses 100:1 and is no bomb.
const ratioGrace = 1 << 20

// DefaultLimits returns the default budgets:
//
//	MaxDepth         3        DESIGN.md; gitleaks' --max-archive-depth users pick 2-4,
//	                          trufflehog defaults to 5, Kingfisher to 2
//	MaxEntries       65,536   every zip without zip64 fits (its count field is 16 bits);
//	                          a fat jar of tens of thousands of classes is not cut short
//	MaxMemberBytes   64 MiB   scanner-scheduler's per-entry budget; Kingfisher skips
//	                          files over 25 MB outright
//	MaxArchiveBytes  256 MiB  scanner-scheduler's per-archive budget
//	MaxRootBytes     1 GiB    twice scanner-scheduler's 512 MiB, for trees of many jars;
//	                          about a second of scanning
//	MaxRatio         128      scanner-scheduler; text rarely passes 20:1 under deflate,
//	                          a deflate bomb reaches 1032:1
//	MaxDuration      30 s     scanner-scheduler's per-root clock; trufflehog allows 60 s
//	MaxWindow        64 MiB   the dictionary of xz -9 and zstd --long=26: every
//	                          standard preset decodes
//	SpoolMemory      4 MiB    most nested jars fit; one level of spooling stays within
//	                          DESIGN.md's 8 MiB per worker
func DefaultLimits() Limits {
	return Limits{
		MaxDepth:        3,
		MaxEntries:      65536,
		MaxMemberBytes:  64 << 20,
		MaxArchiveBytes: 256 << 20,
		MaxRootBytes:    1 << 30,
		MaxRatio:        128,
		MaxDuration:     30 * time.Second,
		MaxWindow:       64 << 20,
		SpoolMemory:     4 << 20,
	}
}

// normalize fills defaults into zero fields and turns negative ones into
// "unlimited" values, so that the walker compares against plain numbers.
func (l Limits) normalize() Limits {
	d := DefaultLimits()
	pickInt := func(v, def int) int {
		switch {
		case v == 0:
			return def
		case v < 0:
			return math.MaxInt
		}
		return v
	}
	pick64 := func(v, def int64) int64 {
		switch {
		case v == 0:
			return def
		case v < 0:
			return math.MaxInt64
		}
		return v
	}
	if l.MaxDepth < 0 {
		l.MaxDepth = 0
	}
	l.MaxEntries = pickInt(l.MaxEntries, d.MaxEntries)
	l.MaxMemberBytes = pick64(l.MaxMemberBytes, d.MaxMemberBytes)
	l.MaxArchiveBytes = pick64(l.MaxArchiveBytes, d.MaxArchiveBytes)
	l.MaxRootBytes = pick64(l.MaxRootBytes, d.MaxRootBytes)
	l.MaxWindow = pick64(l.MaxWindow, d.MaxWindow)
	l.MaxDuration = time.Duration(pick64(int64(l.MaxDuration), int64(d.MaxDuration)))
	switch {
	case l.MaxRatio == 0 || math.IsNaN(l.MaxRatio):
		l.MaxRatio = d.MaxRatio
	case l.MaxRatio < 0:
		l.MaxRatio = math.Inf(1)
	}
	switch {
	case l.SpoolMemory == 0:
		l.SpoolMemory = d.SpoolMemory
	case l.SpoolMemory < 0:
		l.SpoolMemory = 0
	case l.SpoolMemory > maxSpoolMemory:
		l.SpoolMemory = maxSpoolMemory
	}
	if l.TempDir == "" {
		l.TempDir = os.TempDir()
	}
	return l
}

// Budget names one of the limits.
type Budget int

// The budgets, one per limit in Limits.
const (
	BudgetDepth        Budget = iota + 1 // Limits.MaxDepth
	BudgetEntries                        // Limits.MaxEntries
	BudgetMemberBytes                    // Limits.MaxMemberBytes
	BudgetArchiveBytes                   // Limits.MaxArchiveBytes
	BudgetRootBytes                      // Limits.MaxRootBytes
	BudgetRatio                          // Limits.MaxRatio
	BudgetDuration                       // Limits.MaxDuration
	BudgetWindow                         // Limits.MaxWindow
)

var budgetNames = [...]string{
	BudgetDepth: "depth", BudgetEntries: "entries", BudgetMemberBytes: "member-bytes",
	BudgetArchiveBytes: "archive-bytes", BudgetRootBytes: "root-bytes",
	BudgetRatio: "inflation-ratio", BudgetDuration: "duration", BudgetWindow: "window",
}

// String returns the budget's name as warnings print it, such as "entries".
func (b Budget) String() string {
	if b > 0 && int(b) < len(budgetNames) {
		return budgetNames[b]
	}
	return "budget(" + strconv.Itoa(int(b)) + ")"
}

// BudgetError reports a budget hit. As a warning it means the rest of
// Archive was skipped (for BudgetDepth: Archive was not opened; for
// BudgetRootBytes: no more archives of the root are opened); with
// Limits.FailOnBudget, Walk returns it.
type BudgetError struct {
	Archive string // the archive's full name, such as "a.tar.gz!inner.zip"
	Budget  Budget
	Limit   int64 // in the budget's unit: bytes, entries, levels, nanoseconds, or the ratio
}

// Error names the archive, the budget and its limit.
func (e *BudgetError) Error() string {
	return "archive: " + e.Archive + ": " + e.Budget.String() + " budget exceeded (limit " + e.limitString() + ")"
}

func (e *BudgetError) limitString() string {
	switch e.Budget {
	case BudgetMemberBytes, BudgetArchiveBytes, BudgetRootBytes, BudgetWindow:
		return sizeString(e.Limit)
	case BudgetDuration:
		return time.Duration(e.Limit).String()
	case BudgetRatio:
		return strconv.FormatInt(e.Limit, 10) + ":1"
	}
	return strconv.FormatInt(e.Limit, 10)
}

// sizeString prints n bytes in the largest binary unit that divides it.
func sizeString(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for i < len(units)-1 && n != 0 && n%1024 == 0 {
		n /= 1024
		i++
	}
	return strconv.FormatInt(n, 10) + " " + units[i]
}

// FormatError reports a member or an archive that could not be read: an
// encrypted member, an unsupported compression method, or corrupt or
// truncated data. It is only ever a warning; the walk goes on with the next
// member, or with the next archive when a stream cannot be resynchronised.
type FormatError struct {
	Name string // the member's or the archive's full name
	Err  error  // ErrEncrypted, ErrUnsupported, or the decoder's error
}

// Error names the member or archive and says what is wrong with it.
func (e *FormatError) Error() string { return "archive: " + e.Name + ": " + e.Err.Error() }

// Unwrap returns the cause, so that errors.Is(err, ErrEncrypted) works.
func (e *FormatError) Unwrap() error { return e.Err }

// Causes of a FormatError that callers may want to count apart.
var (
	ErrEncrypted   = errors.New("encrypted member skipped")
	ErrUnsupported = errors.New("unsupported format feature")
)
