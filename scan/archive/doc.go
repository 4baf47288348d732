// Package archive reads the archives a secret scan meets (zip and its
// family, tar, gzip, bzip2, xz, zstd, nested in one another) and streams
// their members to the caller, under budgets that keep hostile inputs
// (bombs, endless nesting, millions of entries, truncated or corrupt data)
// from costing more than a set amount of memory, time and output.
//
// # Place in the scanner
//
// The scan engine's task graph (seeds/task-graph.md) discovers objects in
// Enumerate tasks and reads and matches them in Fetch and Scan tasks. An
// archive is an object whose Enumerate lists its members: the engine calls
// Root.Walk from that task, and each member arrives in visit as a stream
// that the engine chunks exactly as it chunks a file. The package knows
// nothing of the executor, frontier or chunks; it is a library usable on
// its own, like ripgrep's crates.
//
// Walk is synchronous: it returns when the archive is done, and a member's
// reader is valid only while visit runs. The engine therefore either scans
// a member inline, chunk by chunk, inside visit (the archive holds one
// frontier permit for all its members, so Enumerate never waits for
// another), or copies chunks into buffers of its own and spawns Scan tasks
// that keep the archive's object reference alive. A nested archive does
// not become a separate Enumerate task: walking it needs the enclosing
// stream positioned where the member begins, and only the walk that is
// reading that stream has it. The seed's FailRun policy is
// Limits.FailOnBudget: Walk then returns the *BudgetError, and the engine
// raises its run-wide abort (cancels the context of the other walks).
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
// # Streaming and memory
//
// Members are streams, never held whole. Each member is read through a
// stack of readers (see read.go): the format's decoder over a counting
// reader, a ratio meter, and the member reader that applies the byte
// budgets, the clocks and the context. What a walk holds is fixed per
// level: a 32 KiB buffer per open stream, the decoders' state (deflate
// 40 KiB, bzip2 about 4 MB, xz and zstd their window: at most MaxWindow,
// and for an xz block that declares its size, no more than that size), and
// at most one zip spool. A window is allocated whole but the operating
// system backs its pages only as the decoder writes them, so a stream's
// resident cost is bounded by its output as well.
//
// A zip needs random access, since its directory is at the end. A zip read
// from a stream (a nested one, or an input without ReadAt) is spooled:
// SpoolMemory bytes in memory, the rest to a temporary file in TempDir,
// closed and removed when the zip is done, however the walk ends. A nested
// zip's spool counts as a member of its parent, so MaxMemberBytes bounds
// it.
//
// The zip reader is this package's own: archive/zip parses the whole
// central directory into memory before the first member can be read,
// hundreds of bytes per entry, so a small archive of millions of empty
// entries costs gigabytes. Here the directory is streamed one record at a
// time. The xz container is parsed here too, with ulikunitz/xz/lzma for the
// LZMA2 data, because that module's xz reader allocates each block's
// dictionary at whatever size the header declares (up to 4 GiB) before
// decoding anything.
//
// # Budgets
//
// Limits lists them, DefaultLimits gives the defaults and where they come
// from. Hitting one skips the rest of the archive it belongs to with a
// *BudgetError warning that names the archive and the budget; the walk
// goes on with the enclosing archive's next member. The budgets belong as
// follows: entries and archive bytes to the archive counting them; member
// bytes to the archive holding the member; the inflation ratio and the
// window to the archive whose decoder tripped (for "notes.txt.gz", that
// stream); the duration to the archive whose clock ran out, inner or
// outer; depth to the nested archive not opened; root bytes to the whole
// walk, and to every later walk of the same Root, which then opens no more
// archives (plain files still pass).
//
// The member and archive byte budgets are exact: visit receives precisely
// the bytes the budget allows, then a read error, and a member cut short
// is still visited with what it had. The root budget is an atomic counter
// shared by concurrent walks, each of which may overshoot it by one read.
// Root bytes count decoded bytes at every level, so a member of a nested
// archive counts once as part of its parent's member and once itself.
// Entries are counted per header, skipped ones (directories, links,
// encrypted members) included. The ratio compares a decoder's output with
// the compressed bytes it has consumed, once it has produced 1 MiB.
//
// # Errors and warnings
//
// Walk returns an error only when ctx is done, when a budget is hit under
// FailOnBudget, or when visit returns an error of its own. Everything else
// is a warning: a *BudgetError, or a *FormatError for an encrypted member
// (ErrEncrypted), an unsupported method or filter (ErrUnsupported), or
// corrupt or truncated data, which ends the member in a zip (its members are
// independent) and the whole archive in a stream. A compressed tar is read
// to the end of its stream after the tar's end blocks, so that a bad
// trailer (a truncated download) is reported even when every member came
// out whole. A zip member's CRC-32 is checked when it has been read to the
// end.
//
// Stopping uses two sticky fields of the walk rather than the errors that
// travel up the stack, because those pass through decoders, archive/tar
// and visit, which may wrap, replace or swallow them. A reader that must
// stop records why (fatal, or a budget hit and the level it belongs to)
// and returns an error; from then on every reader fails the same way, the
// levels inside unwind, and the level that owns the hit reports it and
// returns to its parent. visit's own error is recognised as such by
// elimination: any error visit returns while no stop is recorded and the
// member's data did not fail is visit's.
//
// # Trade-offs
//
// A member that exceeds MaxMemberBytes ends its whole archive, as the
// budgets' contract says, not just the member: in a stream, skipping a
// member means decoding it anyway. Ratio and duration budgets stop bombs
// long before the byte budgets do; the byte budgets bound what a
// legitimate but enormous archive can cost.
package archive
