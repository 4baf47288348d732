package flow

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/spindle-go/spindle"
)

// worker is the spindle worker a strand runs on.
type worker = spindle.Worker[strand, *scratch]

// scratch is per-worker memory for the scheduler, reused by every strand the
// worker runs: the list of successors that became ready together, and the
// task the worker is running user code for, so that a panic can be pinned
// on it (see Executor.taskFailed).
type scratch struct {
	ready []int32
	cur   *frame // the frame of the task in user code; nil outside user code
	node  int32  // that task, in cur's plan
}

// Executor runs graphs on a fixed set of persistent workers (one
// spindle.Executor). Any number of runs, of one graph or of different
// graphs, may be in flight at once, started from any goroutines.
type Executor struct {
	pool    *spindle.Executor[strand, *scratch]
	workers int32
	scratch []*scratch // by worker ID
}

// ErrClosed is spindle.ErrClosed: Run and RunN on a closed Executor return
// an error wrapping it.
var ErrClosed = spindle.ErrClosed

// NewExecutor starts cfg.Workers workers (default GOMAXPROCS). They park when
// there is nothing to run. Call Close to stop them. The executor handles the
// panics of tasks itself (each fails its run), so cfg.OnPanic is replaced.
func NewExecutor(cfg spindle.Config) *Executor {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	e := &Executor{workers: int32(cfg.Workers), scratch: make([]*scratch, cfg.Workers)}
	cfg.OnPanic = e.taskFailed
	e.pool = spindle.New(cfg,
		func(id int) *scratch {
			s := &scratch{ready: make([]int32, 0, 64)}
			e.scratch[id] = s
			return s
		},
		runStrand)
	return e
}

// taskFailed is the guard around every task, whatever its kind: the spindle
// executor calls it when user code panics or calls runtime.Goexit, after the
// stack has unwound, on the worker that ran the task. It fails the task's run
// with a *spindle.PanicError (whose Value is spindle.ErrGoexit for a Goexit),
// and gives back the unit the task's strand held, which is what ends the
// run; the executor goes on with other work (after a Goexit, on a new
// goroutine). Recovering here, not around each call, keeps a defer off the
// path of every task.
func (e *Executor) taskFailed(worker int, v any, stack []byte) {
	s := e.scratch[worker]
	f, n := s.cur, s.node
	if f == nil {
		panic(v) // not in user code: a bug in this package; stop the executor
	}
	s.cur = nil
	f.fail(n, &spindle.PanicError{Value: v, Stack: stack})
	release(nil, f) // the run is stopping: release runs no task, so needs no worker
}

// Close waits for the runs in flight to finish, then stops the workers. Runs
// started after Close return an error wrapping spindle.ErrClosed. Close may
// be called more than once. Do not call it from inside a task.
func (e *Executor) Close() {
	// Every task panic is recovered inside the strand, so Join reports an
	// error only for a bug in this package; there is no caller to give it to.
	_, _ = e.pool.Join()
}

// Run runs g once and returns when every task it started has returned.
//
// The tasks receive a context derived from ctx. The first task error or
// panic, or the cancellation of ctx, stops the run: the context given to the
// tasks is cancelled (its cause is the error), tasks not yet started are
// skipped, and Run returns the error, wrapped with the graph's and the task's
// names (a panic is a *spindle.PanicError: use errors.As). For a cancelled
// ctx, Run returns ctx.Err() if the cancellation made the run skip any task,
// and nil if everything had already run. Running tasks are not interrupted:
// Run waits for them.
//
// Before anything runs, Run validates g; a malformed graph is an error
// wrapping ErrCycle, ErrNoSource, ErrForeignTask or ErrNilTask. After Close,
// Run fails with an error wrapping spindle.ErrClosed. Run must not be called
// from inside a task of the same executor (it would hold a worker while
// waiting); use a subflow instead.
func (e *Executor) Run(ctx context.Context, g *Graph) error {
	return e.RunN(ctx, g, 1)
}

// RunN runs g n times, one run after another: run i+1 starts when every task
// of run i has returned. The runs share one context, and the first error
// stops them all. RunN with n == 0 returns nil; a negative n is an error.
func (e *Executor) RunN(ctx context.Context, g *Graph, n int) error {
	if g == nil {
		return errors.New("flow: run of a nil graph")
	}
	if n < 0 {
		return fmt.Errorf("flow: graph %q: RunN with negative count %d", g.name, n)
	}
	p, err := g.compiled()
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("flow: graph %q: %w", g.name, err)
	}
	if n == 0 || len(p.nodes) == 0 {
		return nil
	}
	r := p.getRun(e)
	r.begin(ctx)
	for range n {
		if r.stopping() {
			break
		}
		r.root.reset()
		c := r.root.claimers()
		r.root.pending.Store(int64(c))
		if err := e.pool.SpawnBatch(r.batch[:c]); err != nil {
			r.fail(fmt.Errorf("flow: graph %q: %w", g.name, err))
			break
		}
		<-r.done
	}
	err = r.end()
	p.runs.Put(r)
	return err
}

// runState is one Run: the run's context, its first error, and the root
// frame with the graph's dependency counters. It is pooled per plan and reused by
// later runs.
//
// The run is stopping once its context is cancelled, by the first failure
// (fail) or by the caller's context, whose cancellation reaches the run's
// synchronously. Strands look before every task they start, so the check
// needs no flag of its own and no goroutine watching the caller's context.
type runState struct {
	ex     *Executor
	ctx    context.Context         // given to every task
	cancel context.CancelCauseFunc // cancels ctx, with the run's first error as cause
	done   chan struct{}           // the root frame's last release sends one value
	batch  []strand                // the root claimers, for SpawnBatch

	mu  sync.Mutex
	err error // the first error; guarded by mu

	_    [64]byte // keep the root frame's counters off the lines above, which every task reads
	root frame
}

func (p *plan) getRun(e *Executor) *runState {
	r, _ := p.runs.Get().(*runState)
	if r == nil {
		r = &runState{done: make(chan struct{}, 1)}
		r.root = frame{run: r, plan: p, arrivals: make([]uint64, len(p.nodes)), pnode: -1}
	}
	r.ex = e
	if len(r.batch) < int(e.workers) {
		r.batch = make([]strand, e.workers)
		for i := range r.batch {
			r.batch[i] = strand{f: &r.root}
		}
	}
	return r
}

// begin derives the tasks' context from ctx.
func (r *runState) begin(ctx context.Context) {
	r.err = nil
	r.ctx, r.cancel = context.WithCancelCause(ctx)
}

// end tears the run down and returns its error. Every strand of the run has
// finished.
func (r *runState) end() error {
	err := r.err
	r.cancel(context.Canceled)
	r.ctx, r.cancel, r.ex, r.err = nil, nil, nil, nil
	return err
}

// stopping reports whether the run has been stopped, before a strand skips
// work because of it. If the caller's context stopped it, that becomes the
// run's error (unless a task failed first): the run did not do all its work.
func (r *runState) stopping() bool {
	err := r.ctx.Err()
	if err == nil {
		return false
	}
	r.fail(fmt.Errorf("flow: graph %q: %w", r.root.plan.name, err))
	return true
}

// fail records err as the run's error if it is the first, and stops the run.
func (r *runState) fail(err error) {
	r.mu.Lock()
	first := r.err == nil
	if first {
		r.err = err
	}
	r.mu.Unlock()
	if first {
		r.cancel(err)
	}
}
