package report

import (
	"errors"
	"strconv"
	"strings"
)

// Shard says which part of a scan a report holds: shard Index of Count
// (Index from 0), of the scan of Scanned (what was read: the PATHs, or a
// repository and its revisions) with the rules and settings whose hash is
// Config. Merge reads it back to refuse a set of reports that is not one
// whole scan: a shard missing, one given twice, or one of another scan.
//
// A report carries it as its first element: in json and gitleaks json the
// array's first element, in jsonl the first line, an object of three
// members that is not a finding:
//
//	{"shard": "1/3", "scanned": "git . main", "config": "sha256:5e0c..."}
//
// SARIF carries the same members in the run's properties.
type Shard struct {
	Index, Count int
	Scanned      string
	Config       string
}

// String is "i/n", as --shard takes it.
func (s Shard) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// sameScan reports whether two shards are parts of one scan.
func (s Shard) sameScan(o Shard) bool {
	return s.Count == o.Count && s.Scanned == o.Scanned && s.Config == o.Config
}

// parseShardIndex parses "i/n" with 0 <= i < n.
func parseShardIndex(text string) (index, count int, err error) {
	a, b, ok := strings.Cut(text, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, errors.New(`"shard": want "i/n" with 0 <= i < n`)
	}
	return i, n, nil
}

// appendShardJSON appends the shard header object, indented as a json
// report's elements or compact for jsonl; html escapes as gitleaks' report.
func appendShardJSON(b []byte, s *Shard, indent, html bool) []byte {
	o := jsonObject{b: b, indent: indent, html: html}
	o.open()
	o.str("shard", s.String())
	o.str("scanned", s.Scanned)
	o.str("config", s.Config)
	o.close()
	return o.b
}
