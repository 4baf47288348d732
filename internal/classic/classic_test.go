package classic

import (
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/spindle-go/spindle/fork"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pools are fork pools under which forks are taken often (a 1µs
// heartbeat) and one where nothing is.
var poolConfigs = []fork.Config{
	{Workers: 1},
	{Workers: 2, Heartbeat: time.Microsecond},
	{Workers: 4, Heartbeat: 2 * time.Microsecond},
}

// TestEveryVersionComputesTheSameResult runs each program every way on
// inputs small enough for -race, and checks each against plain recursion.
func TestEveryVersionComputesTheSameResult(t *testing.T) {
	cp := NewChanPool(2)
	defer cp.Close()
	for _, c := range poolConfigs {
		p := fork.NewPool(c)
		check := func(what string, got, want int) {
			t.Helper()
			if got != want {
				t.Errorf("workers %d: %s = %d, want %d", c.Workers, what, got, want)
			}
		}
		want := FibSeq(20)
		check("fib go", FibGo(20), want)
		check("fib pool", FibPool(cp, 20), want)
		check("fib rec", fork.Recurse(p, FibRec, 20), want)
		check("fib future", fork.Call(p, FibFuture, 20), want)

		b := NewBoard(8)
		want = QueensSeq(b)
		check("queens seq", want, 92)
		check("queens go", QueensGo(b), want)
		check("queens pool", QueensPool(cp, b), want)
		check("queens rec", fork.Recurse(p, QueensRec, b), want)

		s := Sky{Size: 10000}
		want = SkySeq(s)
		check("skynet seq", want, SkynetSum(10000))
		check("skynet go", SkyGo(s), want)
		check("skynet pool", SkyPool(cp, s), want)
		check("skynet rec", fork.Recurse(p, SkyRec, s), want)

		root := Balanced(1, 4095)
		want = TreeSeq(root)
		check("tree go", TreeGo(root), want)
		check("tree pool", TreePool(cp, root), want)
		check("tree rec", fork.Recurse(p, TreeRec, root), want)
		check("tree future", fork.Call(p, TreeFuture, root), want)

		const n = 128
		a := NewMat(n, func(i, j int) float64 { return float64(i + 2*j) })
		bm := NewMat(n, func(i, j int) float64 { return float64(i - j) })
		ref := NewMat(n, func(int, int) float64 { return 0 })
		MatSeq(Full(ref, a, bm))
		if ref.V[3*n+5] != naive(a, bm, 3, 5) {
			t.Fatalf("MatSeq (3,5) = %v, want %v", ref.V[3*n+5], naive(a, bm, 3, 5))
		}
		for _, v := range []struct {
			name string
			run  func(MM)
		}{
			{"go", func(m MM) { MatGo(m) }},
			{"pool", func(m MM) { MatPool(cp, m) }},
			{"rec", func(m MM) { fork.Recurse(p, MatRec, m) }},
		} {
			got := NewMat(n, func(int, int) float64 { return 0 })
			v.run(Full(got, a, bm))
			if !slices.Equal(got.V, ref.V) {
				t.Errorf("workers %d: matmul %s differs from MatSeq", c.Workers, v.name)
			}
		}
		p.Close()
	}
}

func naive(a, b *Mat, i, j int) float64 {
	s := 0.0
	for k := range a.N {
		s += a.V[i*a.N+k] * b.V[k*b.N+j]
	}
	return s
}
