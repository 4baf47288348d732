package core

import "fmt"

// EventKind names a scheduling decision recorded by a Tracer.
type EventKind uint8

const (
	EvRun   EventKind = iota // a worker ran a task (Source, Victim)
	EvSpill                  // a full ring moved N tasks to the injector
	EvPark                   // a worker parked
	EvWake                   // a parked worker was claimed and woken
	EvDone                   // the run ended (Worker is -1)
)

// Event is one traced scheduling decision.
type Event struct {
	Kind   EventKind
	Worker int
	Source Source
	Victim int
	N      int
}

func (e Event) String() string {
	switch e.Kind {
	case EvRun:
		if e.Source == FromSteal {
			return fmt.Sprintf("w%d run steal(w%d)", e.Worker, e.Victim)
		}
		return fmt.Sprintf("w%d run %s", e.Worker, e.Source)
	case EvSpill:
		return fmt.Sprintf("w%d spill %d", e.Worker, e.N)
	case EvPark:
		return fmt.Sprintf("w%d park", e.Worker)
	case EvWake:
		return fmt.Sprintf("w%d wake", e.Worker)
	case EvDone:
		return "done"
	}
	return fmt.Sprintf("event(%d)", e.Kind)
}
