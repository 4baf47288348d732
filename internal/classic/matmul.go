package classic

import (
	"sync"

	"github.com/spindle-go/spindle/fork"
)

// Matmul: C += A·B for n×n matrices (n a power of two), split into
// quadrants down to blocks of MatLeaf: the four products that write
// distinct quadrants of C are forked (three, the fourth walked), joined,
// then the other four.

// MatLeaf is the block size below which the product is a plain loop.
const MatLeaf = 32

// Mat is a square matrix stored by rows.
type Mat struct {
	N int
	V []float64
}

// NewMat returns an n×n matrix whose element (i, j) is f(i, j).
func NewMat(n int, f func(i, j int) float64) *Mat {
	m := &Mat{N: n, V: make([]float64, n*n)}
	for i := range n {
		for j := range n {
			m.V[i*n+j] = f(i, j)
		}
	}
	return m
}

// MM is one block product: C[ci:,cj:] += A[ai:,aj:]·B[bi:,bj:], size×size.
type MM struct {
	C, A, B                    *Mat
	CI, CJ, AI, AJ, BI, BJ, Sz int
}

// Full is the whole product C += A·B.
func Full(c, a, b *Mat) MM { return MM{C: c, A: a, B: b, Sz: c.N} }

func (m MM) leaf() {
	n := m.C.N
	for i := range m.Sz {
		crow := m.C.V[(m.CI+i)*n+m.CJ:][:m.Sz]
		for k := range m.Sz {
			aik := m.A.V[(m.AI+i)*n+m.AJ+k]
			brow := m.B.V[(m.BI+k)*n+m.BJ:][:m.Sz]
			for j := range crow {
				crow[j] += aik * brow[j]
			}
		}
	}
}

// quads returns the eight block products of m, in two phases of four
// that write distinct quadrants of C.
func (m MM) quads() [2][4]MM {
	h := m.Sz / 2
	q := func(ci, cj, k int) MM {
		return MM{m.C, m.A, m.B, m.CI + ci*h, m.CJ + cj*h, m.AI + ci*h, m.AJ + k*h, m.BI + k*h, m.BJ + cj*h, h}
	}
	return [2][4]MM{
		{q(0, 0, 0), q(0, 1, 0), q(1, 0, 0), q(1, 1, 0)},
		{q(0, 0, 1), q(0, 1, 1), q(1, 0, 1), q(1, 1, 1)},
	}
}

// MatSeq is plain recursion.
func MatSeq(m MM) int {
	if m.Sz <= MatLeaf {
		m.leaf()
		return 0
	}
	for _, phase := range m.quads() {
		for _, s := range phase {
			MatSeq(s)
		}
	}
	return 0
}

// MatGo forks a goroutine for three of each phase's four products.
func MatGo(m MM) int {
	if m.Sz <= MatLeaf {
		m.leaf()
		return 0
	}
	for _, phase := range m.quads() {
		var wg sync.WaitGroup
		for _, s := range phase[1:] {
			wg.Go(func() { MatGo(s) })
		}
		MatGo(phase[0])
		wg.Wait()
	}
	return 0
}

// MatPool forks three of each phase's four products to the channel pool.
func MatPool(p *ChanPool, m MM) int {
	if m.Sz <= MatLeaf {
		m.leaf()
		return 0
	}
	for _, phase := range m.quads() {
		var wg sync.WaitGroup
		for _, s := range phase[1:] {
			p.spawn(&wg, func() { MatPool(p, s) })
		}
		MatPool(p, phase[0])
		wg.Wait()
	}
	return 0
}

// MatRec forks three of each phase's four products with fork.Frame.
func MatRec(f *fork.Frame[MM, int], m MM) int {
	if m.Sz <= MatLeaf {
		m.leaf()
		return 0
	}
	for _, phase := range m.quads() {
		g1 := f.Fork(phase[1])
		g2 := g1.Fork(phase[2])
		g3 := g2.Fork(phase[3])
		MatRec(&g3, phase[0])
		g3.Join(MatRec)
		g2.Join(MatRec)
		g1.Join(MatRec)
	}
	return 0
}
