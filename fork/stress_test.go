package fork_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/spindle-go/spindle/fork"
)

// expr is a random computation that exercises every kind of record on the
// job stack: forks, Join2, For and Reduce, nested in any order, with
// panics at some leaves.
type expr struct {
	kind  int // 0 leaf, 1 fork, 2 join2, 3 for, 4 reduce, 5 a Frame fork
	val   int
	boom  bool // a leaf that panics
	kids  []*expr
	width int // loop length for kinds 3 and 4
}

var errBoom = errors.New("boom")

func randExpr(r *rand.Rand, depth int) *expr {
	if depth <= 0 || r.IntN(6) == 0 {
		return &expr{val: r.IntN(100), boom: r.IntN(4000) == 0}
	}
	e := &expr{kind: 1 + r.IntN(5), val: r.IntN(100)}
	switch e.kind {
	case 1, 2, 5:
		e.kids = []*expr{randExpr(r, depth-1), randExpr(r, depth-1)}
	case 3, 4:
		e.width = 1 + r.IntN(12)
		e.kids = []*expr{randExpr(r, depth-2)}
	}
	return e
}

// evalSeq is the reference: it returns the value, or errBoom if a leaf
// would panic.
func evalSeq(e *expr) (int, error) {
	switch e.kind {
	case 0:
		if e.boom {
			return 0, errBoom
		}
		return e.val, nil
	case 1, 2, 5:
		a, err := evalSeq(e.kids[0])
		if err != nil {
			return 0, err
		}
		b, err := evalSeq(e.kids[1])
		return e.val + a + b, err
	default:
		k, err := evalSeq(e.kids[0])
		return e.val + e.width*k, err
	}
}

func evalFork(t *fork.Task, e *expr) int {
	switch e.kind {
	case 0:
		if e.boom {
			panic(errBoom)
		}
		return e.val
	case 1:
		var f fork.Future[*expr, int]
		f.Fork(t, evalFork, e.kids[1])
		a := evalFork(t, e.kids[0])
		b, ok := f.Join(t)
		if !ok {
			b = evalFork(t, e.kids[1])
		}
		return e.val + a + b
	case 2:
		a, b := fork.Join2(t,
			func(t *fork.Task) int { return evalFork(t, e.kids[0]) },
			func(t *fork.Task) int { return evalFork(t, e.kids[1]) })
		return e.val + a + b
	case 5:
		return fork.RecurseTask(t, evalRec, e)
	case 3:
		parts := make([]int, e.width)
		fork.For(t, 0, e.width, func(t *fork.Task, i int) { parts[i] = evalFork(t, e.kids[0]) })
		s := e.val
		for _, p := range parts {
			s += p
		}
		return s
	default:
		return e.val + fork.Reduce(t, 0, e.width, 0,
			func(t *fork.Task, _ int) int { return evalFork(t, e.kids[0]) },
			func(a, b int) int { return a + b })
	}
}

// evalRec evaluates a run of Frame forks (kind 5) in one Recurse, and
// anything else through its Task.
func evalRec(f *fork.Frame[*expr, int], e *expr) int {
	if e.kind != 5 {
		return evalFork(f.Task(), e)
	}
	g := f.Fork(e.kids[1])
	a := evalRec(&g, e.kids[0])
	return e.val + a + g.Join(evalRec)
}

func TestRandomComputationsMatchSequential(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 60
	}
	pools := []*fork.Pool{
		fork.NewPool(fork.Config{Workers: 1}),
		fork.NewPool(fork.Config{Workers: 2, Heartbeat: time.Microsecond}),
		fork.NewPool(fork.Config{Workers: 4, Heartbeat: 3 * time.Microsecond}),
	}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		e := randExpr(r, 10)
		want, wantErr := evalSeq(e)
		for i, p := range pools {
			var got int
			v := catch(func() { got = fork.Call(p, evalFork, e) })
			switch {
			case wantErr != nil && v != errBoom:
				t.Fatalf("seed %d pool %d: panic %v, want errBoom", seed, i, v)
			case wantErr == nil && v != nil:
				t.Fatalf("seed %d pool %d: unexpected panic %v", seed, i, v)
			case wantErr == nil && got != want:
				t.Fatalf("seed %d pool %d: got %d, want %d", seed, i, got, want)
			}
		}
	}
}

// TestWakeUpsAtEveryStageOfTheIdleWait runs Calls separated by pauses
// around the length of the idle poll (three heartbeats), so that work
// reaches idle workers before they poll, while they poll, as they give up
// and after they have parked; with more workers than processors, so that
// polling workers must yield to busy ones, and with several callers at
// once. Every sum must come out right, and after Close no worker is left.
func TestWakeUpsAtEveryStageOfTheIdleWait(t *testing.T) {
	defer goleak.VerifyNone(t)
	rounds := 120
	if testing.Short() {
		rounds = 30
	}
	root := balanced(1, 1<<13-1)
	want := sumSeq(root)
	for _, c := range []fork.Config{
		{Workers: 2, Heartbeat: 20 * time.Microsecond},
		{Workers: 2 * runtime.GOMAXPROCS(0), Heartbeat: 5 * time.Microsecond},
		{Workers: 3, Heartbeat: time.Microsecond},
	} {
		p := fork.NewPool(c)
		spin := 3 * c.Heartbeat
		pauses := []time.Duration{0, spin / 4, spin, spin + spin/4, 4 * spin, 50 * spin}
		var wg sync.WaitGroup
		errs := make(chan error, 3)
		for g := range 3 {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(g), 3))
				for i := range rounds {
					time.Sleep(pauses[r.IntN(len(pauses))])
					if got := fork.Call(p, sumFork, root); got != want {
						errs <- fmt.Errorf("%s caller %d round %d: got %d, want %d", name(c), g, i, got, want)
						return
					}
				}
			})
		}
		wg.Wait()
		p.Close()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
}
