package archive

import (
	"io"
)

// This file holds the two 7z filters the walk decodes: Delta, and BCJ for
// x86 code. A filter transforms its input in place without compressing
// it, to help the compressor after it; text never goes through BCJ in
// practice, but 7-Zip puts every file it takes for an executable in a
// folder with it, and a secret in a binary is still a secret.

// deltaReader undoes the Delta filter: each byte was stored as its
// difference from the byte dist places before it.
type deltaReader struct {
	r    io.Reader
	dist int
	hist [256]byte
	pos  int
}

func newDeltaReader(r io.Reader, dist int) *deltaReader { return &deltaReader{r: r, dist: dist} }

func (d *deltaReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	for i := range p[:n] {
		b := p[i] + d.hist[(d.pos-d.dist)&0xff]
		d.hist[d.pos&0xff] = b
		d.pos++
		p[i] = b
	}
	return n, err
}

// x86Reader undoes the x86 BCJ filter. The encoder turned the relative
// target of each CALL (E8) and JMP (E9) instruction it judged genuine into
// an absolute address, so that repeated calls to one function compress
// alike; the decoder turns them back, making the same judgement from the
// same bytes. The judgement is 7-Zip's: the operand's top byte must be
// 0x00 or 0xFF, and a mask of the E8/E9 bytes seen in the last three
// positions decides whether a byte can start an instruction. The state
// carries across reads; an instruction cut by the end of a read waits in
// buf for the next one.
type x86Reader struct {
	r     io.Reader
	buf   []byte // input not yet returned: conv bytes converted, the rest not
	conv  int
	start int    // of buf's unread part
	ip    uint32 // stream position of buf[0]
	mask  uint32 // prevMask of the reference decoder
	prev  int    // position, relative to buf[0], of the last E8/E9 seen; -1: none
	eof   bool
	err   error
}

func newX86Reader(r io.Reader) *x86Reader {
	return &x86Reader{r: r, buf: make([]byte, 0, 16<<10), prev: -1}
}

func (x *x86Reader) Read(p []byte) (int, error) {
	for x.start >= x.conv {
		if x.eof {
			if x.start < len(x.buf) { // the last bytes, too few to hold an instruction
				n := copy(p, x.buf[x.start:])
				x.start += n
				return n, nil
			}
			return 0, x.err
		}
		x.fill()
	}
	n := copy(p, x.buf[x.start:x.conv])
	x.start += n
	return n, nil
}

// fill moves the unconverted tail to the front, reads more, and converts
// what it can.
func (x *x86Reader) fill() {
	keep := x.buf[x.start:]
	x.ip += uint32(x.start)
	if x.prev >= 0 {
		x.prev -= x.start
	}
	x.buf = x.buf[:copy(x.buf[:cap(x.buf)], keep)]
	x.conv -= x.start
	x.start = 0
	n, err := io.ReadAtLeast(x.r, x.buf[len(x.buf):cap(x.buf)], 1)
	x.buf = x.buf[:len(x.buf)+n]
	if err != nil {
		x.eof = true
		x.err = err
		if err == io.ErrUnexpectedEOF {
			x.err = io.EOF
		}
	}
	x.conv = x86Convert(x.buf, x.conv, x.ip, &x.mask, &x.prev)
	if x.eof {
		x.conv = len(x.buf)
	}
}

func x86Test(b byte) bool { return b == 0 || b == 0xff }

var (
	x86MaskAllowed = [8]bool{true, true, true, false, true, false, false, false}
	x86MaskBit     = [8]uint32{0, 1, 2, 2, 3, 3, 3, 3}
)

// x86Convert decodes buf from position i on and returns the position up to
// which it is final (an instruction may start in the last four bytes, so
// they wait for more). ip is the stream position of buf[0]; mask and prev
// carry the decoder's state.
func x86Convert(buf []byte, i int, ip uint32, mask *uint32, prev *int) int {
	if len(buf) < 5 {
		return i
	}
	limit := len(buf) - 4
	for i < limit {
		if buf[i]&0xfe != 0xe8 {
			i++
			continue
		}
		d := i - *prev
		*prev = i
		if d > 3 {
			*mask = 0
		} else {
			*mask = (*mask << (d - 1)) & 7
			if *mask != 0 {
				b := buf[i+4-int(x86MaskBit[*mask])]
				if !x86MaskAllowed[*mask] || x86Test(b) {
					*mask = (*mask<<1)&7 | 1
					i++
					continue
				}
			}
		}
		if !x86Test(buf[i+4]) {
			*mask = (*mask<<1)&7 | 1
			i++
			continue
		}
		src := uint32(buf[i+1]) | uint32(buf[i+2])<<8 | uint32(buf[i+3])<<16 | uint32(buf[i+4])<<24
		var dest uint32
		for {
			dest = src - (ip + uint32(i) + 5)
			if *mask == 0 {
				break
			}
			idx := x86MaskBit[*mask] * 8
			if !x86Test(byte(dest >> (24 - idx))) {
				break
			}
			src = dest ^ (1<<(32-idx) - 1)
		}
		dest &= 0x01ffffff
		if dest&0x01000000 != 0 {
			dest |= 0xff000000
		}
		buf[i+1], buf[i+2], buf[i+3], buf[i+4] = byte(dest), byte(dest>>8), byte(dest>>16), byte(dest>>24)
		i += 5
	}
	return i
}
