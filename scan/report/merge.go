package report

import (
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
}

// Merge reads the reports at paths, json or jsonl, each in spindle's schema
// or gitleaks' (shards of one scan, as `--shard i/n` writes them), and
// writes their findings to w once each, in the sorted order of the sorted
// formats. It does not close w: the caller closes it, and a sorted w writes
// its report then. A path "-" reads standard input.
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
// Memory is bounded whatever the reports' size: findings are sorted with
// the spilling sorter the writers use (temporary files in os.TempDir, gone
// when Merge returns), and duplicates are dropped as the sorted stream is
// written. Reports are read as untrusted input, under the limits of
// ErrReportLimit (a report as a whole may be of any size). An error names
// the report and, for a malformed entry, its number and byte offset; on
// error, what was written to w is incomplete.
func Merge(w Writer, paths ...string) (MergeSummary, error) {
	sum := MergeSummary{PerRule: map[string]int64{}}
	sorter := newSpillSorter(compareFindings, "", 0)
	defer sorter.release()
	for _, p := range paths {
		if err := mergeRead(sorter, p, &sum); err != nil {
			return sum, err
		}
		sum.Reports++
	}
	var prev Finding
	have := false
	err := sorter.drain(func(e *entry) error {
		if have && comparePlace(&prev, &e.f) == 0 {
			sum.Duplicates++
			return nil
		}
		prev, have = e.f, true
		sum.Findings++
		sum.PerRule[e.f.RuleID]++
		return w.Write(e.f)
	})
	if err != nil {
		return sum, fmt.Errorf("report: merge: %w", err)
	}
	return sum, nil
}

// mergeRead adds the findings of one report to the sorter.
func mergeRead(sorter *spillSorter, path string, sum *MergeSummary) error {
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
	for {
		f, ok, err := rr.next()
		if err != nil {
			return fmt.Errorf("report: merge %s: %w", name, err)
		}
		if !ok {
			return nil
		}
		sum.Read++
		if err := sorter.add(entry{f: f}); err != nil {
			return fmt.Errorf("report: merge: %w", err)
		}
	}
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
