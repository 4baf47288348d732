package spindle

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/internal/core"
)

// Executor runs tasks of type T on a fixed set of workers, each with scratch
// state of type S. Create one with New, NewContext or Start; feed it with
// Spawn, SpawnBatch or a Handle; finish with Close or Join (drain) or
// Shutdown (abandon). An Executor runs once: after it is closed, Spawn
// returns ErrClosed.
type Executor[T, S any] struct {
	pool    *core.Pool[T]
	workers []*Worker[T, S]
	run     func(task T, w *Worker[T, S])
	cfg     Config
	ctx     context.Context

	done      chan struct{} // closed when the run is over (core's OnDone)
	exited    sync.WaitGroup
	joinOnce  sync.Once
	stopCtx   func() bool // unregisters the context's AfterFunc
	cancelled atomic.Bool // the context was done before the run ended
	result    Metrics
	err       error
}

// New starts an executor with cfg.Workers workers. scratch, if non-nil, is
// called once per worker (on that worker's goroutine) to build its Scratch;
// run is called for every task, on some worker, with that worker's state.
// Workers start immediately and park until there is work.
func New[T, S any](cfg Config, scratch func(worker int) S, run func(task T, w *Worker[T, S])) *Executor[T, S] {
	return NewContext(context.Background(), cfg, scratch, run)
}

// Spawner is the Worker of an executor without scratch state, as Start
// makes: *Spawner[T] reads better than *Worker[T, struct{}] in a signature.
type Spawner[T any] = Worker[T, struct{}]

// Start starts an executor without per-worker scratch state, bound to ctx
// as NewContext describes. It is New for the common case:
//
//	e := spindle.Start(ctx, spindle.Config{}, func(n int, w *spindle.Spawner[int]) { ... })
func Start[T any](ctx context.Context, cfg Config, run func(task T, w *Spawner[T])) *Executor[T, struct{}] {
	return NewContext[T, struct{}](ctx, cfg, nil, run)
}

// NewContext is New with a context: when ctx is done, the executor stops as
// Shutdown stops it (it rejects spawns with ErrClosed and abandons queued
// tasks, with Shutdown's guarantees). The stop lands shortly after ctx is
// done (context.AfterFunc runs it), so a task may still start meanwhile;
// tasks reach ctx through Worker.Context to return early. If ctx was done
// before the run ended, Join and Close return an error wrapping
// context.Cause(ctx), and Metrics.Abandoned counts the tasks that never ran.
func NewContext[T, S any](ctx context.Context, cfg Config, scratch func(worker int) S, run func(task T, w *Worker[T, S])) *Executor[T, S] {
	if run == nil {
		panic("spindle: New called with a nil run function")
	}
	cfg = cfg.withDefaults()
	e := &Executor[T, S]{run: run, cfg: cfg, ctx: ctx, done: make(chan struct{})}
	parker := make(parkers, cfg.Workers)
	for i := range parker {
		parker[i] = make(chan struct{}, 1)
	}
	pool, cws := core.NewPool[T](core.Config{
		Workers:    cfg.Workers,
		Seed:       cfg.Seed,
		StealTries: cfg.StealTries,
		SpinIters:  cfg.SpinIters,
		LocalCap:   cfg.LocalCap,
		Shared:     cfg.Queue == Shared,
		Waker:      parker,
		OnDone: func() {
			if ctx.Err() != nil {
				e.cancelled.Store(true)
			}
			close(e.done)
		},
	})
	e.pool = pool
	e.workers = make([]*Worker[T, S], cfg.Workers)
	ready := make(chan struct{}, cfg.Workers)
	for i := range e.workers {
		w := &Worker[T, S]{ID: i, c: cws[i], exec: e, park: parker[i]}
		e.workers[i] = w
		e.exited.Add(1)
		go w.main(scratch, ready)
	}
	// Wait until every worker has built its scratch, so a task never sees a
	// half-initialised Scratch and New's caller sees a running executor.
	for range e.workers {
		<-ready
	}
	if ctx.Done() != nil {
		e.stopCtx = context.AfterFunc(ctx, pool.Shutdown)
	}
	return e
}

// parkers implements core.Waker with one permit channel per worker: a wake
// that arrives before the worker blocks leaves a permit, so it is not lost.
type parkers []chan struct{}

func (p parkers) Wake(i int) {
	select {
	case p[i] <- struct{}{}:
	default: // a permit is already pending
	}
}

// Spawn accepts task for execution, or returns ErrClosed (and the caller keeps
// task) once the executor is closed. Safe from any goroutine, including tasks;
// from inside a task, Worker.Spawn is cheaper.
func (e *Executor[T, S]) Spawn(task T) error {
	if !e.pool.Spawn(task) {
		return ErrClosed
	}
	return nil
}

// SpawnBatch accepts every task in tasks, or none of them (ErrClosed). It
// costs one gate operation and one injector lock for the whole batch and wakes
// at most as many workers as there are tasks or workers.
func (e *Executor[T, S]) SpawnBatch(tasks []T) error {
	if !e.pool.SpawnBatch(tasks) {
		return ErrClosed
	}
	return nil
}

// Handle returns a Handle for spawning from other goroutines.
func (e *Executor[T, S]) Handle() Handle[T] { return Handle[T]{pool: e.pool} }

// Close drains and stops the executor: it is Join without the metrics. It
// returns Join's error: a *PanicError if a task panicked, the context's
// cause if the executor's context ended the run, nil otherwise. Close may
// be called more than once. Do not call it from a task.
func (e *Executor[T, S]) Close() error {
	_, err := e.Join()
	return err
}

// Shutdown stops the executor now: it rejects further spawns, abandons queued
// tasks, and lets each worker finish only the task it is running. When
// Shutdown returns, no queued task will start, except that each worker may
// still start at most one task it had already taken from a queue. Safe from
// any goroutine, including a task. Call Close or Join to wait for the
// workers.
func (e *Executor[T, S]) Shutdown() { e.pool.Shutdown() }

// Join closes the gate, waits until every accepted task has run (tasks they
// spawn included), stops the workers and returns the final metrics. If a task
// panicked (and Config.OnPanic is nil), the run stopped as with Shutdown and
// the error is a *PanicError. After Shutdown, Join returns once the workers
// have exited, with a nil error (abandoned tasks are counted in
// Metrics.Abandoned); if the executor's context was done before the run
// ended, the error wraps context.Cause of it. Join may be called more than
// once; later calls return the same result. Do not call it from a task: it
// would wait for itself.
func (e *Executor[T, S]) Join() (Metrics, error) {
	e.joinOnce.Do(func() {
		e.pool.Close()
		<-e.done
		e.exited.Wait()
		if e.stopCtx != nil {
			e.stopCtx()
		}
		e.result = e.collect()
		e.result.Abandoned = e.pool.State.InFlight()
		if v, stack, ok := e.pool.Panic(); ok {
			e.err = &PanicError{Value: v, Stack: stack}
		} else if e.cancelled.Load() {
			e.err = fmt.Errorf("spindle: executor stopped by its context: %w", context.Cause(e.ctx))
		}
	})
	return e.result, e.err
}

// Metrics returns a live snapshot of the counters. Workers publish their
// counters every 256 tasks and whenever they park, so a live snapshot may lag
// slightly; the Metrics returned by Join are exact.
func (e *Executor[T, S]) Metrics() Metrics {
	m := e.collect()
	m.InFlight = e.pool.State.InFlight()
	return m
}

func (e *Executor[T, S]) collect() Metrics {
	rows := make([]WorkerMetrics, len(e.workers))
	for i, w := range e.workers {
		rows[i] = fromCounters(w.c.Snapshot())
	}
	return newMetrics(rows, e.pool.Injector.Len())
}

// main is a worker goroutine: build the worker's scratch, then run.
func (w *Worker[T, S]) main(scratch func(int) S, ready chan<- struct{}) {
	w.goroutine(func() {
		if scratch != nil {
			w.Scratch = scratch(w.ID)
		}
		ready <- struct{}{}
	})
}

// goroutine runs the worker loop on the calling goroutine, labelled for
// pprof and, with PinThreads, pinned; first is called before the loop.
func (w *Worker[T, S]) goroutine(first func()) {
	defer w.exec.exited.Done()
	labels := pprof.Labels("spindle.worker", strconv.Itoa(w.ID))
	pprof.Do(context.Background(), labels, func(context.Context) {
		if w.exec.cfg.PinThreads {
			// Never unlocked: the goroutine exits locked, so the runtime
			// terminates the thread instead of handing a thread narrowed to
			// one CPU to unrelated goroutines.
			runtime.LockOSThread()
			pinToCore(w.ID)
		}
		if first != nil {
			first()
		}
		w.loop()
	})
}

func (w *Worker[T, S]) loop() {
	for !w.steps() {
	}
}

// steps runs the worker loop until the run is over (true) or a task panics
// (false, after the panic has been handled; the next call goes on, or sees
// the end of the run and exits). Recovering here, once per panic, instead
// of around every task keeps a defer off the per-task path.
func (w *Worker[T, S]) steps() (exit bool) {
	e := w.exec
	defer func() {
		if !exit {
			v := recover()
			goexit := v == nil
			if goexit {
				// Only runtime.Goexit unwinds with nothing to recover
				// (panic(nil) recovers a *runtime.PanicNilError).
				v = ErrGoexit
			}
			w.taskFailed(v, debug.Stack())
			if goexit {
				// This goroutine ends when the deferred calls return; a
				// new one takes over the worker, unless the run is over.
				w.c.Publish()
				e.exited.Add(1)
				go w.goroutine(nil)
			}
		}
	}()
	// Converted to the interface once: a conversion per Idle would allocate.
	var idle core.IdlePolicy = core.TieredIdle{SpinIters: e.cfg.SpinIters, ParkTimeout: e.cfg.ParkTimeout}
	c, run := w.c, e.run
	for {
		// core.Step, with the task's function called directly rather than
		// through an adapter closure.
		if t, ok := c.Take(); ok {
			run(t, w)
			c.Finish()
			continue
		}
		switch r := c.Idle(idle); r.Kind {
		case core.NoWork:
			if r.Yield {
				runtime.Gosched()
			}
		case core.Park:
			if w.c.PrepareParking() {
				w.block()
				w.c.Unparked()
			}
		case core.Exit:
			w.c.Exit()
			return true
		}
	}
}

// taskFailed handles a panic (or Goexit) that unwound out of Step. A panic
// outside any task is a bug in the scheduler and is re-raised. With
// Config.OnPanic the task counts as finished and the run goes on, unless
// OnPanic panics too; without it the run stops and Join reports the panic.
func (w *Worker[T, S]) taskFailed(v any, stack []byte) {
	if !w.c.Running() {
		panic(v) // a bug in the scheduler itself: do not hide it
	}
	if on := w.exec.cfg.OnPanic; on != nil {
		if pv, pstack, ok := callOnPanic(on, w.ID, v, stack); ok {
			v, stack = pv, pstack
		} else {
			w.c.TaskRecovered()
			return
		}
	}
	w.c.TaskPanicked(v, stack)
}

// callOnPanic calls on and reports a panic it raised.
func callOnPanic(on func(int, any, []byte), id int, v any, stack []byte) (pv any, pstack []byte, panicked bool) {
	panicked = true
	defer func() {
		if panicked {
			pv = recover()
			if pv == nil {
				pv = ErrGoexit
			}
			pstack = debug.Stack()
		}
	}()
	on(id, v, stack)
	panicked = false
	return nil, nil, false
}

// block waits for a wake permit, or for ParkTimeout if one is set.
func (w *Worker[T, S]) block() {
	d := w.exec.cfg.ParkTimeout
	if d <= 0 {
		<-w.park
		return
	}
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	select {
	case <-w.park:
	case <-w.timer.C:
	}
	w.timer.Stop()
}
