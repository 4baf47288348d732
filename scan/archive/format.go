package archive

import (
	"bytes"
	"io"
	"path"
	"strconv"
	"strings"
)

// Format is a container or compression format that Walk can open.
type Format int

// The formats Walk opens. None is everything else: a plain file.
const (
	None     Format = iota // not an archive: scanned as it is
	Zip                    // zip and its family (jar, war, ear, apk, ...)
	Tar                    // POSIX, GNU and old-style (V7) tar
	Gzip                   // gzip (RFC 1952), possibly several members
	Bzip2                  // bzip2
	Xz                     // xz with LZMA2 blocks
	Zstd                   // Zstandard frames
	SevenZip               // 7z
)

var formatNames = [...]string{None: "none", Zip: "zip", Tar: "tar", Gzip: "gzip", Bzip2: "bzip2", Xz: "xz", Zstd: "zstd", SevenZip: "7z"}

// String returns the format's lower-case name, such as "gzip".
func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "format(" + strconv.Itoa(int(f)) + ")"
}

// HeadLen is how many leading bytes Detect needs to recognise every format:
// a tar header is one 512-byte block. Fewer bytes are fine for a short file.
const HeadLen = 512

// Magic numbers. Each is checked at offset 0 except tar's, which sits in the
// header block at offset 257.
var (
	magicZipLocal = []byte("PK\x03\x04") // a local file header: the usual start
	magicZipEmpty = []byte("PK\x05\x06") // end of central directory: an empty zip
	magicZipSpan  = []byte("PK\x07\x08") // spanning marker before the first header
	magicGzip     = []byte{0x1f, 0x8b, 0x08}
	magicXz       = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	magicZstd     = []byte{0x28, 0xb5, 0x2f, 0xfd}
	magic7z       = []byte{'7', 'z', 0xbc, 0xaf, 0x27, 0x1c}
	magicBzBlock  = []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59} // π: a compressed block
	magicBzEnd    = []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90} // √π: end of stream
)

// Detect names the format of the data whose first bytes are head, by magic
// numbers alone; it returns None when nothing matches. head should hold the
// first HeadLen bytes (or the whole file, if shorter): a tar is recognised by
// "ustar" at offset 257 or, for old-style tar, by the header checksum, and
// both need the full block.
//
// The checks are strict enough that text rarely matches: gzip needs its
// deflate method byte, bzip2 its block or end-of-stream magic after "BZh1"
// to "BZh9", a V7 tar header a checksum that adds up.
func Detect(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, magicZipLocal), bytes.HasPrefix(head, magicZipEmpty),
		bytes.HasPrefix(head, magicZipSpan) && bytes.HasPrefix(head[4:], magicZipLocal):
		return Zip
	case bytes.HasPrefix(head, magicGzip):
		return Gzip
	case bytes.HasPrefix(head, magicXz):
		return Xz
	case bytes.HasPrefix(head, magicZstd):
		return Zstd
	case bytes.HasPrefix(head, magic7z):
		return SevenZip
	case isBzip2(head):
		return Bzip2
	case isTar(head):
		return Tar
	}
	return None
}

// DetectFile is Detect for a file that can be read at random, whose first
// bytes are head: it also recognises a self-extracting zip, an executable
// or script stub with a zip appended (made with or without zip -A), whose
// zip signature is found only at the end. Walk and Open call it on their
// input; a scanner that sniffs a file's first chunk with Detect calls it
// when Detect returns None, to find those.
//
// The end of the file is read only when head begins like a stub (an ELF,
// PE or Mach-O executable, or a "#!" script): at most two reads, of 22
// bytes and, when the zip has a comment, 64 KiB. The zip must check out
// there: an end-of-central-directory record whose directory starts with a
// directory record, so an executable that merely holds the bytes "PK" is
// not taken for a zip.
func DetectFile(head []byte, ra io.ReaderAt, size int64) Format {
	if f := Detect(head); f != None {
		return f
	}
	return detectTail(ra, size, head)
}

// stubMagics begin the executables and scripts that self-extracting zips
// are made of. Mach-O's fat magic is left out: Java class files share it.
var stubMagics = [][]byte{
	[]byte("\x7fELF"), []byte("MZ"), []byte("#!"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf}, {0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
}

// detectTail returns Zip if head begins like a stub and a zip directory
// ends the file, None otherwise.
func detectTail(ra io.ReaderAt, size int64, head []byte) Format {
	stub := false
	for _, m := range stubMagics {
		if bytes.HasPrefix(head, m) {
			stub = true
			break
		}
	}
	if !stub || size < zipEndLen || ra == nil {
		return None
	}
	var end [zipEndLen]byte
	if _, err := ra.ReadAt(end[:], size-zipEndLen); err != nil && err != io.EOF {
		return None
	}
	if le.Uint32(end[:]) != zipEndSig && !tailHasEndSig(ra, size) {
		return None
	}
	d, err := readZipDir(ra, size)
	if err != nil || d.trailing != 0 {
		return None
	}
	if d.count > 0 && sigAt(ra, d.dirOff) != zipCentralSig {
		return None
	}
	return Zip
}

// tailHasEndSig reports whether the last 64 KiB of the file hold an
// end-of-central-directory signature: a zip with a comment.
func tailHasEndSig(ra io.ReaderAt, size int64) bool {
	n := min(size, zipEndLen+zipMaxCommentLen)
	buf := make([]byte, n)
	if _, err := ra.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return false
	}
	i, exact := lastEndRecord(buf)
	return i >= 0 && exact
}

func isBzip2(h []byte) bool {
	if len(h) < 10 || h[0] != 'B' || h[1] != 'Z' || h[2] != 'h' || h[3] < '1' || h[3] > '9' {
		return false
	}
	return bytes.Equal(h[4:10], magicBzBlock) || bytes.Equal(h[4:10], magicBzEnd)
}

// isTar recognises a tar header block: the ustar magic of POSIX and GNU tar,
// or, for old-style archives without it, a checksum that matches. The sum
// is over the 512 bytes with the checksum field read as spaces; historic
// tars summed signed bytes, so both sums are accepted.
func isTar(h []byte) bool {
	if len(h) < HeadLen {
		return false
	}
	if bytes.Equal(h[257:262], []byte("ustar")) {
		return true
	}
	if h[0] == 0 { // no name: a zero block or not a header at all
		return false
	}
	want, ok := parseOctal(h[148:156])
	if !ok {
		return false
	}
	var unsigned, signed int64
	for i, b := range h[:HeadLen] {
		if i >= 148 && i < 156 {
			b = ' '
		}
		unsigned += int64(b)
		signed += int64(int8(b))
	}
	return want == unsigned || want == signed
}

// parseOctal reads a tar numeric field: optional leading spaces, at least
// one octal digit, then spaces or NULs to the end.
func parseOctal(f []byte) (int64, bool) {
	i := 0
	for i < len(f) && f[i] == ' ' {
		i++
	}
	var n int64
	digits := 0
	for ; i < len(f) && f[i] >= '0' && f[i] <= '7'; i++ {
		n = n<<3 | int64(f[i]-'0')
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	for ; i < len(f); i++ {
		if f[i] != ' ' && f[i] != 0 {
			return 0, false
		}
	}
	return n, true
}

// extFormats maps a lower-case extension to the format its name suggests.
// The compressed tar shorthands name their outer layer: the tar inside is
// found by its magic once the stream is decoded.
var extFormats = map[string]Format{
	".zip": Zip, ".jar": Zip, ".war": Zip, ".ear": Zip, ".apk": Zip, ".aar": Zip,
	".ipa": Zip, ".xpi": Zip, ".whl": Zip, ".nupkg": Zip, ".vsix": Zip,
	".tar": Tar,
	".gz":  Gzip, ".tgz": Gzip, ".gzip": Gzip,
	".bz2": Bzip2, ".tbz": Bzip2, ".tbz2": Bzip2, ".tb2": Bzip2,
	".xz": Xz, ".txz": Xz,
	".zst": Zstd, ".tzst": Zstd, ".zstd": Zstd,
	".7z": SevenZip,
}

// DetectName guesses a format from a file name's extension: "app.jar" is
// Zip, "x.tar.gz" and "x.tgz" are Gzip (the tar inside is found later by
// magic). It is a hint for callers deciding what to read, such as keeping
// archives off an extension skip list; Walk itself trusts magic numbers
// only, so a text file named "notes.gz" is scanned as text.
func DetectName(name string) Format {
	return extFormats[strings.ToLower(path.Ext(name))]
}
