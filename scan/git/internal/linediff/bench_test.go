package linediff

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// The benchmarks report MB/s over both inputs of each pair (old plus new
// bytes). The real pairs are every change of a .go file in caddy's history
// (LINEDIFF_REPO, or the copy the tests look for), read once with git; the
// benchmarks that need them are skipped where neither git nor the
// repository is at hand.

var (
	realOnce  sync.Once
	realPairs []pair
)

// goFilePairs returns the (old, new) versions of every change to a .go
// file in the benchmark repository's history.
func goFilePairs(b testing.TB) []pair {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not on PATH")
	}
	repo := os.Getenv("LINEDIFF_REPO")
	if repo == "" {
		repo = caddyRepo
	}
	if _, err := os.Stat(repo); err != nil {
		b.Skipf("no repository at %s (set LINEDIFF_REPO)", repo)
	}
	realOnce.Do(func() {
		pairs, _, binary := historyPairs(b, repo, 0)
		for i, p := range pairs {
			if !binary[i] && strings.HasSuffix(p.name, ".go") {
				realPairs = append(realPairs, p)
			}
		}
	})
	if len(realPairs) == 0 {
		b.Skip("no .go file changes")
	}
	return realPairs
}

func benchDiff(b *testing.B, pairs []pair) {
	var size int64
	for _, p := range pairs {
		size += int64(len(p.a) + len(p.b))
	}
	var d Differ
	dst := make([]Hunk, 0, 1024)
	hunks := 0
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		hunks = 0
		for _, p := range pairs {
			dst = d.Diff(p.a, p.b, dst[:0])
			hunks += len(dst)
		}
	}
	b.ReportMetric(float64(len(pairs)), "pairs/op")
	b.ReportMetric(float64(hunks), "hunks/op")
}

// BenchmarkDiffGoHistory diffs every change of a .go file in caddy's
// history: the work of a history scan.
func BenchmarkDiffGoHistory(b *testing.B) { benchDiff(b, goFilePairs(b)) }

// BenchmarkDiffGenerated diffs the generated pairs the tests compare with
// git (all styles, small to 35,000-line files); it needs neither git nor a
// repository.
func BenchmarkDiffGenerated(b *testing.B) {
	benchDiff(b, append(genPairs(1, 300), hugeRecorded()[:1]...))
}

// BenchmarkSignature builds the rename signature of every new version of
// the history's .go files.
func BenchmarkSignature(b *testing.B) {
	pairs := goFilePairs(b)
	var size int64
	for _, p := range pairs {
		size += int64(len(p.b))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pairs {
			NewSignature(p.b)
		}
	}
}

// BenchmarkSimilarity scores each old version of the history's .go files
// against its new one, signatures built beforehand.
func BenchmarkSimilarity(b *testing.B) {
	pairs := goFilePairs(b)
	src := make([]*Signature, len(pairs))
	dst := make([]*Signature, len(pairs))
	for i, p := range pairs {
		src[i], dst[i] = NewSignature(p.a), NewSignature(p.b)
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := range pairs {
			Similarity(src[i], dst[i], DefaultMinScore)
		}
	}
	b.ReportMetric(float64(len(pairs)), "pairs/op")
}

// TestInstructionCountWorkload runs one pass of a benchmark's work, once,
// for an instruction count that does not depend on the machine's load:
//
//	go test -c -o /tmp/linediff.test ./scan/git/internal/linediff
//	LINEDIFF_WORKLOAD=diff valgrind --tool=callgrind \
//	    --toggle-collect='*linediff.(*Differ).Diff' /tmp/linediff.test -test.run InstructionCount
//
// (LINEDIFF_WORKLOAD=signature with --toggle-collect='*linediff.NewSignature').
// It does nothing without LINEDIFF_WORKLOAD.
func TestInstructionCountWorkload(t *testing.T) {
	w := os.Getenv("LINEDIFF_WORKLOAD")
	if w == "" {
		t.Skip("LINEDIFF_WORKLOAD not set")
	}
	pairs := goFilePairs(t)
	var size int64
	switch w {
	case "diff":
		var d Differ
		for _, p := range pairs {
			d.Diff(p.a, p.b, nil)
			size += int64(len(p.a) + len(p.b))
		}
	case "signature":
		for _, p := range pairs {
			NewSignature(p.b)
			size += int64(len(p.b))
		}
	default:
		t.Fatalf("unknown workload %q", w)
	}
	t.Logf("%s: %d pairs, %d bytes", w, len(pairs), size)
}
