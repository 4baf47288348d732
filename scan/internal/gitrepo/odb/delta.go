package odb

import (
	"errors"
	"fmt"
	"math/bits"
)

// A delta rebuilds an object from a base object. Its data (the inflated
// body of an OFS_DELTA or REF_DELTA pack entry) is two sizes and a list
// of instructions:
//
//	varint base size, varint result size
//	1xxxxxxx [offset 0-4 bytes] [length 0-3 bytes]   copy from the base
//	0nnnnnnn n literal bytes                          insert (1 <= n <= 127)
//	00000000                                          reserved: an error
//
// The varints are little-endian groups of 7 bits. In a copy the low four
// bits of the command say which offset bytes follow and the next three
// which length bytes follow (little-endian, absent bytes zero); a length
// of zero means 0x10000.

var errDelta = errors.New("bad delta")

// maxInt is the largest slice length (smaller on 32-bit platforms).
const maxInt = int64(^uint(0) >> 1)

// DeltaOp is one instruction of a delta: either a copy of Len bytes from
// the base at Offset, or an insert of the literal bytes Data (Data is
// non-nil exactly for inserts; Len is then len(Data)).
type DeltaOp struct {
	Offset int64  // copy: where in the base the bytes start
	Len    int64  // bytes the instruction adds to the result
	Data   []byte // insert: the literal bytes, aliasing the delta data
}

// Delta is a parsed delta: the sizes it declares and its instructions in
// order. The result is the concatenation of what the instructions add.
type Delta struct {
	BaseSize int64 // the size the base must have
	Size     int64 // the size of the object the delta builds
	Ops      []DeltaOp
}

// deltaVarint reads one size of the delta header at b[i:].
func deltaVarint(b []byte, i int) (int64, int, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if i >= len(b) {
			return 0, i, fmt.Errorf("%w: truncated size", errDelta)
		}
		if shift > 56 {
			return 0, i, fmt.Errorf("%w: size overflows", errDelta)
		}
		c := b[i]
		i++
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			break
		}
	}
	if v > 1<<62 {
		return 0, i, fmt.Errorf("%w: size overflows", errDelta)
	}
	return int64(v), i, nil
}

// deltaSizes reads the two sizes at the start of delta data and returns
// where the instructions begin.
func deltaSizes(delta []byte) (baseSize, size int64, i int, err error) {
	if baseSize, i, err = deltaVarint(delta, 0); err != nil {
		return 0, 0, 0, err
	}
	if size, i, err = deltaVarint(delta, i); err != nil {
		return 0, 0, 0, err
	}
	if size > maxInt {
		return 0, 0, 0, fmt.Errorf("%w: size %d does not fit in memory here", errDelta, size)
	}
	return baseSize, size, i, nil
}

// deltaCopy decodes the copy instruction whose command byte is cmd, with
// its argument bytes at b[i:].
func deltaCopy(cmd byte, b []byte, i int) (off, n int64, next int, err error) {
	var o, l uint32
	for k := range 4 {
		if cmd&(1<<k) != 0 {
			if i >= len(b) {
				return 0, 0, i, fmt.Errorf("%w: truncated copy", errDelta)
			}
			o |= uint32(b[i]) << (8 * k)
			i++
		}
	}
	for k := range 3 {
		if cmd&(0x10<<k) != 0 {
			if i >= len(b) {
				return 0, 0, i, fmt.Errorf("%w: truncated copy", errDelta)
			}
			l |= uint32(b[i]) << (8 * k)
			i++
		}
	}
	if l == 0 {
		l = 0x10000
	}
	return int64(o), int64(l), i, nil
}

// ParseDelta parses delta data and checks every instruction against the
// declared sizes: copies inside the base, the total equal to Size. The
// inserts' Data alias delta.
func ParseDelta(delta []byte) (*Delta, error) {
	baseSize, size, i, err := deltaSizes(delta)
	if err != nil {
		return nil, err
	}
	d := &Delta{BaseSize: baseSize, Size: size, Ops: make([]DeltaOp, 0, 8)}
	var total int64
	for i < len(delta) {
		cmd := delta[i]
		i++
		var op DeltaOp
		switch {
		case cmd&0x80 != 0:
			if op.Offset, op.Len, i, err = deltaCopy(cmd, delta, i); err != nil {
				return nil, err
			}
			if op.Offset+op.Len > baseSize {
				return nil, fmt.Errorf("%w: copy [%d,%d) outside a base of %d bytes", errDelta, op.Offset, op.Offset+op.Len, baseSize)
			}
		case cmd != 0:
			n := int(cmd)
			if i+n > len(delta) {
				return nil, fmt.Errorf("%w: truncated insert", errDelta)
			}
			op.Len, op.Data = int64(n), delta[i:i+n:i+n]
			i += n
		default:
			return nil, fmt.Errorf("%w: reserved instruction 0", errDelta)
		}
		total += op.Len
		if total > size {
			return nil, fmt.Errorf("%w: instructions build more than %d bytes", errDelta, size)
		}
		d.Ops = append(d.Ops, op)
	}
	if total != size {
		return nil, fmt.Errorf("%w: instructions build %d bytes, header says %d", errDelta, total, size)
	}
	return d, nil
}

// Apply builds the result from base into dst (grown if too small) and
// returns it. base must have the size the delta declares.
func (d *Delta) Apply(base, dst []byte) ([]byte, error) {
	if int64(len(base)) != d.BaseSize {
		return nil, fmt.Errorf("%w: base has %d bytes, delta wants %d", errDelta, len(base), d.BaseSize)
	}
	if int64(cap(dst)) < d.Size {
		dst = make([]byte, 0, d.Size)
	}
	dst = dst[:0]
	for _, op := range d.Ops {
		if op.Data != nil {
			dst = append(dst, op.Data...)
		} else {
			dst = append(dst, base[op.Offset:op.Offset+op.Len]...)
		}
	}
	return dst, nil
}

// ApplyDelta builds the object that delta makes from base, into dst
// (grown if too small); dst must not overlap base. It is ParseDelta and
// Apply without building the list of instructions. A result of up to
// trustAbove bytes is built in one pass; a larger claim is first checked
// instruction by instruction, so that a damaged delta allocates nothing.
func ApplyDelta(base, delta, dst []byte) ([]byte, error) {
	baseSize, size, start, err := deltaSizes(delta)
	if err != nil {
		return dst[:0], err
	}
	if baseSize != int64(len(base)) {
		return dst[:0], fmt.Errorf("%w: base has %d bytes, delta wants %d", errDelta, len(base), baseSize)
	}
	if size > trustAbove && int64(cap(dst)) < size {
		if err := checkDelta(delta, start, baseSize, size); err != nil {
			return dst[:0], err
		}
	}
	out := grow(dst, int(size))
	w := 0
	for i := start; i < len(delta); {
		cmd := delta[i]
		i++
		if cmd&0x80 != 0 {
			// A copy: the argument bytes the low seven bits ask for.
			if i+bits.OnesCount8(cmd&0x7f) > len(delta) {
				return dst[:0], fmt.Errorf("%w: truncated copy", errDelta)
			}
			var off, n uint64
			if cmd&0x01 != 0 {
				off = uint64(delta[i])
				i++
			}
			if cmd&0x02 != 0 {
				off |= uint64(delta[i]) << 8
				i++
			}
			if cmd&0x04 != 0 {
				off |= uint64(delta[i]) << 16
				i++
			}
			if cmd&0x08 != 0 {
				off |= uint64(delta[i]) << 24
				i++
			}
			if cmd&0x10 != 0 {
				n = uint64(delta[i])
				i++
			}
			if cmd&0x20 != 0 {
				n |= uint64(delta[i]) << 8
				i++
			}
			if cmd&0x40 != 0 {
				n |= uint64(delta[i]) << 16
				i++
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) {
				return dst[:0], fmt.Errorf("%w: copy [%d,%d) outside a base of %d bytes", errDelta, off, off+n, len(base))
			}
			if n > uint64(len(out)-w) {
				return dst[:0], fmt.Errorf("%w: instructions build more than %d bytes", errDelta, size)
			}
			w += copy(out[w:], base[off:off+n])
			continue
		}
		if cmd == 0 {
			return dst[:0], fmt.Errorf("%w: reserved instruction 0", errDelta)
		}
		n := int(cmd)
		if i+n > len(delta) {
			return dst[:0], fmt.Errorf("%w: truncated insert", errDelta)
		}
		if n > len(out)-w {
			return dst[:0], fmt.Errorf("%w: instructions build more than %d bytes", errDelta, size)
		}
		w += copy(out[w:], delta[i:i+n])
		i += n
	}
	if w != len(out) {
		return dst[:0], fmt.Errorf("%w: instructions build %d bytes, header says %d", errDelta, w, size)
	}
	return out, nil
}

// checkDelta checks every instruction of a delta against the sizes it
// declares, without building anything.
func checkDelta(delta []byte, i int, baseSize, size int64) error {
	var total int64
	for i < len(delta) {
		cmd := delta[i]
		i++
		switch {
		case cmd&0x80 != 0:
			off, n, next, err := deltaCopy(cmd, delta, i)
			if err != nil {
				return err
			}
			if off+n > baseSize {
				return fmt.Errorf("%w: copy [%d,%d) outside a base of %d bytes", errDelta, off, off+n, baseSize)
			}
			i, total = next, total+n
		case cmd != 0:
			if i+int(cmd) > len(delta) {
				return fmt.Errorf("%w: truncated insert", errDelta)
			}
			i += int(cmd)
			total += int64(cmd)
		default:
			return fmt.Errorf("%w: reserved instruction 0", errDelta)
		}
	}
	if total != size {
		return fmt.Errorf("%w: instructions build %d bytes, header says %d", errDelta, total, size)
	}
	return nil
}
