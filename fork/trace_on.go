//go:build forktrace

package fork

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// With -tags forktrace the scheduler records what its workers do: when a
// Call starts and ends, every clock read of the heartbeat and what it
// found, every record offered (with its input, so a benchmark can say how
// much work it held), when each job starts and ends and on which worker,
// when a worker starts to wait (polling, then parked), is woken and runs
// again, and each time a worker looked for a ready job and found none. The
// hooks sit on the scheduler's slow paths only (a clock read, a promotion,
// a wait), never on an untaken fork, and they take a global lock: the trace is for explaining a
// benchmark, not for production. analyze turns the events into per-worker
// time accounts and per-promotion figures.
const tracing = true

type traceKind uint8

const (
	evCallStart traceKind = iota // t starts a Call
	evCallEnd                    // t's Call returns
	evOffer                      // t offers h; in is its input
	evWithdraw                   // h's owner takes it back before anyone started it
	evRunStart                   // t starts running h
	evRunEnd                     // t finished h
	evSleep                      // t waits; n = 1 if for a job of its own
	evWake                       // someone sends the waiting t its token
	evAwake                      // t runs again after waiting
	evNothing                    // t looked for a ready job and found none
	evBeat                       // t's clock read promoted n records
)

type traceEvent struct {
	at   time.Duration
	kind traceKind
	t    *Task
	h    *header
	in   any
	n    int
}

var tr struct {
	mu     sync.Mutex
	on     bool
	events []traceEvent
	beats  map[*Task]*[nOutcomes]int
}

func traceAdd(e traceEvent) {
	tr.mu.Lock()
	if tr.on {
		e.at = clock()
		tr.events = append(tr.events, e)
	}
	tr.mu.Unlock()
}

func traceCall(t *Task, start bool) {
	k := evCallEnd
	if start {
		k = evCallStart
	}
	traceAdd(traceEvent{kind: k, t: t})
}

func traceBeat(t *Task, o beatOutcome, n int) {
	tr.mu.Lock()
	if tr.on {
		c := tr.beats[t]
		if c == nil {
			c = new([nOutcomes]int)
			tr.beats[t] = c
		}
		c[o]++
		if o == beatPromoted {
			tr.events = append(tr.events, traceEvent{at: clock(), kind: evBeat, t: t, n: n})
		}
	}
	tr.mu.Unlock()
}

func traceOffer(t *Task, h *header, in any) { traceAdd(traceEvent{kind: evOffer, t: t, h: h, in: in}) }
func traceWithdraw(h *header)               { traceAdd(traceEvent{kind: evWithdraw, t: h.owner, h: h}) }

func traceRun(t *Task, h *header, start bool) {
	k := evRunEnd
	if start {
		k = evRunStart
	}
	traceAdd(traceEvent{kind: k, t: t, h: h})
}

func traceSleep(t *Task, joining bool) {
	n := 0
	if joining {
		n = 1
	}
	traceAdd(traceEvent{kind: evSleep, t: t, n: n})
}

func traceWake(t *Task)    { traceAdd(traceEvent{kind: evWake, t: t}) }
func traceAwake(t *Task)   { traceAdd(traceEvent{kind: evAwake, t: t}) }
func traceNothing(t *Task) { traceAdd(traceEvent{kind: evNothing, t: t}) }

// traceStart discards what was recorded and starts recording.
func traceStart() {
	tr.mu.Lock()
	tr.on = true
	tr.events = tr.events[:0]
	tr.beats = map[*Task]*[nOutcomes]int{}
	tr.mu.Unlock()
}

// traceStop stops recording and analyzes the events since traceStart.
// size says how much work an offered job's input holds (the tree benchmark
// counts the nodes below it); nil counts nothing.
func traceStop(heartbeat time.Duration, size func(any) int) *traceReport {
	tr.mu.Lock()
	tr.on = false
	events := slices.Clone(tr.events)
	beats := tr.beats
	tr.mu.Unlock()
	return analyze(events, beats, heartbeat, size)
}

// Worker states the analysis keeps time in.
const (
	stOff    = iota // not in a job nor in a Call, awake: looking for work or between jobs
	stBusy          // running a job or the Call's function
	stIdle          // parked with nothing to do
	stJoin          // parked, waiting for a job of its own to finish
	stWaking        // woken, not yet running (the wake-up latency)
	nStates
)

var stateNames = [nStates]string{"looking", "busy", "idle", "joining", "waking"}

// traceWorker is one worker's account in a trace.
type traceWorker struct {
	Name    string
	Time    [nStates]time.Duration // time in each state, inside Calls only
	Jobs    int                    // jobs started (not nested in another job)
	Nothing int                    // looked for a ready job, found none
	Wakes   []time.Duration        // from being woken to running again
	Beats   [nOutcomes]int         // clock reads by outcome
}

// traceReport is what a trace says about a run of Calls.
type traceReport struct {
	Heartbeat   time.Duration
	Calls       int
	CallTime    time.Duration // summed over Calls
	Workers     []*traceWorker
	Offers      int             // records offered
	Withdrawn   int             // offered, then taken back by their owner
	Latency     []time.Duration // from an offer to its start on another worker
	Sizes       []int           // work in each taken job (size's unit)
	FirstOffer  []time.Duration // per Call with a promotion: from its start to the first offer
	PerBeat     []int           // records offered by each promoting clock read
	CallLengths []time.Duration
}

func analyze(events []traceEvent, beats map[*Task]*[nOutcomes]int, heartbeat time.Duration, size func(any) int) *traceReport {
	r := &traceReport{Heartbeat: heartbeat}
	type wstate struct {
		w       *traceWorker
		state   int
		nest    int
		wokenAt time.Duration
		woken   bool
	}
	ws := map[*Task]*wstate{}
	var order []*Task
	callers := map[*Task]bool{}
	get := func(t *Task) *wstate {
		s := ws[t]
		if s == nil {
			s = &wstate{w: &traceWorker{}}
			ws[t] = s
			order = append(order, t)
		}
		return s
	}
	type offer struct {
		at time.Duration
		in any
	}
	pending := map[*header]offer{}
	inCall := false
	var last, callStart time.Duration
	firstDone := false
	for _, e := range events {
		if inCall {
			for _, s := range ws {
				s.w.Time[s.state] += e.at - last
			}
		}
		last = e.at
		s, seen := ws[e.t]
		if !seen {
			s = get(e.t)
			// A worker's first event in the trace says what it did in
			// the Calls before: nothing, if its first event is a
			// wake-up; and since the start of the current Call, waiting
			// for work if someone wakes it, looking for work otherwise.
			if e.kind != evCallStart {
				s.w.Time[stIdle] += r.CallTime
			}
			if inCall {
				before := stOff
				if e.kind == evWake {
					before = stIdle
				}
				s.w.Time[before] += e.at - callStart
			}
		}
		switch e.kind {
		case evCallStart:
			callers[e.t] = true
			inCall, callStart, firstDone = true, e.at, false
			r.Calls++
			s.nest++
			s.state = stBusy
		case evCallEnd:
			inCall = false
			r.CallTime += e.at - callStart
			r.CallLengths = append(r.CallLengths, e.at-callStart)
			s.nest--
			s.state = stOff
		case evOffer:
			r.Offers++
			pending[e.h] = offer{e.at, e.in}
			if !firstDone && inCall {
				r.FirstOffer = append(r.FirstOffer, e.at-callStart)
				firstDone = true
			}
		case evWithdraw:
			if _, ok := pending[e.h]; ok {
				r.Withdrawn++
				delete(pending, e.h)
			}
		case evRunStart:
			if o, ok := pending[e.h]; ok {
				delete(pending, e.h)
				r.Latency = append(r.Latency, e.at-o.at)
				if size != nil {
					r.Sizes = append(r.Sizes, size(o.in))
				}
			}
			if s.nest == 0 {
				s.w.Jobs++
			}
			s.nest++
			s.state = stBusy
		case evRunEnd:
			s.nest--
			if s.nest == 0 {
				s.state = stOff
			}
		case evSleep:
			s.state = stIdle
			if e.n == 1 {
				s.state = stJoin
			}
		case evWake:
			s.state = stWaking
			s.wokenAt = e.at
			s.woken = true
		case evAwake:
			if s.woken {
				s.w.Wakes = append(s.w.Wakes, e.at-s.wokenAt)
				s.woken = false
			}
			s.state = stOff
			if s.nest > 0 {
				s.state = stBusy
			}
		case evNothing:
			s.w.Nothing++
		case evBeat:
			r.PerBeat = append(r.PerBeat, e.n)
		}
	}
	// Callers first, then the background workers in order of appearance.
	slices.SortStableFunc(order, func(a, b *Task) int {
		switch {
		case callers[a] == callers[b]:
			return 0
		case callers[a]:
			return -1
		}
		return 1
	})
	n := 0
	for _, t := range order {
		w := ws[t].w
		if callers[t] {
			w.Name = "caller"
		} else {
			n++
			w.Name = fmt.Sprintf("worker %d", n)
		}
		if c := beats[t]; c != nil {
			w.Beats = *c
		}
		r.Workers = append(r.Workers, w)
	}
	return r
}

// Idle returns the share of the workers' time inside Calls that was not
// spent running jobs.
func (r *traceReport) Idle() float64 {
	var busy, all time.Duration
	for _, w := range r.Workers {
		busy += w.Time[stBusy]
		for _, d := range w.Time {
			all += d
		}
	}
	if all == 0 {
		return 0
	}
	return 1 - float64(busy)/float64(all)
}

func median[T int | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func mean[T int | time.Duration](xs []T) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += float64(x)
	}
	return sum / float64(len(xs))
}

func maxOf[T int | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	return slices.Max(xs)
}

func us(d float64) string { return fmt.Sprintf("%.1fµs", d/1e3) }

// String formats the report as a few small tables, per Call where that is
// the unit that means something.
func (r *traceReport) String() string {
	var b strings.Builder
	calls := float64(max(r.Calls, 1))
	perCall := float64(r.CallTime) / calls
	fmt.Fprintf(&b, "%d Calls, heartbeat %v; a Call takes %s (median %s); workers idle %.1f%% of the time\n",
		r.Calls, r.Heartbeat, us(perCall), us(float64(median(r.CallLengths))), 100*r.Idle())
	fmt.Fprintf(&b, "%-9s", "per Call")
	for _, n := range stateNames {
		fmt.Fprintf(&b, " %15s", n)
	}
	fmt.Fprintf(&b, " %6s %8s %12s %12s\n", "jobs", "nothing", "wake median", "wake max")
	for _, w := range r.Workers {
		fmt.Fprintf(&b, "%-9s", w.Name)
		for _, d := range w.Time {
			fmt.Fprintf(&b, " %15s", us(float64(d)/calls))
		}
		fmt.Fprintf(&b, " %6.2f %8.2f %12s %12s\n", float64(w.Jobs)/calls, float64(w.Nothing)/calls,
			us(float64(median(w.Wakes))), us(float64(maxOf(w.Wakes))))
	}
	var busy time.Duration
	for _, w := range r.Workers {
		busy += w.Time[stBusy]
	}
	fmt.Fprintf(&b, "busy, all workers: %s per Call (compare with a Call on one worker: the work the scheduling added)\n", us(float64(busy)/calls))
	fmt.Fprintf(&b, "promotions: %.2f offered per Call (%.2f withdrawn), %.2f per heartbeat of Call time; records per promoting clock read: mean %.2f, max %d\n",
		float64(r.Offers)/calls, float64(r.Withdrawn)/calls,
		float64(r.Offers)/(float64(r.CallTime)/float64(r.Heartbeat)), mean(r.PerBeat), maxOf(r.PerBeat))
	fmt.Fprintf(&b, "first offer after the start of a Call: median %s (%d Calls had one)\n",
		us(float64(median(r.FirstOffer))), len(r.FirstOffer))
	fmt.Fprintf(&b, "offer to start on another worker: median %s, mean %s, max %s\n",
		us(float64(median(r.Latency))), us(mean(r.Latency)), us(float64(maxOf(r.Latency))))
	if len(r.Sizes) > 0 {
		fmt.Fprintf(&b, "size of a taken job: median %d, mean %.0f, max %d\n", median(r.Sizes), mean(r.Sizes), maxOf(r.Sizes))
	}
	fmt.Fprintf(&b, "clock reads per Call:")
	names := [nOutcomes]string{"before a heartbeat", "nobody idle", "nothing to offer", "promoted"}
	for _, w := range r.Workers {
		fmt.Fprintf(&b, " %s:", w.Name)
		for o, n := range w.Beats {
			fmt.Fprintf(&b, " %.1f %s", float64(n)/calls, names[o])
			if o < len(w.Beats)-1 {
				b.WriteString(",")
			}
		}
		b.WriteString(";")
	}
	b.WriteString("\n")
	return b.String()
}
