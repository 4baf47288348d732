package spindle

import "github.com/spindle-go/spindle/internal/core"

// Handle spawns into an executor from any goroutine. It is a small value:
// copy it freely. The zero Handle belongs to no executor: it behaves as the
// Handle of a closed one (Spawn returns ErrClosed).
type Handle[T any] struct {
	pool *core.Pool[T]
}

// Spawn accepts task, or returns ErrClosed if the executor no longer accepts
// tasks; the caller then still owns task.
func (h Handle[T]) Spawn(task T) error {
	if h.pool == nil || !h.pool.Spawn(task) {
		return ErrClosed
	}
	return nil
}

// SpawnBatch accepts every task or none (ErrClosed).
func (h Handle[T]) SpawnBatch(tasks []T) error {
	if h.pool == nil || !h.pool.SpawnBatch(tasks) {
		return ErrClosed
	}
	return nil
}

// Accepting reports whether the executor still accepts tasks. The answer can
// be stale by the time the caller acts on it; Spawn's error is authoritative.
func (h Handle[T]) Accepting() bool { return h.pool != nil && h.pool.State.Accepting() }

// Shutdown stops the executor as Executor.Shutdown does. On the zero Handle
// it does nothing.
func (h Handle[T]) Shutdown() {
	if h.pool != nil {
		h.pool.Shutdown()
	}
}
