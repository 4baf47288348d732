// Package ignore decides what a scan leaves out before it reads anything,
// and which findings it does not report: the command's policy, as a
// library any Go program can use.
//
//   - Gitignore rules. Level is the .gitignore and .ignore rules of one
//     directory chained to its parents', with git's precedence (the
//     deepest level with a matching rule decides, and in it the last
//     matching rule). Load reads a directory's files as a walk enters it;
//     ForRoot gives what applies from above a walk's root: the
//     repository's info/exclude and the .gitignore files between its top
//     and the root, and its tracked files, read from the index, which git
//     never ignores whatever a pattern says. The patterns are translated to
//     regular expressions anchored on the path relative to their file's
//     directory (see Level for why not a library); the scan package's
//     TestGitignoreMatchesGit checks the translation against git itself.
//   - Fingerprints: the .gitleaksignore file gitleaks defined, one
//     fingerprint per line, file:rule:line or commit:file:rule:line, with
//     gitleaks' matching (an entry with a commit suppresses that commit
//     only; one without, every commit).
//
// Ignore files come from the tree being scanned, which may be hostile:
// each is read only if it is a regular file of at most 16 MiB.
package ignore
