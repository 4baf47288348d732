package sim

import (
	"fmt"

	"github.com/spindle-go/spindle/internal/core"
)

// A Thread is a small program over the gate word, one atomic operation per
// Step. Step returns false when the thread has finished. Threads are
// rebuilt from scratch for every interleaving, so they may keep state in
// their closures.
type Thread interface {
	Step(s *core.State) (more bool)
}

// ThreadFunc adapts a step function to Thread.
type ThreadFunc func(s *core.State) bool

// Step runs f.
func (f ThreadFunc) Step(s *core.State) bool { return f(s) }

// Model is one race on the gate word, as LoomModels lists them: how to build
// the initial word and the threads, and the invariant to hold once every
// thread has finished.
type Model struct {
	Name  string
	Init  func(s *core.State)
	Build func(obs *Observed) []Thread
	Check func(s *core.State, obs *Observed) error
}

// Observed is what the threads of one interleaving saw.
type Observed struct {
	Terminal   int      // how many operations reported the word terminal
	TerminalBy []string // which ones
	Spawned    int      // external spawns that got in
	Completed  int      // Done calls made
	// CompletedBeforeTerminal is Completed at the moment the first terminal
	// was reported.
	CompletedBeforeTerminal int
	Events                  []string
}

func (o *Observed) terminal(by string) {
	if o.Terminal == 0 {
		o.CompletedBeforeTerminal = o.Completed
	}
	o.Terminal++
	o.TerminalBy = append(o.TerminalBy, by)
}

// Explore runs m under every interleaving of its threads' steps and returns
// how many interleavings it checked, or the first one that broke the
// invariant (as the sequence of thread indexes that moved).
func Explore(m Model) (int, error) {
	count := 0
	var walk func(prefix []int) error
	walk = func(prefix []int) error {
		// Replay prefix from scratch, then branch on every thread that can
		// still move.
		var s core.State
		m.Init(&s)
		obs := &Observed{}
		threads := m.Build(obs)
		live := make([]bool, len(threads))
		for i := range live {
			live[i] = true
		}
		for _, t := range prefix {
			live[t] = threads[t].Step(&s)
		}
		any := false
		for t := range threads {
			if !live[t] {
				continue
			}
			any = true
			next := append(append([]int(nil), prefix...), t)
			if err := walk(next); err != nil {
				return err
			}
		}
		if !any {
			count++
			if err := m.Check(&s, obs); err != nil {
				return fmt.Errorf("%s: schedule %v: %w (events %v)", m.Name, prefix, err, obs.Events)
			}
		}
		return nil
	}
	return count, walk(nil)
}

// externalSpawn is a thread that spawns one task through the CAS loop, one
// load or CAS per step, and, if the task got in, later completes it.
func externalSpawn(name string, obs *Observed, complete bool) Thread {
	const (
		load = iota
		cas
		done
		finished
	)
	pc := load
	var old uint64
	return ThreadFunc(func(s *core.State) bool {
		switch pc {
		case load:
			old = s.Load()
			pc = cas
		case cas:
			added, retry := s.TryAcquireOnce(old, 1)
			switch {
			case added:
				obs.Spawned++
				obs.Events = append(obs.Events, name+" spawned")
				pc = done
				if !complete {
					pc = finished
				}
			case retry:
				pc = load
			default:
				obs.Events = append(obs.Events, name+" rejected")
				pc = finished
			}
		case done:
			obs.Completed++
			if s.Done(1) {
				obs.terminal(name + " completion")
			}
			pc = finished
		}
		return pc != finished
	})
}

// closeGate is a thread that closes the gate in one step (Join's first act).
func closeGate(obs *Observed) Thread {
	return ThreadFunc(func(s *core.State) bool {
		if s.Close() {
			obs.terminal("join")
		}
		obs.Events = append(obs.Events, "join closed")
		return false
	})
}

// complete is a thread that finishes one task already in flight.
func complete(name string, obs *Observed) Thread {
	return ThreadFunc(func(s *core.State) bool {
		obs.Completed++
		if s.Done(1) {
			obs.terminal(name)
		}
		return false
	})
}

func exactlyOnceTerminal(s *core.State, obs *Observed) error {
	if obs.Terminal != 1 {
		return fmt.Errorf("terminal reported %d times (%v), want once", obs.Terminal, obs.TerminalBy)
	}
	if w := s.Load(); w != 0 {
		return fmt.Errorf("final word %#x, want 0", w)
	}
	return nil
}

// LoomModels are the four loom model-checking tests of the Rust pool this
// executor follows, restated over core.State.
var LoomModels = []Model{
	{
		// An external spawn races Join's gate close: either the spawn gets in
		// (and then termination waits for it) or it is rejected; never a task
		// accepted after the gate closed and left unwaited.
		Name: "spawn_vs_join_gate_atomicity",
		Init: func(s *core.State) { s.Init() },
		Build: func(obs *Observed) []Thread {
			return []Thread{externalSpawn("spawner", obs, true), closeGate(obs)}
		},
		Check: func(s *core.State, obs *Observed) error {
			if err := exactlyOnceTerminal(s, obs); err != nil {
				return err
			}
			if obs.CompletedBeforeTerminal != obs.Spawned {
				return fmt.Errorf("terminal after %d completions, %d spawned", obs.CompletedBeforeTerminal, obs.Spawned)
			}
			return nil
		},
	},
	{
		// The last completion races Join: exactly one of them observes the
		// terminal word.
		Name: "completion_vs_join_termination",
		Init: func(s *core.State) { s.Init(); s.Add(1) },
		Build: func(obs *Observed) []Thread {
			return []Thread{complete("task", obs), closeGate(obs)}
		},
		Check: exactlyOnceTerminal,
	},
	{
		// Two external spawns race: both get in and the count is 2.
		Name: "concurrent_spawns_no_lost_count",
		Init: func(s *core.State) { s.Init() },
		Build: func(obs *Observed) []Thread {
			return []Thread{externalSpawn("a", obs, false), externalSpawn("b", obs, false)}
		},
		Check: func(s *core.State, obs *Observed) error {
			if obs.Spawned != 2 || s.InFlight() != 2 || !s.Accepting() {
				return fmt.Errorf("spawned %d, word %#x, want 2 tasks and open gate", obs.Spawned, s.Load())
			}
			return nil
		},
	},
	{
		// A running task completes while an external spawn and Join race:
		// exactly one terminal, after every accepted task completed.
		Name: "three_way_spawn_complete_join",
		Init: func(s *core.State) { s.Init(); s.Add(1) },
		Build: func(obs *Observed) []Thread {
			return []Thread{externalSpawn("spawner", obs, true), complete("running task", obs), closeGate(obs)}
		},
		Check: func(s *core.State, obs *Observed) error {
			if err := exactlyOnceTerminal(s, obs); err != nil {
				return err
			}
			if obs.CompletedBeforeTerminal != obs.Spawned+1 {
				return fmt.Errorf("terminal after %d completions, want %d", obs.CompletedBeforeTerminal, obs.Spawned+1)
			}
			return nil
		},
	},
}
