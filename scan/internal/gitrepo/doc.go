// Package gitrepo finds a git repository from a path inside it and reads
// the parts of it that need no object database: where its top and git
// directory are, its object format, and its index (the staging area).
// scan/ignore uses it to honour .git/info/exclude and the .gitignore files
// above a scan root and to never hide a tracked file; scan/git uses it to
// open repositories and to read what a commit would record.
//
// Everything here reads files of a repository someone else may have made,
// so every length is checked before it is used: a truncated or hostile
// file is an error, never a panic or an allocation it did not pay for.
package gitrepo
