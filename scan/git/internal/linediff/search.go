package linediff

import "math"

// This file is the Myers search over the lines the discarding step kept:
// a divide and conquer that finds a middle snake of each box by running the
// greedy furthest-reach search from both corners at once, with xdiff's
// heuristics that give up exactness on expensive boxes.

const (
	// snakeLen is the length of a run of equal lines that counts as a good
	// snake for the heuristics.
	snakeLen = 20
	// heurMinCost is the edit cost of a box past which a good snake found
	// far enough along a diagonal may end the search of the box early.
	heurMinCost = 256
	// minMaxCost is the least edit cost past which the search of a box
	// stops and takes the furthest-reaching diagonal it has.
	minMaxCost = 256
	// heurFactor is how far past the cost (times) a diagonal must reach,
	// net of its distance from the box's middle diagonal, to be taken.
	heurFactor = 4
	// unreached marks the backward vector's entries just outside the
	// diagonals searched so far.
	unreached = math.MaxInt
)

// split is where a box is cut in two, and whether each half must be
// searched without the cost heuristics.
type split struct {
	i1, i2       int
	minLo, minHi bool
}

// search marks the changed lines of both files among the kept ones: the
// kept lines not on the path the search finds.
func (d *Differ) search() {
	h1, h2 := d.old.keptClass, d.new.keptClass
	n1, n2 := len(h1), len(h2)
	// Diagonal k (i1 - i2) runs from -n2 to n1; each vector gets one spare
	// slot at both ends for the sentinels written beyond the searched range.
	diags := n1 + n2 + 3
	d.kv = resize(d.kv, 2*diags)
	fwd, bwd := n2+1, diags+n2+1 // index of diagonal 0 in each vector
	maxCost := max(minMaxCost, bogosqrt(diags))

	d.boxes = append(d.boxes[:0], box{0, n1, 0, n2, false})
	for len(d.boxes) > 0 {
		b := d.boxes[len(d.boxes)-1]
		d.boxes = d.boxes[:len(d.boxes)-1]
		off1, lim1, off2, lim2 := b.off1, b.lim1, b.off2, b.lim2
		for off1 < lim1 && off2 < lim2 && h1[off1] == h2[off2] {
			off1++
			off2++
		}
		for off1 < lim1 && off2 < lim2 && h1[lim1-1] == h2[lim2-1] {
			lim1--
			lim2--
		}
		switch {
		case off1 == lim1:
			for ; off2 < lim2; off2++ {
				d.new.setChanged(int(d.new.kept[off2]), true)
			}
		case off2 == lim2:
			for ; off1 < lim1; off1++ {
				d.old.setChanged(int(d.old.kept[off1]), true)
			}
		default:
			s := d.split(h1, h2, off1, lim1, off2, lim2, fwd, bwd, b.needMin, maxCost)
			// The halves are independent; the order they are done in does
			// not change the result.
			d.boxes = append(d.boxes,
				box{s.i1, lim1, s.i2, lim2, s.minHi},
				box{off1, s.i1, off2, s.i2, s.minLo})
		}
	}
}

// split finds where to cut the box [off1, lim1) x [off2, lim2), whose first
// and last lines differ. kv holds the forward furthest-reach vector at
// kv[fwd+k] and the backward one at kv[bwd+k] for diagonal k = i1 - i2. The
// two searches advance one edit at a time, each over the diagonals it can
// have reached, and stop where they overlap: that point lies on an optimal
// path. Unless needMin, a search past heurMinCost edits that has seen a long
// snake may stop at a diagonal that reached far enough, and one past maxCost
// edits stops at the furthest-reaching diagonal of either direction; the
// half the cut leaves on the other side of such a point is searched
// exactly.
func (d *Differ) split(h1, h2 []int32, off1, lim1, off2, lim2, fwd, bwd int, needMin bool, maxCost int) split {
	kv := d.kv
	dmin, dmax := off1-lim2, lim1-off2
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax := fmid, fmid
	bmin, bmax := bmid, bmid

	kv[fwd+fmid] = off1
	kv[bwd+bmid] = lim1

	for cost := 1; ; cost++ {
		gotSnake := false

		// Widen the forward range by one diagonal on each side, or narrow
		// it where it meets the box's edge, keeping its parity; the new
		// outer neighbours read as not reached.
		if fmin > dmin {
			fmin--
			kv[fwd+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			kv[fwd+fmax+1] = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			var i1 int
			if kv[fwd+k-1] >= kv[fwd+k+1] {
				i1 = kv[fwd+k-1] + 1
			} else {
				i1 = kv[fwd+k+1]
			}
			start := i1
			i2 := i1 - k
			for i1 < lim1 && i2 < lim2 && h1[i1] == h2[i2] {
				i1++
				i2++
			}
			if i1-start > snakeLen {
				gotSnake = true
			}
			kv[fwd+k] = i1
			if odd && bmin <= k && k <= bmax && kv[bwd+k] <= i1 {
				return split{i1, i2, true, true}
			}
		}

		// The same backward, from the box's end.
		if bmin > dmin {
			bmin--
			kv[bwd+bmin-1] = unreached
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			kv[bwd+bmax+1] = unreached
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			var i1 int
			if kv[bwd+k-1] < kv[bwd+k+1] {
				i1 = kv[bwd+k-1]
			} else {
				i1 = kv[bwd+k+1] - 1
			}
			start := i1
			i2 := i1 - k
			for i1 > off1 && i2 > off2 && h1[i1-1] == h2[i2-1] {
				i1--
				i2--
			}
			if start-i1 > snakeLen {
				gotSnake = true
			}
			kv[bwd+k] = i1
			if !odd && fmin <= k && k <= fmax && i1 <= kv[fwd+k] {
				return split{i1, i2, true, true}
			}
		}

		if needMin {
			continue
		}

		if gotSnake && cost > heurMinCost {
			if s, ok := d.forwardSnake(h1, h2, off1, lim1, off2, lim2, fwd, fmin, fmax, fmid, cost); ok {
				return s
			}
			if s, ok := d.backwardSnake(h1, h2, off1, lim1, off2, lim2, bwd, bmin, bmax, bmid, cost); ok {
				return s
			}
		}

		if cost >= maxCost {
			return d.furthest(off1, lim1, off2, lim2, fwd, bwd, fmin, fmax, bmin, bmax)
		}
	}
}

// forwardSnake looks, among the forward diagonals, for the one that got
// furthest (counting both files, less its distance from the middle
// diagonal), by more than heurFactor times the cost, and that ends a snake
// of at least snakeLen lines inside the box.
func (d *Differ) forwardSnake(h1, h2 []int32, off1, lim1, off2, lim2, fwd, fmin, fmax, fmid, cost int) (split, bool) {
	kv := d.kv
	best := 0
	var s split
	for k := fmax; k >= fmin; k -= 2 {
		dist := k - fmid
		if dist < 0 {
			dist = -dist
		}
		i1 := kv[fwd+k]
		i2 := i1 - k
		v := (i1 - off1) + (i2 - off2) - dist
		if v > heurFactor*cost && v > best &&
			off1+snakeLen <= i1 && i1 < lim1 &&
			off2+snakeLen <= i2 && i2 < lim2 {
			for j := 1; h1[i1-j] == h2[i2-j]; j++ {
				if j == snakeLen {
					best = v
					s.i1, s.i2 = i1, i2
					break
				}
			}
		}
	}
	if best > 0 {
		s.minLo, s.minHi = true, false
		return s, true
	}
	return s, false
}

// backwardSnake is forwardSnake for the backward diagonals: a snake of
// snakeLen lines starting where the diagonal got.
func (d *Differ) backwardSnake(h1, h2 []int32, off1, lim1, off2, lim2, bwd, bmin, bmax, bmid, cost int) (split, bool) {
	kv := d.kv
	best := 0
	var s split
	for k := bmax; k >= bmin; k -= 2 {
		dist := k - bmid
		if dist < 0 {
			dist = -dist
		}
		i1 := kv[bwd+k]
		i2 := i1 - k
		v := (lim1 - i1) + (lim2 - i2) - dist
		if v > heurFactor*cost && v > best &&
			off1 < i1 && i1 <= lim1-snakeLen &&
			off2 < i2 && i2 <= lim2-snakeLen {
			for j := 0; h1[i1+j] == h2[i2+j]; j++ {
				if j == snakeLen-1 {
					best = v
					s.i1, s.i2 = i1, i2
					break
				}
			}
		}
	}
	if best > 0 {
		s.minLo, s.minHi = false, true
		return s, true
	}
	return s, false
}

// furthest gives up on an optimal cut: it takes the forward diagonal that
// got furthest from the box's start (i1 + i2, clipped to the box) or the
// backward one that got furthest from its end, whichever went further, and
// asks for the half it leaves unexplored to be searched exactly.
func (d *Differ) furthest(off1, lim1, off2, lim2, fwd, bwd, fmin, fmax, bmin, bmax int) split {
	kv := d.kv
	fbest, fbest1 := -1, -1
	for k := fmax; k >= fmin; k -= 2 {
		i1 := min(kv[fwd+k], lim1)
		i2 := i1 - k
		if lim2 < i2 {
			i1, i2 = lim2+k, lim2
		}
		if fbest < i1+i2 {
			fbest, fbest1 = i1+i2, i1
		}
	}
	bbest, bbest1 := unreached, unreached
	for k := bmax; k >= bmin; k -= 2 {
		i1 := max(off1, kv[bwd+k])
		i2 := i1 - k
		if i2 < off2 {
			i1, i2 = off2+k, off2
		}
		if i1+i2 < bbest {
			bbest, bbest1 = i1+i2, i1
		}
	}
	if (lim1+lim2)-bbest < fbest-(off1+off2) {
		return split{fbest1, fbest - fbest1, true, false}
	}
	return split{bbest1, bbest - bbest1, false, true}
}
