package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// benchFindings returns n distinct findings spread over n/10 files.
func benchFindings(n int) []Finding {
	fs := make([]Finding, n)
	for i := range fs {
		secret := fmt.Sprintf("AKIA%016d", i)
		fs[i] = Finding{
			RuleID: "aws-access-token", Description: "AWS Access Token",
			File: fmt.Sprintf("src/pkg%03d/config.env", i/10), Line: i%10*7 + 1, Column: 9,
			EndLine: i%10*7 + 1, EndColumn: 28, Secret: secret, Match: "AWS_KEY=" + secret,
			Entropy: 3.7, Fingerprint: fmt.Sprintf("src/pkg%03d/config.env:aws-access-token:%d", i/10, i%10*7+1),
			Tags: []string{"aws", "key"},
		}
	}
	return fs
}

// BenchmarkWriter measures a whole report of 1000 findings per format,
// redacted and not; ns/finding is the cost the engine's output goroutine
// pays per finding.
func BenchmarkWriter(b *testing.B) {
	findings := benchFindings(1000)
	for _, format := range allFormats() {
		for _, redact := range []int{0, 100} {
			b.Run(fmt.Sprintf("%s/redact=%d", format, redact), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					w := newTestWriter(b, format, io.Discard, Options{Redact: redact})
					for _, f := range findings {
						w.Write(f)
					}
					if err := w.Close(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(findings)), "ns/finding")
			})
		}
	}
}

// BenchmarkBaseline measures loading a 10 000-finding json report and
// checking findings against it.
func BenchmarkBaseline(b *testing.B) {
	findings := benchFindings(10000)
	report := render(b, FormatJSON, Options{}, findings)
	b.Run("load", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(report)))
		for b.Loop() {
			if _, err := ReadBaseline(strings.NewReader(report)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(findings)), "ns/finding")
	})
	b.Run("contains", func(b *testing.B) {
		base, _ := ReadBaseline(strings.NewReader(report))
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if !base.Contains(findings[i%len(findings)]) {
				b.Fatal("missing")
			}
			i++
		}
	})
}

// BenchmarkWriterSpilling measures a report of 200 000 findings, enough to
// spill several runs to temporary files, per sorted format (and jsonl, which
// streams, for comparison); ns/finding includes the sort, the runs and the
// merge.
func BenchmarkWriterSpilling(b *testing.B) {
	const n = 200_000
	for _, format := range []Format{FormatJSONL, FormatJSON, FormatText, FormatSARIF, FormatCSV, FormatJUnit, FormatGitleaks} {
		b.Run(string(format), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w := newTestWriter(b, format, io.Discard, Options{TempDir: b.TempDir()})
				if err := streamFindings(n, w.Write); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/finding")
		})
	}
}

// streamFindings calls fn with n findings of realistic size (a 45-byte
// path, a 40-byte secret, a 60-byte match, a 120-byte description shared by
// the rule), each with its own strings, in no order, without holding them.
func streamFindings(n int, fn func(Finding) error) error {
	desc := "Identified a pattern that may indicate AWS credentials, risking unauthorized access to cloud resources."
	for i := range n {
		k := (i * 7919) % n // scattered, so that sorting has work to do
		id := strconv.Itoa(k)
		file := "services/payments/internal/config/env-" + id + ".yaml"
		secret := "AKIAZ7QKXW3VUMPLR2TD" + id + "XXXXXXXXXXXXXXXXXXXX"[len(id):]
		f := Finding{
			RuleID: "aws-access-token", Description: desc, File: file,
			Line: 1 + k%500, Column: 9, EndLine: 1 + k%500, EndColumn: 48,
			Secret: secret, Match: "aws_access_key_id = " + secret, Entropy: 3.9,
			Fingerprint: file + ":aws-access-token:" + strconv.Itoa(1+k%500), Tags: []string{"aws", "key"},
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkMergeRead measures reading a shard's jsonl report of 10 000
// findings as Merger.Read does (each entry decoded, the trailer checked).
func BenchmarkMergeRead(b *testing.B) {
	text := render(b, FormatJSONL, Options{Shard: &Shard{Index: 0, Count: 1, Scanned: "git .", Config: "sha256:abc"}}, benchFindings(10000))
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		rr, err := newReportReader(strings.NewReader(text), 0)
		if err != nil {
			b.Fatal(err)
		}
		rr.sums = true
		for {
			_, ok, err := rr.next()
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
		}
	}
}
