// Package archive reads the archives a secret scan meets (zip and its
// family, 7z, tar, gzip, bzip2, xz, zstd, nested in one another, and
// self-extracting zips) and streams their members to the caller, under
// budgets that keep hostile inputs (bombs, endless nesting, millions of
// entries, truncated or corrupt data) from costing more than a set amount
// of memory and time, and that report every member they keep from being
// read.
//
// # Two ways in
//
// Root.Walk reads one input, one member after another, on the calling
// goroutine: the way for a stream (a tar, a .gz, standard input) and for
// anything nested. visit receives each member as a reader valid only while
// it runs; a nested archive is opened inside the same walk, because
// walking it needs the enclosing stream positioned where the member
// begins.
//
// Root.Open serves a zip or 7z that can be read at random (a file on
// disk) to several goroutines at once. Next lists the archive in parts, a
// part being the smallest piece that can be decoded on its own: a zip
// member, or the members of one 7z folder (a solid block, which can only be
// decoded in order; a non-solid 7z has a folder per member). Archive.Walk
// reads one part, with decoders of its own, and may be called from many
// goroutines at once, for any parts in any order, while Next goes on; a
// member of a part that is itself an archive is walked as Walk would. The
// archive's budgets (decoded bytes, clock) and the root's are shared by the
// parts through atomics, so they hold exactly however the parts are
// spread. The type's comment states the contract.
//
// The package knows nothing of a scanner's executor or chunks: it is a
// library usable on its own. A scanner calls Open for a zip or 7z on disk
// (it returns ErrNotRandomAccess for everything else, which goes to Walk)
// and spreads the parts over its workers, batching small ones by
// Part.Size; a Go module cache, hundreds of module zips of hundreds of
// members, is then decoded by every worker rather than one per archive.
//
// # Formats and names
//
// A format is recognised by its magic number (Detect), never by its name:
// "notes.gz" holding text is scanned as text, and "data.bin" holding a zip
// is opened. DetectName is the extension hint for callers that must decide
// before reading. A tar is recognised by "ustar" at offset 257 or by the
// checksum of an old-style header; an empty tar (only zero blocks) cannot
// be told from zeros and is scanned as a plain file.
//
// A self-extracting zip is an executable or script stub with a zip after
// it, made with or without zip -A (which rewrites the offsets to count
// from the start of the file). Its zip signature is not at the start, so
// Detect cannot see it in a file's first bytes; DetectFile, given the
// first bytes and a ReaderAt, looks at the end of files that begin like a
// stub (ELF, PE, Mach-O, "#!") for an end-of-central-directory record
// whose directory checks out. Walk and Open do the same for their input.
// The zip reader finds the stub's length from where the directory ends
// and where its record says it starts, so both kinds of offsets read. A 7z
// self-extractor, whose stub is followed by the 7z signature, is not
// recognised.
//
// A member's name is the chain of names from the outermost archive, joined
// with "!": "outer.zip!dir/file.txt", "a.tar.gz!inner.zip!x.env". The gzip
// layer of a .tar.gz adds no link, and a compressed stream that holds a
// plain file keeps its own name: "notes.txt.gz" is one member called
// "notes.txt.gz". Names are reported as the archive records them, never
// cleaned or resolved; nothing is ever extracted, so "../../etc/passwd" is
// only a name.
//
// Depth counts archive levels: a member of a top-level archive is at depth
// 1. A compressed tar is one level, as its name says; any other compressed
// stream is a level of its own (x.gz.gz is two). A nested archive beyond
// MaxDepth is skipped with a depth warning, and its parent goes on.
// MaxDepth 0 turns archives off: the input is handed to visit as it is.
//
// # Budgets
//
// The budgets defend memory and time, not ratios. Limits lists them and
// DefaultLimits gives the defaults and where they come from; each is a
// field a command can set. What stops a bomb is the absolute limits: bytes
// out per member (MaxMemberBytes, where a scanner puts its maximum file
// size), per archive (MaxArchiveBytes, which covers the archives nested in
// it too, so that 42.zip's nesting cannot multiply it), per root; entries
// per archive; depth; a clock per archive (for an Archive read in parts,
// the time spent reading them, summed, so that waiting in a queue costs
// nothing). The inflation ratio only guards
// output past an absolute size: a decoder may produce RatioFloor bytes
// (64 MiB) before MaxRatio (2,000:1) applies to it, so a 17 MB SQL dump
// gzipped at 337:1 is read whole, as are the files of Go's own source
// that the earlier 128:1 limit refused (citm_catalog.json.zst at 176:1,
// re2-exhaustive.txt.bz2, 62 MB at 150:1); and a root may decode
// MaxRootBytes (8 GiB) before its decoded bytes are compared with MaxRatio
// times the compressed bytes of the archives it opened, so a tree of 60
// ordinary zips (2 GB, 8 GB decoded) is read whole, while a tree of bombs
// costs 8 GiB and what its own size buys at 2,000:1, not what it holds.
//
// A budget hit skips what it covers and the walk goes on, where the format
// allows:
//
//   - A member's own budgets (its bytes; its inflation ratio; for a zip
//     member, the window its decoder asks for) cut that member: what was
//     read is visited, the rest skipped, and the next member read. In a
//     zip each member has its own decoder. In a compressed tar or a 7z
//     folder, the stream is shared, so the rest of the member is decoded
//     and discarded (under MaxArchiveBytes and the clock), and the ratio is
//     judged per member (rebased at each): a zero-filled disk image inside
//     a .tar.xz is cut past the floor, and the files after it are read.
//   - An archive's budgets (its bytes, its clock, its window or header when
//     it cannot even be opened) skip the rest of it. A zip or 7z lists its
//     remaining members from its directory and names each; a tar cannot be
//     read past the hit, so the warning names the archive.
//   - Entries past MaxEntries are not read, but named one by one: a zip or
//     7z directory is listed to its end, a tar read on with its members'
//     content discarded.
//   - The root budget skips the rest of the walk and every archive opened
//     through the Root after it (plain files still pass).
//
// Every skip reaches warn as a *BudgetError (always lost data; Member names
// the member when one was skipped or cut, and is empty when the rest of an
// archive, or a whole archive, was) or a *FormatError (Lost tells lost
// data, a named member not read whole or members hidden by damage, from
// noise, an archive so broken that none of its members was ever found, or
// a compressed stream that broke before it yielded a byte).
// So a caller can count skips by Budget and by cause (ErrEncrypted,
// ErrUnsupported, the rest), and fail a run on lost data. With
// FailOnBudget, the first budget hit ends the walk instead.
//
// The member and archive byte budgets are exact: visit receives precisely
// the bytes the budget allows, however many goroutines read the archive,
// then a read error. What a member is reported as does not depend on how
// those goroutines interleave: a member a budget cut is named by that
// budget, never reported as corrupt (its CRC is judged only once its data
// has been read to the end), and a member whose data was read to its end
// before another part spent the archive's budget is not named as cut. The root budget is an atomic counter shared by
// concurrent walks, each of which may overshoot it by one read. Entries
// are counted per header, skipped ones (directories, links, encrypted
// members) included.
//
// # Streaming and memory
//
// Members are streams, never held whole. Each member is read through a
// stack of readers (read.go): the format's decoder over a counting source,
// a ratio meter, and the member reader that applies the byte budgets, the
// clocks and the context. What a walk holds is fixed per level: a 32 KiB
// buffer per open stream (pooled across walks), the decoders' state
// (deflate 40 KiB, bzip2 about 4 MB, xz, 7z LZMA and zstd their window),
// at most one spool per nested zip or 7z, and for a 7z its header.
//
// Windows are held to MaxWindow (128 MiB, the zstd format's default
// decoder limit): zstd --long=27 and --ultra -22 frames, xz -9 and 7z
// -mx9 (64 MiB) decode; a frame or block asking for more is a window
// budget hit. An LZMA or LZMA2 dictionary, in xz, 7z or a zip member, is
// never allocated larger than the data it serves when the size is declared
// (a 1 KB file compressed with a 64 MiB dictionary costs 1 KB). A zstd
// decoder allocates its frame's window whole; the runtime backs fresh
// pages only as they are written, but clears reused memory whole (0.7 s of
// CPU and 128 MiB resident for a 128 MiB window), so zstd decoders are
// pooled and reset rather than rebuilt. The bound is then one window of
// MaxWindow per zstd stream decoded at once: per worker reading a zstd
// part or stream.
//
// A 7z header lists every member and must be held whole before any member
// can be read. It is read only up to MaxHeaderBytes (16 MiB) decoded; every
// count in it is held against the header bytes left before anything is
// allocated for it, names stay in the header's own bytes until listed, and
// what the parse allocates is charged against 8 times MaxHeaderBytes (a
// real header costs about 22 times its folder bytes in memory once parsed,
// one made to amplify 100 times): past it, the header budget is hit.
//
// A zip's central directory is streamed one record at a time, not parsed
// whole as archive/zip does (hundreds of bytes per entry before the first
// member can be read, gigabytes for a small archive of millions of empty
// entries).
//
// # Spool files
//
// A zip or 7z needs random access, since its directory is at the end. One
// read from a stream (nested, or an input without ReadAt) is spooled:
// SpoolMemory bytes in memory, the rest to a temporary file in TempDir.
// That file holds decoded archive content, secrets included, so it never
// has a name that another process could open or that a killed process
// could leave behind: on Linux it is created unnamed (O_TMPFILE), on other
// Unix systems created and unlinked at once (an empty file for the instant
// in between), and on Windows created with FILE_FLAG_DELETE_ON_CLOSE, so
// that the system deletes it when the last handle closes, which a process
// that ends, however it ends, does. It is closed on every path out of the
// walk, a panic in visit included; nothing is left for a later run to
// clean up. A nested spool counts as a member of its parent, so
// MaxMemberBytes bounds it.
//
// # Readers of our own, and libraries
//
// The zip, xz and 7z containers are parsed here; the compressed data is
// decoded by maintained libraries: klauspost/compress (deflate, zstd,
// gzip), the standard library (bzip2, tar), ulikunitz/xz/lzma (LZMA and
// LZMA2). Each container parser exists because the library one allocates
// what the input declares before checking it:
//
//   - archive/zip holds the whole central directory (see above).
//   - ulikunitz/xz's xz reader allocates each block's dictionary at the
//     size its header declares, up to 4 GiB, before decoding a byte.
//   - 7z: github.com/bodgit/sevenzip (v1.6.5, released 2026-07-10, fuzzed,
//     the reader of mholt/archives, which gitleaks and trufflehog use) is
//     the maintained choice; saracen/go7z has had no release since 2019. But
//     bodgit/sevenzip allocates its file table at the count the header
//     declares: a 41-byte 7z declaring 2^32-1 files makes it ask for 515 GB
//     and ends the process with "fatal error: out of memory", which no
//     recover catches. Its LZMA dictionaries are allocated at the declared
//     size, and its decoders are registered process-wide, so no per-walk
//     limit can be passed to them. So the 7z container is parsed here
//     (sevenhead.go and sevenstreams.go, 750 lines) with the counts
//     bounded by the header, and its folders decoded with the libraries
//     above plus the
//     x86 BCJ and Delta filters (filter.go): Copy, LZMA, LZMA2, Deflate,
//     BZip2, zstd, BCJ and Delta cover what 7-Zip writes by default
//     (LZMA2, BCJ for executables, LZMA-compressed headers). AES folders
//     are reported as encrypted; BCJ2, the ARM and other branch filters,
//     PPMd and the rest as unsupported, member by member. No module was
//     added for it.
//
// A zip member compressed with LZMA (method 14) is read with
// ulikunitz/xz/lzma. Deflate64 (method 9) and PPMd (method 98) have no
// maintained Go decoder; such members are named in a warning as
// unsupported, with the method's name, as are the older and rarer methods.
//
// # Errors and stopping
//
// Walk returns an error only when ctx is done, when a budget is hit under
// FailOnBudget, or when visit returns an error of its own; everything else
// is a warning. Corrupt or truncated data ends the member in a zip or 7z
// part (its members are independent; a broken 7z folder names the members
// left in it), and the whole archive in a stream. A compressed tar is read
// to the end of its stream after the tar's end blocks, so that a bad
// trailer (a truncated download) is reported even when every member came
// out whole. A zip member's CRC-32, and a 7z member's when the header gives
// one, is checked when it has been read to the end.
//
// Stopping uses two sticky fields of the walk rather than the errors that
// travel up the stack, because those pass through decoders, archive/tar
// and visit, which may wrap, replace or swallow them. A reader that must
// stop records why (fatal, or a budget hit and the scope it belongs to:
// the root, an archive, or an archive's current member) and returns an
// error; from then on every reader fails the same way, the levels inside
// unwind, and the scope that owns the hit reports it and goes on with what
// follows it. visit's own error is recognised as such by elimination: any
// error visit returns while no stop is recorded and the member's data did
// not fail is visit's. archive/tar keeps the first error its input returns
// for good, so a member-scope budget in a tar is judged above the tar
// reader, never below it.
//
// # Fuzzing
//
// Every reader of untrusted bytes has a fuzz target (FuzzWalkZip, Tar,
// Gzip, Bzip2, Xz, Zstd, 7z, SelfExtracting, FuzzDetect), sharing one
// property check: any input is walked with ReadAt, as a plain stream and
// through Open, with no panic, no error, no member over budget and no file
// left behind. Each has a checked-in corpus (testdata/fuzz), seeded with
// archives made by the real tools.
//
// A fuzz target that seems to make no progress (FuzzWalkTar reported 5 to
// 21 executions a minute) is not slow: every input runs in under 3 ms, but
// go test spends up to -fuzzminimizetime (60 s by default) minimizing each
// new input it finds, and those executions are not counted. With
// -fuzzminimizetime=100x, FuzzWalkTar ran 187,249 executions in 30 s (on a
// loaded 2-core machine); for short runs in CI use that flag, e.g.
//
//	go test -run '^$' -fuzz '^FuzzWalkTar$' -fuzztime 10s -fuzzminimizetime 100x ./scan/archive
package archive
