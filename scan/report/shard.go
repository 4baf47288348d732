package report

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
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

// A shard's report ends with a trailer, written after its last finding,
// an object that is not a finding:
//
//	{"trailer": {"findings": 999, "checksum": "sum-sha256:8f3c...", "lost": 0}}
//
// findings counts the findings the report holds, checksum sums their
// bytes (see findingSum) and lost counts the scan's warnings that lost
// data. Merge refuses a shard's report without it (cut short, even at a
// line boundary, or only its header) or whose findings it does not match
// (one repeated, dropped or changed): a shard's report that is not whole
// would make a merged report that looks whole.

// findingSum is the checksum of a report's findings: the sum, in four
// 64-bit lanes, of the SHA-256 of each finding's JSON text as it stands in
// the report (its element of the array, or its line without the newline).
// Being a sum it does not depend on the order of the findings; a finding
// repeated adds its hash again.
type findingSum [4]uint64

// add adds one finding's text.
func (s *findingSum) add(text []byte) {
	h := sha256.Sum256(text)
	for i := range s {
		s[i] += binary.BigEndian.Uint64(h[8*i:])
	}
}

// String is "sum-sha256:" and the four lanes in hex.
func (s findingSum) String() string {
	var b [32]byte
	for i, v := range s {
		binary.BigEndian.PutUint64(b[8*i:], v)
	}
	return "sum-sha256:" + hex.EncodeToString(b[:])
}

// trailer is what a shard's report ends with.
type trailer struct {
	findings int64
	sum      findingSum
	lost     int64
}

// appendTrailerJSON appends the trailer object, indented as a json
// report's elements or compact for jsonl.
func appendTrailerJSON(b []byte, t *trailer, indent bool) []byte {
	o := jsonObject{b: b, indent: indent}
	o.open()
	o.key("trailer")
	inner := jsonObject{b: o.b, indent: false}
	inner.open()
	inner.int("findings", int(t.findings))
	inner.str("checksum", t.sum.String())
	inner.int("lost", int(t.lost))
	inner.close()
	o.b = inner.b
	o.close()
	return o.b
}

// decodeTrailer reads a trailer entry.
func decodeTrailer(raw json.RawMessage) (*trailer, error) {
	var v struct {
		Findings *int64  `json:"findings"`
		Checksum *string `json:"checksum"`
		Lost     *int64  `json:"lost"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || v.Findings == nil || v.Checksum == nil || v.Lost == nil {
		return nil, errors.New(`trailer: want {"findings": N, "checksum": "sum-sha256:...", "lost": N}`)
	}
	t := &trailer{findings: *v.Findings, lost: *v.Lost}
	hexSum, ok := strings.CutPrefix(*v.Checksum, "sum-sha256:")
	b, err := hex.DecodeString(hexSum)
	if !ok || err != nil || len(b) != 32 {
		return nil, errors.New(`trailer: checksum: want "sum-sha256:" and 64 hex digits`)
	}
	for i := range t.sum {
		t.sum[i] = binary.BigEndian.Uint64(b[8*i:])
	}
	return t, nil
}

// count adds one finding's text to t.
func (t *trailer) count(text []byte) {
	t.findings++
	t.sum.add(text)
}
