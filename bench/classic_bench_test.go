package bench

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/spindle-go/spindle/fork"
	"github.com/spindle-go/spindle/internal/classic"
)

// BenchmarkClassic runs the classic fork/join programs (tzcnt's
// runtime-benchmarks: fib, nqueens, skynet, matmul) every way
// internal/classic writes them, plus errgroup, each forking at every call:
//
//	go test -run '^$' -bench Classic -cpu 2 -count 6 . > classic.txt
//	benchstat -col /impl classic.txt
//
// impl=plain is sequential Go; goroutines a goroutine and WaitGroup per
// fork; errgroup an errgroup.Group per fork; chanpool a pool of GOMAXPROCS
// goroutines fed by a channel (a fork runs inline when no pool goroutine
// waits); fork-1worker and fork-2workers package fork's Frame on a Pool of 1
// and 2 workers (fork-Nworkers, N = GOMAXPROCS, too when GOMAXPROCS > 2).
// fib(35) runs plain and fork only: a goroutine per call there is 15M
// goroutines. Each reports ns per call (fib), per node (nqueens, skynet)
// or per leaf block (matmul) besides ns/op.
func BenchmarkClassic(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	workerCounts := []int{1, 2}
	if procs > 2 {
		workerCounts = append(workerCounts, procs)
	}
	type impl struct {
		name string
		run  func() int
	}
	bench := func(b *testing.B, prog string, units int, unit string, want int, impls []impl) {
		for _, im := range impls {
			b.Run(fmt.Sprintf("prog=%s/impl=%s", prog, im.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if got := im.run(); got != want {
						b.Fatalf("%s %s = %d, want %d", prog, im.name, got, want)
					}
				}
				perUnit(b, units, unit)
			})
		}
	}
	cp := classic.NewChanPool(procs)
	defer cp.Close()
	pools := map[int]*fork.Pool{}
	for _, w := range workerCounts {
		pools[w] = fork.NewPool(fork.Config{Workers: w})
		defer pools[w].Close()
	}
	forkImpls := func(run func(p *fork.Pool) int) []impl {
		var out []impl
		for _, w := range workerCounts {
			name := "fork-1worker"
			if w > 1 {
				name = fmt.Sprintf("fork-%dworkers", w)
			}
			p := pools[w]
			out = append(out, impl{name, func() int { return run(p) }})
		}
		return out
	}

	for _, n := range []int{30, 35} {
		calls := fibCalls(n)
		impls := []impl{{"plain", func() int { return classic.FibSeq(n) }}}
		if n <= 30 {
			impls = append(impls,
				impl{"goroutines", func() int { return classic.FibGo(n) }},
				impl{"errgroup", func() int { return fibErrgroup(n) }},
				impl{"chanpool", func() int { return classic.FibPool(cp, n) }})
		}
		impls = append(impls, forkImpls(func(p *fork.Pool) int { return fork.Recurse(p, classic.FibRec, n) })...)
		bench(b, fmt.Sprintf("fib-%d", n), calls, "ns/call", classic.FibSeq(n), impls)
	}

	board := classic.NewBoard(12)
	bench(b, "nqueens-12", queensNodes(board), "ns/node", classic.QueensSeq(board), append([]impl{
		{"plain", func() int { return classic.QueensSeq(board) }},
		{"goroutines", func() int { return classic.QueensGo(board) }},
		{"errgroup", func() int { return queensErrgroup(board) }},
		{"chanpool", func() int { return classic.QueensPool(cp, board) }},
	}, forkImpls(func(p *fork.Pool) int { return fork.Recurse(p, classic.QueensRec, board) })...))

	sky := classic.Sky{Size: 1_000_000}
	bench(b, "skynet-1M", 1_111_111, "ns/node", classic.SkynetSum(sky.Size), append([]impl{
		{"plain", func() int { return classic.SkySeq(sky) }},
		{"goroutines", func() int { return classic.SkyGo(sky) }},
		{"errgroup", func() int { return skyErrgroup(sky) }},
		{"chanpool", func() int { return classic.SkyPool(cp, sky) }},
	}, forkImpls(func(p *fork.Pool) int { return fork.Recurse(p, classic.SkyRec, sky) })...))

	const n = 512
	a := classic.NewMat(n, func(i, j int) float64 { return float64((i*7 + j*3) % 11) })
	bm := classic.NewMat(n, func(i, j int) float64 { return float64((i*5 + j) % 13) })
	c := classic.NewMat(n, func(int, int) float64 { return 0 })
	ref := classic.NewMat(n, func(int, int) float64 { return 0 })
	classic.MatSeq(classic.Full(ref, a, bm))
	mat := func(run func(classic.MM)) func() int {
		return func() int {
			clear(c.V)
			run(classic.Full(c, a, bm))
			if !slices.Equal(c.V, ref.V) {
				return -1
			}
			return 0
		}
	}
	blocks := (n / classic.MatLeaf) * (n / classic.MatLeaf) * (n / classic.MatLeaf)
	bench(b, "matmul-512", blocks, "ns/block", 0, append([]impl{
		{"plain", mat(func(m classic.MM) { classic.MatSeq(m) })},
		{"goroutines", mat(func(m classic.MM) { classic.MatGo(m) })},
		{"errgroup", mat(func(m classic.MM) { matErrgroup(m) })},
		{"chanpool", mat(func(m classic.MM) { classic.MatPool(cp, m) })},
	}, forkImpls(func(p *fork.Pool) int {
		return mat(func(m classic.MM) { fork.Recurse(p, classic.MatRec, m) })()
	})...))
}

// BenchmarkSpiceTree is Spice's method: the sum of a balanced binary tree
// with a fork at every node, plain recursion against fork on 1 worker and
// on 2 (and GOMAXPROCS) workers, at 1023 nodes (shorter than a heartbeat:
// nothing should be shared) and 2^20 to 2^24 nodes. fork-rec is Frame,
// fork-future Future. -short leaves out the trees above 2^20.
//
//	go test -run '^$' -bench SpiceTree -cpu 2 -count 6 . > tree.txt
//	benchstat -col /impl tree.txt
func BenchmarkSpiceTree(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	workerCounts := []int{1, 2}
	if procs > 2 {
		workerCounts = append(workerCounts, procs)
	}
	for _, size := range []int{1023, 1<<20 - 1, 1<<22 - 1, 1<<24 - 1} {
		if size > 1<<20 && testing.Short() {
			continue
		}
		root := classic.Balanced(1, size)
		want := classic.TreeSeq(root)
		run := func(name string, f func() int) {
			b.Run(fmt.Sprintf("nodes=%d/impl=%s", size, name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if got := f(); got != want {
						b.Fatalf("sum %d, want %d", got, want)
					}
				}
				perUnit(b, size, "ns/node")
			})
		}
		run("plain", func() int { return classic.TreeSeq(root) })
		for _, w := range workerCounts {
			p := fork.NewPool(fork.Config{Workers: w})
			run(fmt.Sprintf("fork-rec-%dw", w), func() int { return fork.Recurse(p, classic.TreeRec, root) })
			run(fmt.Sprintf("fork-future-%dw", w), func() int { return fork.Call(p, classic.TreeFuture, root) })
			p.Close()
		}
		root = nil
		runtime.GC()
	}
}

func fibCalls(n int) int {
	if n < 2 {
		return 1
	}
	return 1 + fibCalls(n-1) + fibCalls(n-2)
}

func queensNodes(b classic.Board) int {
	if b.Row == b.N {
		return 1
	}
	n := 1
	free := ^(b.Cols | b.D1 | b.D2) & (1<<b.N - 1)
	for ; free != 0; free &= free - 1 {
		bit := free & -free
		n += queensNodes(classic.Board{N: b.N, Row: b.Row + 1, Cols: b.Cols | bit, D1: (b.D1 | bit) << 1, D2: (b.D2 | bit) >> 1})
	}
	return n
}

// The errgroup versions: an errgroup.Group per fork point, Go for each
// forked call, Wait to join.

func fibErrgroup(n int) int {
	if n < 2 {
		return n
	}
	var g errgroup.Group
	var x int
	g.Go(func() error { x = fibErrgroup(n - 2); return nil })
	y := fibErrgroup(n - 1)
	g.Wait()
	return x + y
}

func queensErrgroup(b classic.Board) int {
	if b.Row == b.N {
		return 1
	}
	var g errgroup.Group
	var counts [32]int
	k := 0
	free := ^(b.Cols | b.D1 | b.D2) & (1<<b.N - 1)
	for ; free != 0; free &= free - 1 {
		bit := free & -free
		next := classic.Board{N: b.N, Row: b.Row + 1, Cols: b.Cols | bit, D1: (b.D1 | bit) << 1, D2: (b.D2 | bit) >> 1}
		c := &counts[k]
		k++
		if free&(free-1) == 0 { // the last square: walk it here
			*c = queensErrgroup(next)
			break
		}
		g.Go(func() error { *c = queensErrgroup(next); return nil })
	}
	g.Wait()
	n := 0
	for _, c := range counts[:k] {
		n += c
	}
	return n
}

func skyErrgroup(s classic.Sky) int {
	if s.Size == 1 {
		return s.Num
	}
	sub := s.Size / 10
	var sums [10]int
	var g errgroup.Group
	for i := 1; i < 10; i++ {
		g.Go(func() error { sums[i] = skyErrgroup(classic.Sky{Num: s.Num + i*sub, Size: sub}); return nil })
	}
	sums[0] = skyErrgroup(classic.Sky{Num: s.Num, Size: sub})
	g.Wait()
	sum := 0
	for _, v := range sums {
		sum += v
	}
	return sum
}

func matErrgroup(m classic.MM) {
	if m.Sz <= classic.MatLeaf {
		classic.MatSeq(m)
		return
	}
	h := m.Sz / 2
	for k := range 2 {
		var g errgroup.Group
		for q := 1; q < 4; q++ {
			ci, cj := q/2, q%2
			s := classic.MM{C: m.C, A: m.A, B: m.B, CI: m.CI + ci*h, CJ: m.CJ + cj*h, AI: m.AI + ci*h, AJ: m.AJ + k*h, BI: m.BI + k*h, BJ: m.BJ + cj*h, Sz: h}
			g.Go(func() error { matErrgroup(s); return nil })
		}
		matErrgroup(classic.MM{C: m.C, A: m.A, B: m.B, CI: m.CI, CJ: m.CJ, AI: m.AI, AJ: m.AJ + k*h, BI: m.BI + k*h, BJ: m.BJ, Sz: h})
		g.Wait()
	}
}

// BenchmarkTwoCopies measures what two cores give plain code on this
// machine, the ceiling for any 2-worker speed-up over plain recursion: one
// copy of the plain program (impl=one), then two copies at once on two
// goroutines (impl=two; ns per unit is per copy's unit, wall time over
// both copies' units). The ceiling is one's ns/unit over two's, at most 2
// on two real cores; less where the cores share caches, memory bandwidth
// or a turbo budget, or are hyperthreads of one core. -short leaves out
// the 2^24-node tree.
//
//	go test -run '^$' -bench TwoCopies -cpu 2 -count 10 . > two.txt
//	benchstat -col /impl two.txt
func BenchmarkTwoCopies(b *testing.B) {
	root := classic.Balanced(1, 1<<20-1)
	type prog struct {
		name  string
		units int
		run   func() int
	}
	progs := []prog{
		{"tree-2^20", 1<<20 - 1, func() int { return classic.TreeSeq(root) }},
		{"fib-30", fibCalls(30), func() int { return classic.FibSeq(30) }},
	}
	if !testing.Short() {
		// Far bigger than the last-level cache: the two copies share the
		// memory bandwidth (SpiceTree's 2^24 rows).
		big := classic.Balanced(1, 1<<24-1)
		progs = append(progs, prog{"tree-2^24", 1<<24 - 1, func() int { return classic.TreeSeq(big) }})
	}
	for _, pr := range progs {
		want := pr.run()
		check := func(got int) {
			if got != want {
				b.Fatalf("%s = %d, want %d", pr.name, got, want)
			}
		}
		b.Run("prog="+pr.name+"/impl=one", func(b *testing.B) {
			for b.Loop() {
				check(pr.run())
			}
			perUnit(b, pr.units, "ns/unit")
		})
		b.Run("prog="+pr.name+"/impl=two", func(b *testing.B) {
			for b.Loop() {
				done := make(chan int)
				go func() { done <- pr.run() }()
				check(pr.run())
				check(<-done)
			}
			perUnit(b, 2*pr.units, "ns/unit")
		})
	}
}
