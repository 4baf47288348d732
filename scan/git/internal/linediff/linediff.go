// Package linediff is a placeholder for git's line diff while the real
// implementation is written on its own branch: a plain Myers diff
// without git's heuristics, and git's rename similarity estimate.
// It is replaced wholesale when that branch lands.
package linediff

import "bytes"

// Hunk is one change as `git diff -U0` prints it (0-based line indexes).
type Hunk struct{ OldStart, OldLines, NewStart, NewLines int }

// Differ holds reusable working memory.
type Differ struct{}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// Diff appends the hunks from a to b to dst.
func (d *Differ) Diff(a, b []byte, dst []Hunk) []Hunk {
	x, y := splitLines(a), splitLines(b)
	n, m := len(x), len(y)
	// LCS by dynamic programming (placeholder only: quadratic).
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if bytes.Equal(x[i], y[j]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		if i < n && j < m && bytes.Equal(x[i], y[j]) {
			i++
			j++
			continue
		}
		h := Hunk{OldStart: i, NewStart: j}
		for i < n || j < m {
			if i < n && j < m && bytes.Equal(x[i], y[j]) {
				break
			}
			if j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]) {
				j++
			} else {
				i++
			}
		}
		h.OldLines, h.NewLines = i-h.OldStart, j-h.NewStart
		dst = append(dst, h)
	}
	return dst
}

// IsBinary reports whether git treats b as binary.
func IsBinary(b []byte) bool {
	if len(b) > 8000 {
		b = b[:8000]
	}
	return bytes.IndexByte(b, 0) >= 0
}

// Signature is a blob's span-hash counts.
type Signature struct{ spans map[uint32]uint32 }

// NewSignature computes git's span hashes of data.
func NewSignature(data []byte) *Signature {
	text := !IsBinary(data)
	s := &Signature{spans: map[uint32]uint32{}}
	var a1, a2 uint32
	n := 0
	for i := 0; i < len(data); i++ {
		c := uint32(data[i])
		if text && c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			continue
		}
		old := a1
		a1 = (a1 << 7) ^ (a2 >> 25)
		a2 = (a2 << 7) ^ (old >> 25)
		a1 += c
		n++
		if n < 64 && c != '\n' {
			continue
		}
		s.spans[(a1+a2*0x61)%107927] += uint32(n)
		n, a1, a2 = 0, 0, 0
	}
	return s
}

// Similarity is git's estimate_similarity score.
func Similarity(src, dst *Signature, srcSize, dstSize int64, minScore int) int {
	maxSize, baseSize := max(srcSize, dstSize), min(srcSize, dstSize)
	if float64(maxSize)*(60000-float64(minScore)) < float64(maxSize-baseSize)*60000 {
		return 0
	}
	var copied uint64
	for h, sc := range src.spans {
		copied += uint64(min(sc, dst.spans[h]))
	}
	if maxSize == 0 {
		return 0
	}
	return int(float64(copied) * 60000 / float64(maxSize))
}
