package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// sevenZipWithHeader wraps a raw 7z header in a signature header.
func sevenZipWithHeader(hdr []byte) []byte {
	var b bytes.Buffer
	b.Write(magic7z)
	b.Write([]byte{0, 4})
	start := make([]byte, 20)
	binary.LittleEndian.PutUint64(start[8:], uint64(len(hdr)))
	binary.LittleEndian.PutUint32(start[16:], crc32.ChecksumIEEE(hdr))
	binary.Write(&b, binary.LittleEndian, crc32.ChecksumIEEE(start))
	b.Write(start)
	b.Write(hdr)
	return b.Bytes()
}

// TestSevenZipCountsCannotAllocateMoreThanTheHeader: the 41-byte file that
// makes github.com/bodgit/sevenzip v1.6.5 ask for 515 GB (a file count of
// 2^32-1) is a format warning here, read in microseconds and kilobytes.
func TestSevenZipCountsCannotAllocateMoreThanTheHeader(t *testing.T) {
	for name, hdr := range map[string][]byte{
		"files.7z":     {szIDHeader, szFilesInfo, 0xf0, 0xff, 0xff, 0xff, 0xff, szEnd, szEnd},
		"folders.7z":   {szIDHeader, szMainStreamsInfo, szUnpackInfo, szIDFolder, 0xf0, 0xff, 0xff, 0xff, 0xff, 0, szEnd},
		"packs.7z":     {szIDHeader, szMainStreamsInfo, szPackInfo, 0, 0xf0, 0xff, 0xff, 0xff, 0xff, szEnd},
		"encoded.7z":   {szEncodedHeader, szPackInfo, 0, 0xf0, 0xff, 0xff, 0xff, 0xff, szEnd},
		"coders.7z":    {szIDHeader, szMainStreamsInfo, szUnpackInfo, szIDFolder, 1, 0, 0xff},
		"substream.7z": {szIDHeader, szMainStreamsInfo, szSubStreamsInfo, szNumUnpackStream, 0xf0, 0xff, 0xff, 0xff, 0xff},
	} {
		data := sevenZipWithHeader(hdr)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res := walkAll(t, name, data, DefaultLimits())
		runtime.ReadMemStats(&after)
		var fe *FormatError
		if res.err != nil || len(res.warnings) != 1 || !errors.As(res.warnings[0], &fe) {
			t.Errorf("%s: err %v, warnings %v: want one format warning", name, res.err, res.warnings)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: allocated %d bytes", name, alloc)
		}
	}
}

func TestSevenZipHeaderAndWindowBudgets(t *testing.T) {
	tool(t, "7z")
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"d/big.txt": strings.Repeat("a line of text that repeats\n", 40000), "d/a.env": secret})
	run(t, dir, "7z", "a", "-bd", "-ms=off", "x.7z", "d")
	path := filepath.Join(dir, "x.7z")
	data, _ := os.ReadFile(path)

	lim := DefaultLimits()
	lim.MaxHeaderBytes = 16
	res := walkAll(t, "x.7z", data, lim)
	assertBudgets(t, res.warnings, []BudgetError{be("x.7z", "", BudgetHeader, 16)})

	// big.txt is 1.1 MB: its dictionary, held to its size, is over a 64 KiB
	// window; a.env's is not.
	lim = DefaultLimits()
	lim.MaxWindow = 64 << 10
	res = walkAll(t, "x.7z", data, lim)
	assertBudgets(t, res.warnings, []BudgetError{be("x.7z", "x.7z!d/big.txt", BudgetWindow, 64<<10)})
	if res.members["x.7z!d/a.env"] != secret {
		t.Errorf("members %v", res.members)
	}
}

// TestSevenZipHeaderMemoryIsBoundedByItsBudget: a header of 20,000 folders
// of 3 bytes each (no method, one coder) would parse into 100 times its
// size; the parse stops at 8 times MaxHeaderBytes with the header budget.
func TestSevenZipHeaderMemoryIsBoundedByItsBudget(t *testing.T) {
	const n = 20000
	hdr := []byte{szIDHeader, szMainStreamsInfo, szUnpackInfo, szIDFolder, 0xc0 | n>>16, n & 0xff, n >> 8 & 0xff, 0}
	for range n {
		hdr = append(hdr, 1, 0) // one coder, method id of 0 bytes
	}
	hdr = append(hdr, szCodersUnpackSize)
	for range n {
		hdr = append(hdr, 1)
	}
	hdr = append(hdr, szEnd, szEnd, szEnd)
	data := sevenZipWithHeader(hdr)
	lim := DefaultLimits()
	lim.MaxHeaderBytes = 64 << 10
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := walkAll(t, "amplify.7z", data, lim)
	runtime.ReadMemStats(&after)
	assertBudgets(t, res.warnings, []BudgetError{be("amplify.7z", "", BudgetHeader, 64<<10)})
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*szMemoryPerHeaderByte*64<<10 {
		t.Errorf("allocated %d bytes", alloc)
	}
}
