package fork_test

import (
	"fmt"
	"testing"

	"github.com/spindle-go/spindle/fork"
)

var sink int

func BenchmarkTreeSum(b *testing.B) {
	for _, size := range []int{1<<20 - 1, 1023} {
		root := balanced(1, size)
		want := size * (size + 1) / 2
		perNode := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size), "ns/node")
		}
		b.Run(fmt.Sprintf("nodes=%d/sequential", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = sumSeq(root)
			}
			perNode(b)
		})
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("nodes=%d/workers=%d", size, workers), func(b *testing.B) {
				p := fork.NewPool(fork.Config{Workers: workers})
				defer p.Close()
				b.ReportAllocs()
				for b.Loop() {
					if got := fork.Call(p, sumFork, root); got != want {
						b.Fatalf("sum = %d, want %d", got, want)
					}
				}
				perNode(b)
			})
		}
	}
}
