package archive

import (
	"fmt"
	"unsafe"
)

// This file parses a 7z StreamsInfo: where the packed streams are, the
// folders (coder chains) that decode them, and the substreams, the
// members' data, that each folder's output is cut into. As in
// sevenhead.go, every count is held against the header bytes left before
// anything is allocated for it.

// streamsInfo reads a StreamsInfo: pack info, folders and substreams.
func (r *szReader) streamsInfo(h *szHeader) error {
	for {
		id, err := r.byte()
		if err != nil {
			return err
		}
		switch id {
		case szEnd:
			return h.assignSubstreams()
		case szPackInfo:
			err = r.packInfo(h)
		case szUnpackInfo:
			err = r.unpackInfo(h)
		case szSubStreamsInfo:
			err = r.subStreamsInfo(h)
		default:
			return fmt.Errorf("7z: unexpected property %#x in streams info", id)
		}
		if err != nil {
			return err
		}
	}
}

func (r *szReader) packInfo(h *szHeader) error {
	var err error
	if h.packPos, err = r.number(); err != nil {
		return err
	}
	n, err := r.count(1)
	if err != nil {
		return err
	}
	if err := r.alloc(n, 8); err != nil {
		return err
	}
	h.packSizes = make([]uint64, n)
	for {
		id, err := r.byte()
		if err != nil {
			return err
		}
		switch id {
		case szEnd:
			return nil
		case szSize:
			for i := range h.packSizes {
				if h.packSizes[i], err = r.number(); err != nil {
					return err
				}
			}
		case szCRC:
			if _, _, err := r.digests(n); err != nil {
				return err
			}
		default:
			return fmt.Errorf("7z: unexpected property %#x in pack info", id)
		}
	}
}

func (r *szReader) unpackInfo(h *szHeader) error {
	if err := r.expect(szIDFolder); err != nil {
		return err
	}
	n, err := r.count(2)
	if err != nil {
		return err
	}
	if ext, err := r.byte(); err != nil || ext != 0 {
		return errSz("external folders are not supported")
	}
	if err := r.alloc(n, unsafe.Sizeof(szFolder{})); err != nil {
		return err
	}
	h.folders = make([]szFolder, n)
	pack := 0
	for i := range h.folders {
		f := &h.folders[i]
		if err := r.folder(f); err != nil {
			return err
		}
		f.firstPack = pack
		pack += len(f.packed)
	}
	if err := r.expect(szCodersUnpackSize); err != nil {
		return err
	}
	for i := range h.folders {
		f := &h.folders[i]
		for c := range f.coders {
			for range f.coders[c].numOut { // one out-stream per coder: checked by folder
				if f.coders[c].unpackSize, err = r.number(); err != nil {
					return err
				}
			}
		}
		f.numSub = 1
	}
	for {
		id, err := r.byte()
		if err != nil {
			return err
		}
		switch id {
		case szEnd:
			return nil
		case szCRC:
			crcs, has, err := r.digests(n)
			if err != nil {
				return err
			}
			for i := range h.folders {
				h.folders[i].crc, h.folders[i].hasCRC = crcs[i], has[i]
			}
		default:
			return fmt.Errorf("7z: unexpected property %#x in unpack info", id)
		}
	}
}

// folder reads one folder's coders and bindings. Coders with more than one
// output (none exist) are refused; BCJ2, with four inputs, is parsed and
// refused later as unsupported.
func (r *szReader) folder(f *szFolder) error {
	n, err := r.count(1)
	if err != nil {
		return err
	}
	if n == 0 || n > szMaxCoders {
		return errSz("bad number of coders")
	}
	if err := r.alloc(n, unsafe.Sizeof(szCoder{})); err != nil {
		return err
	}
	f.coders = make([]szCoder, n)
	in, out := 0, 0
	for i := range f.coders {
		c := &f.coders[i]
		flags, err := r.byte()
		if err != nil {
			return err
		}
		if flags&0x80 != 0 {
			return errSz("alternative coder methods are not supported")
		}
		if c.method, err = r.bytes(uint64(flags & 0xf)); err != nil {
			return err
		}
		c.numIn, c.numOut = 1, 1
		if flags&0x10 != 0 {
			ni, err := r.number()
			if err != nil {
				return err
			}
			no, err := r.number()
			if err != nil {
				return err
			}
			if ni == 0 || ni > szMaxCoders || no != 1 {
				return errSz("bad coder streams")
			}
			c.numIn = int(ni)
		}
		if flags&0x20 != 0 {
			pn, err := r.number()
			if err != nil {
				return err
			}
			if c.props, err = r.bytes(pn); err != nil {
				return err
			}
		}
		c.firstIn, c.firstOut = in, out
		in += c.numIn
		out += c.numOut
	}
	nb := out - 1
	if err := r.alloc(2*nb+in, 8); err != nil { // the bind pairs and the packed streams
		return err
	}
	f.bindIn, f.bindOut = make([]int, nb), make([]int, nb)
	for i := range nb {
		a, err := r.number()
		if err != nil {
			return err
		}
		b, err := r.number()
		if err != nil {
			return err
		}
		if a >= uint64(in) || b >= uint64(out) {
			return errSz("bind pair out of range")
		}
		f.bindIn[i], f.bindOut[i] = int(a), int(b)
	}
	np := in - nb
	if np < 1 {
		return errSz("folder without packed streams")
	}
	f.packed = make([]int, np)
	if np == 1 {
		for s := range in {
			bound := false
			for _, b := range f.bindIn {
				bound = bound || b == s
			}
			if !bound {
				f.packed[0] = s
				break
			}
		}
		return nil
	}
	for i := range f.packed {
		v, err := r.number()
		if err != nil {
			return err
		}
		if v >= uint64(in) {
			return errSz("packed stream out of range")
		}
		f.packed[i] = int(v)
	}
	return nil
}

func (r *szReader) subStreamsInfo(h *szHeader) error {
	id, err := r.byte()
	if err != nil {
		return err
	}
	if id == szNumUnpackStream {
		for i := range h.folders {
			if h.folders[i].numSub, err = r.count(1); err != nil {
				return err
			}
		}
		if id, err = r.byte(); err != nil {
			return err
		}
	}
	total := 0
	for i := range h.folders {
		h.folders[i].firstSub = total
		total += h.folders[i].numSub
		if total > len(r.b)+len(h.folders) {
			return errSz("more substreams than the header can describe")
		}
	}
	if err := r.alloc(total, 8+4+1+8); err != nil { // sizes, CRCs, and the list of those to read
		return err
	}
	h.subSizes = make([]uint64, total)
	for i := range h.folders {
		f := &h.folders[i]
		if f.numSub == 0 {
			continue
		}
		left := f.unpackSize()
		for j := range f.numSub - 1 {
			if id != szSize {
				return errSz("substream sizes missing")
			}
			s, err := r.number()
			if err != nil {
				return err
			}
			if s > left {
				return errSz("substreams larger than their folder")
			}
			h.subSizes[f.firstSub+j] = s
			left -= s
		}
		h.subSizes[f.firstSub+f.numSub-1] = left
	}
	if id == szSize {
		if id, err = r.byte(); err != nil {
			return err
		}
	}
	h.subCRCs, h.subHasCRC = make([]uint32, total), make([]bool, total)
	var unknown []int // substreams whose CRC the folder does not give
	for i := range h.folders {
		f := &h.folders[i]
		if f.numSub == 1 && f.hasCRC {
			h.subCRCs[f.firstSub], h.subHasCRC[f.firstSub] = f.crc, true
			continue
		}
		for j := range f.numSub {
			unknown = append(unknown, f.firstSub+j)
		}
	}
	for id != szEnd {
		switch id {
		case szCRC:
			crcs, has, err := r.digests(len(unknown))
			if err != nil {
				return err
			}
			for k, s := range unknown {
				h.subCRCs[s], h.subHasCRC[s] = crcs[k], has[k]
			}
		default:
			return fmt.Errorf("7z: unexpected property %#x in substreams info", id)
		}
		if id, err = r.byte(); err != nil {
			return err
		}
	}
	return nil
}

// unpackSize is the size of the folder's output.
func (f *szFolder) unpackSize() uint64 {
	c, _, err := f.mainOut()
	if err != nil {
		return 0
	}
	return f.coders[c].unpackSize
}

// assignSubstreams fills in what a StreamsInfo without substreams info
// implies: one substream per folder, its whole output, with its CRC.
func (h *szHeader) assignSubstreams() error {
	if h.subSizes != nil || len(h.folders) == 0 {
		return nil
	}
	h.subSizes = make([]uint64, len(h.folders))
	h.subCRCs, h.subHasCRC = make([]uint32, len(h.folders)), make([]bool, len(h.folders))
	for i := range h.folders {
		f := &h.folders[i]
		f.numSub, f.firstSub = 1, i
		h.subSizes[i] = f.unpackSize()
		h.subCRCs[i], h.subHasCRC[i] = f.crc, f.hasCRC
	}
	return nil
}
