//go:build forktrace

package fork

import (
	"testing"
	"time"
)

// TestTraceAccounts feeds analyze a hand-made trace of one Call on two
// workers and checks every figure it derives.
func TestTraceAccounts(t *testing.T) {
	caller, worker := &Task{}, &Task{}
	h1, h2 := &header{owner: caller}, &header{owner: caller}
	us := func(n int) time.Duration { return time.Duration(n) * time.Microsecond }
	events := []traceEvent{
		{at: us(0), kind: evSleep, t: worker},      // parked before the Call
		{at: us(10), kind: evCallStart, t: caller}, // the Call starts
		{at: us(110), kind: evOffer, t: caller, h: h1, in: 7},
		{at: us(110), kind: evBeat, t: caller, n: 1},
		{at: us(110), kind: evWake, t: worker},
		{at: us(112), kind: evAwake, t: worker},
		{at: us(113), kind: evRunStart, t: worker, h: h1}, // 3µs after the offer
		{at: us(300), kind: evSleep, t: caller, n: 1},     // the caller waits for h1
		{at: us(400), kind: evOffer, t: worker, h: h2, in: 3},
		{at: us(401), kind: evWithdraw, t: caller, h: h2}, // (owner took it back)
		{at: us(500), kind: evRunEnd, t: worker, h: h1},
		{at: us(500), kind: evWake, t: caller},
		{at: us(504), kind: evAwake, t: caller},
		{at: us(505), kind: evNothing, t: worker},
		{at: us(505), kind: evSleep, t: worker},
		{at: us(510), kind: evCallEnd, t: caller},
	}
	size := func(in any) int { return in.(int) }
	r := analyze(events, nil, 100*time.Microsecond, size)
	if r.Calls != 1 || r.CallTime != us(500) {
		t.Fatalf("%d Calls, %v; want 1, 500µs", r.Calls, r.CallTime)
	}
	if len(r.Workers) != 2 || r.Workers[0].Name != "caller" || r.Workers[1].Name != "worker 1" {
		t.Fatalf("workers %v", r.Workers)
	}
	c, w := r.Workers[0], r.Workers[1]
	want := func(who string, got, want [nStates]time.Duration) {
		t.Helper()
		if got != want {
			t.Errorf("%s: time by state %v, want %v", who, got, want)
		}
	}
	// Caller: busy 10-300 and 504-510, joining 300-500, waking 500-504.
	want("caller", c.Time, [nStates]time.Duration{stBusy: us(296), stJoin: us(200), stWaking: us(4)})
	// Worker: idle 10-110, waking 110-112, looking 112-113, busy 113-500,
	// looking 500-505, idle 505-510.
	want("worker", w.Time, [nStates]time.Duration{stOff: us(6), stBusy: us(387), stIdle: us(105), stWaking: us(2)})
	if w.Jobs != 1 || w.Nothing != 1 || len(w.Wakes) != 1 || w.Wakes[0] != us(2) {
		t.Errorf("worker: %d jobs, %d found nothing, wakes %v", w.Jobs, w.Nothing, w.Wakes)
	}
	if r.Offers != 2 || r.Withdrawn != 1 {
		t.Errorf("%d offers, %d withdrawn; want 2, 1", r.Offers, r.Withdrawn)
	}
	if len(r.Latency) != 1 || r.Latency[0] != us(3) || len(r.Sizes) != 1 || r.Sizes[0] != 7 {
		t.Errorf("latencies %v, sizes %v; want [3µs], [7]", r.Latency, r.Sizes)
	}
	if len(r.FirstOffer) != 1 || r.FirstOffer[0] != us(100) || len(r.PerBeat) != 1 || r.PerBeat[0] != 1 {
		t.Errorf("first offers %v, per beat %v", r.FirstOffer, r.PerBeat)
	}
	if idle := r.Idle(); idle < 0.31 || idle > 0.32 { // 1 - 683/1000
		t.Errorf("idle %.3f, want 0.317", idle)
	}
}

// TestTraceOfARealCall traces Calls on a pool whose heartbeat promotes all
// the time and checks the accounting: every worker's time, summed over its
// states, is the time the Calls took.
func TestTraceOfARealCall(t *testing.T) {
	p := NewPool(Config{Workers: 2, Heartbeat: time.Microsecond})
	defer p.Close()
	traceStart()
	for range 20 {
		Call(p, spin, 1<<16)
	}
	r := traceStop(p.heartbeat, nil)
	if r.Calls != 20 {
		t.Fatalf("%d Calls traced, want 20", r.Calls)
	}
	for _, w := range r.Workers {
		var sum time.Duration
		for _, d := range w.Time {
			sum += d
		}
		if sum != r.CallTime {
			t.Errorf("%s: states sum to %v, Calls took %v", w.Name, sum, r.CallTime)
		}
	}
	if r.String() == "" {
		t.Error("empty report")
	}
}

// spin forks down a range, splitting it in two until it is one long.
func spin(t *Task, n int) int {
	if n <= 1 {
		return n
	}
	var f Future[int, int]
	f.Fork(t, spin, n/2)
	a := spin(t, n-n/2)
	b, ok := f.Join(t)
	if !ok {
		b = spin(t, n/2)
	}
	return a + b
}
