// Package odbtest writes packs for tests of readers of untrusted git
// objects: entries exactly as given, with sizes, deltas and names that
// need not be true, and a valid index for them.
package odbtest

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Entry is one entry of a pack written by WritePack.
type Entry struct {
	ID   [20]byte // the name the index gives it (any id: the pack is made up)
	Type int      // 1..4 whole objects, 6 ofs-delta
	Size uint64   // the size the entry header declares
	Data []byte   // what is compressed after the header
	Base int      // for an ofs-delta: the index of its base entry
}

// WritePack writes a pack and its version 2 index holding entries
// exactly as given (sizes, deltas and names need not be true) into
// objects/pack, and returns the pack's path.
func WritePack(tb testing.TB, objects string, entries []Entry) string {
	tb.Helper()
	var pack bytes.Buffer
	pack.WriteString("PACK")
	binary.Write(&pack, binary.BigEndian, uint32(2))
	binary.Write(&pack, binary.BigEndian, uint32(len(entries)))
	offsets := make([]int64, len(entries))
	crcs := make([]uint32, len(entries))
	for i, e := range entries {
		offsets[i] = int64(pack.Len())
		var ent bytes.Buffer
		size := e.Size
		c := byte(e.Type<<4) | byte(size&15)
		size >>= 4
		for size > 0 {
			ent.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
			size >>= 7
		}
		ent.WriteByte(c)
		if e.Type == 6 {
			rel := offsets[i] - offsets[e.Base]
			var enc []byte
			enc = append(enc, byte(rel&0x7f))
			for rel >>= 7; rel > 0; rel >>= 7 {
				rel--
				enc = append(enc, byte(0x80|rel&0x7f))
			}
			slices.Reverse(enc)
			ent.Write(enc)
		}
		zw := zlib.NewWriter(&ent)
		zw.Write(e.Data)
		zw.Close()
		crcs[i] = crc32.ChecksumIEEE(ent.Bytes())
		pack.Write(ent.Bytes())
	}
	sum := sha1.Sum(pack.Bytes())
	pack.Write(sum[:])

	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(entries[a].ID[:], entries[b].ID[:]) })
	var idx bytes.Buffer
	idx.Write([]byte{0xff, 't', 'O', 'c'})
	binary.Write(&idx, binary.BigEndian, uint32(2))
	var fan [256]uint32
	for _, i := range order {
		for b := int(entries[i].ID[0]); b < 256; b++ {
			fan[b]++
		}
	}
	binary.Write(&idx, binary.BigEndian, fan)
	for _, i := range order {
		idx.Write(entries[i].ID[:])
	}
	for _, i := range order {
		binary.Write(&idx, binary.BigEndian, crcs[i])
	}
	for _, i := range order {
		binary.Write(&idx, binary.BigEndian, uint32(offsets[i]))
	}
	idx.Write(sum[:])
	isum := sha1.Sum(idx.Bytes())
	idx.Write(isum[:])

	dir := filepath.Join(objects, "pack")
	os.MkdirAll(dir, 0o755)
	name := filepath.Join(dir, "pack-crafted")
	if err := os.WriteFile(name+".pack", pack.Bytes(), 0o444); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(name+".idx", idx.Bytes(), 0o444); err != nil {
		tb.Fatal(err)
	}
	return name + ".pack"
}

// DeltaSizes encodes the two sizes that start a delta.
func DeltaSizes(base, result uint64) []byte {
	var b []byte
	for _, v := range []uint64{base, result} {
		for v >= 0x80 {
			b = append(b, byte(v)|0x80)
			v >>= 7
		}
		b = append(b, byte(v))
	}
	return b
}
