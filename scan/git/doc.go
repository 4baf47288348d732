// Package git scans a git repository's history for secrets: every commit
// of the selection, finding for finding what `gitleaks git` reports with
// the same rules, on the same engine as a directory scan.
package git
