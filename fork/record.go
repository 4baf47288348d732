package fork

// Job status, guarded by Pool.mu. A fork record's status only matters once
// it has been promoted (its index is below Task.bottom); a local record's
// status is stale and never read.
const (
	statusLocal  uint8 = iota // on its owner's stack, or withdrawn
	statusShared              // in Pool.ready, waiting for a taker
	statusTaken               // running on another worker
	statusDone                // finished; result or panic stored
)

// header is the part of a job that other workers touch.
type header struct {
	// owner is the Task whose stack holds the record (or whose loop made the
	// piece): it is the Task that joins the job, so the worker that finishes
	// the job wakes it. Immutable.
	owner *Task
	// idx is the record's slot in owner.slots (fork records and loop
	// frames) or -1 (loop pieces). Immutable.
	idx int
	// status is guarded by owner.pool.mu.
	status uint8
	// panicked and pv carry a panic from the worker that ran the job to the
	// joiner. Written before status becomes statusDone, read after.
	panicked bool
	pv       any
}

func (h *header) head() *header { return h }

// takePanic returns and clears the stored panic, so that the record does not
// keep the value alive.
func (h *header) takePanic() (any, bool) {
	pv, ok := h.pv, h.panicked
	h.pv, h.panicked = nil, false
	return pv, ok
}

// record is what a job-stack slot holds: a fork's job or a For/Reduce loop.
// Every method runs on the owner's goroutine.
type record interface {
	// offer is called by a heartbeat, with pool.mu held, when the record is
	// the oldest that may still be offered. It reports whether it published
	// work and whether it has nothing more to offer, so that the heartbeat
	// moves on to the next record.
	offer(t *Task) (published, exhausted bool)
	// abandon cleans up after a panic unwound past the frame that would
	// have joined the record; promoted says whether the record's index is
	// below Task.bottom.
	abandon(t *Task, promoted bool)
	// scrub drops references to user data.
	scrub()
}

// shared is a job that may be in Pool.ready and run on another worker.
type shared interface {
	head() *header
	// execute runs the job on t (a thief, or the owner running it inline
	// after a withdrawal) and stores its result.
	execute(t *Task)
}

// settle ends a job that was promoted or published when its owner no longer
// wants the result: it withdraws it if still ready, or waits for it.
// Called with pool.mu held.
func settle(t *Task, s shared) {
	if s.head().status == statusShared {
		t.pool.unshareLocked(s)
		return
	}
	t.waitFor(s.head())
	s.head().takePanic()
}
