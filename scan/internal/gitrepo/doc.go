// Package gitrepo is the one place that finds a git repository and reads
// it: where its top, git directory, common directory and objects are (from
// a path anywhere inside it, and from git's environment: GIT_DIR,
// GIT_WORK_TREE, GIT_COMMON_DIR, GIT_OBJECT_DIRECTORY,
// GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_INDEX_FILE), its configuration,
// its refs (loose and packed, symbolic, per work tree, or reftables), its
// index (the staging area, split or not) with its cache-tree, its
// commit-graph, its shallow boundary, and its objects (package odb, with
// refs/replace applied). scan/ignore uses it to honour .git/info/exclude
// and the .gitignore files above a scan root and to never hide a tracked
// file; scan/git reads history, the index and the work tree through it.
// No git process is started: nothing a repository's configuration names
// (hooks, filters, fsmonitor, credential helpers) can run.
//
// Both object formats git writes are read: SHA-1 and SHA-256
// (extensions.objectFormat), whose 32-byte ids go through the refs, the
// index, the commit-graph and package odb.
//
// Refs: packed-refs is read once per change of the file into a sorted
// slice, so that listing or looking up refs is linear in their number
// (2,000,000 packed refs list in about a second). Reftables
// (extensions.refStorage = reftable, reftable.go) are read from the
// format's specification and tested against tables git 2.47 wrote.
//
// A split index (git update-index --split-index, splitindex.go) is read
// with its shared index, as git merges them; a commit-graph whose
// checksum fails is not used (commitgraph.go), so that a damaged graph
// cannot send a history walk to other trees than the commits name.
//
// Everything here reads files of a repository someone else may have made,
// so every file is opened without blocking and read only if it is a
// regular file within a size limit (a FIFO or a device in place of HEAD,
// a ref, packed-refs, a reftable, the config or an alternates file is
// refused, not waited on), and every length is checked before it is
// used: a truncated or hostile file is an error, never a panic, a hang or
// an allocation it did not pay for.
//
// Not read: the user's and the system's configuration and config
// includes (a scan reads what the repository holds), info/grafts, a
// reftable's reflog and object-index blocks (refs only are needed).
package gitrepo
