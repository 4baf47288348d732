package fork_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spindle-go/spindle/fork"
)

// The slice helpers against the sequential standard-library way, in one
// binary so that benchstat compares interleaved runs:
//
//	go test -run '^$' -bench 'Sort|Map|Each|SliceSum' -count 10 ./fork > slices.txt
//	benchstat -col /impl slices.txt
//
// ns/elem is the figure to compare; the acceptance ratios are
// impl=fork-workers=1 against impl=sequential (at most 1.0 for Sort, 1.1
// for Map) and impl=fork-workers=2 against impl=sequential (at least 1.7×
// faster for Sort of 10M ints, 1.8× for Map with a 100 ns body).

// impls are the variants each slice benchmark runs: the sequential
// standard-library code, and the fork helper on pools of 1 and 2 workers.
var impls = []struct {
	name    string
	workers int // 0: sequential
}{{"sequential", 0}, {"fork-workers=1", 1}, {"fork-workers=2", 2}}

func BenchmarkSort(b *testing.B) {
	const n = 10_000_000
	rng := rand.New(rand.NewPCG(1, 1))
	src := make([]int, n)
	for i := range src {
		src[i] = rng.Int()
	}
	s := make([]int, n)
	for _, impl := range impls {
		b.Run(fmt.Sprintf("n=%d/impl=%s", n, impl.name), func(b *testing.B) {
			var p *fork.Pool
			if impl.workers > 0 {
				p = fork.NewPool(fork.Config{Workers: impl.workers})
				defer p.Close()
			}
			b.ReportAllocs()
			var elapsed int64
			for b.Loop() {
				b.StopTimer()
				copy(s, src)
				b.StartTimer()
				if p == nil {
					slices.Sort(s)
				} else {
					fork.Sort(p, s)
				}
			}
			elapsed = b.Elapsed().Nanoseconds()
			if !slices.IsSorted(s) {
				b.Fatal("not sorted")
			}
			b.ReportMetric(float64(elapsed)/float64(b.N)/n, "ns/elem")
		})
	}
}

// work100 is a body of about 100 ns: a short chain of multiplications the
// compiler cannot fold.
func work100(x uint64) uint64 {
	for range 40 {
		x = x*0x9e3779b97f4a7c15 + 1
		x ^= x >> 31
	}
	return x
}

func BenchmarkMap(b *testing.B) {
	const n = 1_000_000
	in := make([]uint64, n)
	for i := range in {
		in[i] = uint64(i)
	}
	for _, impl := range impls {
		b.Run(fmt.Sprintf("body=100ns/impl=%s", impl.name), func(b *testing.B) {
			var p *fork.Pool
			if impl.workers > 0 {
				p = fork.NewPool(fork.Config{Workers: impl.workers})
				defer p.Close()
			}
			b.ReportAllocs()
			var out []uint64
			for b.Loop() {
				if p == nil {
					out = make([]uint64, len(in))
					for i, x := range in {
						out[i] = work100(x)
					}
				} else {
					out = fork.Map(p, in, work100)
				}
			}
			if out[n-1] != work100(n-1) {
				b.Fatal("wrong result")
			}
			perItem(b, n, "ns/elem")
		})
	}
}

func BenchmarkEach(b *testing.B) {
	const n = 1_000_000
	s := make([]uint64, n)
	for _, impl := range impls {
		b.Run(fmt.Sprintf("body=100ns/impl=%s", impl.name), func(b *testing.B) {
			var p *fork.Pool
			if impl.workers > 0 {
				p = fork.NewPool(fork.Config{Workers: impl.workers})
				defer p.Close()
			}
			b.ReportAllocs()
			for b.Loop() {
				if p == nil {
					for i := range s {
						s[i] = work100(s[i])
					}
				} else {
					fork.Each(p, s, func(_ int, e *uint64) { *e = work100(*e) })
				}
			}
			perItem(b, n, "ns/elem")
		})
	}
}

func BenchmarkSliceSum(b *testing.B) {
	const n = 10_000_000
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i)
	}
	want := int64(n) * (n - 1) / 2
	for _, impl := range impls {
		b.Run(fmt.Sprintf("n=%d/impl=%s", n, impl.name), func(b *testing.B) {
			var p *fork.Pool
			if impl.workers > 0 {
				p = fork.NewPool(fork.Config{Workers: impl.workers})
				defer p.Close()
			}
			for b.Loop() {
				var sum int64
				if p == nil {
					for _, v := range s {
						sum += v
					}
				} else {
					sum = fork.Sum(p, s)
				}
				if sum != want {
					b.Fatalf("sum %d, want %d", sum, want)
				}
			}
			perItem(b, n, "ns/elem")
		})
	}
}
