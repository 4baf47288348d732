package odb

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// offsetIndex is an index holding only the given offsets (v2 layout, the
// 64-bit table for those that need it): what buildReverse reads.
func offsetIndex(offs []int64) *index {
	x := &index{version: 2, n: len(offs), off32: make([]byte, 4*len(offs))}
	for i, off := range offs {
		if off < 1<<31 {
			binary.BigEndian.PutUint32(x.off32[4*i:], uint32(off))
			continue
		}
		k := len(x.off64) / 8
		binary.BigEndian.PutUint32(x.off32[4*i:], 0x80000000|uint32(k))
		x.off64 = binary.BigEndian.AppendUint64(x.off64, uint64(off))
	}
	return x
}

// TestReverseIndexRadixEqualsSort holds the radix-sorted reverse index to
// a comparison sort of the same offsets: small and large packs, offsets
// past 2^31 (the 64-bit table) and past the packed keys' range (the
// fallback), and two objects at one offset (an error either way).
func TestReverseIndexRadixEqualsSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	distinct := func(n int, limit int64) []int64 {
		seen := map[int64]bool{}
		offs := make([]int64, 0, n)
		for len(offs) < n {
			off := packHeaderLen + rng.Int64N(limit)
			if !seen[off] {
				seen[off] = true
				offs = append(offs, off)
			}
		}
		return offs
	}
	cases := map[string][]int64{
		"one":           {packHeaderLen},
		"small pack":    distinct(1000, 1<<20),
		"many objects":  distinct(300_000, 1<<30),
		"over 2 GiB":    distinct(5000, 1<<34),
		"past the keys": append(distinct(100, 1<<20), 1<<40),
	}
	dup := distinct(5000, 1<<24)
	dup[4999] = dup[17]
	cases["two at one offset"] = dup
	for name, offs := range cases {
		x := offsetIndex(offs)
		got, gotErr := buildReverse(x)
		want, wantErr := buildReverseSlow(x, &reverseIndex{x: x, order: make([]uint32, x.n)})
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%s: errors differ: %v, %v", name, gotErr, wantErr)
		}
		if gotErr != nil {
			if !errors.Is(gotErr, errIndexFormat) {
				t.Errorf("%s: %v", name, gotErr)
			}
			continue
		}
		if !slices.Equal(got.order, want.order) {
			t.Fatalf("%s: orders differ", name)
		}
		for r := 1; r < len(got.order); r++ {
			if x.offset(int(got.order[r-1])) >= x.offset(int(got.order[r])) {
				t.Fatalf("%s: not in offset order at rank %d", name, r)
			}
		}
	}
	if _, err := buildReverse(offsetIndex(dup)); err == nil {
		t.Fatal("two objects at one offset: no error")
	}
}

// BenchmarkBuildReverse times the reverse index of a pack of 237,667
// objects (the synthetic history's), built before its first object is
// read.
func BenchmarkBuildReverse(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	offs := make([]int64, 237_667)
	for i := range offs {
		offs[i] = packHeaderLen + int64(i)*2300
	}
	rng.Shuffle(len(offs), func(i, j int) { offs[i], offs[j] = offs[j], offs[i] })
	x := offsetIndex(offs)
	b.Run("radix", func(b *testing.B) {
		for range b.N {
			if _, err := buildReverse(x); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sort", func(b *testing.B) {
		for range b.N {
			if _, err := buildReverseSlow(x, &reverseIndex{x: x, order: make([]uint32, x.n)}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
