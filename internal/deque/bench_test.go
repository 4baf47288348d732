package deque

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkRingPushPop measures the owner's fast path with no thieves: one op
// is a Push and a Pop of the same element, both without read-modify-write
// instructions. It must not allocate.
func BenchmarkRingPushPop(b *testing.B) {
	for _, depth := range []int{0, 128} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			r := NewRing[int](256)
			// With depth 0 every Pop takes the last element (the CAS path);
			// with depth > 0 it takes one above other elements (no CAS).
			for i := range depth {
				r.Push(i)
			}
			b.ReportAllocs()
			for b.Loop() {
				r.Push(1)
				r.Pop()
			}
		})
	}
}

// BenchmarkRingPushBatchSteal measures moving a ring's worth through the
// ring from one goroutine: a PushBatch of 128 then a StealHalf of up to 128,
// reported per element.
func BenchmarkRingPushBatchSteal(b *testing.B) {
	r := NewRing[int](256)
	batch := make([]int, 128)
	var sink int
	put := func(v int) { sink += v }
	b.ReportAllocs()
	elems := 0
	for b.Loop() {
		r.PushBatch(batch)
		for r.Len() > 0 {
			elems += r.StealHalf(len(batch), put)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(elems), "ns/elem")
	_ = sink
}

// BenchmarkRingSteal measures thieves contending for one victim: an owner
// pushes b.N elements into a 256-slot ring while thieves Steal (or StealHalf)
// them out concurrently. One op is one element moved from the owner to a
// thief; misses/op counts the steal calls that found the ring empty or lost a
// race. A thief that misses 16 times in a row yields, as an idle worker would,
// so the owner gets the CPU on small machines.
func BenchmarkRingSteal(b *testing.B) {
	for _, half := range []bool{false, true} {
		for _, thieves := range []int{1, 2, 4} {
			name := fmt.Sprintf("Steal/thieves=%d", thieves)
			if half {
				name = fmt.Sprintf("StealHalf/thieves=%d", thieves)
			}
			b.Run(name, func(b *testing.B) {
				r := NewRing[int](256)
				var taken, misses atomic.Int64
				var wg sync.WaitGroup
				b.ReportAllocs()
				b.ResetTimer()
				for range thieves {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var got, miss int64
						put := func(int) { got++ }
						for streak := 0; taken.Load() < int64(b.N); {
							var k int64
							if half {
								k = int64(r.StealHalf(32, put))
							} else if _, ok := r.Steal(); ok {
								k = 1
								got++
							}
							if k > 0 {
								taken.Add(k)
								streak = 0
								continue
							}
							miss++
							if streak++; streak == 16 {
								streak = 0
								runtime.Gosched()
							}
						}
						misses.Add(miss)
					}()
				}
				for v := 0; v < b.N; {
					if r.Push(v) {
						v++
					} else {
						runtime.Gosched() // full: let the thieves run
					}
				}
				wg.Wait()
				b.StopTimer()
				b.ReportMetric(float64(misses.Load())/float64(b.N), "misses/op")
			})
		}
	}
}

// BenchmarkInjectorPushPopBatch measures the injector's batched paths: one op
// is a PushBatch of 64 and a PopBatch of up to 64, so one lock round trip
// each moves the whole batch; ns/task divides by the batch. The parallel case
// has GOMAXPROCS goroutines doing the same on one injector.
func BenchmarkInjectorPushPopBatch(b *testing.B) {
	const batch = 64
	b.Run("serial", func(b *testing.B) {
		var q Injector[int]
		in, out := make([]int, batch), make([]int, batch)
		b.ReportAllocs()
		for b.Loop() {
			q.PushBatch(in)
			q.PopBatch(out, 1)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/task")
	})
	b.Run("parallel", func(b *testing.B) {
		var q Injector[int]
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			in, out := make([]int, batch), make([]int, batch)
			for pb.Next() {
				q.PushBatch(in)
				q.PopBatch(out, 1)
			}
		})
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/task")
	})
}

// BenchmarkInjectorPushPop is the unbatched baseline for the above: one op
// is a Push and a Pop, two lock round trips for one task.
func BenchmarkInjectorPushPop(b *testing.B) {
	var q Injector[int]
	b.ReportAllocs()
	for b.Loop() {
		q.Push(1)
		q.Pop()
	}
}

// BenchmarkBitmaskNext measures a thief's victim search over 1024 workers
// with one busy worker, the worst case: Next scans every word.
func BenchmarkBitmaskNext(b *testing.B) {
	m := NewBitmask(1024)
	m.Set(7)
	b.ReportAllocs()
	from := 0
	for b.Loop() {
		from = (m.Next(from+8) + 8) % 1024
	}
}
