package fork_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spindle-go/spindle/fork"
)

// sumRec is sumFork written with Frames: fork the right child, walk the
// left.
func sumRec(f *fork.Frame[*node, int], n *node) int {
	s := n.val
	if n.left != nil && n.right != nil {
		g := f.Fork(n.right)
		s += sumRec(&g, n.left)
		return s + g.Join(sumRec)
	}
	if n.left != nil {
		s += sumRec(f, n.left)
	}
	if n.right != nil {
		s += sumRec(f, n.right)
	}
	return s
}

func TestRecurseMatchesPlainRecursion(t *testing.T) {
	sizes := []int{1, 2, 3, 1023, 1<<16 - 1}
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			for _, size := range sizes {
				root := balanced(1, size)
				want := sumSeq(root)
				for range 5 {
					if got := fork.Recurse(p, sumRec, root); got != want {
						t.Fatalf("size %d: sum = %d, want %d", size, got, want)
					}
				}
			}
		})
	}
}

// slowFib forks at every level and spins at the leaves, so that Calls last
// many heartbeats and forks are taken.
func slowFib(f *fork.Frame[int, int], n int) int {
	if n < 2 {
		for range 200 {
			f.Tick()
		}
		return n
	}
	g := f.Fork(n - 2)
	a := slowFib(&g, n-1)
	return a + g.Join(slowFib)
}

func TestRecurseForksAreTaken(t *testing.T) {
	p := fork.NewPool(stealing)
	defer p.Close()
	// A call runs on another worker's Task when another worker took it
	// (or one of its callers).
	var taken atomic.Int64
	var top atomic.Pointer[fork.Task]
	var count func(f *fork.Frame[int, int], n int) int
	count = func(f *fork.Frame[int, int], n int) int {
		if t := f.Task(); !top.CompareAndSwap(nil, t) && t != top.Load() {
			taken.Add(1)
		}
		if n < 2 {
			for range 200 {
				f.Tick()
			}
			return n
		}
		g := f.Fork(n - 2)
		a := count(&g, n-1)
		return a + g.Join(count)
	}
	// The heartbeat comes from the idle worker, which a loaded machine
	// (the race detector, other packages' tests) may not run for a while:
	// try for up to 10 seconds.
	runs := 0
	for start := time.Now(); taken.Load() == 0 && time.Since(start) < 10*time.Second; runs++ {
		if got := fork.Recurse(p, count, 16); got != 987 {
			t.Fatalf("fib(16) = %d", got)
		}
		top.Store(nil)
	}
	if taken.Load() == 0 {
		t.Fatalf("no fork was taken by another worker in %d runs of fib(16) (10s) with a 1µs heartbeat", runs)
	}
}

func TestRecursePanicReachesCaller(t *testing.T) {
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			var boom func(f *fork.Frame[int, int], n int) int
			boom = func(f *fork.Frame[int, int], n int) int {
				if n < 2 {
					for range 100 {
						f.Tick()
					}
					if n == 1 {
						panic(errSentinel)
					}
					return 0
				}
				g := f.Fork(n - 2)
				a := boom(&g, n-1)
				return a + g.Join(boom)
			}
			for range 10 {
				if got := catch(func() { fork.Recurse(p, boom, 16) }); got != errSentinel {
					t.Fatalf("panic = %#v, want errSentinel", got)
				}
				checkUsable(t, p)
			}
			if got := fork.Recurse(p, slowFib, 12); got != 144 {
				t.Fatalf("after panics: fib(12) = %d", got)
			}
		})
	}
}

func TestRecurseMisusePanics(t *testing.T) {
	cases := []struct {
		name string
		f    func(f *fork.Frame[int, int], n int) int
		want string
	}{
		{"join of the root frame", func(f *fork.Frame[int, int], n int) int {
			f.Join(nil)
			return 0
		}, "Join of the Frame that Recurse passed in"},
		{"future left unjoined", func(f *fork.Frame[int, int], n int) int {
			var fu fork.Future[int, int]
			fu.Fork(f.Task(), func(*fork.Task, int) int { return 0 }, 1)
			return 0
		}, "without joining"},
		{"join with a future above", func(f *fork.Frame[int, int], n int) int {
			g := f.Fork(1)
			var fu fork.Future[int, int]
			fu.Fork(f.Task(), func(*fork.Task, int) int { return 0 }, 1)
			// g is local: its Join is the fast path, which checks nothing;
			// the Future is left unjoined, and Recurse says so.
			g.Join(func(*fork.Frame[int, int], int) int { return 0 })
			return 0
		}, "without joining"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := fork.NewPool(fork.Config{Workers: 2})
			defer p.Close()
			got := catch(func() { fork.Recurse(p, c.f, 0) })
			msg, _ := got.(string)
			if !strings.Contains(msg, c.want) {
				t.Fatalf("panic = %#v, want a message containing %q", got, c.want)
			}
			checkUsable(t, p)
		})
	}
}

// TestRecurseNestsWithTheRest runs Rec computations inside Call, For and
// other Recs (through Task), and Futures and loops inside a Rec.
func TestRecurseNestsWithTheRest(t *testing.T) {
	root := balanced(1, 2047)
	want := sumSeq(root)
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			got := fork.Call(p, func(t *fork.Task, _ int) int {
				sums := make([]int, 8)
				fork.For(t, 0, len(sums), func(t *fork.Task, i int) {
					sums[i] = fork.RecurseTask(t, sumRec, root)
				})
				s := 0
				for _, v := range sums {
					s += v
				}
				return s
			}, 0)
			if got != 8*want {
				t.Fatalf("For of Recurse: %d, want %d", got, 8*want)
			}
			var outer func(f *fork.Frame[int, int], n int) int
			outer = func(f *fork.Frame[int, int], n int) int {
				if n == 0 {
					return fork.Reduce(f.Task(), 0, 4, 0,
						func(t *fork.Task, _ int) int { return fork.RecurseTask(t, sumRec, root) },
						func(a, b int) int { return a + b })
				}
				g := f.Fork(n - 1)
				a := outer(&g, n-1)
				return a + g.Join(outer)
			}
			if got := fork.Recurse(p, outer, 4); got != 16*4*want {
				t.Fatalf("Rec of Reduce of Rec: %d, want %d", got, 64*want)
			}
		})
	}
}

func TestRecurseAllocatesNothingWhenUntaken(t *testing.T) {
	if raceEnabled {
		t.Skip("with the race detector, frames move to the heap (see race_test.go)")
	}
	p := fork.NewPool(fork.Config{Workers: 1})
	defer p.Close()
	root := balanced(1, 1023)
	fork.Recurse(p, sumRec, root)
	if n := testing.AllocsPerRun(20, func() { fork.Recurse(p, sumRec, root) }); n != 0 {
		t.Fatalf("%v allocations per Recurse of a 1023-node tree on 1 worker", n)
	}
}

// recChain(f, n) forks a leaf (-1) at each of n levels and counts the
// leaves: n+1. The leaves tick, so that a heartbeat reaches a chain deeper
// than the walk's bound (maxWalk) while it is that deep.
func recChain(f *fork.Frame[int, int], n int) int {
	if n <= 0 {
		for range 10 {
			f.Tick()
		}
		return 1
	}
	g := f.Fork(-1)
	v := recChain(&g, n-1)
	return v + g.Join(recChain)
}

// TestRecurseDeepChains forks 100,000 deep before joining anything: the
// goroutine's stack, which holds the frames, grows and moves many times
// while forks are pending, with and without thieves.
func TestRecurseDeepChains(t *testing.T) {
	const depth = 100_000
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			if got := fork.Recurse(p, recChain, depth); got != depth+1 {
				t.Fatalf("chain of %d: %d leaves, want %d", depth, got, depth+1)
			}
		})
	}
}

func TestConcurrentRecursesShareAPool(t *testing.T) {
	p := fork.NewPool(fork.Config{Workers: 3, Heartbeat: 2 * time.Microsecond})
	defer p.Close()
	root := balanced(1, 1<<12-1)
	want := sumSeq(root)
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Go(func() {
			for i := range 30 {
				var got int
				if g%2 == 0 {
					got = fork.Recurse(p, sumRec, root)
				} else {
					got = fork.Call(p, sumFork, root)
				}
				if got != want {
					errs <- fmt.Sprintf("caller %d round %d: %d, want %d", g, i, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestRecurseStress runs many Recurses with forks taken all the time: a
// heartbeat of a microsecond on 2 and 3 workers.
func TestRecurseStress(t *testing.T) {
	rounds := 400
	if testing.Short() {
		rounds = 100
	}
	root := balanced(1, 1<<14-1)
	want := sumSeq(root)
	for _, w := range []int{2, 3} {
		p := fork.NewPool(fork.Config{Workers: w, Heartbeat: time.Microsecond})
		for i := range rounds {
			if got := fork.Recurse(p, sumRec, root); got != want {
				t.Fatalf("%d workers, round %d: sum = %d, want %d", w, i, got, want)
			}
		}
		p.Close()
	}
}

// TestCloseStopsTheBeater checks that Close leaves no goroutine behind:
// the workers and the beater, which a Recurse with idle workers wakes.
func TestCloseStopsTheBeater(t *testing.T) {
	for range 5 {
		p := fork.NewPool(fork.Config{Workers: 3, Heartbeat: time.Microsecond})
		root := balanced(1, 1<<14-1)
		if got, want := fork.Recurse(p, sumRec, root), sumSeq(root); got != want {
			t.Fatalf("sum = %d, want %d", got, want)
		}
		p.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		beaters, workers := goroutinesIn("fork.(*Pool).beater", ""), goroutinesIn("fork.(*Pool).work", "")
		if beaters == 0 && workers == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Close: %d beater and %d worker goroutines left", beaters, workers)
		}
		time.Sleep(time.Millisecond)
	}
}
