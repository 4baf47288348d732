package fork_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spindle-go/spindle/fork"
)

// sortInputs are the shapes a sort must handle: random, already sorted,
// reversed, all equal, few distinct values, organ pipe, sawtooth, and sizes
// around the sequential leaf.
func sortInputs(rng *rand.Rand) map[string][]int {
	n := sized(200_000, 30_000)
	in := map[string][]int{}
	for _, size := range []int{0, 1, 2, 3, 2047, 2048, 2049, 5000} {
		s := make([]int, size)
		for i := range s {
			s[i] = rng.IntN(1000)
		}
		in[fmt.Sprintf("random-%d", size)] = s
	}
	gen := func(name string, f func(i int) int) {
		s := make([]int, n)
		for i := range s {
			s[i] = f(i)
		}
		in[name] = s
	}
	gen("random", func(int) int { return rng.Int() })
	gen("sorted", func(i int) int { return i })
	gen("reversed", func(i int) int { return n - i })
	gen("equal", func(int) int { return 7 })
	gen("few-distinct", func(int) int { return rng.IntN(4) })
	gen("organ-pipe", func(i int) int { return min(i, n-i) })
	gen("sawtooth", func(i int) int { return i % 1000 })
	gen("sorted-then-random", func(i int) int {
		if i < n/2 {
			return i
		}
		return rng.IntN(n)
	})
	return in
}

func TestSortMatchesSlicesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := sortInputs(rng)
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			for shape, in := range inputs {
				want := slices.Clone(in)
				slices.Sort(want)
				got := slices.Clone(in)
				fork.Sort(p, got)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: Sort differs from slices.Sort", shape)
				}
				got = slices.Clone(in)
				fork.SortFunc(p, got, func(a, b int) int { return cmp.Compare(b, a) }) // descending
				slices.Reverse(want)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: SortFunc (descending) differs from slices.SortFunc", shape)
				}
			}
		})
	}
}

// TestSortOrdersFloatsAsSlicesSort: NaNs, infinities and signed zeros end
// up where slices.Sort puts them (NaNs first).
func TestSortOrdersFloatsAsSlicesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := make([]float64, 50_000)
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}
	for i := range s {
		if rng.IntN(10) == 0 {
			s[i] = specials[rng.IntN(len(specials))]
		} else {
			s[i] = rng.NormFloat64()
		}
	}
	p := fork.NewPool(stealing)
	defer p.Close()
	got, want := slices.Clone(s), slices.Clone(s)
	fork.Sort(p, got)
	slices.Sort(want)
	for i := range got {
		if cmp.Compare(got[i], want[i]) != 0 {
			t.Fatalf("index %d: %v, slices.Sort has %v", i, got[i], want[i])
		}
	}
}

// TestSortFuncSortsStructsByKey checks SortFunc on a struct type against
// the sequential sort: the same keys in the same order, and the same
// multiset of elements (SortFunc is not stable).
func TestSortFuncSortsStructsByKey(t *testing.T) {
	type rec struct {
		key string
		seq int
	}
	rng := rand.New(rand.NewPCG(5, 6))
	s := make([]rec, 100_000)
	for i := range s {
		s[i] = rec{key: fmt.Sprintf("k%04d", rng.IntN(5000)), seq: i}
	}
	byKey := func(a, b rec) int { return strings.Compare(a.key, b.key) }
	p := fork.NewPool(stealing)
	defer p.Close()
	got := slices.Clone(s)
	fork.SortFunc(p, got, byKey)
	if !slices.IsSortedFunc(got, byKey) {
		t.Fatal("not sorted")
	}
	seen := make([]bool, len(s))
	for _, r := range got {
		if seen[r.seq] {
			t.Fatalf("element %d appears twice", r.seq)
		}
		seen[r.seq] = true
	}
}

// TestSortFuncPanicReachesCaller: a panic in cmp, on whichever worker,
// reaches the caller with its value; the slice keeps its elements and the
// pool stays usable.
func TestSortFuncPanicReachesCaller(t *testing.T) {
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			rng := rand.New(rand.NewPCG(7, 8))
			s := make([]int, 100_000)
			for i := range s {
				s[i] = rng.Int()
			}
			var calls atomic.Int64
			got := catch(func() {
				fork.SortFunc(p, s, func(a, b int) int {
					if calls.Add(1) == 500_000 {
						panic(errSentinel)
					}
					return cmp.Compare(a, b)
				})
			})
			if got != errSentinel {
				t.Fatalf("recovered %v, want errSentinel", got)
			}
			checkUsable(t, p)
		})
	}
}

func TestMapMatchesSequential(t *testing.T) {
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			for _, n := range []int{0, 1, 1000, sized(300_000, 40_000)} {
				in := make([]int, n)
				for i := range in {
					in[i] = i
				}
				got := fork.Map(p, in, func(x int) string { return fmt.Sprint(x * 3) })
				if len(got) != n {
					t.Fatalf("len %d, want %d", len(got), n)
				}
				for i, s := range got {
					if s != fmt.Sprint(i*3) {
						t.Fatalf("Map[%d] = %q", i, s)
					}
				}
			}
		})
	}
}

func TestEachVisitsEveryElementOnce(t *testing.T) {
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			s := make([]int32, sized(500_000, 50_000))
			fork.Each(p, s, func(i int, e *int32) {
				atomic.AddInt32(e, int32(i%7+1))
			})
			for i, v := range s {
				if v != int32(i%7+1) {
					t.Fatalf("element %d = %d, want %d", i, v, i%7+1)
				}
			}
			fork.Each(p, []int(nil), func(int, *int) { t.Fatal("called on an empty slice") })
		})
	}
}

func TestMapAndEachPanicsReachCaller(t *testing.T) {
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			in := make([]int, 200_000)
			got := catch(func() {
				fork.Map(p, in, func(x int) int {
					if spin(200)+x >= 0 {
						panic(errSentinel)
					}
					return x
				})
			})
			if got != errSentinel {
				t.Fatalf("Map: recovered %v", got)
			}
			got = catch(func() {
				fork.Each(p, in, func(i int, _ *int) {
					if i == len(in)-1 {
						panic("last")
					}
				})
			})
			if got != "last" {
				t.Fatalf("Each: recovered %v", got)
			}
			checkUsable(t, p)
		})
	}
}

// sized returns full, or short under -short: the race detector makes the
// big inputs slow, and CI runs every package with -race -short.
func sized(full, short int) int {
	if testing.Short() {
		return short
	}
	return full
}

// spin burns about n nanoseconds of CPU.
func spin(n int) int {
	x := 0
	for i := range n {
		x += i * i
	}
	return x
}

func TestSumAndMinMaxMatchSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			for _, n := range []int{0, 1, 511, 512, 513, 100_000, sized(1_000_003, 200_003)} {
				ints := make([]int64, n)
				floats := make([]float64, n)
				for i := range ints {
					ints[i] = rng.Int64() // sums overflow: wrapping must match
					floats[i] = rng.Float64()
				}
				var wantInt int64
				var wantFloat float64
				for i := range ints {
					wantInt += ints[i]
					wantFloat += floats[i]
				}
				if got := fork.Sum(p, ints); got != wantInt {
					t.Fatalf("n=%d: Sum = %d, want %d", n, got, wantInt)
				}
				if got := fork.Sum(p, floats); math.Abs(got-wantFloat) > 1e-9*math.Max(1, wantFloat) {
					t.Fatalf("n=%d: float Sum = %v, want %v", n, got, wantFloat)
				}
				lo, hi, ok := fork.MinMax(p, ints)
				if ok != (n > 0) || (n > 0 && (lo != slices.Min(ints) || hi != slices.Max(ints))) {
					t.Fatalf("n=%d: MinMax = %d, %d, %v", n, lo, hi, ok)
				}
			}
			f := make([]float64, 10_000)
			f[7777] = math.NaN()
			if lo, hi, _ := fork.MinMax(p, f); !math.IsNaN(lo) || !math.IsNaN(hi) {
				t.Fatalf("MinMax with a NaN = %v, %v; want NaN, NaN", lo, hi)
			}
		})
	}
}

// TestSortAllocatesLittle: the parallel sort allocates a few records per
// Call (at most one per fork depth), never per element.
func TestSortAllocatesLittle(t *testing.T) {
	p := fork.NewPool(fork.Config{Workers: 1})
	defer p.Close()
	rng := rand.New(rand.NewPCG(11, 12))
	src := make([]int, 100_000)
	for i := range src {
		src[i] = rng.Int()
	}
	s := make([]int, len(src))
	allocs := testing.AllocsPerRun(10, func() {
		copy(s, src)
		fork.Sort(p, s)
	})
	if allocs > 2 {
		t.Fatalf("Sort allocated %v times per call, want at most 2", allocs)
	}
}
