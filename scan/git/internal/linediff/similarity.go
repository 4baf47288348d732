package linediff

import (
	"bytes"
	"math/bits"
	"slices"
	"sync"
)

// binaryProbe is how much of a file git looks at to call it binary.
const binaryProbe = 8000

// IsBinary reports whether git treats content as binary: a NUL byte among
// its first 8000 bytes. (git also calls binary what .gitattributes marks
// so, and any file over core.bigFileThreshold, 512 MiB by default: those
// are the caller's to check.)
func IsBinary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), binaryProbe)], 0) >= 0
}

// MaxScore is the similarity of identical content, the scale of Similarity
// and of a minimum score (git's -M50% is MaxScore/2).
const MaxScore = 60000

// DefaultMinScore is the similarity git's rename detection requires by
// default (50%).
const DefaultMinScore = 30000

const (
	spanMax  = 64     // bytes at most in one span
	hashBase = 107927 // the span hashes' modulus, a prime above 2^16
)

// Signature is what rename detection keeps of a blob: for each span hash,
// how many bytes of the blob's spans have it. A span runs to the next
// newline or for 64 bytes, whichever ends first; in text (see IsBinary) a
// CR right before a newline is skipped, so CRLF and LF files compare equal.
// The bytes after the last complete span count for nothing, as in git
// before 2.44. Build one per blob and reuse it for every pairing.
type Signature struct {
	size  int64
	spans []uint64 // hash<<32 | bytes, sorted, one entry per hash
}

// spanLists is NewSignature's scratch: the span list it sorts before it
// keeps an exact-size copy, and the second buffer the sort needs.
type spanLists struct{ spans, tmp []uint64 }

var spanScratch = sync.Pool{New: func() any { return new(spanLists) }}

// Bytes is about how much memory the signature holds.
func (s *Signature) Bytes() int { return 48 + 8*len(s.spans) }

// NewSignature computes the signature of data.
func NewSignature(data []byte) *Signature { return newSignature(data, false) }

// newSignature computes the signature of data; lastSpan counts a last span
// cut short by the end of data, as git does from 2.43.2 on (the tests use
// it to compare with such a git).
func newSignature(data []byte, lastSpan bool) *Signature {
	text := !IsBinary(data)
	scratch := spanScratch.Get().(*spanLists)
	defer spanScratch.Put(scratch)
	spans := scratch.spans[:0]
	for i := 0; i < len(data); {
		end, skip := spanEnd(data, i, text)
		if end < 0 {
			if !lastSpan {
				break // a last span cut short counts for nothing
			}
			end, skip = len(data), -1
		}
		var acc uint64
		if skip >= 0 {
			acc = spanHash(acc, data[i:skip])
			acc = spanHash(acc, data[skip+1:end])
		} else {
			acc = spanHash(acc, data[i:end])
		}
		n := end - i
		if skip >= 0 {
			n--
		}
		h := (uint32(acc) + uint32(acc>>32)*0x61) % hashBase
		spans = append(spans, uint64(h)<<32|uint64(n))
		i = end
	}
	scratch.tmp = sortByHash(spans, scratch.tmp)
	// Merge the entries of equal hashes, summing their byte counts.
	out := spans[:0]
	for _, s := range spans {
		if k := len(out) - 1; k >= 0 && out[k]>>32 == s>>32 {
			out[k] += s & 0xffffffff
			continue
		}
		out = append(out, s)
	}
	scratch.spans = spans
	return &Signature{size: int64(len(data)), spans: slices.Clone(out)}
}

// sortByHash sorts spans by their hash (bits 32 and up, below 2^17) and
// returns the scratch buffer it used, grown if it had to be. Longer lists
// are sorted by two counting passes on 9 and then 8 bits of the hash, which
// costs a few instructions per span where a comparison sort costs tens.
func sortByHash(spans, tmp []uint64) []uint64 {
	if len(spans) < 256 {
		slices.Sort(spans)
		return tmp
	}
	tmp = resize(tmp, len(spans))
	var lo [512]int32
	var hi [256]int32
	for _, v := range spans {
		lo[v>>32&511]++
		hi[v>>41&255]++
	}
	sumLo, sumHi := int32(0), int32(0)
	for i := range lo {
		lo[i], sumLo = sumLo, sumLo+lo[i]
	}
	for i := range hi {
		hi[i], sumHi = sumHi, sumHi+hi[i]
	}
	for _, v := range spans {
		k := v >> 32 & 511
		tmp[lo[k]] = v
		lo[k]++
	}
	for _, v := range tmp {
		k := v >> 41 & 255
		spans[hi[k]] = v
		hi[k]++
	}
	return tmp
}

// spanEnd returns the end of the span that starts at i, and the index of
// the CR it skips (-1 if none), or -1 when data ends before the span does.
// A span is 64 counted bytes, or fewer ending with a newline; in text, a CR
// right before a newline is not counted (nor hashed). Such a CR can only
// sit right before the span's own final newline, so the span is found
// within 65 bytes.
func spanEnd(data []byte, i int, text bool) (end, skip int) {
	window := data[i:min(len(data), i+spanMax+1)]
	if k := bytes.IndexByte(window, '\n'); k >= 0 {
		if text && k > 0 && window[k-1] == '\r' {
			return i + k + 1, i + k - 1 // k counted bytes, k <= 64
		}
		if k < spanMax {
			return i + k + 1, -1
		}
	}
	if len(window) >= spanMax {
		return i + spanMax, -1
	}
	return -1, -1
}

// spanHash folds b into the span hash acc. The hash is two 32-bit
// accumulators that each shift left by 7 and take the other's top 7 bits,
// which is one rotation of both as a 64-bit word, then add the byte to the
// low one without carry into the high one.
func spanHash(acc uint64, b []byte) uint64 {
	for _, c := range b {
		acc = bits.RotateLeft64(acc, 7)
		acc = acc&^0xffffffff | uint64(uint32(acc)+uint32(c))
	}
	return acc
}

// SizesAllow reports whether blobs of these sizes may reach minScore: git
// does not compare blobs whose sizes differ by more than the score allows,
// and Similarity returns 0 for them. A caller can test sizes before reading
// either blob.
func SizesAllow(srcSize, dstSize int64, minScore int) bool {
	maxSize, baseSize := max(srcSize, dstSize), min(srcSize, dstSize)
	delta := maxSize - baseSize
	// Floating point, as git computes it.
	return !(float64(maxSize)*(MaxScore-float64(minScore)) < float64(delta)*MaxScore)
}

// Similarity returns how much of dst comes from src, from 0 to MaxScore,
// as git's rename detection estimates it: the bytes of src's spans that
// dst also has (per hash, the smaller of the two counts), over the larger
// blob's size. It returns 0 where SizesAllow is false. git pairs a deleted
// src with an added dst when the score is at least its minimum score, and
// shows the similarity as Similarity*100/MaxScore percent, rounded down.
// Whether a file is a regular file (git estimates only those) is the
// caller's business.
func Similarity(src, dst *Signature, minScore int) int {
	if !SizesAllow(src.size, dst.size, minScore) {
		return 0
	}
	if dst.size == 0 {
		return 0
	}
	var copied uint64
	s, d := src.spans, dst.spans
	j := 0
	for _, sv := range s {
		h := sv >> 32
		for j < len(d) && d[j]>>32 < h {
			j++
		}
		if j < len(d) && d[j]>>32 == h {
			copied += min(sv&0xffffffff, d[j]&0xffffffff)
			j++
		}
	}
	maxSize := max(src.size, dst.size)
	return int(float64(copied) * MaxScore / float64(maxSize))
}
