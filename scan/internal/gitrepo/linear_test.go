package gitrepo

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/internal/lincheck"
)

// The complexity checks of index parsing (internal/lincheck): indexes of
// n and 8n entries, of each version, with long shared path prefixes and
// wide or deep cache-tree extensions.
//
//	go test -run '^TestLinear' -count 1 ./scan/internal/gitrepo          # full sizes
//	go test -short -run '^TestLinear' -count 1 ./scan/internal/gitrepo   # CI's

// buildIndex writes an index of the given version holding paths, then the
// extension ext, with a zero trailer (git's index.skipHash).
func buildIndex(version int, paths []string, ext []byte) []byte {
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, uint32(version))
	binary.Write(&b, binary.BigEndian, uint32(len(paths)))
	prev := ""
	for _, p := range paths {
		start := b.Len()
		b.Write(make([]byte, 24))
		b.Write([]byte{0, 0, 0x81, 0xa4})
		b.Write(make([]byte, 12))
		b.Write(bytes.Repeat([]byte{0xab}, 20))
		binary.Write(&b, binary.BigEndian, uint16(min(len(p), 0xfff)))
		if version == 4 {
			common := 0
			for common < len(prev) && common < len(p) && prev[common] == p[common] {
				common++
			}
			var v [10]byte
			b.Write(v[:putVarint(v[:], uint64(len(prev)-common))])
			b.WriteString(p[common:])
			b.WriteByte(0)
		} else {
			b.WriteString(p)
			n := b.Len() - start
			b.Write(make([]byte, 8-n%8))
		}
		prev = p
	}
	b.Write(ext)
	b.Write(make([]byte, 20))
	return b.Bytes()
}

// putVarint is git's varint encoding, varint's inverse.
func putVarint(buf []byte, v uint64) int {
	var tmp [10]byte
	pos := len(tmp) - 1
	tmp[pos] = byte(v & 127)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		pos--
		tmp[pos] = 128 | byte(v&127)
	}
	return copy(buf, tmp[pos:])
}

// treeExt is a TREE extension whose nodes nest depth deep, each with
// width leaves.
func treeExt(depth, width int) []byte {
	var body bytes.Buffer
	id := bytes.Repeat([]byte{0xcd}, 20)
	var node func(name string, d int)
	node = func(name string, d int) {
		subs := width
		if d < depth {
			subs++
		}
		fmt.Fprintf(&body, "%s\x001 %d\n", name, subs)
		body.Write(id)
		for i := range width {
			fmt.Fprintf(&body, "w%d\x001 0\n", i)
			body.Write(id)
		}
		if d < depth {
			node("d", d+1)
		}
	}
	node("", 0)
	var ext bytes.Buffer
	ext.WriteString("TREE")
	binary.Write(&ext, binary.BigEndian, uint32(body.Len()))
	ext.Write(body.Bytes())
	return ext.Bytes()
}

func TestLinearIndex(t *testing.T) {
	n := lincheck.Size(2000, 20000)
	// A shared prefix of 200 bytes: each path is about three times the
	// entry that encodes it. (A 2,000-byte prefix at the full size, 8n =
	// 160,000 entries, is 320 MB of paths, which the index's path budget
	// rightly refuses, as TestIndexParseLinear checks.)
	long := strings.Repeat("very/long/directory/", 10)
	for _, c := range []struct {
		name string
		n    int
		make func(n int) []byte
	}{
		{"v2-many-entries", n, func(n int) []byte {
			var ps []string
			for i := range n {
				ps = append(ps, fmt.Sprintf("src/pkg%d/file%d.go", i/100, i))
			}
			return buildIndex(2, ps, nil)
		}},
		{"v4-long-shared-prefix", n, func(n int) []byte {
			var ps []string
			for i := range n {
				ps = append(ps, fmt.Sprintf("%sf%08d", long, i))
			}
			return buildIndex(4, ps, nil)
		}},
		{"cache-tree-wide", n, func(n int) []byte { return buildIndex(2, []string{"a"}, treeExt(0, n)) }},
		{"cache-tree-deep", lincheck.Size(256, 500), func(n int) []byte { return buildIndex(2, []string{"a"}, treeExt(n, 0)) }},
		{"cache-tree-deep-and-wide", lincheck.Size(256, 500), func(n int) []byte { return buildIndex(2, []string{"a"}, treeExt(n, 8)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			lincheck.Check(t, c.n, c.make, func(data []byte) {
				ents, ext, err := parse(data, 20)
				if err != nil || len(ents) == 0 {
					t.Fatalf("%d entries, %v", len(ents), err)
				}
				// A cache tree over its budget is an error, and dropped.
				cacheTree(ext, 20)
			}, lincheck.Options{})
		})
	}
}
