package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/git/internal/histgen"
)

// The incremental benchmarks: a re-scan of a history whose commits are all
// in the store (nothing new), and one after one new commit, each against
// the first, full scan (reported as full-s and x-faster). On a generated
// history always; on prometheus (46k commits) when SPINDLE_PROMETHEUS names
// a copy of it (git clone --mirror): the first, full scan runs once, in
// the benchmark's setup, and takes a minute or more.
//
//	SPINDLE_PROMETHEUS=/path/to/prometheus.git go test ./scan/git -run '^$' -bench Rescan -benchtime 10x

func BenchmarkRescan(b *testing.B) {
	b.Run("generated", func(b *testing.B) {
		dir := filepath.Join(b.TempDir(), "gen.git")
		if _, err := histgen.Generate(dir, histgen.Small); err != nil {
			b.Skip(err)
		}
		benchRescan(b, dir)
	})
	b.Run("prometheus", func(b *testing.B) {
		src := os.Getenv("SPINDLE_PROMETHEUS")
		if src == "" {
			b.Skip("SPINDLE_PROMETHEUS names no copy of prometheus' repository")
		}
		// A clone sharing the objects: the benchmark adds commits to it.
		dir := filepath.Join(b.TempDir(), "prometheus.git")
		gitIn(b, b.TempDir(), nil, "clone", "-q", "--mirror", "--shared", src, dir)
		benchRescan(b, dir)
	})
}

func benchRescan(b *testing.B, dir string) {
	det := builtinDetector(b)
	cache := &Cache{Dir: b.TempDir()}
	start := time.Now()
	first := mustScan(b, dir, det, Options{Cache: cache}, scan.Options{Workers: 0})
	full := time.Since(start)
	b.Logf("first scan: %d commits, %d findings in %v", first.st.Commits, len(first.findings), full)
	scanOnce := func(b *testing.B, want int64) {
		st, err := Scan(context.Background(), dir, Options{Cache: cache}, scan.Options{Detector: det})
		if err != nil {
			b.Fatal(err)
		}
		if st.Commits-st.Cached != want {
			b.Fatalf("%d commits scanned, want %d", st.Commits-st.Cached, want)
		}
	}
	b.Run("nothing-new", func(b *testing.B) {
		for b.Loop() {
			scanOnce(b, 0)
		}
		perOp := b.Elapsed() / time.Duration(b.N)
		b.ReportMetric(full.Seconds(), "full-s")
		b.ReportMetric(float64(full)/float64(perOp), "x-faster")
	})
	b.Run("one-new-commit", func(b *testing.B) {
		tip := gitIn(b, dir, nil, "rev-parse", "HEAD")
		var spent time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			tip = commitOnto(b, dir, tip, fmt.Sprint("new ", i), map[string]string{
				"bench/new.env": fmt.Sprintf("line %d\npassword = \"%016x\"\n", i, uint64(i)*0x9e3779b97f4a7c15)})
			gitIn(b, dir, nil, "update-ref", "HEAD", tip)
			b.StartTimer()
			t0 := time.Now()
			scanOnce(b, 1)
			spent += time.Since(t0)
		}
		perOp := spent / time.Duration(b.N)
		b.ReportMetric(full.Seconds(), "full-s")
		b.ReportMetric(float64(full)/float64(perOp), "x-faster")
	})
}
