package bench

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/flow"
	"github.com/spindle-go/spindle/fork"
)

// BenchmarkScaling runs one workload of each package on as many workers as
// GOMAXPROCS, so that -cpu draws the scaling table in one command:
//
//	go test -run '^$' -bench 'Scaling' -cpu 1,2,4,8,16 -count 10 . > scaling.txt
//	benchstat -col /workload scaling.txt   (or -row .name -col .config)
//
// Each reports its figure per unit (ns/task, ns/node, ns/elem): the speedup
// at n workers is the 1-worker figure over the n-worker one. The sequential
// baselines, which do not depend on -cpu, are in the other benchmarks of
// this module and beside each package (the scanner's in scan).
func BenchmarkScaling(b *testing.B) {
	b.Run("workload=executor-inject-1M", func(b *testing.B) {
		workers := runtime.GOMAXPROCS(0)
		buf := make([]int, 1024)
		b.ReportAllocs()
		for b.Loop() {
			e := spindle.Start(context.Background(), spindle.Config{Workers: workers}, func(i int, _ *spindle.Spawner[int]) { tiny(i) })
			for sent := 0; sent < injectTotal; sent += len(buf) {
				for j := range buf {
					buf[j] = sent + j
				}
				if err := e.SpawnBatch(buf); err != nil {
					b.Fatal(err)
				}
			}
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
		}
		perTask(b, injectTotal)
	})

	b.Run("workload=fork-tree-2^20", func(b *testing.B) {
		const size = 1<<20 - 1
		root := forkTree(1, size)
		want := treeSeq(root)
		p := fork.NewPool(fork.Config{Workers: runtime.GOMAXPROCS(0)})
		defer p.Close()
		b.ReportAllocs()
		for b.Loop() {
			if got := fork.Call(p, treeFork, root); got != want {
				b.Fatalf("sum %d, want %d", got, want)
			}
		}
		perUnit(b, size, "ns/node")
	})

	b.Run("workload=fork-sort-10M", func(b *testing.B) {
		const n = 10_000_000
		rng := rand.New(rand.NewPCG(1, 2))
		src := make([]int, n)
		for i := range src {
			src[i] = rng.Int()
		}
		s := make([]int, n)
		p := fork.NewPool(fork.Config{Workers: runtime.GOMAXPROCS(0)})
		defer p.Close()
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			copy(s, src)
			b.StartTimer()
			fork.Sort(p, s)
		}
		if !slices.IsSorted(s) {
			b.Fatal("not sorted")
		}
		perUnit(b, n, "ns/elem")
	})

	for _, g := range []struct {
		name  string
		shape flowShape
	}{{"flow-wide-work", flowWide(1000)}, {"flow-deep-work", flowDeep(100, 10)}} {
		b.Run("workload="+g.name, func(b *testing.B) {
			graph := g.shape.graph(func(i int) func(context.Context) error {
				return func(context.Context) error { flowWorkTask(i); return nil }
			})
			e := flow.NewExecutor(spindle.Config{Workers: runtime.GOMAXPROCS(0)})
			defer e.Close()
			b.ReportAllocs()
			for b.Loop() {
				if err := e.Run(context.Background(), graph); err != nil {
					b.Fatal(err)
				}
			}
			perUnit(b, g.shape.n, "ns/task")
		})
	}
}
