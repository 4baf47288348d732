package odb

import (
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"sync"
)

// A one-shot deflate decoder (RFC 1951) for streams whose output size is
// known and whose input is in memory: every pack entry, since the entry
// header gives the size and the reverse index the stored extent.
//
// Why not only klauspost's flate: git stores each object as its own zlib
// stream, and the objects of a source repository are small (caddy's
// average under 1 KiB compressed), so most of the cost is per stream.
// Under callgrind, klauspost spent half its instructions on caddy's
// history building Huffman tables (readHuffman and huffmanDecoder.init,
// about 23,000 instructions a stream) and decoded through a 32 KiB
// window copied out to the caller. This decoder writes straight into the
// output, builds its tables the way zlib's inflate_table does (two
// levels, a root of 9 bits for literals and lengths and 7 for
// distances: the tables of a small object are built for a few hundred
// bytes, so smaller roots beat faster lookups), and refills a 64-bit bit buffer a word at a time. doc.go
// has the numbers. Streams too large to hold in memory still go through
// klauspost's streaming decoder (inflate.go).
//
// It accepts and refuses what zlib does: over-subscribed and incomplete
// codes are errors except a lone code of one bit, a block type 3 is an
// error, as are more than 286 literal/length or 30 distance codes and a
// distance reaching before the start of the output. The fuzz target
// FuzzDeflate holds it to klauspost's decoder.

var (
	errDeflate = errors.New("bad deflate data")
	errOutput  = errors.New("deflate data does not fill the object's size exactly")
)

// Table entries are uint32: bits 0-4 the code bits to consume, 5-7 the
// kind, 8-15 the extra bits that follow (a length or distance) or a
// subtable's index bits, 16-31 the value (a literal, a base length or
// distance, a subtable's start). A zero entry is an invalid code.
const (
	kindInvalid = 0
	kindLiteral = 1
	kindBase    = 2 // a length (literal/length table) or a distance
	kindEnd     = 3
	kindSub     = 4

	litRootBits  = 9
	distRootBits = 7
	preRootBits  = 7

	// Room for the root table and every subtable, bounded as zlib's
	// ENOUGH program computes (852 for literals and lengths with a root
	// of 9, under 600 for distances with any root of 6 to 8), rounded up.
	litTableSize  = 1 << 11
	distTableSize = 1 << 10
)

func entry(value, extra uint32, kind uint32, n uint32) uint32 {
	return value<<16 | extra<<8 | kind<<5 | n
}

var (
	lengthBase  = [29]uint32{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint32{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint32{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	// The order in which a dynamic block lists the code length code's
	// lengths.
	precodeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

type tableKind int

const (
	litTable tableKind = iota
	distTable
	preTable
)

// symbolEntry is what the table holds for symbol sym consuming n bits.
func symbolEntry(k tableKind, sym int, n uint32) uint32 {
	switch k {
	case litTable:
		switch {
		case sym < 256:
			return entry(uint32(sym), 0, kindLiteral, n)
		case sym == 256:
			return entry(0, 0, kindEnd, n)
		case sym <= 285:
			return entry(lengthBase[sym-257], lengthExtra[sym-257], kindBase, n)
		}
		return entry(0, 0, kindInvalid, n) // 286, 287: reserved
	case distTable:
		if sym < 30 {
			return entry(distBase[sym], distExtra[sym], kindBase, n)
		}
		return entry(0, 0, kindInvalid, n)
	}
	return entry(uint32(sym), 0, kindLiteral, n)
}

// buildTable fills table from the code lengths of a canonical Huffman
// code, with a root of root bits and subtables for longer codes. An empty
// code is allowed for distances (a block of literals only); the table is
// then all invalid.
func buildTable(k tableKind, lengths []uint8, table []uint32, root uint) error {
	var count, offs [16]uint16
	for _, l := range lengths {
		count[l]++
	}
	count[0] = 0
	maxLen := 15
	for maxLen > 0 && count[maxLen] == 0 {
		maxLen--
	}
	clear(table[:1<<root])
	if maxLen == 0 {
		if k == distTable {
			return nil
		}
		return errDeflate
	}
	left := 1
	for l := 1; l <= 15; l++ {
		left = left<<1 - int(count[l])
		if left < 0 {
			return errDeflate // over-subscribed
		}
	}
	if left > 0 && (k == preTable || maxLen != 1) {
		return errDeflate // incomplete
	}
	for l := 1; l < 15; l++ {
		offs[l+1] = offs[l] + count[l]
	}
	var sorted [288]uint16
	for sym, l := range lengths {
		if l != 0 {
			sorted[offs[l]] = uint16(sym)
			offs[l]++
		}
	}
	n := 0 // symbols with a code
	for l := 1; l <= 15; l++ {
		n += int(count[l])
	}

	rootSize := 1 << root
	next := rootSize // where the next subtable goes
	subStart, subBits, lowPrefix := 0, uint(0), -1
	code := 0 // canonical code of the current symbol, most significant bit first
	l := 1
	for i := 0; i < n; i++ {
		sym := int(sorted[i])
		for int(lengths[sym]) != l {
			code <<= 1
			l++
		}
		rev := int(bits.Reverse16(uint16(code)) >> (16 - l))
		if uint(l) <= root {
			e := symbolEntry(k, sym, uint32(l))
			for j := rev; j < rootSize; j += 1 << l {
				table[j] = e
			}
		} else {
			low := rev & (rootSize - 1)
			if low != lowPrefix {
				// A new subtable: as large as the codes that share
				// this prefix need, counting the codes not yet placed.
				cur := uint(l) - root
				room := 1 << cur
				for int(cur+root) < maxLen {
					room -= int(count[cur+root])
					if room <= 0 {
						break
					}
					cur++
					room <<= 1
				}
				if next+1<<cur > len(table) {
					return errDeflate
				}
				subStart, subBits, lowPrefix = next, cur, low
				next += 1 << cur
				table[low] = entry(uint32(subStart), uint32(subBits), kindSub, uint32(root))
			}
			e := symbolEntry(k, sym, uint32(l)-uint32(root))
			for j := rev >> root; j < 1<<subBits; j += 1 << (uint(l) - root) {
				table[subStart+j] = e
			}
		}
		count[l]--
		code++
	}
	return nil
}

var fixedTables struct {
	once sync.Once
	lit  [litTableSize]uint32
	dist [distTableSize]uint32
}

func fixedHuffman() (*[litTableSize]uint32, *[distTableSize]uint32) {
	fixedTables.once.Do(func() {
		var l [288]uint8
		for i := range l {
			switch {
			case i < 144:
				l[i] = 8
			case i < 256:
				l[i] = 9
			case i < 280:
				l[i] = 7
			default:
				l[i] = 8
			}
		}
		var d [32]uint8 // codes 30 and 31 exist, and are invalid to use
		for i := range d {
			d[i] = 5
		}
		if buildTable(litTable, l[:], fixedTables.lit[:], litRootBits) != nil ||
			buildTable(distTable, d[:], fixedTables.dist[:], distRootBits) != nil {
			panic("odb: fixed Huffman tables do not build")
		}
	})
	return &fixedTables.lit, &fixedTables.dist
}

// decoder is the one-shot decoder's state; it lives in the inflater so
// its tables are not allocated per stream.
type decoder struct {
	src  []byte
	pos  int    // next byte of src to load
	bits uint64 // loaded bits, least significant first
	n    uint   // how many bits of bits are valid
	over int    // zero bytes loaded past the end of src

	lit     [litTableSize]uint32
	dist    [distTableSize]uint32
	pre     [1 << preRootBits]uint32
	lengths [286 + 30]uint8
}

// refill loads bytes until at least 56 bits are buffered: eight at once
// while they last, then one by one, then zeros past the end (counted, so
// that reading them is reported as truncation).
func (d *decoder) refill() {
	if d.pos+8 <= len(d.src) {
		d.bits |= binary.LittleEndian.Uint64(d.src[d.pos:]) << d.n
		k := (63 - d.n) >> 3
		d.pos += int(k)
		d.n += k << 3
		return
	}
	for d.n <= 56 {
		if d.pos < len(d.src) {
			d.bits |= uint64(d.src[d.pos]) << d.n
			d.pos++
		} else {
			d.over++
		}
		d.n += 8
	}
}

// refillSlow is refill for huffmanBlock's local copy of the bit buffer.
func (d *decoder) refillSlow(pos int, bitbuf uint64, n uint) (int, uint64, uint) {
	d.pos, d.bits, d.n = pos, bitbuf, n
	d.refill()
	return d.pos, d.bits, d.n
}

// take consumes and returns k bits (k <= 32, after a refill).
func (d *decoder) take(k uint) uint32 {
	v := uint32(d.bits & (1<<k - 1))
	d.bits >>= k
	d.n -= k
	return v
}

// truncated reports whether more bits were consumed than src holds.
func (d *decoder) truncated() bool {
	return d.over > 0 && uint(d.over)*8 > d.n
}

// decodeSym decodes one symbol with table t of the given root.
func (d *decoder) decodeSym(t []uint32, root uint) uint32 {
	e := t[d.bits&(1<<root-1)]
	if (e>>5)&7 == kindSub {
		d.bits >>= root
		d.n -= root
		e = t[e>>16+uint32(d.bits&(1<<((e>>8)&0xff)-1))]
	}
	k := uint(e & 31)
	d.bits >>= k
	d.n -= k
	return e
}

// inflateInto decodes the raw deflate stream at the start of src into
// dst, which must be filled exactly. Bytes of src after the stream (the
// zlib trailer) are ignored.
func (d *decoder) inflateInto(src, dst []byte) error {
	d.src, d.pos, d.bits, d.n, d.over = src, 0, 0, 0, 0
	defer func() { d.src = nil }()
	w := 0
	for final := false; !final; {
		d.refill()
		final = d.take(1) == 1
		lit, dist := &d.lit, &d.dist
		switch d.take(2) {
		case 0:
			var err error
			if w, err = d.stored(dst, w); err != nil {
				return err
			}
			continue
		case 1:
			lit, dist = fixedHuffman()
		case 2:
			if err := d.dynamicTables(); err != nil {
				return err
			}
		default:
			return errDeflate
		}
		var err error
		if w, err = d.huffmanBlock(lit, dist, dst, w); err != nil {
			return err
		}
	}
	if d.truncated() {
		return io.ErrUnexpectedEOF
	}
	if w != len(dst) {
		return errOutput
	}
	return nil
}

// huffmanBlock decodes one compressed block into dst from w on and
// returns where the output ends. The bit buffer lives in local variables
// here (a field of *d would be loaded and stored at every step); at least
// 48 bits, the most one length and distance take, are buffered before
// each symbol.
func (d *decoder) huffmanBlock(lit *[litTableSize]uint32, dist *[distTableSize]uint32, dst []byte, w int) (int, error) {
	// No closures here: a variable a closure writes lives in memory.
	src, pos, bitbuf, n := d.src, d.pos, d.bits, d.n
	for {
		if n < 48 {
			if pos+8 <= len(src) {
				bitbuf |= binary.LittleEndian.Uint64(src[pos:]) << n
				k := (63 - n) >> 3
				pos += int(k)
				n += k << 3
			} else if pos, bitbuf, n = d.refillSlow(pos, bitbuf, n); d.over > 8 {
				return w, io.ErrUnexpectedEOF
			}
		}
		// Literals, the commonest symbol: up to three per refill, each
		// taking at most 15 of the 48 bits. A refill only adds bits
		// above the n buffered, so a lookup done before it stays valid.
		e := lit[bitbuf&(1<<litRootBits-1)]
		if (e>>5)&7 == kindLiteral {
			k := uint(e & 31)
			bitbuf >>= k
			n -= k
			if w >= len(dst) {
				return w, errOutput
			}
			dst[w] = byte(e >> 16)
			w++
			e = lit[bitbuf&(1<<litRootBits-1)]
			if (e>>5)&7 == kindLiteral {
				k := uint(e & 31)
				bitbuf >>= k
				n -= k
				if w >= len(dst) {
					return w, errOutput
				}
				dst[w] = byte(e >> 16)
				w++
				e = lit[bitbuf&(1<<litRootBits-1)]
				if (e>>5)&7 == kindLiteral {
					k := uint(e & 31)
					bitbuf >>= k
					n -= k
					if w >= len(dst) {
						return w, errOutput
					}
					dst[w] = byte(e >> 16)
					w++
					continue
				}
			}
			if n < 48 {
				if pos+8 <= len(src) {
					bitbuf |= binary.LittleEndian.Uint64(src[pos:]) << n
					k := (63 - n) >> 3
					pos += int(k)
					n += k << 3
				} else if pos, bitbuf, n = d.refillSlow(pos, bitbuf, n); d.over > 8 {
					return w, io.ErrUnexpectedEOF
				}
			}
		}
		if (e>>5)&7 == kindSub {
			bitbuf >>= litRootBits
			n -= litRootBits
			e = lit[(e>>16+uint32(bitbuf&(1<<((e>>8)&0xff)-1)))&(litTableSize-1)]
		}
		k := uint(e & 31)
		bitbuf >>= k
		n -= k
		switch (e >> 5) & 7 {
		case kindLiteral:
			if w >= len(dst) {
				return w, errOutput
			}
			dst[w] = byte(e >> 16)
			w++
			continue
		case kindEnd:
			d.pos, d.bits, d.n = pos, bitbuf, n
			return w, nil
		case kindBase:
		default:
			return w, errDeflate
		}
		x := (e >> 8) & 0xff
		length := int(e>>16) + int(bitbuf&(1<<x-1))
		bitbuf >>= x
		n -= uint(x)

		e = dist[bitbuf&(1<<distRootBits-1)]
		if (e>>5)&7 == kindSub {
			bitbuf >>= distRootBits
			n -= distRootBits
			e = dist[(e>>16+uint32(bitbuf&(1<<((e>>8)&0xff)-1)))&(distTableSize-1)]
		}
		k = uint(e & 31)
		bitbuf >>= k
		n -= k
		if (e>>5)&7 != kindBase {
			return w, errDeflate
		}
		x = (e >> 8) & 0xff
		distance := int(e>>16) + int(bitbuf&(1<<x-1))
		bitbuf >>= x
		n -= uint(x)
		if distance > w {
			return w, errDeflate
		}
		if length > len(dst)-w {
			return w, errOutput
		}
		from := w - distance
		if distance >= 8 && length <= 16 && len(dst)-w >= 16 {
			// A short match, the common case: two 8-byte moves, which
			// copy byte-for-byte correctly as each reads at least 8
			// bytes behind where it writes. Bytes written past the
			// match are overwritten by what follows.
			binary.LittleEndian.PutUint64(dst[w:], binary.LittleEndian.Uint64(dst[from:]))
			binary.LittleEndian.PutUint64(dst[w+8:], binary.LittleEndian.Uint64(dst[from+8:]))
		} else if distance >= length {
			copy(dst[w:w+length], dst[from:from+length])
		} else {
			// The copy overlaps what it writes: the bytes repeat with
			// period distance, so each pass can copy everything
			// written so far, doubling the run.
			for c := 0; c < length; {
				c += copy(dst[w+c:w+length], dst[from:w+c])
			}
		}
		w += length
	}
}

// stored copies a stored block: after the byte boundary, LEN and its
// complement, then LEN bytes.
func (d *decoder) stored(dst []byte, w int) (int, error) {
	d.take(d.n & 7)
	// Give back the whole bytes still buffered and read src directly.
	// The last d.over of them are the zeros loaded past its end.
	back := int(d.n >> 3)
	if back < d.over {
		return w, io.ErrUnexpectedEOF
	}
	d.pos -= back - d.over
	d.bits, d.n, d.over = 0, 0, 0
	if d.pos+4 > len(d.src) {
		return w, io.ErrUnexpectedEOF
	}
	n := int(binary.LittleEndian.Uint16(d.src[d.pos:]))
	if binary.LittleEndian.Uint16(d.src[d.pos+2:]) != ^uint16(n) {
		return w, errDeflate
	}
	d.pos += 4
	if d.pos+n > len(d.src) {
		return w, io.ErrUnexpectedEOF
	}
	if n > len(dst)-w {
		return w, errOutput
	}
	copy(dst[w:], d.src[d.pos:d.pos+n])
	d.pos += n
	return w + n, nil
}

// dynamicTables reads a dynamic block's code descriptions and builds its
// literal/length and distance tables.
func (d *decoder) dynamicTables() error {
	d.refill()
	nlit := int(d.take(5)) + 257
	ndist := int(d.take(5)) + 1
	npre := int(d.take(4)) + 4
	if nlit > 286 || ndist > 30 {
		return errDeflate
	}
	var pl [19]uint8
	for i := range npre {
		if d.n < 3 {
			d.refill()
		}
		pl[precodeOrder[i]] = uint8(d.take(3))
	}
	if err := buildTable(preTable, pl[:], d.pre[:], preRootBits); err != nil {
		return err
	}
	lengths := d.lengths[:nlit+ndist]
	for i := 0; i < len(lengths); {
		d.refill()
		if d.over > 8 {
			return io.ErrUnexpectedEOF
		}
		e := d.decodeSym(d.pre[:], preRootBits)
		if (e>>5)&7 != kindLiteral {
			return errDeflate
		}
		sym := int(e >> 16)
		var rep int
		var val uint8
		switch {
		case sym < 16:
			lengths[i] = uint8(sym)
			i++
			continue
		case sym == 16:
			if i == 0 {
				return errDeflate
			}
			val, rep = lengths[i-1], 3+int(d.take(2))
		case sym == 17:
			rep = 3 + int(d.take(3))
		default:
			rep = 11 + int(d.take(7))
		}
		if i+rep > len(lengths) {
			return errDeflate
		}
		for j := range rep {
			lengths[i+j] = val
		}
		i += rep
	}
	if lengths[256] == 0 {
		return errDeflate // no end-of-block code
	}
	if err := buildTable(litTable, lengths[:nlit], d.lit[:], litRootBits); err != nil {
		return err
	}
	return buildTable(distTable, lengths[nlit:], d.dist[:], distRootBits)
}
