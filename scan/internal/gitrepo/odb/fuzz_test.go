package odb

import (
	"bytes"
	"compress/zlib"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/klauspost/compress/flate"
)

// The fuzz targets feed the parsers of untrusted bytes: pack entry
// headers, deltas, pack indexes, loose objects, commits and trees, and
// whole packs with their index. Seed corpora from real repositories are
// in testdata/fuzz; run one for a minute with
//
//	go test -run '^$' -fuzz FuzzDelta -fuzztime 60s ./scan/internal/gitrepo/odb/
//
// FuzzPack writes a repository per input, a few hundred a second; give it
// -fuzzminimizetime 50x, or minimizing each new input takes a minute of
// silence (the exec counter stands still while the fuzzer minimizes).

func FuzzEntryHeader(f *testing.F) {
	f.Add([]byte{0x30}, int64(100))
	f.Add([]byte{0xb5, 0x02, 0x78, 0x9c}, int64(100))
	f.Add([]byte{0x62, 0x91, 0x2e, 0x78}, int64(50000))
	f.Add(append([]byte{0x75}, bytes.Repeat([]byte{0xab}, 20)...), int64(12))
	f.Fuzz(func(t *testing.T, b []byte, off int64) {
		for _, hs := range []int{SHA1Size, SHA256Size} {
			h, err := parseEntryHeader(b, off, hs)
			if err != nil {
				continue
			}
			if h.hdrLen > len(b) || h.hdrLen > maxEntryHeader || h.size < 0 {
				t.Fatalf("header %+v from %d bytes", h, len(b))
			}
			switch h.typ {
			case TypeCommit, TypeTree, TypeBlob, TypeTag:
			case refDelta:
				if h.baseID.Size() > hs {
					t.Fatalf("base id %s of a %d-byte id", h.baseID, hs)
				}
			case ofsDelta:
				if h.baseOff < packHeaderLen || h.baseOff >= off {
					t.Fatalf("base offset %d for an entry at %d", h.baseOff, off)
				}
			default:
				t.Fatalf("type %d accepted", h.typ)
			}
		}
	})
}

func FuzzDelta(f *testing.F) {
	f.Add([]byte("hello world"), []byte("\x0b\x0d\x91\x00\x05\x03abc\x90\x05"))
	f.Add([]byte(""), []byte("\x00\x03\x03xyz"))
	f.Add([]byte("abc"), []byte("\x03\x00"))
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := ApplyDelta(base, delta, nil)
		d, perr := ParseDelta(delta)
		var applied []byte
		if perr == nil {
			applied, perr = d.Apply(base, nil)
		}
		if (err == nil) != (perr == nil) {
			t.Fatalf("ApplyDelta: %v, ParseDelta+Apply: %v", err, perr)
		}
		if err != nil {
			return
		}
		if !bytes.Equal(out, applied) || int64(len(out)) != d.Size {
			t.Fatalf("ApplyDelta and Apply differ (%d, %d bytes; size %d)", len(out), len(applied), d.Size)
		}
	})
}

func FuzzIndex(f *testing.F) {
	f.Add(make([]byte, fanoutSize+2*SHA1Size))
	f.Fuzz(func(t *testing.T, data []byte) { checkIndex(t, data, SHA1Size) })
}

// FuzzIndexSHA256 is FuzzIndex for the indexes of a SHA-256 repository
// (32-byte names); its seeds are git's own.
func FuzzIndexSHA256(f *testing.F) {
	f.Add(make([]byte, fanoutSize+2*SHA256Size))
	f.Fuzz(func(t *testing.T, data []byte) { checkIndex(t, data, SHA256Size) })
}

// checkIndex parses data as an index of hs-byte ids: an error, or an
// index whose every name is found where it is and whose reverse index
// the two sorts agree on.
func checkIndex(t *testing.T, data []byte, hs int) {
	t.Helper()
	{
		x, err := parseIndex(data, hs)
		if err != nil {
			return
		}
		for i := range x.n {
			id := x.name(i)
			if pos, ok := x.find(&id); !ok || pos != i {
				t.Fatalf("find(name(%d)) = %d, %v", i, pos, ok)
			}
			if x.offset(i) < packHeaderLen {
				t.Fatalf("offset %d", x.offset(i))
			}
		}
		r, err := buildReverse(x)
		slow, slowErr := buildReverseSlow(x, &reverseIndex{x: x, order: make([]uint32, x.n)})
		if (err == nil) != (slowErr == nil) || err == nil && !slices.Equal(r.order, slow.order) {
			t.Fatalf("radix and comparison sorts differ: %v, %v", err, slowErr)
		}
		if err == nil {
			for rank, pos := range r.order {
				if got, ok := r.rank(x.offset(int(pos))); !ok || got != rank {
					t.Fatalf("rank of position %d: %d, %v; want %d", pos, got, ok, rank)
				}
			}
		}
	}
}

// zlibOf compresses s as git would store it.
func zlibOf(s string) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	io.WriteString(w, s)
	w.Close()
	return b.Bytes()
}

func FuzzLooseObject(f *testing.F) {
	f.Add(zlibOf("blob 5\x00hello"))
	f.Add(zlibOf("tree 0\x00"))
	f.Add(zlibOf("commit 3\x00abc"))
	f.Fuzz(func(t *testing.T, data []byte) {
		typ, got, err := newInflater().inflateLoose(data, nil, DefaultMaxObject)
		// The reference: the standard library's zlib reader (which
		// checks the Adler-32 too) and a plain reading of the header.
		zr, zerr := zlib.NewReader(bytes.NewReader(data))
		var all []byte
		if zerr == nil {
			all, zerr = io.ReadAll(zr)
		}
		if err != nil {
			return
		}
		if zerr != nil {
			t.Fatalf("inflateLoose accepted what zlib refuses: %v", zerr)
		}
		nul := bytes.IndexByte(all, 0)
		if nul < 0 || !bytes.Equal(all[nul+1:], got) || !bytes.HasPrefix(all, []byte(typ.String()+" ")) {
			t.Fatalf("inflateLoose gave %s %q, zlib %q", typ, got, all)
		}
	})
}

func FuzzCommit(f *testing.F) {
	f.Add([]byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@b> 1 +0000\ncommitter C <c@d> 2 -0130\n\nmsg\n"))
	f.Add([]byte("object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype tree\ntag v1\ntagger T <t> 3 +0100\n\nrelease\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := ParseCommit(data); err == nil {
			if len(c.Subject()) > len(c.Message) || c.Message[:len(c.Subject())] != c.Subject() {
				t.Fatalf("subject %q is not the start of %q", c.Subject(), c.Message)
			}
		}
		if tag, err := ParseTag(data); err == nil && tag.Type == 0 {
			t.Fatal("tag without a type")
		}
	})
}

func FuzzTree(f *testing.F) {
	id := string(bytes.Repeat([]byte{7}, SHA1Size))
	f.Add([]byte("100644 a.txt\x00" + id + "40000 dir\x00" + id))
	f.Add([]byte("120000 link\x00" + id + "160000 sub\x00" + id))
	id256 := string(bytes.Repeat([]byte{9}, SHA256Size))
	f.Add([]byte("100644 a.txt\x00" + id256 + "40000 dir\x00" + id256))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, hs := range []int{SHA1Size, SHA256Size} {
			es, err := ParseTree(data, hs)
			if err != nil {
				continue
			}
			n := 0
			for _, e := range es {
				if len(e.Name) == 0 || bytes.IndexByte(e.Name, 0) >= 0 || canonMode(e.Mode) != e.Mode || e.ID.Size() > hs {
					t.Fatalf("entry %+v", e)
				}
				n += len(e.Name) + 1 + hs
			}
			if n > len(data) {
				t.Fatalf("entries cover %d of %d bytes", n, len(data))
			}
		}
	})
}

// FuzzPack opens a repository made of one pack and its index, both from
// the fuzzer, and reads every object the index lists in every way: any
// error is fine, a panic or a hang is not.
func FuzzPack(f *testing.F) {
	f.Fuzz(func(t *testing.T, pack, idx []byte) {
		dir := t.TempDir()
		packDir := filepath.Join(dir, "objects", "pack")
		if err := os.MkdirAll(packDir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		os.WriteFile(filepath.Join(packDir, "pack-x.pack"), pack, 0o644)
		os.WriteFile(filepath.Join(packDir, "pack-x.idx"), idx, 0o644)
		db, err := openRepo(dir, Options{CacheBytes: 1 << 16})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, p := range db.Packs() {
			for e, err := range p.Entries() {
				if err != nil {
					continue
				}
				if _, _, err := db.Read(e.ID, nil); err == nil {
					db.Header(e.ID)
				}
				db.deltaOf(e.ID)
				if r, err := db.Reader(e.ID); err == nil {
					io.Copy(io.Discard, r)
					r.Close()
				}
			}
		}
	})
}

// FuzzDeflate holds the one-shot decoder to klauspost's streaming one:
// on any input, both succeed with the same output or both fail.
func FuzzDeflate(f *testing.F) {
	for _, s := range []string{"", "a", "hello hello hello hello", string(bytes.Repeat([]byte("abcdefgh"), 5000))} {
		for _, level := range []int{flate.NoCompression, flate.BestSpeed, flate.DefaultCompression, flate.HuffmanOnly} {
			var b bytes.Buffer
			w, _ := flate.NewWriter(&b, level)
			io.WriteString(w, s)
			w.Close()
			f.Add(b.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(data)), 1<<22))
		if werr == nil && len(want) == 1<<22 {
			return // too large to compare
		}
		var d decoder
		size := len(want)
		got := make([]byte, size)
		err := d.inflateInto(data, got)
		switch {
		case werr == nil && err != nil:
			t.Fatalf("klauspost inflates %d bytes, inflateInto fails: %v", size, err)
		case werr != nil && err == nil:
			t.Fatalf("klauspost fails (%v) after %d bytes, inflateInto succeeds", werr, size)
		case err == nil && !bytes.Equal(got, want):
			t.Fatal("outputs differ")
		}
		if werr == nil && size > 0 {
			// A wrong size is an error, never a short or long success.
			if d.inflateInto(data, make([]byte, size-1)) == nil || d.inflateInto(data, make([]byte, size+1)) == nil {
				t.Fatal("inflateInto accepts a wrong size")
			}
		}
	})
}

// FuzzAlternates: an info/alternates file of any content, naming any
// paths (relative, absolute, quoted, itself, each other), opens a database
// without a panic or a loop, and every directory read is listed once.
func FuzzAlternates(f *testing.F) {
	f.Add([]byte("../other/objects\n# comment\n\"/quoted\\tpath\"\n"))
	f.Add([]byte(".\n..\n/dev/zero\n"))
	f.Add([]byte("\x00\xff\n\n\r\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		dir := t.TempDir()
		objects := filepath.Join(dir, "objects")
		os.MkdirAll(filepath.Join(objects, "info"), 0o755)
		os.MkdirAll(filepath.Join(dir, "other", "objects", "info"), 0o755)
		os.WriteFile(filepath.Join(objects, "info", "alternates"), content, 0o644)
		// The other directory names the first back: a loop.
		os.WriteFile(filepath.Join(dir, "other", "objects", "info", "alternates"), []byte(objects+"\n"), 0o644)
		db, err := Open(objects, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		seen := map[string]bool{}
		for _, d := range db.Dirs() {
			if seen[d] {
				t.Fatalf("%s listed twice", d)
			}
			seen[d] = true
		}
	})
}
