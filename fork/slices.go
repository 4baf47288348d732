package fork

import "cmp"

// Parallel operations on slices for everyday code: each is a Call of For or
// Reduce over the indices of the slice, so it needs no grain size, runs at
// about the speed of the plain loop on one worker and spreads over the pool
// when the loop runs long enough to matter (see For).

// Each calls f(i, &s[i]) for every index of s, in parallel on p's workers.
// f may change the element it is given; two calls never get the same
// element. Each returns when every call has returned. A panic in f reaches
// the caller of Each with its original value, after every call that started
// has returned.
func Each[S ~[]E, E any](p *Pool, s S, f func(i int, e *E)) {
	if len(s) == 0 {
		return
	}
	Call(p, func(t *Task, _ struct{}) struct{} {
		For(t, 0, len(s), func(_ *Task, i int) { f(i, &s[i]) })
		return struct{}{}
	}, struct{}{})
}

// Map returns a new slice holding f(e) for every element e of in, in the
// same order, computed in parallel on p's workers. A panic in f reaches the
// caller with its original value, after every call that started has
// returned.
func Map[S ~[]E, E, R any](p *Pool, in S, f func(e E) R) []R {
	out := make([]R, len(in))
	if len(in) == 0 {
		return out
	}
	Call(p, func(t *Task, _ struct{}) struct{} {
		For(t, 0, len(in), func(_ *Task, i int) { out[i] = f(in[i]) })
		return struct{}{}
	}, struct{}{})
	return out
}

// Number is the constraint of Sum: the integer, floating-point and complex
// types.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// foldBlock is the number of elements Sum and MinMax fold in one tight loop
// per Reduce index: Reduce calls its leaf and merge functions through func
// values, which would cost more than adding two numbers.
const foldBlock = 512

// Sum returns the sum of the elements of s (zero for an empty slice),
// added in parallel on p's workers. Integer sums wrap around exactly as a
// sequential loop's do. Floating-point sums are associated differently
// from a left-to-right loop, so they may differ from it in the last bits.
func Sum[S ~[]E, E Number](p *Pool, s S) E {
	if len(s) <= foldBlock {
		return sumOf(s)
	}
	blocks := (len(s) + foldBlock - 1) / foldBlock
	return Call(p, func(t *Task, _ struct{}) E {
		return Reduce(t, 0, blocks, 0, func(_ *Task, b int) E {
			return sumOf(s[b*foldBlock : min((b+1)*foldBlock, len(s))])
		}, func(a, b E) E { return a + b })
	}, struct{}{})
}

// sumOf adds s in four running sums: four additions in flight instead of
// a chain of dependent ones, and a loop of four elements a turn, whose
// speed depends less on where the linker happens to place it (a loop of
// one addition that straddles a 64-byte boundary runs 44% slower on the
// 10M-element BenchmarkSliceSum than the same code placed 32 bytes away).
func sumOf[E Number](s []E) E {
	var s0, s1, s2, s3 E
	i := 0
	for ; i+4 <= len(s); i += 4 {
		b := (*[4]E)(s[i : i+4])
		s0 += b[0]
		s1 += b[1]
		s2 += b[2]
		s3 += b[3]
	}
	for ; i < len(s); i++ {
		s0 += s[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// MinMax returns the smallest and the largest element of s, found in
// parallel on p's workers, and false if s is empty. As with the built-in
// min and max, a NaN anywhere makes both results NaN.
func MinMax[S ~[]E, E cmp.Ordered](p *Pool, s S) (lo, hi E, ok bool) {
	if len(s) == 0 {
		return lo, hi, false
	}
	if len(s) <= foldBlock {
		lo, hi = minMaxOf(s)
		return lo, hi, true
	}
	// s[0] stands for the identity Reduce's zero should be: min and max
	// are idempotent, so folding it into every part changes nothing.
	type bounds struct{ lo, hi E }
	blocks := (len(s) + foldBlock - 1) / foldBlock
	r := Call(p, func(t *Task, _ struct{}) bounds {
		return Reduce(t, 0, blocks, bounds{s[0], s[0]}, func(_ *Task, b int) bounds {
			lo, hi := minMaxOf(s[b*foldBlock : min((b+1)*foldBlock, len(s))])
			return bounds{lo, hi}
		}, func(a, b bounds) bounds { return bounds{min(a.lo, b.lo), max(a.hi, b.hi)} })
	}, struct{}{})
	return r.lo, r.hi, true
}

func minMaxOf[E cmp.Ordered](s []E) (lo, hi E) {
	lo, hi = s[0], s[0]
	for _, v := range s[1:] {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	return lo, hi
}
