package sim

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"

	"github.com/spindle-go/spindle/internal/core"
)

// Case describes one simulation: the workload, the executor configuration,
// and optionally a scripted schedule. Cases are stored as JSON in testdata and
// replayed by the tests.
type Case struct {
	Name     string `json:"name"`
	Workers  int    `json:"workers"`
	LocalCap int    `json:"local_cap,omitempty"` // default 4: small rings exercise spills
	Shared   bool   `json:"shared,omitempty"`
	Seed     uint64 `json:"seed"` // drives task shapes, and the schedule when Choices is empty

	Roots    int `json:"roots"`     // tasks the driver spawns before anything runs
	Fanout   int `json:"fanout"`    // each task spawns 0..Fanout children
	MaxTasks int `json:"max_tasks"` // no more tasks than this are created
	Global   int `json:"global"`    // percent of children spawned on the injector
	External int `json:"external"`  // extra tasks the driver spawns at scheduled moments
	Batch    int `json:"batch"`     // external spawns go in batches of this size (1 = Spawn)

	// What the driver does once its external spawns are done: "join" (close
	// the gate and let the run drain), "shutdown" (abandon queued work), or
	// "panic:N" (task N panics; the run stops as with shutdown).
	End string `json:"end"`

	SpinRounds int `json:"spin_rounds,omitempty"` // empty rounds before a worker parks; default 2

	// Choices is a scripted schedule: at step k the actor with index
	// Choices[k] % len(runnable) moves. When it runs out, Seed decides.
	Choices []int `json:"choices,omitempty"`
	// TraceHash, if set, must equal the hash of the run's trace.
	TraceHash string `json:"trace_hash,omitempty"`
}

// Result is what a simulation observed.
type Result struct {
	Steps     int
	Trace     []string
	TraceHash string
	Choices   []int // the schedule actually taken, for writing a replay case
	Accepted  int
	Ran       int
	DoneCount int
}

// Violation is an invariant the simulation found broken, with the step at
// which it was detected.
type Violation struct {
	Step int
	What string
}

func (v *Violation) Error() string { return fmt.Sprintf("sim: step %d: %s", v.Step, v.What) }

// simulation is the state of one run: the policy's pool and workers, the
// driver, and the bookkeeping the invariants need.
type simulation struct {
	c       Case
	pool    *core.Pool[int]
	workers []*core.Worker[int]
	runs    []func(int)
	state   []wstate
	rng     *rand.Rand
	shape   *rand.Rand

	accepted  map[int]bool
	ran       map[int]int
	completed int
	nextID    int
	pendingX  int // external spawns still to make
	closed    bool
	shutdown  bool
	panicID   int
	doneCount int
	doneAt    int // completed count when done was signalled

	trace   []string
	choices []int
	step    int
}

type wstate uint8

const (
	wRunnable wstate = iota
	wParked
	wWoken // a Wake arrived while parked; Unparked runs on its next turn
	wExited
)

// Wake implements core.Waker: a permit for a parked virtual worker.
func (s *simulation) Wake(i int) {
	if s.state[i] == wParked {
		s.state[i] = wWoken
	}
	// A wake for a worker that is not parked is a stale permit; the real
	// executor would make its next park return at once, which the
	// simulator models by never parking it on a permit it already holds.
}

// Trace implements core.Tracer.
func (s *simulation) Trace(ev core.Event) {
	s.trace = append(s.trace, ev.String())
	if ev.Kind == core.EvDone {
		s.doneCount++
		s.doneAt = s.completed
	}
}

type idle struct{ spin int }

func (p idle) Action(round int) core.IdleAction {
	if round > p.spin {
		return core.IdlePark
	}
	return core.IdleSpin
}

// Run simulates c and checks the invariants after every step. It returns the
// observations and the first violation, if any.
func Run(c Case) (Result, error) { return runWith(c, nil) }

// runWith is Run with the waker replaced, so tests can break the protocol
// and check that the simulator notices.
func runWith(c Case, waker func(*simulation) core.Waker) (Result, error) {
	if c.Workers < 1 {
		c.Workers = 1
	}
	if c.LocalCap == 0 {
		c.LocalCap = 4
	}
	if c.SpinRounds == 0 {
		c.SpinRounds = 2
	}
	if c.Batch < 1 {
		c.Batch = 1
	}
	s := &simulation{
		c:        c,
		rng:      rand.New(rand.NewPCG(c.Seed, 0x5eed)),
		shape:    rand.New(rand.NewPCG(c.Seed, 0x54a9e)),
		accepted: map[int]bool{},
		ran:      map[int]int{},
		pendingX: c.External,
		panicID:  -1,
	}
	if strings.HasPrefix(c.End, "panic:") {
		fmt.Sscanf(c.End, "panic:%d", &s.panicID)
	}
	var wk core.Waker = s
	if waker != nil {
		wk = waker(s)
	}
	s.pool, s.workers = core.NewPool[int](core.Config{
		Workers:    c.Workers,
		Seed:       c.Seed,
		StealTries: 2,
		LocalCap:   c.LocalCap,
		Shared:     c.Shared,
		Waker:      wk,
		Tracer:     s,
	})
	s.state = make([]wstate, c.Workers)
	s.runs = make([]func(int), c.Workers)
	for i, w := range s.workers {
		w := w
		s.runs[i] = func(id int) { s.execute(w, id) }
	}
	for i := 0; i < c.Roots; i++ {
		s.spawnExternal(1)
	}
	err := s.loop()
	res := Result{
		Steps:     s.step,
		Trace:     s.trace,
		Choices:   s.choices,
		Accepted:  len(s.accepted),
		Ran:       len(s.ran),
		DoneCount: s.doneCount,
	}
	h := fnv.New64a()
	for _, e := range s.trace {
		h.Write([]byte(e))
		h.Write([]byte{'\n'})
	}
	res.TraceHash = hex.EncodeToString(h.Sum(nil))
	if err == nil && c.TraceHash != "" && c.TraceHash != res.TraceHash {
		err = &Violation{Step: s.step, What: fmt.Sprintf("trace hash %s, want %s", res.TraceHash, c.TraceHash)}
	}
	return res, err
}

// execute is the body of every simulated task: record the run, then spawn
// children as the case's shape RNG decides.
func (s *simulation) execute(w *core.Worker[int], id int) {
	// A task completes when its body returns (or panics), inside Step: the
	// worker may release the units, and end the run, before Step returns.
	defer func() { s.completed++ }()
	s.ran[id]++
	s.trace = append(s.trace, fmt.Sprintf("w%d exec %d", w.ID, id))
	if id == s.panicID {
		panic(fmt.Sprintf("task %d panics", id))
	}
	if s.c.Fanout == 0 {
		return
	}
	k := s.shape.IntN(s.c.Fanout + 1)
	for j := 0; j < k && s.nextID < s.c.MaxTasks; j++ {
		child := s.newID()
		s.accepted[child] = true // internal spawns always succeed
		if s.shape.IntN(100) < s.c.Global {
			w.SpawnGlobal(child)
		} else {
			w.Spawn(child)
		}
	}
}

func (s *simulation) newID() int { s.nextID++; return s.nextID - 1 }

func (s *simulation) spawnExternal(n int) {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = s.newID()
	}
	var ok bool
	if n == 1 {
		ok = s.pool.Spawn(ids[0])
	} else {
		ok = s.pool.SpawnBatch(ids)
	}
	s.trace = append(s.trace, fmt.Sprintf("driver spawn %v ok=%v", ids, ok))
	if ok {
		for _, id := range ids {
			s.accepted[id] = true
		}
	}
}

// actors lists who may move: runnable workers, then the driver while it has
// something left to do.
func (s *simulation) actors() []int {
	var a []int
	for i, st := range s.state {
		if st == wRunnable || st == wWoken {
			a = append(a, i)
		}
	}
	if s.pendingX > 0 || !s.closed {
		a = append(a, -1)
	}
	return a
}

func (s *simulation) loop() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Violation{Step: s.step, What: fmt.Sprintf("panic outside a task: %v", r)}
		}
	}()
	const maxSteps = 1 << 20
	for s.step = 0; s.step < maxSteps; s.step++ {
		a := s.actors()
		if len(a) == 0 {
			if s.allExited() {
				return s.checkEnd()
			}
			return &Violation{Step: s.step, What: "no worker can move but the run is not over (lost wakeup or hang)"}
		}
		var k int
		if s.step < len(s.c.Choices) {
			k = s.c.Choices[s.step] % len(a)
		} else {
			k = s.rng.IntN(len(a))
		}
		s.choices = append(s.choices, k)
		if who := a[k]; who < 0 {
			s.driverStep()
		} else {
			s.workerStep(who)
		}
		if v := s.checkStep(); v != "" {
			return &Violation{Step: s.step, What: v}
		}
	}
	return &Violation{Step: s.step, What: "step limit reached (livelock?)"}
}

func (s *simulation) driverStep() {
	if s.pendingX > 0 {
		n := min(s.c.Batch, s.pendingX)
		s.pendingX -= n
		s.spawnExternal(n)
		return
	}
	s.closed = true
	switch {
	case s.c.End == "shutdown":
		s.shutdown = true
		s.trace = append(s.trace, "driver shutdown")
		s.pool.Shutdown()
	default:
		s.trace = append(s.trace, "driver join")
		s.pool.Close()
	}
}

func (s *simulation) workerStep(i int) {
	w := s.workers[i]
	if s.state[i] == wWoken {
		w.Unparked()
		s.state[i] = wRunnable
	}
	r := w.StepRecover(s.runs[i], idle{s.c.SpinRounds})
	switch r.Kind {
	case core.Park:
		if w.PrepareParking() {
			s.state[i] = wParked
		}
	case core.Exit:
		s.state[i] = wExited
	}
}

func (s *simulation) allExited() bool {
	for _, st := range s.state {
		if st != wExited {
			return false
		}
	}
	return true
}

// checkStep is run after every step.
func (s *simulation) checkStep() string {
	for id, n := range s.ran {
		if n > 1 {
			return fmt.Sprintf("task %d ran %d times", id, n)
		}
		if !s.accepted[id] {
			return fmt.Sprintf("task %d ran but was never accepted", id)
		}
	}
	if s.doneCount > 1 {
		return fmt.Sprintf("done signalled %d times", s.doneCount)
	}
	if s.doneCount == 1 && !s.stopped() && s.doneAt < len(s.accepted) {
		return fmt.Sprintf("done signalled after %d of %d accepted tasks completed", s.doneAt, len(s.accepted))
	}
	if s.doneCount == 0 && s.closed && !s.stopped() && s.pool.State.Load() == 0 {
		return "state word terminal but done not signalled"
	}
	return ""
}

func (s *simulation) stopped() bool {
	_, _, panicked := s.pool.Panic()
	return s.shutdown || panicked
}

// checkEnd is run once every worker has exited.
func (s *simulation) checkEnd() error {
	if s.doneCount != 1 {
		return &Violation{Step: s.step, What: fmt.Sprintf("done signalled %d times, want 1", s.doneCount)}
	}
	if s.stopped() {
		return nil
	}
	for id := range s.accepted {
		if s.ran[id] != 1 {
			return &Violation{Step: s.step, What: fmt.Sprintf("accepted task %d ran %d times", id, s.ran[id])}
		}
	}
	if w := s.pool.State.Load(); w != 0 {
		return &Violation{Step: s.step, What: fmt.Sprintf("state word %#x at the end, want 0", w)}
	}
	return nil
}
