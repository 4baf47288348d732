package spindle

import (
	"context"
	"time"

	"github.com/spindle-go/spindle/internal/core"
)

// Worker is the context a task runs in: the worker's index, its scratch
// state, and the cheapest ways to spawn more work. A *Worker is valid only
// inside the run call that received it, on that goroutine.
type Worker[T, S any] struct {
	ID      int // 0 <= ID < Config.Workers
	Scratch S   // owned by this worker; no locking needed

	c     *core.Worker[T]
	exec  *Executor[T, S]
	park  chan struct{}
	timer *time.Timer // for ParkTimeout; made on first use
}

// Spawn queues task on this worker. It is the cheapest way to spawn: task
// goes into a private LIFO slot (this worker runs it next; thieves cannot see
// it) and takes over the running task's place in the in-flight count when it
// returns, so a task that spawns one successor costs no atomic operation at
// all. A task already in the slot, from an earlier Spawn by the same run,
// moves onto the worker's ring, where idle workers can steal it; a full ring
// moves half of itself to the injector. Spawn never fails: a running task
// keeps the executor open. Calling it after the task has returned (say, from
// a goroutine the task started) panics: use Handle there.
func (w *Worker[T, S]) Spawn(task T) {
	w.mustBeRunning("Spawn")
	w.c.Spawn(task)
}

// SpawnGlobal queues task on the shared injector, where any worker may take
// it first. Use it for work that should not wait behind this worker's own.
func (w *Worker[T, S]) SpawnGlobal(task T) {
	w.mustBeRunning("SpawnGlobal")
	w.c.SpawnGlobal(task)
}

// mustBeRunning turns a Worker used outside its task, which would otherwise
// queue a task with no unit in the gate word (lost at Join), into a clear
// panic.
func (w *Worker[T, S]) mustBeRunning(op string) {
	if !w.c.Running() {
		panic("spindle: Worker." + op + " called outside the task that received the *Worker; use a Handle from other goroutines")
	}
}

// Handle returns a Handle to the executor, for spawning from goroutines the
// task starts.
func (w *Worker[T, S]) Handle() Handle[T] { return w.exec.Handle() }

// Context returns the executor's context: the one given to NewContext or
// Start, context.Background() for New. A long task may watch it to stop
// early when the executor is cancelled.
func (w *Worker[T, S]) Context() context.Context { return w.exec.ctx }

// Rand returns a pseudo-random number from the worker's xorshift64*
// generator. The sequence depends only on Config.Seed and the worker's ID.
func (w *Worker[T, S]) Rand() uint64 { return w.c.Rand() }
