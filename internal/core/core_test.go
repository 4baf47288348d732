package core

import (
	"strings"
	"testing"
)

func TestStateDoneUnderflowPanics(t *testing.T) {
	var s State
	s.Init()
	s.Add(1)
	if s.Done(1) {
		t.Fatal("terminal while the gate is open")
	}
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "underflow") {
			t.Fatalf("recover() = %v, want an underflow panic", r)
		}
	}()
	s.Done(1)
}

func TestStateCloseIsTerminalOnlyOnceAndOnlyWhenEmpty(t *testing.T) {
	var s State
	s.Init()
	s.Add(2)
	if s.Close() {
		t.Fatal("Close terminal with 2 in flight")
	}
	if s.TryAcquire(1) {
		t.Fatal("TryAcquire succeeded on a closed gate")
	}
	if s.Done(1) || !s.Done(1) {
		t.Fatal("want terminal exactly at the last Done")
	}
	if s.Close() {
		t.Fatal("second Close reported terminal")
	}
}

func TestTieredIdleSpinsYieldsThenParks(t *testing.T) {
	p := TieredIdle{SpinIters: 32}
	if p.Action(1) != IdleSpin || p.Action(16) != IdleYield || p.Action(32) != IdleYield || p.Action(33) != IdlePark {
		t.Fatalf("actions: %v %v %v %v", p.Action(1), p.Action(16), p.Action(32), p.Action(33))
	}
}

type nopWaker struct{}

func (nopWaker) Wake(int) {}

func TestFirstSpawnTakesOverTheSpawnersUnit(t *testing.T) {
	p, ws := NewPool[int](Config{Workers: 1, LocalCap: 4, Waker: nopWaker{}})
	if !p.Spawn(1) {
		t.Fatal("spawn rejected")
	}
	w := ws[0]
	var ran []int
	run := func(v int) {
		ran = append(ran, v)
		if v == 1 {
			w.Spawn(2) // next slot: no new unit
			if got := p.State.InFlight(); got != 1 {
				t.Fatalf("in flight after first spawn = %d, want 1", got)
			}
			w.Spawn(3) // 2 moves to the ring with a unit of its own
			if got := p.State.InFlight(); got != 2 {
				t.Fatalf("in flight after second spawn = %d, want 2", got)
			}
		}
	}
	idle := TieredIdle{SpinIters: 1}
	for i := 0; i < 3; i++ {
		if r := w.Step(run, idle); r.Kind != Ran {
			t.Fatalf("step %d: %v", i, r.Kind)
		}
	}
	// LIFO: the next slot (3) first, then the ring (2).
	if len(ran) != 3 || ran[1] != 3 || ran[2] != 2 {
		t.Fatalf("ran %v, want [1 3 2]", ran)
	}
	p.Close()
	// The step settles the owed completions, which ends the run, and then
	// sees that it has ended.
	if r := w.Step(run, idle); r.Kind != Exit {
		t.Fatalf("after the last task: %v, want Exit", r.Kind)
	}
	if !p.Done() {
		t.Fatal("run not over after the last completion was settled")
	}
}

func TestSpillMovesHalfTheRingToTheInjector(t *testing.T) {
	p, ws := NewPool[int](Config{Workers: 1, LocalCap: 4, Waker: nopWaker{}})
	w := ws[0]
	p.State.Add(1) // stands for a running task
	for i := 0; i < 6; i++ {
		w.Spawn(i) // 1 in next, ring fills at 4, the 6th spawn spills
	}
	if w.C.Spills != 1 || p.Injector.Len() != 2 || w.ring.Len() != 3 {
		t.Fatalf("spills %d, injector %d, ring %d", w.C.Spills, p.Injector.Len(), w.ring.Len())
	}
}

// TestInjectorBatchStaysPrivateUntilASiblingWantsWork: a worker runs the
// batch it took from the injector without touching its ring while its
// siblings are busy, and moves the rest onto its ring (and wakes a parked
// sibling) as soon as one parks, so the sibling can steal it.
func TestInjectorBatchStaysPrivateUntilASiblingWantsWork(t *testing.T) {
	woken := make(chan int, 4)
	p, ws := NewPool[int](Config{Workers: 2, LocalCap: 64, Waker: wakerFunc(func(i int) { woken <- i })})
	tasks := make([]int, 40)
	if !p.SpawnBatch(tasks) {
		t.Fatal("spawn rejected")
	}
	w0, w1 := ws[0], ws[1]
	if _, ok := w0.Take(); !ok {
		t.Fatal("no task")
	}
	w0.Finish()
	// A 1/workers share of the injector, one of them run: 19 held privately.
	if got := w0.PendingLocal(); got != 19 || w0.ring.Len() != 0 {
		t.Fatalf("after the first take: %d private, %d on the ring; want 19 and 0", got, w0.ring.Len())
	}
	if _, ok := w0.Take(); !ok {
		t.Fatal("no task")
	}
	w0.Finish()
	if w0.ring.Len() != 0 {
		t.Fatal("the batch went to the ring while nobody wanted work")
	}
	// w1 drains the injector, then parks.
	for {
		if _, ok := w1.Take(); !ok {
			break
		}
		w1.Finish()
	}
	if r := w1.Idle(TieredIdle{}); r.Kind != Park {
		t.Fatalf("idle w1: %v, want Park", r.Kind)
	}
	if !w1.PrepareParking() {
		t.Fatal("w1 saw work and did not park")
	}
	if _, ok := w0.Take(); !ok {
		t.Fatal("no task")
	}
	if got := w0.ring.Len(); got != 17 {
		t.Fatalf("after a sibling parked: %d tasks on the ring, want the 17 not yet taken", got)
	}
	select {
	case i := <-woken:
		if i != 1 {
			t.Fatalf("woke worker %d, want 1", i)
		}
	default:
		t.Fatal("the parked sibling was not woken")
	}
}

type wakerFunc func(int)

func (f wakerFunc) Wake(i int) { f(i) }
