// Package odb reads a git repository's object database in-process: pack
// files and their indexes, loose objects, and the object databases an
// alternates file borrows from. It is the layer under package gitrepo,
// which finds the repository and tells Open where its objects are: Read
// returns an object's type and content, ReadLimit the same for an object
// of at most a given size (a larger one is refused with its size, before
// anything is allocated), Size an object's size as cheaply as the store
// allows, Header its type and size without inflating it, and Reader
// streams an object too large for memory. ParseCommitLimit,
// ParseCommitLinks, ParseTag and AppendTree decode the objects a history
// walk needs, in SHA-1 and SHA-256 repositories.
//
//	db, err := odb.Open("path/to/repo/.git/objects", odb.Options{})
//	...
//	defer db.Close()
//	typ, data, err := db.Read(id, buf)
//
// # Why in-process
//
// The usual fast path in Go is a git cat-file --batch process fed ids over
// a pipe. Measured on a mirror clone of caddy (20,234 objects in one
// 10.8 MiB pack; 7,511 blobs of 123.5 MB), reading every blob in pack
// order:
//
//	                                instructions  CPU per pass        CPU per MB
//	git cat-file --batch --buffer   1.31 G        1.2–1.5 s           9–12 ms
//	DB.Read, one goroutine          0.86 G        0.2–0.3 s           1.7–2.5 ms
//
// Instructions are callgrind's, which do not depend on load (git's own
// process only); CPU is user+system time on a 2-core machine shared with
// other work, so only the ratio means much, and for cat-file it includes
// the Go side reading the pipe. The Read figures include opening the
// database, building the reverse index and listing the pack's entries.
// On a synthetic history (3,000 commits editing 300 files, 35 MB of
// blobs) the ratio is the same: 64–86 ms against 416–424 ms a pass.
//
// Beyond the CPU, the in-process reader runs on every core with no
// process per worker and copies no content through a pipe.
//
// # Reading a pack
//
// Open maps each pack's .idx (lookups touch a few of its pages), and maps
// the .pack too while the packs mapped add up to no more than
// Options.MapBytes (64 MiB by default); a larger pack is read with pread.
// A mapped pack's pages count in the process's resident set as they are
// touched, so one pass over a 2 GiB pack would show 2 GiB of RSS, while
// pread leaves them in the page cache; but a pread is a system call per
// entry read, 5% of the CPU of a history scan of a 53 MB pack, and 11%
// of its CPU came off when it was mapped. The budget keeps the RSS bound
// of a scan: the cache budget, what the workers hold, and MapBytes. A
// mapped file cut short under the mapping makes the reads past its end
// fail (the fault is recovered), as a short pread would. A reverse
// index (the .rev file git 2.31+ can write, else built by sorting the
// offsets once per pack) gives each entry's end, so one read takes an
// entry exactly: header and compressed data. Version 2 indexes hold a
// CRC-32 of every stored entry, checked on those bytes before they are
// inflated (hardware-assisted, about 1% of the read); a version 1 index
// has none. Loose objects are checked against their zlib Adler-32.
//
// Entries held in memory (all but those over 1 MiB stored) are inflated
// by a one-shot deflate decoder (deflate.go) straight into the output,
// whose size the entry header gives. git stores every object as its own
// zlib stream, and the objects of a source repository are small, so the
// cost is dominated by per-stream work: building Huffman tables and
// setting up a decoder. Inflating every entry of caddy's pack (22.1 MB
// of output) took, in instructions:
//
//	one-shot decoder (this package)           0.93 G
//	klauspost/compress/flate, reused          1.27 G
//	klauspost/compress/zlib (+ Adler-32)      1.39 G
//	compress/flate, reused                    1.67 G
//	compress/zlib (+ Adler-32)                1.80 G
//
// klauspost's streaming decoder, the faster library, inflates what is
// streamed: large entries, loose objects, and Reader. The one-shot decoder
// accepts and refuses what zlib does, and a fuzz target holds it to
// klauspost's decoder byte for byte.
//
// # Deltas and the cache
//
// Most objects in a pack are deltas: instructions that copy ranges of a
// base object and insert literal bytes. The base of an OFS_DELTA lies
// earlier in the same pack; that of a REF_DELTA is named by id and may be
// anywhere (a pack kept from a fetch holds REF_DELTAs whose bases git
// appended after them). A read walks the chain down entry by entry in a
// loop, not by recursion, so chains of thousands (git allows 4095) cost a
// slice; it stops at a whole object or at a base found in the cache, then
// inflates and applies the deltas going back up. A REF_DELTA chain that
// loops, which only damage can make, is detected by remembering the REF
// targets followed; OFS links always go backwards.
//
// Every intermediate result of a chain is a delta base, and goes into the
// delta-base cache: an LRU of inflated objects under a byte budget
// (Options.CacheBytes, default DefaultCacheBytes = 32 MiB; git's own
// default is 96 MiB), split in 16 shards by a hash of (pack, offset) so
// that goroutines rarely meet on a lock, with one budget counted across
// shards and eviction taking the oldest entry of each shard in turn. An
// object over a quarter of the budget is not cached.
//
// # Concurrency and memory
//
// A DB is safe for concurrent use, with no lock on the read path other
// than a cache shard's: per-call working memory (the inflater, the entry
// being read, the chain and its delta entries) comes from a sync.Pool and
// goes back to it, keeping no buffer over 4 MiB. Memory is bounded by the
// cache budget, that working memory per goroutine reading, and the objects
// being returned. A header's size is believed up to 16 MiB; a larger
// object's buffer grows as its bytes arrive, so a damaged header cannot
// make the reader allocate what the data does not hold. An object larger
// than memory can be read with Reader, which inflates a whole object as
// it is read (git stores large files whole: core.bigFileThreshold keeps
// them out of deltas) and only rebuilds a delta in memory.
//
// # Damage
//
// Open fails only when the objects directory is not one
// (ErrNotRepository). A pack whose index cannot be parsed is left out and
// a pack file that is missing or has a bad header is kept but marked;
// Warnings lists both. Reads then fail object by object, never with a
// panic: a *NotFoundError (ErrNotFound) for an id no pack or loose file
// holds, a *CorruptError (ErrCorrupt) naming the object, the file and the
// entry's offset for anything that cannot be decoded, including a delta
// whose base is missing, an *UnreadableError (ErrUnreadable) for a file
// that cannot be opened or is not a regular file, and a *TooLargeError
// (ErrTooLarge) for an object over Options.MaxObject. A truncated pack
// reads up to the cut. Every file is opened without blocking and only if
// it is a regular file (a FIFO in place of a pack, an index or a loose
// object is refused, not waited on); an alternates file is read only if
// it is a small regular file, and alternates chain at most five deep.
//
// Packs that appear after Open (a repack or a fetch running beside the
// scan) are found: an object that no pack and no loose file holds is
// looked for again after the pack directories are listed again, and only
// then reported missing. A pack that a repack deletes stays readable
// through its open descriptor.
//
// # Not done
//
// A multi-pack-index is not read: git keeps each pack's own index beside
// it, and those are what Open reads. Partial clones read as repositories
// with missing objects (nothing is fetched).
//
// # Object formats
//
// An ID holds a SHA-1 id (20 bytes, then zeros) or a SHA-256 one (32
// bytes); Options.HashSize says which a repository uses, as its
// extensions.objectFormat does, and pack indexes (whose version 2 does
// not say), .rev files, REF_DELTA bases and tree entries are read with
// it. IDs compare and key maps as 32-byte arrays in either format; on a
// SHA-1 history that costs nothing measurable (BENCHMARKS.md, issue 28).
//
// # Commits and trees
//
// ParseCommitLimit reads the tree, parents, author, committer, encoding and
// message, taking identities as git's split_ident_line does (a name
// without an email, a date without a zone read as git shows them); only a
// missing or malformed tree line or a malformed parent line is an error.
// AppendTree appends a tree's entries with their modes read through git's
// canon_mode, so the 100664 of old repositories is a 100644 file and a
// mode of no known kind a gitlink, which names a commit of another
// repository.
package odb
