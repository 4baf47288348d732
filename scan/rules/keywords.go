package rules

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
	return d
}

// hit is one occurrence of a pattern: data[end-len(pattern):end].
type hit struct {
	pattern int
	end     int
}

// scan appends every pattern occurrence in data to hits and returns it,
// in order of end offset.
//
// The loop is bound by the latency of one table load per byte, each load
// depending on the one before. To overlap two such chains, a buffer of
// more than a few KiB is scanned as two halves in lockstep: the first half
// from its start, the second from maxLen-1 bytes before the middle (so
// every occurrence ending in the second half is seen whole), keeping only
// the second stream's occurrences that end after the middle.
// spare is scratch space for the second stream's hits, kept by the caller
// so that a steady-state scan does not allocate.
func (d *keywordDFA) scan(data []byte, hits []hit, spare *[]hit) []hit {
	n := len(data)
	if n < 4096 || d.maxLen >= n/4 {
		return d.scanRange(data, 0, n, 0, hits)
	}
	mid := n / 2
	start2 := mid - (d.maxLen - 1)
	trans, class := d.trans, &d.class
	matchFrom := d.matchFrom
	var s1, s2 uint32
	first, second := data[:mid], data[start2:start2+mid]
	late := (*spare)[:0] // second-stream hits, appended after the first stream's
	for i := range first {
		s1 = trans[s1+uint32(class[first[i]])]
		s2 = trans[s2+uint32(class[second[i]])]
		if s1 >= matchFrom || s2 >= matchFrom {
			if s1 >= matchFrom {
				hits = d.emit(s1, i+1, hits)
			}
			if s2 >= matchFrom && start2+i+1 > mid {
				late = d.emit(s2, start2+i+1, late)
			}
		}
	}
	hits = append(hits, late...)
	*spare = late
	return d.scanRange(data, start2+mid, n, s2, hits)
}

// scanRange continues the automaton from state s over data[from:to].
func (d *keywordDFA) scanRange(data []byte, from, to int, s uint32, hits []hit) []hit {
	trans, class := d.trans, &d.class
	matchFrom := d.matchFrom
	for i := from; i < to; i++ {
		s = trans[s+uint32(class[data[i]])]
		if s >= matchFrom {
			hits = d.emit(s, i+1, hits)
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
