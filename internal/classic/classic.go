package classic

import (
	"sync"

	"github.com/spindle-go/spindle/fork"
)

// ChanPool is a fixed pool of goroutines fed by an unbuffered channel.
type ChanPool struct {
	ch chan func()
	wg sync.WaitGroup
}

// NewChanPool starts n goroutines.
func NewChanPool(n int) *ChanPool {
	p := &ChanPool{ch: make(chan func())}
	for range n {
		p.wg.Go(func() {
			for f := range p.ch {
				f()
			}
		})
	}
	return p
}

// Close stops the goroutines and waits for them.
func (p *ChanPool) Close() {
	close(p.ch)
	p.wg.Wait()
}

// spawn runs f on a waiting pool goroutine, or here if none waits, and
// marks wg done when f returns.
func (p *ChanPool) spawn(wg *sync.WaitGroup, f func()) {
	wg.Add(1)
	g := func() { f(); wg.Done() }
	select {
	case p.ch <- g:
	default:
		g()
	}
}

// Fib: the naive doubly recursive Fibonacci function, a fork at every call
// with n ≥ 2.

// FibSeq is plain recursion.
func FibSeq(n int) int {
	if n < 2 {
		return n
	}
	return FibSeq(n-1) + FibSeq(n-2)
}

// FibGo forks a goroutine for fib(n-2) at every call.
func FibGo(n int) int {
	if n < 2 {
		return n
	}
	var b int
	var wg sync.WaitGroup
	wg.Go(func() { b = FibGo(n - 2) })
	a := FibGo(n - 1)
	wg.Wait()
	return a + b
}

// FibPool forks fib(n-2) to the channel pool at every call.
func FibPool(p *ChanPool, n int) int {
	if n < 2 {
		return n
	}
	var b int
	var wg sync.WaitGroup
	p.spawn(&wg, func() { b = FibPool(p, n-2) })
	a := FibPool(p, n-1)
	wg.Wait()
	return a + b
}

// FibRec forks fib(n-2) with a fork.Frame at every call.
func FibRec(f *fork.Frame[int, int], n int) int {
	if n < 2 {
		return n
	}
	g := f.Fork(n - 2)
	a := FibRec(&g, n-1)
	return a + g.Join(FibRec)
}

// FibFuture forks fib(n-2) with fork.Future at every call.
func FibFuture(t *fork.Task, n int) int {
	if n < 2 {
		return n
	}
	var f fork.Future[int, int]
	f.Fork(t, FibFuture, n-2)
	a := FibFuture(t, n-1)
	b, ok := f.Join(t)
	if !ok {
		b = FibFuture(t, n-2)
	}
	return a + b
}

// NQueens counts the ways to place N queens on an N×N board, a fork for
// every square of a row where a queen can go (all but the last, which the
// forking call walks itself).

// Board is a partial placement: the rows filled so far, and the columns
// and diagonals they attack, as bit sets. Try, used by QueensRec, is the
// set of squares of row Row still to try; zero means every free one.
type Board struct {
	N, Row       int
	Cols, D1, D2 uint32
	Try          uint32
}

// NewBoard is an empty n×n board (n ≤ 32).
func NewBoard(n int) Board { return Board{N: n} }

func (b Board) free() uint32 { return ^(b.Cols | b.D1 | b.D2) & (1<<b.N - 1) }

func (b Board) place(bit uint32) Board {
	return Board{N: b.N, Row: b.Row + 1, Cols: b.Cols | bit, D1: (b.D1 | bit) << 1, D2: (b.D2 | bit) >> 1}
}

// QueensSeq is plain recursion.
func QueensSeq(b Board) int {
	if b.Row == b.N {
		return 1
	}
	n := 0
	for free := b.free(); free != 0; free &= free - 1 {
		n += QueensSeq(b.place(free & -free))
	}
	return n
}

// QueensGo forks a goroutine for every square but the last.
func QueensGo(b Board) int {
	if b.Row == b.N {
		return 1
	}
	var counts [32]int
	var wg sync.WaitGroup
	k := 0
	free := b.free()
	for ; free&(free-1) != 0; free &= free - 1 {
		c, next := &counts[k], b.place(free&-free)
		wg.Go(func() { *c = QueensGo(next) })
		k++
	}
	n := 0
	if free != 0 {
		n = QueensGo(b.place(free))
	}
	wg.Wait()
	for _, c := range counts[:k] {
		n += c
	}
	return n
}

// QueensPool forks every square but the last to the channel pool.
func QueensPool(p *ChanPool, b Board) int {
	if b.Row == b.N {
		return 1
	}
	var counts [32]int
	var wg sync.WaitGroup
	k := 0
	free := b.free()
	for ; free&(free-1) != 0; free &= free - 1 {
		c, next := &counts[k], b.place(free&-free)
		p.spawn(&wg, func() { *c = QueensPool(p, next) })
		k++
	}
	n := 0
	if free != 0 {
		n = QueensPool(p, b.place(free))
	}
	wg.Wait()
	for _, c := range counts[:k] {
		n += c
	}
	return n
}

// QueensRec forks every square but the last with a fork.Frame: it
// places a queen on the first square to try and forks the others as one
// call, which forks the next, and so on (a loop of forks, one frame each).
func QueensRec(f *fork.Frame[Board, int], b Board) int {
	if b.Row == b.N {
		return 1
	}
	try := b.Try
	if try == 0 {
		try = b.free()
	}
	low := try & -try
	if low == try {
		if low == 0 {
			return 0
		}
		return QueensRec(f, b.place(low))
	}
	rest := b
	rest.Try = try &^ low
	g := f.Fork(rest)
	n := QueensRec(&g, b.place(low))
	return n + g.Join(QueensRec)
}

// Skynet: a tree of Size leaves, ten children per node, whose leaves are
// numbered; the sum of the numbers. Every node forks nine children and
// walks the first itself.

// Sky is a subtree: its first leaf and its number of leaves (a power of 10).
type Sky struct{ Num, Size int }

// SkynetSum is the answer for a tree of size leaves.
func SkynetSum(size int) int { return size * (size - 1) / 2 }

// SkySeq is plain recursion.
func SkySeq(s Sky) int {
	if s.Size == 1 {
		return s.Num
	}
	sub, sum := s.Size/10, 0
	for i := range 10 {
		sum += SkySeq(Sky{Num: s.Num + i*sub, Size: sub})
	}
	return sum
}

// SkyGo forks a goroutine for each child but the first.
func SkyGo(s Sky) int {
	if s.Size == 1 {
		return s.Num
	}
	sub := s.Size / 10
	var sums [10]int
	var wg sync.WaitGroup
	for i := 1; i < 10; i++ {
		wg.Go(func() { sums[i] = SkyGo(Sky{Num: s.Num + i*sub, Size: sub}) })
	}
	sums[0] = SkyGo(Sky{Num: s.Num, Size: sub})
	wg.Wait()
	sum := 0
	for _, v := range sums {
		sum += v
	}
	return sum
}

// SkyPool forks each child but the first to the channel pool.
func SkyPool(p *ChanPool, s Sky) int {
	if s.Size == 1 {
		return s.Num
	}
	sub := s.Size / 10
	var sums [10]int
	var wg sync.WaitGroup
	for i := 1; i < 10; i++ {
		p.spawn(&wg, func() { sums[i] = SkyPool(p, Sky{Num: s.Num + i*sub, Size: sub}) })
	}
	sums[0] = SkyPool(p, Sky{Num: s.Num, Size: sub})
	wg.Wait()
	sum := 0
	for _, v := range sums {
		sum += v
	}
	return sum
}

// SkyRec forks each child but the first with a fork.Frame: nine frames,
// each forked from the one before, joined newest first.
func SkyRec(f *fork.Frame[Sky, int], s Sky) int {
	if s.Size == 1 {
		return s.Num
	}
	sub := s.Size / 10
	var gs [9]fork.Frame[Sky, int]
	gs[0] = f.Fork(Sky{Num: s.Num + sub, Size: sub})
	for i := 1; i < 9; i++ {
		gs[i] = gs[i-1].Fork(Sky{Num: s.Num + (i+1)*sub, Size: sub})
	}
	sum := SkyRec(&gs[8], Sky{Num: s.Num, Size: sub})
	for i := 8; i >= 0; i-- {
		sum += gs[i].Join(SkyRec)
	}
	return sum
}
