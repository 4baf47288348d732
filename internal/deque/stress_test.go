package deque

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// checkExactlyOnce fails the test unless the union of takes is exactly the
// values 1..n, each taken once.
func checkExactlyOnce(t *testing.T, n int, takes [][]int) {
	t.Helper()
	seen := make([]uint8, n+1)
	for _, vs := range takes {
		for _, v := range vs {
			if v < 1 || v > n {
				t.Fatalf("took %d, which was never pushed", v)
			}
			seen[v]++
		}
	}
	for v := 1; v <= n; v++ {
		if seen[v] != 1 {
			t.Fatalf("value %d taken %d times, want exactly once", v, seen[v])
		}
	}
}

// report records err unless errs already holds as many as it can; the first
// errors are the interesting ones, and a goroutine must never block on them.
func report(errs chan<- error, err error) {
	select {
	case errs <- err:
	default:
	}
}

// TestRingStressEveryElementTakenOnce has an owner push 1..n (singly and in
// batches) with pops (single and batched) and self-steals mixed in while thieves Steal and
// StealHalf, and checks that every value comes out exactly once. Each stealer
// must also see strictly increasing values: positions are taken from the top
// in increasing order, and a position's current value was written after that
// of every position below it.
func TestRingStressEveryElementTakenOnce(t *testing.T) {
	n := 300_000
	if testing.Short() {
		n = 20_000
	}
	for _, c := range []int{2, 4, 256} {
		for _, thieves := range []int{1, 3} {
			t.Run(fmt.Sprintf("cap=%d/thieves=%d", c, thieves), func(t *testing.T) {
				r := NewRing[int](c)
				var done atomic.Bool
				takes := make([][]int, thieves+1)
				errs := make(chan error, thieves)
				var wg sync.WaitGroup
				for id := 1; id <= thieves; id++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rng := rand.New(rand.NewPCG(uint64(c), uint64(id)))
						var got []int
						last := 0
						take := func(v int) {
							if v <= last {
								report(errs, fmt.Errorf("thief %d took %d after %d", id, v, last))
							}
							last = v
							got = append(got, v)
						}
						for {
							var moved bool
							if rng.IntN(3) == 0 {
								moved = r.StealHalf(1+rng.IntN(c), take) > 0
							} else {
								var v int
								if v, moved = r.Steal(); moved {
									take(v)
								}
							}
							if !moved {
								if done.Load() && r.Len() == 0 {
									break
								}
								runtime.Gosched()
							}
						}
						takes[id] = got
					}()
				}

				// The owner pushes singly and in batches, pops, and now and
				// then spills half its ring by stealing from itself, as a
				// worker whose ring is full does.
				rng := rand.New(rand.NewPCG(uint64(c), 0))
				var popped, spilled []int
				lastSpilled := 0
				dst := make([]int, 4)
				pop := func() {
					if rng.IntN(4) == 0 {
						n := r.PopBatch(dst[:1+rng.IntN(len(dst))])
						popped = append(popped, dst[:n]...)
					} else if v, ok := r.Pop(); ok {
						popped = append(popped, v)
					}
				}
				spill := func(v int) {
					if v <= lastSpilled {
						report(errs, fmt.Errorf("owner spilled %d after %d", v, lastSpilled))
					}
					lastSpilled = v
					spilled = append(spilled, v)
				}
				batch := make([]int, 0, 8)
				for v := 1; v <= n; {
					if rng.IntN(4) == 0 {
						batch = batch[:0]
						for k := 1 + rng.IntN(8); k > 0 && v+len(batch) <= n; k-- {
							batch = append(batch, v+len(batch))
						}
						v += r.PushBatch(batch)
					} else if r.Push(v) {
						v++
					} else {
						// Refused: full, or a thief still reading the slot a
						// lap back. Make room, or give the thief time.
						switch rng.IntN(4) {
						case 0:
							r.StealHalf(c, spill)
						case 1:
							runtime.Gosched()
						default:
							pop()
						}
					}
					if rng.IntN(4) == 0 {
						pop()
					}
				}
				for r.Len() > 0 {
					pop()
				}
				done.Store(true)
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Fatal(err)
				}
				takes[0] = append(popped, spilled...)
				checkExactlyOnce(t, n, takes)
				checkRingAtRest(t, r)
				stolen := n - len(popped) - len(spilled)
				if stolen == 0 || len(popped) == 0 {
					t.Fatalf("weak run: owner popped %d, thieves stole %d", len(popped), stolen)
				}
				t.Logf("owner popped %d and spilled %d; thieves stole %d", len(popped), len(spilled), stolen)
			})
		}
	}
}

// TestInjectorStressEveryElementTakenOnce has producers Push and PushBatch
// disjoint ranges while consumers Pop and PopBatch, and checks that every
// value comes out exactly once and that each consumer sees each producer's
// values in the order they were pushed (the queue is FIFO and a consumer's
// takes are ordered).
func TestInjectorStressEveryElementTakenOnce(t *testing.T) {
	per := 200_000
	if testing.Short() {
		per = 20_000
	}
	tests := []struct{ producers, consumers int }{{1, 3}, {3, 1}, {4, 4}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("producers=%d/consumers=%d", tt.producers, tt.consumers), func(t *testing.T) {
			var q Injector[int]
			n := per * tt.producers
			var consumed atomic.Int64
			takes := make([][]int, tt.consumers)
			errs := make(chan error, tt.consumers)
			var wg sync.WaitGroup
			for p := range tt.producers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(p), 1))
					// Producer p owns values p*per+1 .. (p+1)*per.
					next, end := p*per+1, (p+1)*per
					batch := make([]int, 0, 16)
					for next <= end {
						if rng.IntN(2) == 0 {
							q.Push(next)
							next++
							continue
						}
						batch = batch[:0]
						for k := 1 + rng.IntN(16); k > 0 && next <= end; k-- {
							batch = append(batch, next)
							next++
						}
						q.PushBatch(batch)
					}
				}()
			}
			for id := range tt.consumers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(id), 2))
					last := make([]int, tt.producers)
					var got []int
					take := func(v int) {
						p := (v - 1) / per
						if p < 0 || p >= tt.producers {
							report(errs, fmt.Errorf("consumer %d took %d, which was never pushed", id, v))
							return
						}
						if v <= last[p] {
							report(errs, fmt.Errorf("consumer %d took %d after %d from producer %d", id, v, last[p], p))
						}
						last[p] = v
						got = append(got, v)
					}
					dst := make([]int, 32)
					for consumed.Load() < int64(n) && len(errs) == 0 {
						k := 0
						if rng.IntN(2) == 0 {
							if v, ok := q.Pop(); ok {
								take(v)
								k = 1
							}
						} else {
							k = q.PopBatch(dst[:1+rng.IntN(len(dst))], rng.IntN(tt.consumers+2))
							for _, v := range dst[:k] {
								take(v)
							}
						}
						if k == 0 {
							runtime.Gosched()
						}
						consumed.Add(int64(k))
					}
					takes[id] = got
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if q.Len() != 0 {
				t.Fatalf("Len() = %d after every value was taken", q.Len())
			}
			checkExactlyOnce(t, n, takes)
			for id, got := range takes {
				t.Logf("consumer %d took %d", id, len(got))
			}
		})
	}
}
