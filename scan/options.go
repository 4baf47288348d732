package scan

import (
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/scan/archive"
	"github.com/spindle-go/spindle/scan/report"
)

// Defaults for the zero fields of Options.
const (
	DefaultChunkSize    = 256 << 10 // bytes read per chunk, overlap not included
	DefaultMaxInFlight  = 1024      // objects (files) in flight at once
	DefaultArchiveDepth = 3         // nesting levels of archives opened (Options.ArchiveDepth)
	// BinaryProbe is how many leading bytes are searched for a NUL to tell a
	// binary file from a text file, as git and ripgrep do.
	BinaryProbe = 8 << 10
)

// Options configure a scan. The zero value is what `spindle scan` does with
// no flags: GOMAXPROCS workers, the defaults above, archives opened to
// DefaultArchiveDepth, the .gitleaksignore at the top of each directory
// root honoured. Only Detector must be set.
type Options struct {
	// Workers is the number of executor workers; default GOMAXPROCS.
	Workers int
	// ChunkSize is how many new bytes each chunk reads; default 256 KiB.
	// Values below the detector's overlap are raised to it.
	ChunkSize int
	// MaxInFlight bounds the objects (files being read or scanned) in flight:
	// the frontier's capacity. Default 1024.
	MaxInFlight int
	// Buffers bounds the shared chunk buffers that carry a chunk from a Fetch
	// task to a Scan task; default 4 per worker. Each worker also owns one
	// buffer of its own (see doc.go, Memory).
	Buffers int

	// Gitignore skips what .gitignore and .ignore files exclude, nested
	// files included. Off by default: a secret scanner looks everywhere.
	Gitignore bool
	// FollowSymlinks follows symbolic links; loops are detected and
	// reported as warnings. Off by default: links are counted as skipped.
	FollowSymlinks bool
	// ScanBinary scans files with a NUL in their first 8 KiB too.
	ScanBinary bool
	// FailFast ends the scan at the first warning: discovery stops, queued
	// work is dropped, and Scan returns that warning as its error.
	FailFast bool
	// MaxFileSize skips files larger than this many bytes; 0 means no limit.
	// It caps archive members too (Archive.MaxMemberBytes), unless that is
	// set: a member past it is cut, with a warning, and its siblings read.
	MaxFileSize int64
	// ArchiveDepth is how many levels of nested archives are opened: 1
	// scans the members of archives found on disk, 2 the members of
	// archives inside those too, and so on. 0 means DefaultArchiveDepth;
	// a negative value (NoArchives) turns archives off, and an archive is
	// then a file like any other: binary, so skipped unless ScanBinary.
	ArchiveDepth int
	// Archive holds the archive budgets (see archive.Limits): entries per
	// archive, decoded bytes per member, per archive and per scan root,
	// inflation ratio, time per archive, decoder window, and where and how
	// much of a nested zip is spooled. A zero field takes its default
	// (archive.DefaultLimits), a negative one means no limit; MaxDepth is
	// ignored, ArchiveDepth sets it. A budget hit skips the rest of that
	// archive with a warning that names the archive and the budget, or,
	// with Archive.FailOnBudget, ends the scan with that warning as its
	// error.
	Archive archive.Limits

	// Detector holds the rules. Required.
	Detector Detector
	// Ignore lists fingerprints (file:rule:line) not to report, beyond the
	// .gitleaksignore files the scan reads itself. *ignore.Fingerprints
	// implements it.
	Ignore Fingerprints
	// NoGitleaksIgnore turns off reading the .gitleaksignore file at the
	// top of each directory given to Scan. A file that exists but cannot
	// be read ends the scan with an error: going on without it would
	// report findings the user has suppressed.
	NoGitleaksIgnore bool
	// Baseline holds findings already known (a previous report): they
	// are counted in Stats.Known and not reported. *report.Baseline
	// implements it.
	Baseline Known
	// NamesAsGiven names files under a directory root with the root as it
	// was given in front ("../repo/a.env", "/abs/repo/a.env"), as gitleaks
	// does, even when Scan is given one directory; by default a single
	// directory's files are named relative to it ("a.env"), however it
	// was spelled, so that baselines and ignore files made from anywhere
	// match. The gitleaks drop-in commands set it.
	NamesAsGiven bool

	// Shard splits the work between processes that share nothing (a
	// Kubernetes Indexed Job, a CI matrix): this scan takes the objects
	// whose shard, a hash of the object's name (relative to its root,
	// so the same on every machine) modulo Shard.Count, is Shard.Index.
	// The zero value scans everything. The union of the Count scans'
	// findings is exactly the whole scan's.
	Shard Shard
	// Exclude names files never to scan, compared by absolute path: the
	// report being written into the tree, the baseline, the config. A
	// report written into the tree it describes holds every secret found;
	// scanned again, it would report them all again (and a streamed report
	// would grow as the scan reads it).
	Exclude []string

	// GitleaksColumns reports columns as gitleaks does: one more than
	// the true column on every line of an object after its first (gitleaks
	// counts a column on those lines from the newline before it). An
	// object is a file, an archive member, or one run of lines a commit
	// added (a diff hunk's), so a history's findings get gitleaks' columns
	// too; gitleaks also restarts the count at each 100 KB piece it reads
	// a large file in, which this does not follow. The gitleaks drop-ins
	// set it, so that their reports are gitleaks' to the column.
	GitleaksColumns bool

	// OnFinding receives every finding. Calls are serialised by the engine,
	// so the callback needs no locking, but it runs on a worker: a slow
	// callback slows the scan.
	OnFinding func(report.Finding)
	// OnWarning receives every warning, serialised like OnFinding.
	OnWarning func(Warning)
	// OnSkip, if set, receives each file skipped for being larger than
	// MaxFileSize (Stats.Skipped counts them under SkipSize), with its
	// size, serialised like OnFinding: the gitleaks drop-ins log each as
	// gitleaks does ("skipping file: too large"). A skip the user asked
	// for is not a Warning: no data the user wanted is lost.
	OnSkip func(path, reason string, size int64)
	// Progress, if set, is updated while the scan runs; poll it from any
	// goroutine.
	Progress *Progress
}

// Shard is one part of a scan split Count ways (see Options.Shard).
type Shard struct {
	Index, Count int // 0 <= Index < Count
}

// Takes reports whether the shard takes an object with this key (its
// name, or for a history scan its blob id); every key belongs to exactly
// one shard of Count. A zero Shard takes everything.
func (s Shard) Takes(key string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()%uint64(s.Count) == uint64(s.Index)
}

// ParseShard parses "i/n" (0 <= i < n), as --shard takes it.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	idx, err1 := strconv.Atoi(i)
	cnt, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || cnt < 1 || idx < 0 || idx >= cnt || cnt > 1<<20 {
		return Shard{}, fmt.Errorf("shard %q: want INDEX/COUNT with 0 <= INDEX < COUNT <= 1048576 (INDEX counts from 0, as JOB_COMPLETION_INDEX does)", s)
	}
	return Shard{Index: idx, Count: cnt}, nil
}

// NoArchives is the ArchiveDepth that turns archives off.
const NoArchives = -1

// Fingerprints is a set of finding fingerprints to suppress.
// *ignore.Fingerprints implements it.
type Fingerprints interface {
	Has(fingerprint string) bool
}

// Known is a set of findings already known, such as a baseline.
// *report.Baseline implements it.
type Known interface {
	Contains(f report.Finding) bool
}

// Warning is a problem that did not stop the scan: a file that could not be
// opened or read, a directory that could not be listed, a dangling link, a
// symlink loop, a broken archive, an encrypted archive member, an archive
// budget hit. With Options.FailFast the first one stops it.
//
// An archive warning has Op "archive", the archive's or the member's full
// name as Path ("a.tar.gz!inner.zip"), and an Err that unwraps to an
// *archive.BudgetError or an *archive.FormatError.
//
// Warnings come in two classes. Lost says data went unscanned: a file or
// directory that could not be read, an archive budget hit, a member
// encrypted or compressed with an unsupported method, a truncated archive
// that may have hidden members, a missing object in a repository. The
// others are noise: nothing that holds data was left unscanned (a
// dangling link, a symlink loop, a FIFO met while walking, an ignore
// pattern that does not compile, a corrupt archive with no members to
// lose). A CI gate fails on lost data (the command's --strict) and may
// ignore noise.
type Warning struct {
	Path string // the file, directory or archive member concerned
	Op   string // what failed: "open", "read", "readdir", "stat", "follow", "archive", ...
	Err  error
	Lost bool // data went unscanned (see above)
}

func (w Warning) Error() string { return fmt.Sprintf("scan: %s %s: %v", w.Op, w.Path, w.Err) }

// Unwrap returns the underlying error.
func (w Warning) Unwrap() error { return w.Err }

// Skip reasons, the keys of Stats.Skipped.
const (
	SkipBinary    = "binary"    // a NUL in the first BinaryProbe bytes
	SkipSize      = "size"      // larger than MaxFileSize
	SkipIgnored   = "ignored"   // excluded by .gitignore or .ignore
	SkipAllowlist = "allowlist" // excluded by the rules' global allowlist paths
	SkipSymlink   = "symlink"   // a link, and FollowSymlinks is off
	SkipSpecial   = "special"   // a device, FIFO or socket
	SkipGit       = "git"       // a .git directory
	// SkipBudget counts archive budget hits: each skipped the rest of an
	// archive (or, for the depth budget, a nested archive), and each is
	// also a Warning.
	SkipBudget = "archive-budget"
	// SkipUnsupported counts archive members not read because they are
	// encrypted or use an unsupported compression method; each is also a
	// Warning.
	SkipUnsupported = "unsupported"
	// SkipExcluded counts files Options.Exclude names.
	SkipExcluded = "excluded"
	// SkipDuplicate counts paths given to Scan more than once, or inside
	// another directory given.
	SkipDuplicate = "duplicate"
	// SkipShard counts objects another shard takes (Options.Shard).
	SkipShard = "other-shard"
)

// Stats describe a finished scan.
type Stats struct {
	Files    int64            // files scanned, archives included
	Dirs     int64            // directories listed
	Archives int64            // files opened as archives (nested archives not counted)
	Members  int64            // archive members scanned, at every depth
	Bytes    int64            // bytes scanned, each byte once (overlap not counted); decoded bytes for archive members
	Skipped  map[string]int64 // files and directories skipped, by reason (Skip*)
	Warnings int64            // Lost + Noise
	Lost     int64            // warnings that left data unscanned
	Noise    int64            // warnings that did not
	Findings int64            // reported
	Known    int64            // found, and in Options.Baseline: not reported
	Ignored  int64            // found, and suppressed by a fingerprint: not reported
	Duration time.Duration
	Phases   Phases          // per task kind
	Executor spindle.Metrics // the executor's own counters
}

// Phases are the per-phase counters of the task graph, summed over workers.
type Phases struct {
	Enumerate, Fetch, Scan Phase
	// Backpressure counts the times an Enumerate task found the frontier
	// full and parked itself until an object finished.
	Backpressure int64
	// InlineScans counts chunks a Fetch task scanned itself because the
	// chunk was the object's last, or because no shared buffer was free.
	InlineScans int64
	// BytesRead counts bytes read from storage, which excludes the overlap
	// (it is copied, not re-read). An archive's first chunk is read twice:
	// once to recognise it, once by the archive walker.
	BytesRead int64
}

// Phase is one task kind's counters.
type Phase struct {
	Tasks int64         // tasks run
	Busy  time.Duration // time spent running them, summed over workers
}

// Progress is a live view of a running scan, updated by the workers with
// atomic adds. The zero value is ready; pass a pointer in Options.
type Progress struct {
	Discovered atomic.Int64 // objects admitted by the frontier
	Files      atomic.Int64 // objects finished (files; archive members are not objects of their own)
	Bytes      atomic.Int64 // bytes scanned
	Findings   atomic.Int64
	Warnings   atomic.Int64
	// Commits counts the commits a history scan has diffed (0 for other
	// scans); Bytes then counts the changed lines scanned.
	Commits atomic.Int64
	Done    atomic.Bool // set when Scan returns
}

// ErrNothingRead is returned by a scan that read nothing at all and lost
// data: every path unreadable, say. A CI job must not take it for a clean
// scan.
var ErrNothingRead = errors.New("scan: nothing could be read")

// ErrNoise marks a warning's error as noise (see Warning): a Source's
// Batch.Warn with an error that wraps it is not lost data.
var ErrNoise = errors.New("nothing was lost")

// settings are Options with defaults applied and the geometry derived.
type settings struct {
	Options
	window  int            // detector window W
	overlap int            // bytes carried into the next chunk: 2W
	limits  archive.Limits // Archive with MaxDepth = ArchiveDepth
}

func (o Options) withDefaults() settings {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.Buffers <= 0 {
		o.Buffers = 4 * o.Workers
	}
	switch {
	case o.ArchiveDepth == 0:
		o.ArchiveDepth = DefaultArchiveDepth
	case o.ArchiveDepth < 0:
		o.ArchiveDepth = 0
	}
	if o.MaxFileSize < 0 {
		o.MaxFileSize = 0
	}
	if o.MaxFileSize > 0 && o.Archive.MaxMemberBytes == 0 {
		// One limit on the size of what is scanned, on disk or in an
		// archive.
		o.Archive.MaxMemberBytes = o.MaxFileSize
	}
	w := max(o.Detector.MaxWindow(), 0)
	s := settings{Options: o, window: w, overlap: 2 * w, limits: o.Archive}
	s.limits.MaxDepth = o.ArchiveDepth
	if s.ChunkSize <= 0 {
		s.ChunkSize = DefaultChunkSize
	}
	s.ChunkSize = max(s.ChunkSize, s.overlap, 1)
	return s
}
