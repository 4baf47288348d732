// Package scan is Spindle's scanning engine: it reads objects from sources
// (directory trees, archives, streams, a repository's history) in chunks
// and runs a Detector (the rules of scan/rules) over every chunk, in
// parallel on a spindle.Executor:
//
//	det, err := rules.Compile(rules.Default())
//	...
//	stats, err := scan.Scan(ctx, scan.Options{
//		Detector:  scan.Rules(det),
//		OnFinding: func(f report.Finding) { ... },
//	}, "path/to/tree")
//
// Scan takes paths; ScanReader a stream (standard input); ScanFS an fs.FS;
// ScanSources any Source, such as the history of a git repository
// (scan/git). All four run the same task graph with the same Options, and
// the policy a scan applies lives here and in scan/ignore, not in the
// command: gitignore files (Options.Gitignore), the .gitleaksignore at the
// top of each directory root, a baseline (Options.Baseline), files never
// to scan (Options.Exclude). The zero Options are the command's defaults;
// cmd/spindle only wires flags to them.
//
// # Sources
//
// A source yields objects in batches, under the frontier, with a cursor of
// its own (a directory's open handle, a position in a list of blobs), so
// that it can yield more when the frontier has room. An object has a name (what reports and path
// rules see), an optional size, and a way to be opened; whatever its
// source, it goes through the same Fetch and Scan tasks, chunk ownership,
// binary and size policies, archive opening, budgets, panics turned into
// errors, cancellation and statistics. Directories on disk are the
// engine's own source (the fast path: bare descriptors, no interface per
// file); Source is the exported form of the same thing, which ScanReader,
// ScanFS and other packages use.
//
// # The task graph
//
// The engine implements the typed task graph of the design on the
// executor — Enumerate, Fetch, Scan — and discovery, reading and matching
// are all tasks on the same workers, with no goroutine per file and no
// channel between stages.
//
//   - Enumerate asks a source for its next batch: a directory's next
//     entries, say. Each sub-source (a subdirectory) becomes an Enumerate
//     task; each object takes a permit from the frontier and becomes
//     a Fetch task. The roots of Scan are a source too: each directory
//     given becomes a directory source, each file an object, each FIFO or
//     device (/dev/stdin, a process substitution) a stream. An archive's
//     Enumerate walks its members (see Archives).
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
// The frontier bounds the objects in flight, default 1024.
// Enumerate only try-acquires: a worker never blocks on a permit, which
// would deadlock when every worker is enumerating. When the frontier is
// full, a plain re-enqueue of the Enumerate task would spin (a worker looks
// at the injector before it steals, so it would pop its own Enumerate again
// and again), so the task parks on the frontier instead, with the entries it has not dispatched, and the next
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
// What chunks cannot give is a line longer than a chunk: the inline allow
// and allowlists with regexTarget = "line" look at a match's whole line,
// and a chunk holds W bytes of it on either side. An object whose content
// is in memory (Object.Data: a history's added lines) is therefore
// scanned as one buffer, which is how gitleaks scans a fragment; a file
// read from disk or a stream is chunked, as gitleaks chunks it too.
//
// Line numbers are carried the same way: each chunk knows the line and
// column of its first byte, and places its findings by counting newlines
// (bytes.Count) forward from there, once per chunk, in match order.
//
// # What is scanned
//
// Everything under a root except .git directories, hidden files included.
// .gitignore and .ignore files are honoured only with Options.Gitignore,
// as git applies them (scan/ignore): nested files with git's precedence,
// the files above a root up to its repository's top, the repository's
// info/exclude, and never a tracked file. Symbolic links are skipped
// unless FollowSymlinks, and then a directory that is its own ancestor is
// reported as a loop. A root named explicitly is always followed.
// Archives are opened (see Archives). Other files with a NUL in their
// first 8 KiB are binary and skipped unless ScanBinary; devices, FIFOs
// and sockets met while walking are skipped with a warning. The rules'
// global allowlist paths (Detector.SkipPath) skip files and whole
// directories, as gitleaks does. A root given twice, or inside another
// directory given, is scanned once.
//
// Names do not depend on how a root was spelled: with one directory root,
// files are named relative to it ("a/b.env" whether the root was ".",
// "../repo" or "/abs/repo"), so a baseline or .gitleaksignore made one way
// matches a scan made another; with several roots, or a file as the root,
// names start with the root as given. Names are slash-separated, and
// fingerprints are name:rule:line. The .gitleaksignore at the top of a
// directory root matches findings by those names, and also with the
// root's spelling or base name in front, which is how gitleaks names them
// when it is run from the root's parent.
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
// detector, in a callback or in an archive reader stops it the same way
// too, and Scan returns it as a wrapped *spindle.PanicError: it is caught
// where the engine calls out (guard.go, walk), not left to the executor,
// which would abandon queued tasks and the files they hold open. The
// archive walker's clean-ups run as the panic unwinds, so a spooled zip's
// temporary file is removed whatever happens.
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
//   - findings are passed on, never kept;
//   - archives: a walk runs on a worker, so at most Workers walks at once,
//     each holding per open level a 32 KiB read buffer and its decoder's
//     state (deflate about 40 KiB, bzip2 about 4 MB, xz and zstd their
//     window, at most Archive.MaxWindow, 64 MiB by default, allocated
//     whole but backed by memory only as the decoder writes it), and for
//     a zip inside a stream a spool of at most Archive.SpoolMemory (4 MiB)
//     in memory, the rest in a temporary file. Members take their chunks
//     from the same buffers as files, plus one carry (2W) per member with
//     a chunk in a Scan task, so a member costs nothing more whatever its
//     size. For the common formats (zip, tar.gz) that is well under
//     100 KiB per level; a bomb is stopped by the member budget, or by the
//     ratio past its floor (TestArchiveBombs checks what a scan
//     allocates).
//
// A 2 GiB file is therefore scanned in a few MiB of buffers, whatever its
// size: nothing ever holds a whole file. Archives add what their walks
// hold (below).
//
// # Archives
//
// With ArchiveDepth > 0 (the default), the first Fetch of every object
// looks at the chunk it has just read (the same read is the binary probe):
// if archive.Detect names a format by its magic number (never by the
// file's name), or archive.DetectFile finds a zip at the end of an
// executable or script (a self-extracting zip), the Fetch puts its buffer
// back and spawns an Enumerate task for the archive, passing it the
// object's reference and so its permit.
//
// A zip or 7z on disk (anything read in place, with ReadAt) is opened with
// archive.Root.Open and read in parts: a zip member, or a 7z folder, whose
// members can only be decoded in order. The Enumerate task lists a few
// groups of parts (about 1 MiB of compressed data, at most 512 parts, per
// group) as part tasks, and each group that finishes lists the next, so at
// most eight groups of an archive are queued or running at once; any
// worker runs them, so the members of one zip are inflated by several
// workers at once (see parts.go). Everything else (a tar, a compressed
// stream, an archive inside an archive, an archive in a stream) is walked
// with archive.Root.Walk by one worker, in order, since a stream can only
// be decoded that way. Either way, each member that is not itself an
// archive is read by streamChunks: its chunks go into pooled buffers and to
// Scan tasks that other workers steal while this one decodes, or, with no
// buffer free, are scanned here, which is the backpressure. The chunking
// is the Fetch chain's, so a member's findings are the same for every
// chunk size, with the member's own line numbers.
//
// A member is an object with no permit of its own: it holds a reference
// to its archive from its first chunk until its last Scan task is done,
// and each part task holds one too, so the archive's permit comes back
// after the last chunk of its last member, exactly once. An archive never
// waits for a permit, so a walk cannot deadlock on the frontier.
//
// Members are named by the chain of archives, joined with "!":
// outer.zip!dir/file.txt, a.tar.gz!inner.zip!x.env. A compressed stream
// of one file keeps its own name (notes.txt.gz), as does the gzip layer
// of a .tar.gz. Names are the archive's own, never cleaned, and nothing is
// ever extracted: a member named ../../etc/passwd is reported under that
// name. Members are matched against the detector's path allowlist
// (SkipPath) and path rules under their full names, and members in a known
// binary format are skipped like files; MaxFileSize caps a member's
// decoded bytes (Archive.MaxMemberBytes) as it caps a file's size.
//
// Budgets are the archive package's (archive.Limits, set through
// Options.Archive, with ArchiveDepth as MaxDepth): decoded bytes per
// member (256 MiB), per archive (4 GiB, nested archives included) and per
// scan root (8 GiB, then held to the ratio), entries per archive, the
// ratio of decoded to compressed bytes (2,000:1, judged only past 64 MiB
// of a decoder's output, so a log compressed 343:1 is read whole), time
// per archive, the decoder's window, a 7z header's size. A budget hit
// skips only what it covers where the format allows: the member that hit
// it (its siblings are read), or the rest of an archive; each member left
// unread is named in a Warning of its own (Op "archive", Path the member's
// full name, or the archive's for the rest of a stream), counted in
// Stats.Skipped["archive-budget"], and is lost data. An encrypted member
// or an unsupported method is a warning too, counted in
// Stats.Skipped["unsupported"]. A truncated or corrupt archive is a
// warning, lost data if it may have hidden members (an *archive.FormatError
// with Lost set), noise if not (a corrupt archive in which no member was
// ever found). With Archive.FailOnBudget a hit ends the scan: the engine's stop flag is raised and the walks' context,
// derived from Scan's, is cancelled, so walks in progress stop at their
// next read; Scan returns the warning, which unwraps to the
// *archive.BudgetError.
//
// With archives off (ArchiveDepth NoArchives) an archive is a file like
// any other: a known binary format, so skipped, unless ScanBinary, and
// then its raw bytes are scanned (a secret in a stored zip member is
// found, under the zip's name). An archive in a stream (standard input) is
// walked as a stream: the first chunk, which recognised it, is read again
// in front of the rest, and a zip in a stream is spooled, as one nested in
// a tar is, to a temporary file that has no name (or is deleted on close),
// so nothing is left behind even by a killed process.
//
// # Concurrency of callbacks
//
// OnFinding and OnWarning are called from workers, one at a time (the
// engine holds a lock around each call), in no particular order. Progress
// counters are atomics, safe to poll from any goroutine.
package scan
