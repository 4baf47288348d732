package fork

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkWakeUp measures what an idle worker's wait costs the job handed
// to it: a busy goroutine works for 100µs (long enough for an idle
// goroutine's thread to go to sleep), sends a wake token the way a
// promotion does, and keeps working until the waiter runs; µs/wake is the
// median time from the send to the waiter running. wait=parked is a waiter that
// parks at once on its channel, wait=polling one that polls it (await with
// a long spin), as idle workers do for three heartbeats.
func BenchmarkWakeUp(b *testing.B) {
	for _, c := range []struct {
		name string
		spin time.Duration
	}{{"parked", 0}, {"polling", time.Hour}} {
		b.Run(fmt.Sprintf("wait=%s", c.name), func(b *testing.B) {
			t := newTask(&Pool{})
			var woke atomic.Int64
			var stop atomic.Bool
			done := make(chan struct{})
			go func() {
				defer close(done)
				for {
					t.await(c.spin)
					if stop.Load() {
						return
					}
					woke.Store(int64(clock()))
				}
			}()
			var lat []time.Duration
			for b.Loop() {
				for start := clock(); clock()-start < 100*time.Microsecond; {
				}
				sent := clock()
				t.wake <- struct{}{}
				for woke.Load() < int64(sent) {
				}
				lat = append(lat, time.Duration(woke.Load())-sent)
			}
			stop.Store(true)
			t.wake <- struct{}{}
			<-done
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "µs/wake")
		})
	}
}
