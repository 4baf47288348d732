package core

import "testing"

// TestNextSlotChainDoesNotStarveTheInjector checks the fairness promise for a
// worker whose tasks each spawn one successor (a chain through the next
// slot): a task pushed on the injector meanwhile must run within a couple of
// fairness ticks, not only when the chain ends.
func TestNextSlotChainDoesNotStarveTheInjector(t *testing.T) {
	p, ws := NewPool[int](Config{Workers: 1, LocalCap: 8, Waker: nopWaker{}})
	w := ws[0]
	const chain, external = 10000, -1
	ranExternalAt := -1
	steps := 0
	run := func(v int) {
		if v == external {
			ranExternalAt = steps
			return
		}
		if v > 0 {
			w.Spawn(v - 1)
		}
	}
	if !p.Spawn(chain) {
		t.Fatal("spawn rejected")
	}
	idle := TieredIdle{SpinIters: 1}
	for ; steps < 5; steps++ {
		w.Step(run, idle)
	}
	if !p.Spawn(external) {
		t.Fatal("spawn rejected")
	}
	for ; steps < chain+10 && ranExternalAt < 0; steps++ {
		w.Step(run, idle)
	}
	if ranExternalAt < 0 || ranExternalAt > 5+2*fairnessTick {
		t.Fatalf("external task ran at step %d, want within %d steps of its spawn at step 5", ranExternalAt, 2*fairnessTick)
	}
	// The chain still completes and the run ends exactly.
	p.Close()
	for i := 0; i < chain+10 && !p.Done(); i++ {
		w.Step(run, idle)
	}
	if !p.Done() || p.State.Load() != 0 {
		t.Fatalf("run not over: done %v, word %#x", p.Done(), p.State.Load())
	}
}
