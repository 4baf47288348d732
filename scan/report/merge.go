package report

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// MergeSummary is the account of a Merge, for the command to print.
type MergeSummary struct {
	Reports    int              // reports read
	Read       int64            // findings read, duplicates included
	Duplicates int64            // findings dropped as repeats of another
	Findings   int64            // findings written
	PerRule    map[string]int64 // findings written, by rule
	// Lost sums the warnings that lost data which the reports' trailers
	// count: a merge of shards of which one lost data is a partial
	// result.
	Lost int64
}

// Merge reads the reports at paths, json or jsonl, each in spindle's schema
// or gitleaks' (shards of one scan, as `--shard i/n` writes them), checks
// that they are one whole scan (see Merger.Check), and writes their
// findings to w once each, in the sorted order of the sorted formats. It
// does not close w: the caller closes it, and a sorted w writes its report
// then. A path "-" reads standard input. It is NewMerger, Read for each
// path, and Write.
func Merge(w Writer, paths ...string) (MergeSummary, error) {
	m := NewMerger()
	defer m.Close()
	for _, p := range paths {
		if err := m.Read(p); err != nil {
			return m.sum, err
		}
	}
	return m.Write(w)
}

// Merger joins the reports of the shards of one scan. Read each report,
// then ask Schema which schema they share (the command writes that one
// unless told otherwise), then Write the merged findings. Close releases
// what Read holds, and may be called at any time.
//
// Duplicates. A finding is a duplicate of another when they agree on what
// makes a finding itself: commit, file, line and column span, rule, secret,
// match and fingerprint. The fingerprint alone would not do: two secrets on
// one line under one rule share a fingerprint (file:rule:line) and are two
// findings. Fields that only describe a finding (description, entropy,
// tags, author) are not compared, so the same finding read from a spindle
// report and from a gitleaks report (whose entropy is a float32) is one.
// Of duplicates the first in sorted order is kept.
//
// Shards. A report written with --shard starts with its Shard header and
// ends with its trailer, which counts and sums its findings: Read refuses a
// shard's report without a trailer (cut short, even at a line boundary),
// and any report whose findings the trailer does not count or sum (a
// finding dropped, repeated or changed).
// Write refuses, naming the reports, a set that is not one whole scan: a
// shard report beside one that has no header, shards of different scans
// (another count, source or config hash), a shard given twice, or a shard
// missing. Reports without a header (baselines, whole scans) are merged as
// they are.
//
// Memory is bounded whatever the reports' size: findings are sorted with
// the spilling sorter the writers use (temporary files in os.TempDir, gone
// at Close), and duplicates are dropped as the sorted stream is written.
// Reports are read as untrusted input, under the limits of ErrReportLimit
// (a report as a whole may be of any size). An error names the report and,
// for a malformed entry, its number and byte offset; on error, what was
// written to w is incomplete.
type Merger struct {
	sorter  *spillSorter
	sum     MergeSummary
	inputs  []mergeInput
	written bool
}

// mergeInput is what Merger remembers of one report.
type mergeInput struct {
	name   string
	shard  *Shard
	schema Schema
	array  bool
	empty  bool
}

// NewMerger returns an empty Merger.
func NewMerger() *Merger {
	return &Merger{sorter: newSpillSorter(compareFindings, "", 0), sum: MergeSummary{PerRule: map[string]int64{}}}
}

// Close releases the findings held; the Merger is unusable after.
func (m *Merger) Close() { m.sorter.release() }

// Read adds the findings of the report at path ("-": standard input).
func (m *Merger) Read(path string) error {
	var r io.Reader = os.Stdin
	name := "standard input"
	if path != "-" {
		file, err := openReport(path)
		if err != nil {
			return fmt.Errorf("report: merge: %w", err)
		}
		defer file.Close()
		r, name = file, path
	}
	rr, err := newReportReader(r, 0)
	if err != nil {
		return fmt.Errorf("report: merge %s: %w", name, err)
	}
	rr.sums = true
	in := mergeInput{name: name, empty: true}
	for {
		f, ok, err := rr.next()
		if err != nil {
			return fmt.Errorf("report: merge %s: %w", name, err)
		}
		if !ok {
			break
		}
		in.empty = false
		m.sum.Read++
		if err := m.sorter.add(entry{f: f}); err != nil {
			return fmt.Errorf("report: merge: %w", err)
		}
	}
	if err := rr.checkTrailer(); err != nil {
		return fmt.Errorf("report: merge %s: %w", name, err)
	}
	if rr.trailer != nil {
		m.sum.Lost += rr.trailer.lost
	}
	in.shard, in.schema, in.array = rr.shard, rr.schema, rr.array
	m.inputs = append(m.inputs, in)
	m.sum.Reports++
	return nil
}

// Lost is the number of warnings that lost data the trailers of the
// reports read so far count.
func (m *Merger) Lost() int64 { return m.sum.Lost }

// Check returns an error naming the reports if they are shard reports that
// are not the shards of one whole scan: each of 0..n-1 once, of one source
// and config.
func (m *Merger) Check() error {
	var first *mergeInput
	for i := range m.inputs {
		in := &m.inputs[i]
		if in.shard != nil && first == nil {
			first = in
		}
	}
	if first == nil {
		return nil // no shard reports
	}
	byIndex := make([]string, first.shard.Count)
	for _, in := range m.inputs {
		switch {
		case in.shard == nil:
			return fmt.Errorf("report: merge: %s is not a shard report (it has no shard header), and %s is shard %s", in.name, first.name, first.shard)
		case !in.shard.sameScan(*first.shard):
			return fmt.Errorf("report: merge: %s is shard %s of another scan than %s (shard %s): %s", in.name, in.shard, first.name, first.shard, scanDifference(*in.shard, *first.shard))
		case byIndex[in.shard.Index] != "":
			return fmt.Errorf("report: merge: shard %s is given twice: %s and %s", in.shard, byIndex[in.shard.Index], in.name)
		}
		byIndex[in.shard.Index] = in.name
	}
	var missing []string
	for i, name := range byIndex {
		if name == "" {
			missing = append(missing, Shard{Index: i, Count: first.shard.Count}.String())
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("report: merge: shard %s is missing (of the scan of %s): the merged report would lack its findings", missing[0], first.shard.Scanned)
	}
	return fmt.Errorf("report: merge: shards %s are missing (of the scan of %s): the merged report would lack their findings", strings.Join(missing, ", "), first.shard.Scanned)
}

// scanDifference says how two shards' scans differ.
func scanDifference(a, b Shard) string {
	switch {
	case a.Count != b.Count:
		return fmt.Sprintf("split %d ways, not %d", a.Count, b.Count)
	case a.Scanned != b.Scanned:
		return fmt.Sprintf("it scanned %s, not %s", a.Scanned, b.Scanned)
	}
	return fmt.Sprintf("its rules and settings (config %s) are not %s", a.Config, b.Config)
}

// Schema returns the schema the reports share, for the command to write
// the merged report in. Reports without findings go with any schema of
// their container; if none has findings, arrays give gitleaks' json and
// lines jsonl. Reports in different schemas are an error naming two.
func (m *Merger) Schema() (Schema, error) {
	var got Schema
	var from string
	for _, in := range m.inputs {
		s := in.schema
		if in.empty {
			continue
		}
		if got == SchemaUnknown {
			got, from = s, in.name
			continue
		}
		if s != got {
			return SchemaUnknown, fmt.Errorf("report: merge: %s is %s and %s is %s: say which to write with -f", from, got, in.name, s)
		}
	}
	for _, in := range m.inputs {
		if !in.empty || got == SchemaUnknown {
			continue
		}
		if in.array != (got == SchemaJSON || got == SchemaGitleaksJSON) {
			return SchemaUnknown, fmt.Errorf("report: merge: %s and %s are not both json arrays or both jsonl: say which to write with -f", from, in.name)
		}
	}
	if got == SchemaUnknown && len(m.inputs) > 0 {
		got = SchemaJSONL
		if m.inputs[0].array {
			got = SchemaGitleaksJSON
		}
	}
	return got, nil
}

// Write checks the reports (Check) and writes their findings to w, each
// once. It may be called once.
func (m *Merger) Write(w Writer) (MergeSummary, error) {
	if m.written {
		return m.sum, errors.New("report: merge: Write called twice")
	}
	m.written = true
	if err := m.Check(); err != nil {
		return m.sum, err
	}
	var prev Finding
	have := false
	err := m.sorter.drain(func(e *entry) error {
		if have && comparePlace(&prev, &e.f) == 0 {
			m.sum.Duplicates++
			return nil
		}
		prev, have = e.f, true
		m.sum.Findings++
		m.sum.PerRule[e.f.RuleID]++
		return w.Write(e.f)
	})
	if err != nil {
		return m.sum, fmt.Errorf("report: merge: %w", err)
	}
	return m.sum, nil
}

// openReport opens a shard report: anything readable but a directory (a
// shard may arrive through a pipe, `<(...)`).
func openReport(path string) (*os.File, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if info, err := file.Stat(); err != nil || info.IsDir() {
		file.Close()
		if err == nil {
			err = fmt.Errorf("%s: %w", path, ErrNotRegular)
		}
		return nil, err
	}
	return file, nil
}

// WriteText writes s for a person, in two lines:
//
//	merged 3 reports: 120 findings, 4 duplicates removed
//	by rule: 100 aws-access-token, 20 generic-api-key
//
// The second line is left out when there are no findings; rules are in name
// order.
func (s MergeSummary) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("merged " + plural(int64(s.Reports), "report", "reports") + ": ")
	b.WriteString(plural(s.Findings, "finding", "findings") + ", ")
	b.WriteString(plural(s.Duplicates, "duplicate", "duplicates") + " removed\n")
	var rules []string
	for _, id := range slices.Sorted(maps.Keys(s.PerRule)) {
		if n := s.PerRule[id]; n != 0 {
			rules = append(rules, strconv.FormatInt(n, 10)+" "+escapeText(id))
		}
	}
	if len(rules) > 0 {
		b.WriteString("by rule: " + strings.Join(rules, ", ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
