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
	if r := w.Step(run, idle); r.Kind != NoWork {
		t.Fatalf("after the last task: %v", r.Kind)
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
