package fork

import (
	"cmp"
	"math/bits"
	"slices"
)

// Sorting in parallel with no grain size to tune.
//
// Sort and SortFunc are quicksorts that fork at every partition: the upper
// part of each partition is forked, the lower part is sorted on, and the
// heartbeat hands the oldest forked parts, the biggest, to idle workers. A
// part of sortLeaf elements or fewer is sorted with slices.Sort (or
// slices.SortFunc): pattern-defeating quicksort, whose small-slice
// machinery (insertion sort, pattern detection) serves the leaves, while
// this file's partitioning feeds the workers. The leaf size is a constant of
// the algorithm, not a knob: a leaf takes tens of microseconds, well under a
// heartbeat, so no worker waits on another's leaf for long.
//
// Quicksort is quadratic on adversarial input. Each part carries a budget
// of partitions (about 2·log2(n)); a part that uses it up is handed to
// slices.Sort, whose own fallback to heapsort bounds the time at
// O(n log n), as pdqsort does.

// sortLeaf is the size below which a part is sorted sequentially.
const sortLeaf = 2048

// sortPart is a part of the slice being sorted and the partitions it may
// still make. It carries the function that sorts it: a generic function
// instantiated inside generic code is a closure over its type dictionary, so
// naming sortOrdered[E] at every fork would allocate one per fork.
type sortPart[E any] struct {
	s      []E
	budget int
	sort   func(*Task, sortPart[E]) struct{}
}

// partBudget is the number of partitions a slice of n elements may go
// through before its parts fall back to slices.Sort.
func partBudget(n int) int { return 2 * bits.Len(uint(n)) }

// Sort sorts s in ascending order, in parallel on p's workers, with the
// order slices.Sort uses (NaNs first for floating-point types). It is not
// stable. On one worker it runs at about the speed of slices.Sort.
func Sort[S ~[]E, E cmp.Ordered](p *Pool, s S) {
	if len(s) <= sortLeaf || slices.IsSorted(s) {
		slices.Sort(s)
		return
	}
	f := sortOrdered[E]
	Call(p, f, sortPart[E]{s: s, budget: partBudget(len(s)), sort: f})
}

func sortOrdered[E cmp.Ordered](t *Task, part sortPart[E]) struct{} {
	s, budget := part.s, part.budget
	for len(s) > sortLeaf {
		if budget == 0 {
			break
		}
		budget--
		m, swapped := partitionOrdered(s)
		if !swapped && slices.IsSorted(s) {
			return struct{}{}
		}
		lo, hi := s[:m], s[m+1:]
		var f Future[sortPart[E], struct{}]
		f.Fork(t, part.sort, sortPart[E]{s: hi, budget: budget, sort: part.sort})
		sortOrdered(t, sortPart[E]{s: lo, budget: budget, sort: part.sort})
		if _, ok := f.Join(t); !ok {
			s = hi // the upper part, here: iterate rather than recurse
			continue
		}
		return struct{}{}
	}
	slices.Sort(s)
	return struct{}{}
}

// partitionOrdered moves a pivot to its final place m, with s[:m] <= pivot
// <= s[m+1:], and reports whether it moved any element besides the pivot.
// Elements equal to the pivot stop both scans, so runs of equal elements
// split evenly instead of all falling on one side.
func partitionOrdered[E cmp.Ordered](s []E) (m int, swapped bool) {
	k := pivotOrdered(s)
	s[0], s[k] = s[k], s[0]
	p := s[0]
	i, j := 1, len(s)-1
	for {
		for i <= j && cmp.Less(s[i], p) {
			i++
		}
		for i <= j && cmp.Less(p, s[j]) {
			j--
		}
		if i >= j {
			break
		}
		s[i], s[j] = s[j], s[i]
		swapped = true
		i++
		j--
	}
	s[0], s[j] = s[j], s[0]
	return j, swapped || k != 0
}

// pivotOrdered picks a pivot index: Tukey's ninther (the median of three
// medians of three) spread over the slice, which is a good estimate of the
// median for large parts and costs a dozen comparisons.
func pivotOrdered[E cmp.Ordered](s []E) int {
	n := len(s)
	a, b, c := n/4, n/2, n/4*3
	step := n / 8
	a = median3Ordered(s, a-step, a, a+step)
	b = median3Ordered(s, b-step, b, b+step)
	c = median3Ordered(s, c-step, c, c+step)
	return median3Ordered(s, a, b, c)
}

func median3Ordered[E cmp.Ordered](s []E, a, b, c int) int {
	if cmp.Less(s[b], s[a]) {
		a, b = b, a
	}
	if cmp.Less(s[c], s[b]) {
		b = c
		if cmp.Less(s[b], s[a]) {
			b = a
		}
	}
	return b
}

// SortFunc sorts s in ascending order as determined by cmp, in parallel on
// p's workers. cmp must be a strict weak ordering, as for slices.SortFunc
// (cmp(a, b) < 0 when a sorts before b). It is not stable. A panic in cmp
// reaches the caller with its original value, after every part of the sort
// has stopped; s is then left in some permutation of its elements.
func SortFunc[S ~[]E, E any](p *Pool, s S, cmp func(a, b E) int) {
	if len(s) <= sortLeaf || slices.IsSortedFunc(s, cmp) {
		slices.SortFunc(s, cmp)
		return
	}
	f := sortByFunc[E]
	Call(p, f, sortFuncPart[E]{s: s, budget: partBudget(len(s)), sort: f, cmp: cmp})
}

// sortFuncPart is sortPart for SortFunc.
type sortFuncPart[E any] struct {
	s      []E
	budget int
	sort   func(*Task, sortFuncPart[E]) struct{}
	cmp    func(a, b E) int
}

func sortByFunc[E any](t *Task, part sortFuncPart[E]) struct{} {
	s, budget, cmp := part.s, part.budget, part.cmp
	for len(s) > sortLeaf {
		if budget == 0 {
			break
		}
		budget--
		m, swapped := partitionFunc(s, cmp)
		if !swapped && slices.IsSortedFunc(s, cmp) {
			return struct{}{}
		}
		lo, hi := s[:m], s[m+1:]
		var f Future[sortFuncPart[E], struct{}]
		f.Fork(t, part.sort, sortFuncPart[E]{s: hi, budget: budget, sort: part.sort, cmp: cmp})
		sortByFunc(t, sortFuncPart[E]{s: lo, budget: budget, sort: part.sort, cmp: cmp})
		if _, ok := f.Join(t); !ok {
			s = hi
			continue
		}
		return struct{}{}
	}
	slices.SortFunc(s, cmp)
	return struct{}{}
}

// partitionFunc is partitionOrdered with cmp.
func partitionFunc[E any](s []E, cmp func(a, b E) int) (m int, swapped bool) {
	k := pivotFunc(s, cmp)
	s[0], s[k] = s[k], s[0]
	p := s[0]
	i, j := 1, len(s)-1
	for {
		for i <= j && cmp(s[i], p) < 0 {
			i++
		}
		for i <= j && cmp(p, s[j]) < 0 {
			j--
		}
		if i >= j {
			break
		}
		s[i], s[j] = s[j], s[i]
		swapped = true
		i++
		j--
	}
	s[0], s[j] = s[j], s[0]
	return j, swapped || k != 0
}

func pivotFunc[E any](s []E, cmp func(a, b E) int) int {
	n := len(s)
	a, b, c := n/4, n/2, n/4*3
	step := n / 8
	a = median3Func(s, cmp, a-step, a, a+step)
	b = median3Func(s, cmp, b-step, b, b+step)
	c = median3Func(s, cmp, c-step, c, c+step)
	return median3Func(s, cmp, a, b, c)
}

func median3Func[E any](s []E, cmp func(a, b E) int, a, b, c int) int {
	if cmp(s[b], s[a]) < 0 {
		a, b = b, a
	}
	if cmp(s[c], s[b]) < 0 {
		b = c
		if cmp(s[b], s[a]) < 0 {
			b = a
		}
	}
	return b
}
