package rules

import "encoding/binary"

// keywordDFA is an Aho-Corasick automaton compiled to a dense DFA that
// folds ASCII case as it reads: scanning "API_KEY" reports the pattern
// "api_key". One pass over a buffer reports every occurrence of every
// pattern, overlapping ones included, in order of their end offsets.
//
// Layout: bytes are first mapped to equivalence classes (bytes that occur
// in no pattern share class 0; 'A' and 'a' share a class), so a state's row
// has only as many entries as there are classes. Entries hold the next
// state premultiplied by the row width, which saves a multiply per byte.
// States that end at least one pattern are numbered last, so "did a
// pattern end here" is one comparison against matchFrom.
//
// Invariant: the root is state 0 and is not a match state (patterns are
// non-empty), so the scan starts at offset 0 of trans.
type keywordDFA struct {
	class     [256]uint8
	stride    int      // classes per row
	trans     []uint32 // trans[s+class] = next state, premultiplied
	matchFrom uint32   // premultiplied id of the first match state
	outStart  []int32  // per match state (indexed by id-firstMatch): start of its outputs
	outs      []int32  // pattern ids
	lens      []int32  // pattern lengths, by pattern id
	maxLen    int      // longest pattern

	// pairs has bit b0<<8|b1 set when some pattern starts with the folded
	// bytes b0 b1; nil when a pattern is a single byte (see find).
	pairs *[1 << 10]uint64
}

func foldByte(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// newKeywordDFA builds the automaton for patterns, which must be non-empty
// and already folded. Pattern ids are indexes into patterns; duplicates are
// allowed and reported separately.
func newKeywordDFA(patterns []string) *keywordDFA {
	d := &keywordDFA{lens: make([]int32, len(patterns))}

	// Byte classes.
	next := 1
	for _, p := range patterns {
		for i := 0; i < len(p); i++ {
			b := p[i]
			if d.class[b] == 0 {
				d.class[b] = uint8(next)
				if 'a' <= b && b <= 'z' {
					d.class[b-'a'+'A'] = uint8(next)
				}
				next++
			}
		}
	}
	if next > 256 {
		panic("rules: more than 255 byte classes") // impossible: 256 byte values, fold merges 26
	}
	d.stride = next

	// Trie. Node 0 is the root; child[n*stride+c] is the child or -1.
	child := []int32{}
	addNode := func() int32 {
		for range d.stride {
			child = append(child, -1)
		}
		return int32(len(child)/d.stride - 1)
	}
	addNode()
	var ends [][]int32 // patterns ending exactly at node
	ends = append(ends, nil)
	for id, p := range patterns {
		d.lens[id] = int32(len(p))
		d.maxLen = max(d.maxLen, len(p))
		n := int32(0)
		for i := 0; i < len(p); i++ {
			c := int(d.class[p[i]])
			if child[int(n)*d.stride+c] < 0 {
				m := addNode()
				ends = append(ends, nil)
				child[int(n)*d.stride+c] = m
			}
			n = child[int(n)*d.stride+c]
		}
		ends[n] = append(ends[n], int32(id))
	}
	nodes := len(ends)

	// Breadth-first: failure links, the full transition function, and the
	// output sets (own patterns plus those of the failure state).
	fail := make([]int32, nodes)
	delta := make([]int32, nodes*d.stride)
	outs := make([][]int32, nodes)
	queue := make([]int32, 0, nodes)
	for c := 0; c < d.stride; c++ {
		if m := child[c]; m >= 0 {
			delta[c] = m
			queue = append(queue, m)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		outs[n] = append(append([]int32(nil), ends[n]...), outs[fail[n]]...)
		for c := 0; c < d.stride; c++ {
			m := child[int(n)*d.stride+c]
			if m < 0 {
				delta[int(n)*d.stride+c] = delta[int(fail[n])*d.stride+c]
				continue
			}
			delta[int(n)*d.stride+c] = m
			fail[m] = delta[int(fail[n])*d.stride+c]
			queue = append(queue, m)
		}
	}

	// Renumber: non-match states first (root stays 0), match states last.
	order := make([]int32, 0, nodes)
	for n := 0; n < nodes; n++ {
		if len(outs[n]) == 0 {
			order = append(order, int32(n))
		}
	}
	firstMatch := len(order)
	for n := 0; n < nodes; n++ {
		if len(outs[n]) > 0 {
			order = append(order, int32(n))
		}
	}
	newID := make([]int32, nodes)
	for i, n := range order {
		newID[n] = int32(i)
	}
	d.trans = make([]uint32, nodes*d.stride)
	for i, n := range order {
		for c := 0; c < d.stride; c++ {
			d.trans[i*d.stride+c] = uint32(int(newID[delta[int(n)*d.stride+c]]) * d.stride)
		}
	}
	d.matchFrom = uint32(firstMatch * d.stride)
	for _, n := range order[firstMatch:] {
		d.outStart = append(d.outStart, int32(len(d.outs)))
		d.outs = append(d.outs, outs[n]...)
	}
	d.outStart = append(d.outStart, int32(len(d.outs)))

	d.pairs = pairTable(patterns)
	return d
}

// pairTable returns the pair filter's bitmap for patterns (see find), or
// nil if a pattern is a single byte. Bit b0 | b1<<8 is set when an
// occurrence starting at an even offset e, or at e-1, can put the bytes
// b0 b1 at e and e+1, in any ASCII case:
//
//   - a pattern starting at e has its first two bytes there;
//   - one of three bytes or more starting at e-1 has its second and third;
//   - one of two bytes starting at e-1 has its second byte at e, and any
//     byte may follow it.
func pairTable(patterns []string) *[1 << 10]uint64 {
	t := new([1 << 10]uint64)
	set := func(b0, b1 byte) {
		for _, x := range caseVariants(b0) {
			for _, y := range caseVariants(b1) {
				k := uint16(x) | uint16(y)<<8
				t[k>>6] |= 1 << (k & 63)
			}
		}
	}
	for _, p := range patterns {
		switch {
		case len(p) < 2:
			return nil
		case len(p) == 2:
			set(p[0], p[1])
			for y := range 256 {
				set(p[1], byte(y))
			}
		default:
			set(p[0], p[1])
			set(p[1], p[2])
		}
	}
	return t
}

// caseVariants returns the bytes that fold to the folded byte b.
func caseVariants(b byte) []byte {
	if 'a' <= b && b <= 'z' {
		return []byte{b, b - 'a' + 'A'}
	}
	return []byte{b}
}

// hit is one occurrence of a pattern: data[end-len(pattern):end].
type hit struct {
	pattern int
	end     int
}

// keywordScan is one goroutine's state for keywordDFA.find: scratch space
// and what it learned about the text from earlier buffers.
type keywordScan struct {
	late  lateHits // the later parts' hits in scanDFA, kept so a steady-state scan does not allocate
	dense int      // buffers still to scan with the automaton alone before trying the pair filter again
}

// Tuning of find's choice between the pair filter and the automaton (see
// find). They decide speed only, never the result.
const (
	// pairDensity: the filter is abandoned when more than one position in
	// pairDensity is a candidate (plus pairSlack, so that a few candidates
	// at the start of a buffer do not count).
	pairDensity = 32
	pairSlack   = 64
	// denseBuffers: after the filter is abandoned in a buffer, the next
	// denseBuffers buffers go straight to the automaton.
	denseBuffers = 16
)

// find appends every pattern occurrence in data to hits and returns it.
// The hits of each pattern are in order of their end offsets; hits of
// different patterns may interleave in any order.
//
// Most positions of a buffer start no pattern, and ruling them out eight
// at a time is faster than running the automaton, whose every step waits
// for the table load of the step before. So, when the patterns allow it
// (pairs is not nil), find first runs a pair filter: at each even offset
// e it looks up the byte pair at e, e+1 in a bitmap (pairTable) that holds
// every pair an occurrence starting at e or at e-1 puts there. Only where
// the bit is set does the automaton run, from the root at e-1, for a few
// bytes, keeping the occurrences that start at e-1 or e. Every start
// belongs to exactly one even offset, so each occurrence is reported
// once. The bitmap is indexed by raw bytes (case variants are set in it),
// and the pairs at the even offsets of eight bytes are the four 16-bit
// slices of one word, so the filter's hot loop (skipPairs) costs a few
// instructions per byte. On source code, five typical keywords give a
// candidate every hundred bytes or so.
//
// A large keyword set gives one every few bytes, where the automaton
// alone is faster: when candidates pass one in pairDensity offsets, find
// hands the rest of the buffer to the automaton, started at the root at
// the first start the filter has not decided, which reports exactly the
// occurrences that start there or later; and st remembers to skip the
// filter for the next denseBuffers buffers.
func (d *keywordDFA) find(data []byte, hits []hit, st *keywordScan) []hit {
	from := 0
	if d.pairs != nil {
		if st.dense > 0 {
			st.dense--
		} else {
			var done bool
			hits, from, done = d.scanPairs(data, hits)
			if done {
				return hits
			}
			st.dense = denseBuffers
		}
	}
	return d.scanDFA(data[from:], from, hits, &st.late)
}

// scanPairs runs the pair filter over data. It returns the hits, the first
// start it has not decided, and whether it decided every start (false when
// candidates became too dense).
func (d *keywordDFA) scanPairs(data []byte, hits []hit) ([]hit, int, bool) {
	n := len(data)
	candidates := 0
	i := 0
	for {
		// Every start before i-1 is decided (the blocks before i are done).
		i = d.skipPairs(data, i)
		if i+8 > n {
			break
		}
		for e := i; e < i+8; e += 2 {
			if pairBit(d.pairs, uint64(data[e])|uint64(data[e+1])<<8)&1 != 0 {
				hits = d.startingNear(data, e, hits)
				candidates++
			}
		}
		i += 8
		if candidates > i/pairDensity+pairSlack {
			return hits, i - 1, false
		}
	}
	// The tail: the starts from i-1 on, one at a time.
	for s := max(i-1, 0); s < n; s++ {
		hits = d.startingAt(data, s, hits)
	}
	return hits, n, true
}

// skipPairs returns the first i' >= i, in steps of eight, such that the
// pair at one of the even offsets i', i'+2, i'+4, i'+6 is in the bitmap,
// or the first i' with fewer than eight bytes left. It is the filter's hot
// loop: one load and four lookups per eight bytes, no call, one branch.
// i must be even.
func (d *keywordDFA) skipPairs(data []byte, i int) int {
	pairs := d.pairs
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		if (pairBit(pairs, w)|pairBit(pairs, w>>16)|pairBit(pairs, w>>32)|pairBit(pairs, w>>48))&1 != 0 {
			return i
		}
	}
	return i
}

// pairBit returns, in bit 0, the bitmap's bit for the pair in the low 16
// bits of k (its first byte in the low 8).
func pairBit(pairs *[1 << 10]uint64, k uint64) uint64 {
	k &= 0xffff
	return pairs[k>>6] >> (k & 63)
}

// startingNear appends the occurrences that start at e-1 or at e (e even):
// it runs the automaton from the root at e-1 and keeps the hits that
// reach back to e-1 or e. It stops maxLen bytes after e, or as soon as the
// automaton is back at the root past e (no pattern prefix that began at or
// before e is alive).
func (d *keywordDFA) startingNear(data []byte, e int, hits []hit) []hit {
	from := max(e-1, 0)
	end := min(len(data), e+d.maxLen)
	s := uint32(0)
	for j := from; j < end; j++ {
		s = d.trans[s+uint32(d.class[data[j]])]
		if s == 0 && j >= e {
			break
		}
		if s < d.matchFrom {
			continue
		}
		k := (s - d.matchFrom) / uint32(d.stride)
		for _, p := range d.outs[d.outStart[k]:d.outStart[k+1]] {
			if start := j + 1 - int(d.lens[p]); start == from || start == e {
				hits = append(hits, hit{pattern: int(p), end: j + 1})
			}
		}
	}
	return hits
}

// startingAt appends the occurrences that start at i, the same way.
func (d *keywordDFA) startingAt(data []byte, i int, hits []hit) []hit {
	end := min(len(data), i+d.maxLen)
	s := uint32(0)
	for j := i; j < end; j++ {
		s = d.trans[s+uint32(d.class[data[j]])]
		if s == 0 {
			break
		}
		if s < d.matchFrom {
			continue
		}
		k := (s - d.matchFrom) / uint32(d.stride)
		for _, p := range d.outs[d.outStart[k]:d.outStart[k+1]] {
			if int(d.lens[p]) == j+1-i {
				hits = append(hits, hit{pattern: int(p), end: j + 1})
			}
		}
	}
	return hits
}

// scanDFA runs the automaton over data, which starts at offset base of the
// buffer, appending every occurrence to hits in order of end offset.
//
// The loop is bound by the latency of one table load per byte, each load
// depending on the one before. To overlap such chains, a buffer of at
// least 64 times the longest pattern is scanned as four parts in lockstep:
// each part after the first starts maxLen-1 bytes early (so every
// occurrence ending in it is seen whole) and keeps only the occurrences
// that end in it. On 256 KiB chunks of GOROOT's source, four chains ran the
// automaton at 1.8 times the speed of two (520 to about 950 MB/s, either
// rule set); two chains run no faster than one on GOROOT's files, so
// a smaller buffer is scanned as one chain. BenchmarkKeywords, pair filter
// included, runs at 650-715 MB/s with the built-in rules and 650-725 MB/s
// with gitleaks' (BENCHMARKS.md). spare is scratch space for the later
// parts' hits.
func (d *keywordDFA) scanDFA(data []byte, base int, hits []hit, spare *lateHits) []hit {
	n := len(data)
	// The parts overlap by maxLen-1 bytes: at most a sixteenth of each.
	if n >= 64*d.maxLen {
		return d.scan4(data, base, hits, spare)
	}
	return d.scanRange(data, base, 0, n, 0, hits)
}

// lateHits holds the hits of scan4's later parts until the first part's
// are in, so that each pattern's hits stay in order of end offset.
type lateHits [3][]hit

// scan4 is scanDFA in four parts of q = n/4 bytes: part k reads q+maxLen-1
// bytes from k*q-(maxLen-1) (the first from 0) and keeps the occurrences
// that end in (k*q, (k+1)*q]; the automaton of the last part goes on over
// the bytes after 4q.
func (d *keywordDFA) scan4(data []byte, base int, hits []hit, spare *lateHits) []hit {
	n := len(data)
	q, ov := n/4, d.maxLen-1
	l := q + ov
	st1, st2, st3 := q-ov, 2*q-ov, 3*q-ov
	p0, p1, p2, p3 := data[:l], data[st1:st1+l], data[st2:st2+l], data[st3:st3+l]
	var st [4]uint32
	late := lateHits{spare[0][:0], spare[1][:0], spare[2][:0]}
	for i := 0; ; i++ {
		// advance4 runs until a part reaches a match state, in a loop
		// that holds its few values in registers; matches are rare.
		if i, st = d.advance4(p0, p1, p2, p3, i, st); i == len(p0) {
			break
		}
		hits = d.emit4(i, q, st, [3]int{st1, st2, st3}, base, hits, &late)
	}
	s3 := st[3]
	hits = append(append(append(hits, late[0]...), late[1]...), late[2]...)
	*spare = late
	return d.scanRange(data, base, st3+l, n, s3, hits)
}

// advance4 runs scan4's four parts from byte i of each, from states st,
// and returns the first i at which one of them is in a match state (with
// the states after reading it), or len(p0). The parts have p0's length.
func (d *keywordDFA) advance4(p0, p1, p2, p3 []byte, i int, st [4]uint32) (int, [4]uint32) {
	// Resliced to p0's length, so that the loop needs no bounds check on
	// them.
	p1, p2, p3 = p1[:len(p0)], p2[:len(p0)], p3[:len(p0)]
	trans, class, mf := d.trans, &d.class, d.matchFrom
	s0, s1, s2, s3 := st[0], st[1], st[2], st[3]
	for ; i < len(p0); i++ {
		s0 = trans[s0+uint32(class[p0[i]])]
		s1 = trans[s1+uint32(class[p1[i]])]
		s2 = trans[s2+uint32(class[p2[i]])]
		s3 = trans[s3+uint32(class[p3[i]])]
		if max(s0, s1, s2, s3) >= mf {
			break
		}
	}
	return i, [4]uint32{s0, s1, s2, s3}
}

// emit4 reports the occurrences that end where scan4's four parts stand
// after reading byte i of each: part k's, if it is in a match state and
// the occurrence ends in the part's own quarter (k*q, (k+1)*q].
//
//go:noinline
func (d *keywordDFA) emit4(i, q int, s [4]uint32, st [3]int, base int, hits []hit, late *lateHits) []hit {
	mf := d.matchFrom
	if s[0] >= mf && i+1 <= q {
		hits = d.emit(s[0], base+i+1, hits)
	}
	for k := 1; k < 4; k++ {
		if e := st[k-1] + i + 1; s[k] >= mf && e > k*q && e <= (k+1)*q || k == 3 && s[k] >= mf && e > 3*q {
			late[k-1] = d.emit(s[k], base+e, late[k-1])
		}
	}
	return hits
}

// scanRange continues the automaton from state s over data[from:to],
// reporting ends as offsets from base.
func (d *keywordDFA) scanRange(data []byte, base, from, to int, s uint32, hits []hit) []hit {
	trans, class := d.trans, &d.class
	matchFrom := d.matchFrom
	for i := from; i < to; i++ {
		s = trans[s+uint32(class[data[i]])]
		if s >= matchFrom {
			hits = d.emit(s, base+i+1, hits)
		}
	}
	return hits
}

// emit appends the patterns that end in match state s at offset end.
func (d *keywordDFA) emit(s uint32, end int, hits []hit) []hit {
	k := (s - d.matchFrom) / uint32(d.stride)
	for _, p := range d.outs[d.outStart[k]:d.outStart[k+1]] {
		hits = append(hits, hit{pattern: int(p), end: end})
	}
	return hits
}

// first reports the id of some pattern that occurs in data, or -1.
func (d *keywordDFA) first(data []byte) int {
	trans, class := d.trans, &d.class
	s := uint32(0)
	for _, b := range data {
		s = trans[s+uint32(class[b])]
		if s >= d.matchFrom {
			k := (s - d.matchFrom) / uint32(d.stride)
			return int(d.outs[d.outStart[k]])
		}
	}
	return -1
}
