package spindle

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkChainedSpawn: each task spawns the next (Tokio's chained_spawn),
// 1M tasks per op, one worker. Reports ns per task.
func BenchmarkChainedSpawn(b *testing.B) {
	const chain = 1 << 20
	for _, q := range []QueueStrategy{PerWorker, Shared} {
		b.Run(q.String(), func(b *testing.B) {
			b.ReportAllocs()
			end := make(chan struct{}, 1)
			e := New(Config{Workers: 1, Queue: q}, nil, func(n int, w *Worker[int, noScratch]) {
				if n > 1 {
					w.Spawn(n - 1)
				} else {
					end <- struct{}{}
				}
			})
			for b.Loop() {
				if err := e.Spawn(chain); err != nil {
					b.Fatal(err)
				}
				<-end
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chain), "ns/task")
			if _, err := e.Join(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// waitIdle spins until nothing is in flight (the executor stays open).
func waitIdle[T, S any](e *Executor[T, S]) {
	for e.pool.State.InFlight() != 0 {
		runtime.Gosched()
	}
}

// BenchmarkInjectBatch: 1M tiny tasks injected with SpawnBatch in batches of
// 1024, 2 workers; compared with a goroutine per task and with a channel-fed
// pool of 2 goroutines doing the same work. The figure is impl=channel-pool
// over impl=spindle in ns/task (target: at least 2):
//
//	go test -run '^$' -bench InjectBatch -count 10 . > inject.txt
//	benchstat -col /impl inject.txt
func BenchmarkInjectBatch(b *testing.B) {
	const total = 1 << 20
	const batch = 1024
	var sink atomic.Int64
	work := func(i int) {
		if i == -1 {
			sink.Add(1)
		}
	}
	b.Run("impl=spindle", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]int, batch)
		for b.Loop() {
			e := New(Config{Workers: 2}, nil, func(i int, _ *Worker[int, noScratch]) { work(i) })
			for sent := 0; sent < total; sent += batch {
				for j := range buf {
					buf[j] = sent + j
				}
				if err := e.SpawnBatch(buf); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := e.Join(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*total), "ns/task")
	})
	b.Run("impl=spindle-shared", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]int, batch)
		for b.Loop() {
			e := New(Config{Workers: 2, Queue: Shared}, nil, func(i int, _ *Worker[int, noScratch]) { work(i) })
			for sent := 0; sent < total; sent += batch {
				for j := range buf {
					buf[j] = sent + j
				}
				if err := e.SpawnBatch(buf); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := e.Join(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*total), "ns/task")
	})
	b.Run("impl=goroutine-per-task", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var wg sync.WaitGroup
			for i := 0; i < total; i++ {
				wg.Add(1)
				go func() { work(i); wg.Done() }()
			}
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*total), "ns/task")
	})
	b.Run("impl=channel-pool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ch := make(chan int, batch)
			var wg sync.WaitGroup
			for w := 0; w < 2; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range ch {
						work(i)
					}
				}()
			}
			for i := 0; i < total; i++ {
				ch <- i
			}
			close(ch)
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*total), "ns/task")
	})
}

// BenchmarkSpawnTree: a binary tree of tasks spawned from inside tasks
// (2^16 leaves), the shape work stealing exists for.
func BenchmarkSpawnTree(b *testing.B) {
	const depth = 16
	for _, workers := range []int{1, 2} {
		b.Run("workers="+itoa(workers), func(b *testing.B) {
			b.ReportAllocs()
			e := New(Config{Workers: workers}, nil, func(d int, w *Worker[int, noScratch]) {
				if d > 0 {
					w.Spawn(d - 1)
					w.Spawn(d - 1)
				}
			})
			for b.Loop() {
				if err := e.Spawn(depth); err != nil {
					b.Fatal(err)
				}
				waitIdle(e)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(1<<(depth+1)-1)), "ns/task")
			if _, err := e.Join(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
