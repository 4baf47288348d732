package spindle

import (
	"errors"
	"fmt"
)

// ErrClosed is returned by Spawn and SpawnBatch once the executor no longer
// accepts tasks (after Join, Shutdown, or a task's panic). The caller still
// owns the task it tried to spawn.
var ErrClosed = errors.New("spindle: executor closed")

// ErrGoexit is the panic value reported for a task that called
// runtime.Goexit (t.FailNow in a test does): PanicError.Value, and the value
// Config.OnPanic receives. Goexit cannot be recovered, so the worker's
// goroutine ends; the executor starts another in its place.
var ErrGoexit = errors.New("spindle: task called runtime.Goexit")

// PanicError is Join's error when a task panicked. It carries the first panic
// raised by any task; later panics are dropped.
type PanicError struct {
	Value any    // the value passed to panic (an error saying so if the task called runtime.Goexit)
	Stack []byte // the panicking goroutine's stack, from runtime/debug.Stack
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("spindle: task panicked: %v\n\n%s", e.Value, e.Stack)
}

// Unwrap returns the panic value if it is an error, so errors.Is and
// errors.As see through a panic(err).
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}
