package report

// Finding is one secret found by a scan. It is the unit every writer in this
// package emits and the shape of the JSON report, so its field names and JSON
// tags are part of the command's contract with the tools that read its
// reports.
//
// Lines and columns are 1-based; EndColumn is inclusive, as in gitleaks.
// File names the file relative to the scan's root (see package scan), with
// archive members joined by '!' (outer.zip!dir/file.txt).
//
// A finding from a repository's history (spindle git) also names the commit
// that added the line it is on: Commit (the full hash), the author's Name and
// Email, the author Date (RFC 3339) and the first line of the commit Message;
// its File is the path in that commit and its Fingerprint is
// commit:file:rule_id:line, gitleaks' form. The fields are empty, and left out
// of JSON, for a finding outside history. Content that first appears in a
// merge commit (a conflict resolution) carries the tag TagMerge.
type Finding struct {
	RuleID      string   `json:"rule_id"`
	Description string   `json:"description"`
	File        string   `json:"file"`
	Line        int      `json:"line"`
	Column      int      `json:"column"`
	EndLine     int      `json:"end_line"`
	EndColumn   int      `json:"end_column"`
	Secret      string   `json:"secret"`
	Match       string   `json:"match"`
	Entropy     float64  `json:"entropy"`
	Fingerprint string   `json:"fingerprint"` // file:rule_id:line, as .gitleaksignore uses
	Tags        []string `json:"tags"`

	Commit  string `json:"commit,omitempty"`
	Author  string `json:"author,omitempty"`
	Email   string `json:"email,omitempty"`
	Date    string `json:"date,omitempty"`
	Message string `json:"message,omitempty"`
}

// TagMerge marks a history finding whose line was introduced by a merge
// commit (a conflict resolution or an "evil merge"): no parent had it, so a
// scanner that reads only `git log -p` (gitleaks) does not report it.
const TagMerge = "introduced-by-merge"
