package report

// Finding is one secret found by a scan. It is the unit every writer in this
// package emits and the shape of the JSON report, so its field names and JSON
// tags are part of the command's contract (DESIGN.md §5).
//
// Lines and columns are 1-based; EndColumn is inclusive, as in gitleaks.
// File is the path as the user gave it, with archive members joined by '!'
// (outer.zip!dir/file.txt).
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
}
