package fork_test

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/spindle-go/spindle/fork"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// configs are the pool shapes the behaviour tests run under: one worker
// (everything on the caller), and several workers with a heartbeat short
// enough that forks are promoted and taken all the time.
var configs = []fork.Config{
	{Workers: 1},
	{Workers: 2, Heartbeat: time.Microsecond},
	{Workers: 4, Heartbeat: 5 * time.Microsecond},
	{Workers: 3, Heartbeat: 0}, // default heartbeat
}

func name(c fork.Config) string {
	return fmt.Sprintf("workers=%d/heartbeat=%v", c.Workers, c.Heartbeat)
}

// stealing is a config under which the root's forks are taken quickly.
var stealing = fork.Config{Workers: 2, Heartbeat: time.Microsecond}

func TestCallMatchesPlainRecursion(t *testing.T) {
	sizes := []int{1, 2, 3, 1023, 1<<16 - 1}
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			for _, size := range sizes {
				root := balanced(1, size)
				want := sumSeq(root)
				for range 5 {
					if got := fork.Call(p, sumFork, root); got != want {
						t.Fatalf("size %d: sum = %d, want %d", size, got, want)
					}
				}
			}
		})
	}
}

// fib forks with Join2 at every level.
func fib(t *fork.Task, n int) int {
	if n < 2 {
		return n
	}
	a, b := fork.Join2(t,
		func(t *fork.Task) int { return fib(t, n-1) },
		func(t *fork.Task) int { return fib(t, n-2) })
	return a + b
}

func TestJoin2ReturnsBothResults(t *testing.T) {
	want := []int{0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765}
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			for n, w := range want {
				if got := fork.Call(p, fib, n); got != w {
					t.Fatalf("fib(%d) = %d, want %d", n, got, w)
				}
			}
		})
	}
}

func TestJoin2WithDifferentResultTypes(t *testing.T) {
	p := fork.NewPool(stealing)
	defer p.Close()
	got := fork.Call(p, func(t *fork.Task, n int) string {
		s, k := fork.Join2(t,
			func(*fork.Task) string { return strings.Repeat("x", n) },
			func(t *fork.Task) int { return fib(t, n) })
		return fmt.Sprint(s, k)
	}, 10)
	if got != "xxxxxxxxxx55" {
		t.Fatalf("got %q", got)
	}
}

func TestForVisitsEveryIndexOnce(t *testing.T) {
	ranges := []struct{ lo, hi int }{
		{0, 0}, {5, 3}, {0, 1}, {-3, 4}, {0, 1000}, {7, 100_007},
		{math.MaxInt - 1000, math.MaxInt}, {math.MinInt, math.MinInt + 1000},
	}
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			for _, r := range ranges {
				n := max(r.hi-r.lo, 0)
				seen := make([]atomic.Int32, n)
				fork.Call(p, func(t *fork.Task, _ int) int {
					fork.For(t, r.lo, r.hi, func(_ *fork.Task, i int) {
						seen[i-r.lo].Add(1)
					})
					return 0
				}, 0)
				for i := range seen {
					if got := seen[i].Load(); got != 1 {
						t.Fatalf("For(%d, %d): index %d visited %d times", r.lo, r.hi, r.lo+i, got)
					}
				}
			}
		})
	}
}

func TestForSplitsAcrossWorkers(t *testing.T) {
	// Each body ticks until a second worker has run some index, so the
	// loop cannot finish on one worker: the heartbeat must split it.
	p := fork.NewPool(stealing)
	defer p.Close()
	const n = 64
	var first atomic.Pointer[fork.Task]
	var others atomic.Int32
	fork.Call(p, func(t *fork.Task, _ int) int {
		fork.For(t, 0, n, func(t *fork.Task, i int) {
			first.CompareAndSwap(nil, t)
			if first.Load() != t {
				others.Add(1)
				return
			}
			for deadline := time.Now().Add(10 * time.Second); others.Load() == 0 && time.Now().Before(deadline); {
				t.Tick()
			}
		})
		return 0
	}, 0)
	if others.Load() == 0 {
		t.Fatal("no index of the loop ran on a second worker")
	}
}

// affine is x -> a*x + b modulo a prime; composition is associative and
// not commutative, so it checks that Reduce merges in index order.
type affine struct{ a, b uint64 }

const prime = 1_000_000_007

func compose(f, g affine) affine { // first f, then g
	return affine{a: f.a * g.a % prime, b: (f.b*g.a + g.b) % prime}
}

func affineAt(_ *fork.Task, i int) affine { return affine{a: uint64(i%97 + 2), b: uint64(i % 89)} }

func TestReduceMergesInIndexOrder(t *testing.T) {
	ranges := []struct{ lo, hi int }{{0, 0}, {3, 1}, {0, 1}, {0, 2}, {0, 1000}, {11, 200_011}}
	id := affine{a: 1}
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			for _, r := range ranges {
				want := id
				for i := r.lo; i < r.hi; i++ {
					want = compose(want, affineAt(nil, i))
				}
				got := fork.Call(p, func(t *fork.Task, _ int) affine {
					return fork.Reduce(t, r.lo, r.hi, id, affineAt, compose)
				}, 0)
				if got != want {
					t.Fatalf("Reduce(%d, %d) = %v, want %v", r.lo, r.hi, got, want)
				}
			}
		})
	}
}

func TestNestedLoopsAndForksCompose(t *testing.T) {
	// For over rows, Reduce over columns, forks inside: every combination
	// of record on one job stack.
	const rows, cols = 40, 300
	want := 0
	for i := range rows {
		for j := range cols {
			want += i*cols + j
		}
	}
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			sums := make([]int, rows)
			fork.Call(p, func(t *fork.Task, _ int) int {
				fork.For(t, 0, rows, func(t *fork.Task, i int) {
					sums[i] = fork.Reduce(t, 0, cols, 0, func(t *fork.Task, j int) int {
						a, b := fork.Join2(t,
							func(*fork.Task) int { return i * cols },
							func(*fork.Task) int { return j })
						return a + b
					}, func(a, b int) int { return a + b })
				})
				return 0
			}, 0)
			got := 0
			for _, s := range sums {
				got += s
			}
			if got != want {
				t.Fatalf("got %d, want %d", got, want)
			}
		})
	}
}

func TestConcurrentCallsShareAPool(t *testing.T) {
	p := fork.NewPool(fork.Config{Workers: 3, Heartbeat: 2 * time.Microsecond})
	defer p.Close()
	root := balanced(1, 1<<14-1)
	want := sumSeq(root)
	rounds := 50
	if testing.Short() {
		rounds = 10
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for r := range rounds {
				var got int
				if g%2 == 0 {
					got = fork.Call(p, sumFork, root)
				} else {
					got = fork.Call(p, func(t *fork.Task, n *node) int {
						return fork.Reduce(t, 0, 1<<14-1, 0, func(_ *fork.Task, i int) int { return i + 1 },
							func(a, b int) int { return a + b })
					}, root)
				}
				if got != want {
					errs <- fmt.Errorf("goroutine %d round %d: got %d, want %d", g, r, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCallFromInsideAJob(t *testing.T) {
	p := fork.NewPool(stealing)
	defer p.Close()
	root := balanced(1, 1023)
	got := fork.Call(p, func(t *fork.Task, n *node) int {
		return fork.Reduce(t, 0, 8, 0, func(*fork.Task, int) int { return fork.Call(p, sumFork, n) },
			func(a, b int) int { return a + b })
	}, root)
	if want := 8 * sumSeq(root); got != want {
		t.Fatalf("got %d, want %d", got, want)
	}
}

// chain is a linked list; sumChain forks at every element, so the job stack
// grows as deep as the list and the goroutine stack grows (and moves) many
// times while records and futures are live.
type chain struct {
	val  int
	next *chain
}

func sumChain(t *fork.Task, c *chain) int {
	if c.next == nil {
		return c.val
	}
	var f fork.Future[*chain, int]
	f.Fork(t, sumChain, c.next)
	var pad [8]int // a bigger frame, to move the stack sooner
	for i := range pad {
		pad[i] = c.val
	}
	r, ok := f.Join(t)
	if !ok {
		r = sumChain(t, c.next)
	}
	return pad[len(pad)-1] + r
}

func TestDeepRecursionGrowsTheStack(t *testing.T) {
	depth := 100_000
	if testing.Short() {
		depth = 20_000
	}
	var head *chain
	want := 0
	for i := range depth {
		head = &chain{val: i, next: head}
		want += i
	}
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			for range 2 {
				if got := fork.Call(p, sumChain, head); got != want {
					t.Fatalf("got %d, want %d", got, want)
				}
				runtime.GC() // scan the records while nothing runs
			}
		})
	}
}

func TestStressUnderGC(t *testing.T) {
	// Collections run while records hold fn and input pointers and jobs
	// move between workers; -race checks the hand-offs.
	rounds := 200
	if testing.Short() {
		rounds = 30
	}
	p := fork.NewPool(fork.Config{Workers: 4, Heartbeat: time.Microsecond})
	defer p.Close()
	stop := make(chan struct{})
	var gcs sync.WaitGroup
	gcs.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
				time.Sleep(100 * time.Microsecond)
			}
		}
	})
	defer gcs.Wait()
	defer close(stop)
	for r := range rounds {
		root := balanced(0, 4095) // fresh garbage every round
		if got, want := fork.Call(p, sumFork, root), sumSeq(root); got != want {
			t.Fatalf("round %d: got %d, want %d", r, got, want)
		}
	}
}

type sentinel struct{ msg string }

var errSentinel = errors.New("sentinel")

// catch runs f and returns what it panicked with.
func catch(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// waitTaken ticks until flag is set, so that a job forked just before is
// taken by another worker before the caller joins it.
func waitTaken(t *fork.Task, flag *atomic.Bool) {
	for deadline := time.Now().Add(10 * time.Second); !flag.Load() && time.Now().Before(deadline); {
		t.Tick()
	}
}

func TestPanicReachesCallerWithOriginalValue(t *testing.T) {
	values := []any{&sentinel{"ptr"}, errSentinel, fmt.Errorf("wrapped: %w", errSentinel), "text", 42}
	for _, v := range values {
		boom := func(*fork.Task, int) int { panic(v) }
		t.Run(fmt.Sprintf("%T/untaken", v), func(t *testing.T) {
			p := fork.NewPool(fork.Config{Workers: 1})
			defer p.Close()
			got := catch(func() {
				fork.Call(p, func(t *fork.Task, _ int) int {
					var f fork.Future[int, int]
					f.Fork(t, boom, 0)
					if r, ok := f.Join(t); ok {
						return r
					}
					return boom(t, 0) // the caller runs the untaken fork
				}, 0)
			})
			checkSame(t, got, v)
			checkUsable(t, p)
		})
		t.Run(fmt.Sprintf("%T/unwinds-past-fork", v), func(t *testing.T) {
			p := fork.NewPool(stealing)
			defer p.Close()
			got := catch(func() {
				fork.Call(p, func(t *fork.Task, n *node) int {
					var f fork.Future[*node, int]
					f.Fork(t, sumFork, n)
					sumFork(t, n)
					panic(v) // f is still forked: Call withdraws or waits for it
				}, balanced(1, 1<<12))
			})
			checkSame(t, got, v)
			checkUsable(t, p)
		})
		t.Run(fmt.Sprintf("%T/taken", v), func(t *testing.T) {
			p := fork.NewPool(stealing)
			defer p.Close()
			got := catch(func() {
				fork.Call(p, func(t *fork.Task, _ int) int {
					var started atomic.Bool
					var f fork.Future[int, int]
					f.Fork(t, func(*fork.Task, int) int { started.Store(true); panic(v) }, 0)
					waitTaken(t, &started)
					if _, ok := f.Join(t); !ok {
						return -1 // not taken: no panic to carry
					}
					return 0
				}, 0)
			})
			checkSame(t, got, v)
			checkUsable(t, p)
		})
	}
}

func checkSame(t *testing.T, got, want any) {
	t.Helper()
	if got != want { // the very same value: a pointer, an error, a string
		t.Fatalf("panic value = %#v, want %#v", got, want)
	}
}

func checkUsable(t *testing.T, p *fork.Pool) {
	t.Helper()
	root := balanced(1, 4095)
	if got, want := fork.Call(p, sumFork, root), sumSeq(root); got != want {
		t.Fatalf("after a panic: sum = %d, want %d", got, want)
	}
}

func TestPanicWaitsForTakenSiblings(t *testing.T) {
	// The caller panics while a sibling it forked runs on another worker:
	// Call must not return before that sibling is done.
	p := fork.NewPool(stealing)
	defer p.Close()
	var started, finished atomic.Bool
	got := catch(func() {
		fork.Call(p, func(t *fork.Task, _ int) int {
			var f fork.Future[int, int]
			f.Fork(t, func(*fork.Task, int) int {
				started.Store(true)
				time.Sleep(20 * time.Millisecond)
				finished.Store(true)
				return 0
			}, 0)
			waitTaken(t, &started)
			panic(errSentinel)
		}, 0)
	})
	if got != errSentinel {
		t.Fatalf("panic value = %v", got)
	}
	if started.Load() && !finished.Load() {
		t.Fatal("Call returned while a job it forked was still running")
	}
	checkUsable(t, p)
}

func TestPanicInsideLoopsReachesCaller(t *testing.T) {
	for _, c := range configs {
		t.Run(name(c), func(t *testing.T) {
			p := fork.NewPool(c)
			defer p.Close()
			for _, at := range []int{0, 1, 5000, 9999} {
				got := catch(func() {
					fork.Call(p, func(t *fork.Task, _ int) int {
						fork.For(t, 0, 10_000, func(t *fork.Task, i int) {
							if i == at {
								panic(&sentinel{"for"})
							}
						})
						return 0
					}, 0)
				})
				if s, ok := got.(*sentinel); !ok || s.msg != "for" {
					t.Fatalf("For panic at %d: got %#v", at, got)
				}
				got = catch(func() {
					fork.Call(p, func(t *fork.Task, _ int) int {
						return fork.Reduce(t, 0, 10_000, 0, func(t *fork.Task, i int) int {
							if i == at {
								panic(errSentinel)
							}
							return i
						}, func(a, b int) int { return a + b })
					}, 0)
				})
				if got != errSentinel {
					t.Fatalf("Reduce panic at %d: got %#v", at, got)
				}
				checkUsable(t, p)
			}
		})
	}
}

func TestGoexitInTakenJobReachesJoiner(t *testing.T) {
	p := fork.NewPool(stealing)
	defer p.Close()
	got := catch(func() {
		fork.Call(p, func(t *fork.Task, _ int) int {
			var started atomic.Bool
			var f fork.Future[int, int]
			f.Fork(t, func(*fork.Task, int) int { started.Store(true); runtime.Goexit(); return 0 }, 0)
			waitTaken(t, &started)
			if _, ok := f.Join(t); !ok {
				panic("Goexit") // not taken this time; nothing to check
			}
			return 0
		}, 0)
	})
	if got == "Goexit" {
		t.Skip("the job was not taken")
	}
	if err, ok := got.(error); !ok || !strings.Contains(err.Error(), "Goexit") {
		t.Fatalf("panic value = %#v, want an error naming Goexit", got)
	}
	checkUsable(t, p) // the pool replaced the worker that exited
}

func TestMisusePanicsWithAMessage(t *testing.T) {
	id := func(_ *fork.Task, x int) int { return x }
	cases := []struct {
		name string
		f    func(t *fork.Task)
		want string
	}{
		{"join never forked", func(t *fork.Task) {
			var f fork.Future[int, int]
			f.Join(t)
		}, "not forked or is already joined"},
		{"join twice", func(t *fork.Task) {
			var f fork.Future[int, int]
			f.Fork(t, id, 1)
			f.Join(t)
			f.Join(t)
		}, "not forked or is already joined"},
		{"join out of order", func(t *fork.Task) {
			var f, g fork.Future[int, int]
			f.Fork(t, id, 1)
			g.Fork(t, id, 2)
			f.Join(t)
		}, "out of order"},
		{"fork twice", func(t *fork.Task) {
			var f fork.Future[int, int]
			f.Fork(t, id, 1)
			f.Fork(t, id, 2)
			f.Join(t)
		}, "without joining every fork"},
		{"return without join", func(t *fork.Task) {
			var f fork.Future[int, int]
			f.Fork(t, id, 1)
		}, "without joining every fork"},
		{"loop body without join", func(t *fork.Task) {
			fork.For(t, 0, 3, func(t *fork.Task, i int) {
				var f fork.Future[int, int]
				f.Fork(t, id, i)
			})
		}, "without joining every fork"},
		{"join on another task", func(t *fork.Task) {
			var f fork.Future[int, int]
			f.Fork(t, id, 1)
			p2 := fork.NewPool(fork.Config{Workers: 1})
			defer p2.Close()
			fork.Call(p2, func(t2 *fork.Task, _ int) int {
				var g fork.Future[int, int]
				g.Fork(t2, id, 1) // same depth as f: Join cannot tell
				f.Join(t2)
				return 0
			}, 0)
		}, "without joining every fork"},
		{"join on another task at another depth", func(t *fork.Task) {
			var f fork.Future[int, int]
			f.Fork(t, id, 1)
			p2 := fork.NewPool(fork.Config{Workers: 1})
			defer p2.Close()
			fork.Call(p2, func(t2 *fork.Task, _ int) int {
				f.Join(t2)
				return 0
			}, 0)
		}, "on another Task"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := fork.NewPool(fork.Config{Workers: 2})
			defer p.Close()
			got := catch(func() {
				fork.Call(p, func(t *fork.Task, _ int) int { c.f(t); return 0 }, 0)
			})
			msg, _ := got.(string)
			if !strings.Contains(msg, c.want) {
				t.Fatalf("panic = %#v, want a message containing %q", got, c.want)
			}
			checkUsable(t, p)
		})
	}
}

func TestCallAfterCloseRunsOnTheCaller(t *testing.T) {
	p := fork.NewPool(fork.Config{Workers: 2, Heartbeat: time.Microsecond})
	p.Close()
	p.Close() // idempotent
	root := balanced(1, 1<<14-1)
	want := sumSeq(root)
	for range 3 {
		if got := fork.Call(p, sumFork, root); got != want {
			t.Fatalf("Call after Close = %d, want %d", got, want)
		}
		got := fork.Call(p, func(t *fork.Task, _ int) int {
			return fork.Reduce(t, 0, 1000, 0, func(_ *fork.Task, i int) int { return i }, func(a, b int) int { return a + b })
		}, 0)
		if got != 499500 {
			t.Fatalf("Reduce after Close = %d", got)
		}
	}
}

func TestCloseStopsEveryWorker(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			defer goleak.VerifyNone(t)
			p := fork.NewPool(fork.Config{Workers: workers, Heartbeat: time.Microsecond})
			root := balanced(1, 1<<12-1)
			fork.Call(p, sumFork, root)
			p.Close()
		})
	}
}

func TestCloseDuringCallLetsItFinish(t *testing.T) {
	defer goleak.VerifyNone(t)
	p := fork.NewPool(stealing)
	root := balanced(1, 1<<16-1)
	want := sumSeq(root)
	done := make(chan int)
	started := make(chan struct{})
	go func() {
		done <- fork.Call(p, func(t *fork.Task, n *node) int {
			close(started)
			s := 0
			for range 20 {
				s = sumFork(t, n)
			}
			return s
		}, root)
	}()
	<-started
	p.Close()
	if got := <-done; got != want {
		t.Fatalf("got %d, want %d", got, want)
	}
}

func TestIdleWorkersSleep(t *testing.T) {
	// An idle pool must not spin: every background worker is parked in a
	// channel receive, both before and after it has run work.
	p := fork.NewPool(fork.Config{Workers: 4, Heartbeat: time.Microsecond})
	defer p.Close()
	check := func(when string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			parked, running := workerStates()
			beaterParked := goroutinesIn("fork.(*Pool).beater", "[chan receive")
			if parked == 3 && running == 0 && beaterParked == 1 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d workers parked, %d not parked, %d beater parked; want 3 and 1 parked", when, parked, running, beaterParked)
			}
			time.Sleep(time.Millisecond)
		}
	}
	check("after NewPool")
	fork.Call(p, sumFork, balanced(1, 1<<16-1))
	check("after Call")
	fork.Recurse(p, sumRec, balanced(1, 1<<16-1))
	check("after Recurse")
}

// goroutinesIn counts the goroutines whose stack names fn and whose state
// line contains state.
func goroutinesIn(fn, state string) int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) && strings.Contains(g, state) {
			n++
		}
	}
	return n
}

// workerStates counts background worker goroutines parked on a channel
// receive and those doing anything else.
func workerStates() (parked, other int) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if !strings.Contains(g, "fork.(*Pool).work") {
			continue
		}
		if strings.Contains(g, "[chan receive") {
			parked++
		} else {
			other++
		}
	}
	return parked, other
}

func TestConfigDefaults(t *testing.T) {
	for _, c := range []fork.Config{{}, {Workers: -1, Heartbeat: -time.Second}} {
		p := fork.NewPool(c)
		parked, other := 0, 0
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if parked, other = workerStates(); parked+other == runtime.GOMAXPROCS(0)-1 && other == 0 {
				break
			}
		}
		if parked != runtime.GOMAXPROCS(0)-1 {
			t.Errorf("Config %+v: %d background workers, want GOMAXPROCS-1 = %d", c, parked+other, runtime.GOMAXPROCS(0)-1)
		}
		checkUsable(t, p)
		p.Close()
	}
}
