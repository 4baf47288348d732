// Package scan is Spindle's scanning engine: it walks files and directories,
// reads them in chunks and runs a Detector (the rules of scan/rules) over
// every chunk, in parallel on a spindle.Executor. Scan is the whole API:
//
//	det, err := rules.Compile(rules.Default())
//	...
//	stats, err := scan.Scan(ctx, scan.Options{
//		Detector:  scan.Rules(det),
//		OnFinding: func(f report.Finding) { ... },
//	}, "path/to/tree")
//
// The command (cmd/spindle) only wires flags to Options.
//
// # The task graph
//
// The engine implements the typed task graph of seeds/task-graph.md on the
// executor; discovery, reading and matching are all tasks on the same
// workers, with no goroutine per file and no channel between stages.
//
//   - Enumerate lists a directory, one batch of entries per task. Each
//     subdirectory becomes an Enumerate task; each file takes a permit from
//     the ObjectFrontier and becomes a Fetch task. A root path is a file or
//     a directory given to Scan.
//   - Fetch reads an object's next chunk. A chunk with more to follow goes
//     to a Scan task in a buffer from the shared pool, and the next Fetch is
//     spawned where an idle worker can steal it, so one large file is read
//     and scanned by several workers at once. The last chunk of an object,
//     which for most source files is the only one, is read into the
//     worker's own buffer and scanned inline: one task per small file.
//   - Scan runs the detector over a chunk, keeps the matches the chunk owns
//     (below), places them (line, column) and reports them.
//
// A task is a small value (a kind and three pointers); the executor keeps it
// in its rings without allocating. The spawn order is chosen for the LIFO
// slot: the last task spawned runs next on the same worker, the earlier
// ones sit on the ring where thieves take the oldest first. Enumerate reads
// one batch (128 entries) per task and, if the directory goes on, yields
// through the injector: the batch's subdirectories and files run first on
// this worker (depth first, which bounds the directories being listed by
// the depth of the tree), while an idle worker may take the rest of the
// directory. Fetch spawns the next Fetch first and the Scan of the chunk it
// just read last, so the scan runs while the chunk is hot in cache and the
// read-ahead is what a thief gets.
//
// # Frontier and permits
//
// The ObjectFrontier (frontier) bounds the objects in flight, default 1024.
// Enumerate only try-acquires: a worker never blocks on a permit, which
// would deadlock when every worker is enumerating. When the frontier is
// full the seed re-enqueues the Enumerate task; here a plain re-enqueue
// would spin (a worker looks at the injector before it steals, so it would
// pop its own Enumerate again and again), so the task parks on the
// frontier instead, with the entries it has not dispatched, and the next
// permit released is handed to the oldest parked task, which is spawned
// again holding it. A Dekker-style handshake between park and release
// rules out a lost wake-up, and the hand-off (rather than a wake-up to
// race for the permit) keeps parked tasks from starving (see frontier).
//
// Each object counts its holders (object.refs): the Fetch chain holds one
// reference and passes it from each Fetch to the next, and each Scan task
// holds one. Whoever drops the count to zero releases the permit, so the
// permit goes back exactly once, after the object's last task.
//
// # Chunks and overlap
//
// Chunks are ChunkSize bytes (default 256 KiB) of new data, preceded by an
// overlap carried from the previous chunk. Let W be the detector's
// MaxWindow: a Detector promises that whether a match is reported, and
// what it holds, depends only on bytes within W of it. The overlap is 2W,
// and chunk k reports exactly the matches whose end falls in (o_k, o_k+1],
// with o_k+1 = (end of chunk k's data) - W, or the end of the object for the
// last chunk. These intervals tile the object, so no match is reported
// twice; and the chunk that reports a match sees at least W bytes on both
// sides of it, so it reports what a whole-file scan reports. A finding that
// ends in the carried prefix (short of its last W bytes) was reported by
// the chunk before and is dropped; one that ends in the last W bytes of a
// chunk is left to the next chunk, since more input might extend it. The
// findings are therefore the same for every chunk size at or above the
// overlap: FuzzChunkedEqualsWhole checks this against a whole-buffer scan.
// The cost is 2W bytes scanned twice per chunk of a multi-chunk object
// (for gitleaks' rules W is 16 KiB: 12% of a 256 KiB chunk).
//
// Line numbers are carried the same way: each chunk knows the line and
// column of its first byte, and places its findings by counting newlines
// (bytes.Count) forward from there, once per chunk, in match order.
//
// # What is scanned
//
// Everything under a root except .git directories, hidden files included.
// .gitignore and .ignore files are honoured only with Options.Gitignore
// (nested files included, with git's precedence; see ignoreLevel for why
// the engine translates the patterns itself, and what it leaves out).
// Symbolic links are skipped unless FollowSymlinks, and then a directory
// that is its own ancestor is reported as a loop. A root named explicitly
// is always followed. Files with a NUL in their first 8 KiB are binary and
// skipped unless ScanBinary; devices, FIFOs and sockets are skipped. The
// rules' global allowlist paths (Detector.SkipPath) skip files and whole
// directories, as gitleaks does. Paths are reported as Scan was given
// them, joined with '/'.
//
// # Errors
//
// An unreadable directory or file, a file that vanishes between listing
// and opening, a dangling link: each is a Warning, passed to OnWarning and
// counted, and the scan goes on. With FailFast the first warning stops the
// scan: a stop flag is set, every task that runs afterwards releases what
// it holds without spawning anything, discovery ends at the next entry,
// and Scan returns the warning. Cancelling ctx stops the scan the same way
// (every task polls ctx.Done) and Scan returns ctx.Err(). A panic in the
// detector or in a callback stops it the same way too, and Scan returns it
// as a wrapped *spindle.PanicError: it is caught where the engine calls out
// (guard.go), not left to the executor, which would abandon queued tasks
// and the files they hold open.
//
// # Memory
//
// Memory is bounded by the settings, not by the tree or the file sizes:
//
//   - chunk buffers: (Buffers + Workers) x (ChunkSize + 2W): the shared pool
//     and one buffer per worker. Defaults with 2 workers and W = 16 KiB:
//     10 x 288 KiB = 2.8 MiB;
//   - objects in flight: at most MaxInFlight, each a path and a few words,
//     plus a 2W carry for an object longer than one chunk that is between
//     chunks (in practice about one per worker, since a worker reads an
//     object's next chunk before it starts another object);
//   - directories: a pending subdirectory is a task holding its path; a
//     directory being listed holds its open cursor and at most one batch of
//     entries (128) not yet admitted, and workers go depth first, so both
//     are bounded by the depth of the tree (times the workers), not by its
//     size or by the size of a directory;
//   - findings are passed on, never kept.
//
// A 2 GiB file is therefore scanned in a few MiB of buffers, whatever its
// size: nothing ever holds a whole file.
//
// # Archives
//
// Options.ArchiveDepth is reserved for the scan/archive walker, which is
// wired in at one place (engine.archive): the first Fetch of a file hands
// its first bytes to the hook, which can take the object over, walk the
// archive and scan each member's stream with scanStream, the inline form
// of the Fetch chain (same chunking, same findings). Members are named
// outer.zip!dir/file.txt.
//
// # Concurrency of callbacks
//
// OnFinding and OnWarning are called from workers, one at a time (the
// engine holds a lock around each call), in no particular order. Progress
// counters are atomics, safe to poll from any goroutine.
package scan
