package scan

import (
	"fmt"
	"runtime/debug"

	"github.com/spindle-go/spindle"
)

// The engine calls code it does not own: the detector, the ignore set and
// the user's callbacks. A panic in them must not unwind through the
// executor, which would abandon the queued tasks and with them the files
// and directories they hold open, nor leave the callback lock held. So each
// such call is guarded: a panic stops the scan as FailFast does, with a
// *spindle.PanicError (wrapped) as Scan's error, and the tasks drain and
// close everything as usual.

// guard runs f and reports whether it returned normally.
func (e *engine) guard(f func()) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			e.abort(panicError(v))
			ok = false
		}
	}()
	f()
	return true
}

// callback runs f, a user callback, under the callback lock.
func (e *engine) callback(f func()) {
	var (
		v     any
		stack []byte
	)
	func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		defer func() {
			if v = recover(); v != nil {
				stack = debug.Stack()
			}
		}()
		f()
	}()
	if v != nil {
		e.abort(fmt.Errorf("scan: callback: %w", &spindle.PanicError{Value: v, Stack: stack}))
	}
}

func panicError(v any) error {
	return fmt.Errorf("scan: detector: %w", &spindle.PanicError{Value: v, Stack: debug.Stack()})
}
