// Package gitrepo is the one place that finds a git repository and reads
// it: where its top, git directory, common directory and objects are (from
// a path anywhere inside it, and from git's environment: GIT_DIR,
// GIT_WORK_TREE, GIT_COMMON_DIR, GIT_OBJECT_DIRECTORY,
// GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_INDEX_FILE), its configuration,
// its refs (loose and packed, symbolic, per work tree), its index (the
// staging area) with its cache-tree, its commit-graph, its shallow
// boundary, and its objects (package odb, with refs/replace applied). scan/ignore uses it to honour .git/info/exclude
// and the .gitignore files above a scan root and to never hide a tracked
// file; scan/git reads history, the index and the work tree through it.
// No git process is started: nothing a repository's configuration names
// (hooks, filters, fsmonitor, credential helpers) can run.
//
// Everything here reads files of a repository someone else may have made,
// so every file is opened without blocking and read only if it is a
// regular file within a size limit (a FIFO or a device in place of HEAD,
// a ref, packed-refs, the config or an alternates file is refused, not
// waited on), and every length is checked before it is used: a truncated
// or hostile file is an error, never a panic, a hang or an allocation it
// did not pay for.
//
// Not read: reftable refs (refused with ErrUnsupported), the user's and
// the system's configuration and config includes (a scan reads what the
// repository holds), SHA-256 objects (the index and refs of such a
// repository read; its objects do not), info/grafts.
package gitrepo
