package spindle

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/spindle-go/spindle/internal/core"
)

// Executor runs tasks of type T on a fixed set of workers, each with scratch
// state of type S. Create one with New; feed it with Spawn, SpawnBatch or a
// Handle; finish with Join (drain) or Shutdown (abandon).
type Executor[T, S any] struct {
	pool    *core.Pool[T]
	workers []*Worker[T, S]
	run     func(task T, w *Worker[T, S])
	cfg     Config

	done     chan struct{} // closed when the run is over (core's OnDone)
	exited   sync.WaitGroup
	joinOnce sync.Once
	result   Metrics
	err      error
}

// New starts an executor with cfg.Workers workers. scratch, if non-nil, is
// called once per worker (on that worker's goroutine) to build its Scratch;
// run is called for every task, on some worker, with that worker's state.
// Workers start immediately and park until there is work.
func New[T, S any](cfg Config, scratch func(worker int) S, run func(task T, w *Worker[T, S])) *Executor[T, S] {
	if run == nil {
		panic("spindle: New called with a nil run function")
	}
	cfg = cfg.withDefaults()
	e := &Executor[T, S]{run: run, cfg: cfg, done: make(chan struct{})}
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
		OnDone:     func() { close(e.done) },
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

// Shutdown stops the executor now: it rejects further spawns, abandons queued
// tasks, and lets each worker finish only the task it is running. When
// Shutdown returns, no queued task will start, except that each worker may
// still start at most one task it had already taken from a queue. Safe from
// any goroutine, including a task. Call Join to wait for the workers.
func (e *Executor[T, S]) Shutdown() { e.pool.Shutdown() }

// Join closes the gate, waits until every accepted task has run (tasks they
// spawn included), stops the workers and returns the final metrics. If a task
// panicked, the run stopped as with Shutdown and the error is a *PanicError.
// After Shutdown, Join returns once the workers have exited, with a nil error
// (abandoned tasks are counted in Metrics.Abandoned). Join may be called more
// than once; later calls return the same result. Do not call it from a task:
// it would wait for itself.
func (e *Executor[T, S]) Join() (Metrics, error) {
	e.joinOnce.Do(func() {
		e.pool.Close()
		<-e.done
		e.exited.Wait()
		e.result = e.collect()
		e.result.Abandoned = e.pool.State.InFlight()
		if v, stack, ok := e.pool.Panic(); ok {
			e.err = &PanicError{Value: v, Stack: stack}
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

// main is a worker goroutine: label it for pprof, optionally pin it, build its
// scratch, then loop on core.Step until the run is over.
func (w *Worker[T, S]) main(scratch func(int) S, ready chan<- struct{}) {
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
		if scratch != nil {
			w.Scratch = scratch(w.ID)
		}
		ready <- struct{}{}
		w.loop()
	})
}

func (w *Worker[T, S]) loop() {
	for !w.steps() {
	}
}

// steps runs the worker loop until the run is over (true) or a task panics
// (false, after the panic has been recorded and the run shut down; the next
// call then sees the end of the run and exits). Recovering here, once per
// panic, instead of around every task keeps a defer off the per-task path.
func (w *Worker[T, S]) steps() (exit bool) {
	e := w.exec
	defer func() {
		if !exit {
			v := recover()
			if v == nil {
				// Only runtime.Goexit unwinds with nothing to recover
				// (panic(nil) recovers a *runtime.PanicNilError).
				v = errGoexit
			}
			if !w.c.TaskPanicked(v, debug.Stack()) {
				panic(v) // a bug in the scheduler itself: do not hide it
			}
			// After a Goexit this goroutine ends here, without Exit.
			w.c.Publish()
		}
	}()
	// Converted to the interface once: a conversion per Step would allocate.
	var idle core.IdlePolicy = core.TieredIdle{SpinIters: e.cfg.SpinIters, ParkTimeout: e.cfg.ParkTimeout}
	run := func(t T) { e.run(t, w) }
	for {
		switch r := w.c.Step(run, idle); r.Kind {
		case core.Ran:
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
