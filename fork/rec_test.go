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

// sumRec is sumFork written with Rec: fork the right child, walk the left.
func sumRec(r *fork.Rec[*node, int], n *node) int {
	s := n.val
	if n.left != nil && n.right != nil {
		r.Fork(n.right)
		s += sumRec(r, n.left)
		v, ok := r.Join()
		if !ok {
			v = sumRec(r, n.right)
		}
		return s + v
	}
	if n.left != nil {
		s += sumRec(r, n.left)
	}
	if n.right != nil {
		s += sumRec(r, n.right)
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
func slowFib(r *fork.Rec[int, int], n int) int {
	if n < 2 {
		for range 200 {
			r.Tick()
		}
		return n
	}
	r.Fork(n - 2)
	a := slowFib(r, n-1)
	b, ok := r.Join()
	if !ok {
		b = slowFib(r, n-2)
	}
	return a + b
}

func TestRecurseForksAreTaken(t *testing.T) {
	p := fork.NewPool(stealing)
	defer p.Close()
	var taken atomic.Int64
	var count func(r *fork.Rec[int, int], n int) int
	count = func(r *fork.Rec[int, int], n int) int {
		if n < 2 {
			for range 200 {
				r.Tick()
			}
			return n
		}
		r.Fork(n - 2)
		a := count(r, n-1)
		b, ok := r.Join()
		if ok {
			taken.Add(1)
		} else {
			b = count(r, n-2)
		}
		return a + b
	}
	for i := 0; i < 50 && taken.Load() == 0; i++ {
		if got := fork.Recurse(p, count, 16); got != 987 {
			t.Fatalf("fib(16) = %d", got)
		}
	}
	if taken.Load() == 0 {
		t.Fatal("no fork was taken by another worker in 50 runs of fib(16) with a 1µs heartbeat")
	}
}

func TestRecursePanicReachesCaller(t *testing.T) {
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			var boom func(r *fork.Rec[int, int], n int) int
			boom = func(r *fork.Rec[int, int], n int) int {
				if n < 2 {
					for range 100 {
						r.Tick()
					}
					if n == 1 {
						panic(errSentinel)
					}
					return 0
				}
				r.Fork(n - 2)
				a := boom(r, n-1)
				b, ok := r.Join()
				if !ok {
					b = boom(r, n-2)
				}
				return a + b
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
		f    func(r *fork.Rec[int, int], n int) int
		want string
	}{
		{"join without fork", func(r *fork.Rec[int, int], n int) int {
			r.Join()
			return 0
		}, "without a fork"},
		{"return without join", func(r *fork.Rec[int, int], n int) int {
			r.Fork(1)
			return 0
		}, "without joining"},
		{"future left unjoined", func(r *fork.Rec[int, int], n int) int {
			var f fork.Future[int, int]
			f.Fork(r.Task(), func(*fork.Task, int) int { return 0 }, 1)
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
			var outer func(r *fork.Rec[int, int], n int) int
			outer = func(r *fork.Rec[int, int], n int) int {
				if n == 0 {
					return fork.Reduce(r.Task(), 0, 4, 0,
						func(t *fork.Task, _ int) int { return fork.RecurseTask(t, sumRec, root) },
						func(a, b int) int { return a + b })
				}
				r.Fork(n - 1)
				a := outer(r, n-1)
				b, ok := r.Join()
				if !ok {
					b = outer(r, n-1)
				}
				return a + b
			}
			if got := fork.Recurse(p, outer, 4); got != 16*4*want {
				t.Fatalf("Rec of Reduce of Rec: %d, want %d", got, 64*want)
			}
		})
	}
}

func TestRecurseAllocatesNothingWhenUntaken(t *testing.T) {
	p := fork.NewPool(fork.Config{Workers: 1})
	defer p.Close()
	root := balanced(1, 1023)
	fork.Recurse(p, sumRec, root)
	if n := testing.AllocsPerRun(20, func() { fork.Recurse(p, sumRec, root) }); n != 0 {
		t.Fatalf("%v allocations per Recurse of a 1023-node tree on 1 worker", n)
	}
}

// TestRecurseDeepChains forks 100,000 deep before joining anything, so the
// Rec's stack of inputs grows many times while forks are pending, with and
// without thieves.
func TestRecurseDeepChains(t *testing.T) {
	const depth = 100_000
	// chain(r, n) forks a leaf (-1) at each of n levels and counts the
	// leaves: n+1.
	var chain func(r *fork.Rec[int, int], n int) int
	chain = func(r *fork.Rec[int, int], n int) int {
		if n <= 0 {
			return 1
		}
		r.Fork(-1)
		v := chain(r, n-1)
		w, ok := r.Join()
		if !ok {
			w = chain(r, -1)
		}
		return v + w
	}
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			if got := fork.Recurse(p, chain, depth); got != depth+1 {
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
