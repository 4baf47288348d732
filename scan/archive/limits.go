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
//
// The budgets defend memory and time, not ratios: what stops a bomb is the
// absolute byte budgets (per member, per archive, per root), the entries
// and depth budgets and the clock. The inflation ratio only guards output
// past an absolute size (RatioFloor for one decoder, MaxRootBytes for a
// root), so a real file that compresses 1000:1 is read.
type Limits struct {
	// MaxDepth is how many archive levels deep Walk opens. A compressed
	// tar (x.tar.gz) is one level, as its name suggests; any other
	// compressed stream is a level of its own. A nested archive past the
	// limit is skipped with a warning; its parent goes on.
	MaxDepth int

	// MaxEntries is how many member headers one archive may have,
	// directories and skipped members included. The entries past it are
	// not read, but each is still named in a warning (the zip and 7z
	// directories are listed to the end; a tar is read on, its members'
	// content discarded, under the byte budgets and the clock).
	MaxEntries int

	// MaxMemberBytes caps the decoded bytes of one member: the first
	// MaxMemberBytes bytes are visited, the rest is skipped with a
	// warning naming the member, and the archive goes on with the next
	// member. A scanner maps its maximum file size here. A nested archive
	// is a member of its parent and held to it as a whole (for a zip that
	// must be spooled, it caps the spool).
	MaxMemberBytes int64

	// MaxArchiveBytes caps the decoded bytes of one archive, the archives
	// nested in it included (so nesting cannot multiply it, as in
	// 42.zip): what its members deliver, and in a stream (tar) also what
	// is decoded and discarded to skip a member. Past it the rest of the
	// archive is skipped. A top-level zip or 7z that must be spooled (its
	// reader has no ReadAt) is held to it as well.
	MaxArchiveBytes int64

	// MaxRootBytes is how many decoded bytes the archives of one Root may
	// produce together before the root is held to MaxRatio: past it, a
	// root whose decoded bytes exceed MaxRatio times the compressed size
	// of its archives opens no more archives. An ordinary tree of archives
	// (text at 3-10:1) is never stopped; a tree of bombs is, once it has
	// cost MaxRootBytes.
	MaxRootBytes int64

	// MaxRatio caps how many bytes a decoder may produce per compressed
	// byte it has read, once it has produced RatioFloor bytes; and the
	// ratio of a root past MaxRootBytes.
	MaxRatio float64

	// RatioFloor is the output a decoder may produce before MaxRatio
	// applies to it.
	RatioFloor int64

	// MaxDuration caps the time spent in one archive, from when it is
	// opened; time spent in visit counts too.
	MaxDuration time.Duration

	// MaxWindow caps the history buffer a stream may ask the decoder to
	// allocate: the xz, 7z and zip-LZMA dictionary or the zstd window.
	// Without it a 30-byte xz header can demand a 4 GiB allocation.
	MaxWindow int64

	// MaxHeaderBytes caps the decoded size of an archive header that must
	// be held whole before any member can be read: the 7z header, which
	// lists every member.
	MaxHeaderBytes int64

	// SpoolMemory is how many bytes of a zip or 7z read from a stream are
	// kept in memory; a larger one goes to a temporary file that no other
	// process can find (see spool.go). Negative: always a file.
	SpoolMemory int64

	// TempDir is where spooled archives go; "" is os.TempDir().
	TempDir string

	// FailOnBudget makes a budget hit end the walk with a *BudgetError
	// instead of a warning: the run-wide "fail" policy.
	FailOnBudget bool
}

// maxSpoolMemory keeps SpoolMemory+1 from overflowing; no one has 1 TiB
// of memory to spool a zip into.
const maxSpoolMemory = 1 << 40

// DefaultLimits returns the default budgets:
//
//	MaxDepth         3        gitleaks' --max-archive-depth users pick 2-4, trufflehog
//	                          defaults to 5, Kingfisher to 2
//	MaxEntries       65,536   every zip without zip64 fits (its count field is 16 bits);
//	                          a fat jar of tens of thousands of classes is not cut short
//	MaxMemberBytes   256 MiB  a 17 MB SQL dump, a database export or a log passes whole;
//	                          a scanner sets its --max-file-size here
//	MaxArchiveBytes  4 GiB    twice trufflehog's 2 GB per archive; a few seconds of
//	                          scanning on one core
//	MaxRootBytes     8 GiB    then MaxRatio over the root: a 2 GB tree of zips (8 GB
//	                          decoded) is read whole, a tree of bombs costs at most this
//	MaxRatio         2,000    above deflate's ceiling (1,032:1), so no deflate stream
//	                          trips it; real text reaches 300-1,000:1 (a SQL dump 343:1);
//	                          bzip2, xz and zstd on zeros go 7,000:1 to 1,000,000:1
//	RatioFloor       64 MiB   a zero-filled member under it is read, not judged
//	MaxDuration      30 s     scanner-scheduler's per-root clock; trufflehog allows 60 s
//	MaxWindow        128 MiB  the zstd format's default decoder limit (window log 27):
//	                          zstd --long, --ultra -22, xz -9 and 7z -mx9 (64 MiB) decode
//	MaxHeaderBytes   16 MiB   a 7z header of a few hundred thousand entries
//	SpoolMemory      4 MiB    most nested jars fit; one level of spooling stays within
//	                          a worker's 8 MiB
func DefaultLimits() Limits {
	return Limits{
		MaxDepth:        3,
		MaxEntries:      65536,
		MaxMemberBytes:  256 << 20,
		MaxArchiveBytes: 4 << 30,
		MaxRootBytes:    8 << 30,
		MaxRatio:        2000,
		RatioFloor:      64 << 20,
		MaxDuration:     30 * time.Second,
		MaxWindow:       128 << 20,
		MaxHeaderBytes:  16 << 20,
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
	l.RatioFloor = pick64(l.RatioFloor, d.RatioFloor)
	l.MaxWindow = pick64(l.MaxWindow, d.MaxWindow)
	l.MaxHeaderBytes = pick64(l.MaxHeaderBytes, d.MaxHeaderBytes)
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
	BudgetRootBytes                      // Limits.MaxRootBytes with Limits.MaxRatio
	BudgetRatio                          // Limits.MaxRatio past Limits.RatioFloor
	BudgetDuration                       // Limits.MaxDuration
	BudgetWindow                         // Limits.MaxWindow
	BudgetHeader                         // Limits.MaxHeaderBytes
)

var budgetNames = [...]string{
	BudgetDepth: "depth", BudgetEntries: "entries", BudgetMemberBytes: "member-bytes",
	BudgetArchiveBytes: "archive-bytes", BudgetRootBytes: "root-bytes",
	BudgetRatio: "inflation-ratio", BudgetDuration: "duration", BudgetWindow: "window",
	BudgetHeader: "header-bytes",
}

// String returns the budget's name as warnings print it, such as "entries".
func (b Budget) String() string {
	if b > 0 && int(b) < len(budgetNames) {
		return budgetNames[b]
	}
	return "budget(" + strconv.Itoa(int(b)) + ")"
}

// BudgetError reports a budget hit, and so data that was not scanned: it
// is always lost data. With Limits.FailOnBudget, Walk returns it; otherwise
// it is a warning and the walk goes on.
//
// Member says what was skipped. When it is set, that one member was not
// read, or was read only in part (for BudgetMemberBytes: its first Limit
// bytes were visited), and the archive went on with its next member; every
// member of a zip or 7z that a budget keeps from being read is named in a
// warning of its own. When Member is "", the rest of Archive was skipped
// from the point of the hit (a stream such as a tar cannot be read past a
// ratio, byte or time budget), or for BudgetDepth and BudgetRootBytes,
// Archive was not opened at all.
type BudgetError struct {
	Archive string // the archive's full name, such as "a.tar.gz!inner.zip"
	Member  string // the member's full name, such as "a.zip!big.sql"; "" for the rest of Archive
	Budget  Budget
	Limit   int64 // in the budget's unit: bytes, entries, levels, nanoseconds, or the ratio
}

// Name returns what the error is about: Member if set, else Archive.
func (e *BudgetError) Name() string {
	if e.Member != "" {
		return e.Member
	}
	return e.Archive
}

// Error names the member or archive, the budget and its limit.
func (e *BudgetError) Error() string {
	return "archive: " + e.Name() + ": " + e.Budget.String() + " budget exceeded (limit " + e.limitString() + ")"
}

func (e *BudgetError) limitString() string {
	switch e.Budget {
	case BudgetMemberBytes, BudgetArchiveBytes, BudgetRootBytes, BudgetWindow, BudgetHeader:
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
//
// Lost tells the two classes of warning apart. It is true when data that
// should have been scanned was not: a named member not read whole
// (encrypted, unsupported, corrupt or truncated part-way), or an archive
// whose members were hidden by damage after at least one of them had been
// found (a truncated download). It is false for noise: an archive so
// damaged that no member of it was ever found (a corrupt sample in a test
// suite, a file that only looks like an archive), which for a compressed
// stream of one file (notes.txt.gz) means one that broke before it
// yielded a byte of content.
type FormatError struct {
	Name string // the member's or the archive's full name
	Err  error  // ErrEncrypted, ErrUnsupported, or the decoder's error
	Lost bool   // data was lost, as opposed to noise
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
