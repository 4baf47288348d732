// Package smallfile reads the small files a scan takes beside what it
// scans: rule configs, .gitignore and .gitleaksignore files, report
// templates, lists of repositories, a repository's own metadata files. Any
// of them may come from the tree being scanned, so each is read as
// untrusted input, by one function with one set of checks:
//
//   - It must be a regular file. A directory, a FIFO, a socket or a device
//     is refused with an error naming what it is. The type is checked
//     before the file is opened, since opening a FIFO waits for a writer
//     and opening a device may do anything, and again on the open file, in
//     case the name was replaced in between; on Unix the open itself does
//     not block (O_NONBLOCK), so a FIFO swapped in between the two checks
//     cannot hang the scan either.
//   - It must hold at most a caller's limit of bytes. The size is checked
//     on the open file and again while reading, since a file can grow and
//     some regular files (in /proc) report no size at all: at most limit+1
//     bytes are ever read.
//
// Errors are *fs.PathError values naming the file, wrapping ErrNotRegular
// or ErrTooLarge for the two refusals, so a caller can both print them as
// they are and test for them with errors.Is.
//
// Read works on a path; ReadIn on a name inside an *os.Root, for a caller
// that must not follow a name out of a directory (a config's [extend]
// chain). Open is the first half of Read for a file too large to hold in
// memory whole (a baseline report), which the caller streams under limits
// of its own.
package smallfile
