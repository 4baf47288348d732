package scan

import (
	"bytes"
	"io"

	"github.com/h2non/filetype"
	"github.com/h2non/filetype/types"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
	"golang.org/x/text/transform"
)

// This file decides what an object's first bytes say about how to scan
// it: a known binary format whose content rules are not run, or text in
// UTF-16 or UTF-32 that is decoded to UTF-8 before matching.
//
// Binary formats are named by their magic numbers, with the matchers
// gitleaks itself uses (h2non/filetype), so that what both skip agrees:
// executables and compiled objects, images, audio, video, fonts, office
// documents, databases. The exceptions are the formats filetype files as
// "application" that are text (RTF, PostScript): those are scanned. A file
// with NUL bytes that names no such format is scanned, as gitleaks scans
// it; a NUL byte alone says nothing (UTF-16 text, a log with a stray NUL,
// a minified bundle).

// knownBinary reports whether head, an object's first bytes, starts with
// the magic number of a non-text format, and which.
func knownBinary(head []byte) (kind string, ok bool) {
	if plainText(head) {
		return "", false
	}
	t, err := filetype.Match(head)
	if err != nil || t == types.Unknown {
		return "", false
	}
	switch t.MIME.Type {
	case "image", "video", "audio", "font":
		return t.Extension, true
	case "application":
		switch t.MIME.Subtype {
		case "rtf", "postscript":
			return "", false // text formats
		}
		return t.Extension, true
	}
	return "", false
}

// magicSpan is how far into a file the magic numbers filetype knows lie.
const magicSpan = 262

// plainText reports whether head's first magicSpan bytes are printable
// ASCII and the usual white space: no binary format's magic number (nor
// the binary fields that follow one) looks like that, so filetype need not
// try its hundred matchers, which cost more per file than scanning a small
// source file does.
func plainText(head []byte) bool {
	for _, b := range head[:min(len(head), magicSpan)] {
		if b >= 0x7f || b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' {
			return false
		}
	}
	return true
}

// textEncoding returns the decoder for head if it is UTF-16 or UTF-32
// text: by its byte order mark, or, without one, by the NUL bytes that
// ASCII characters leave in every other (or three of every four)
// positions. Nil means the object is scanned as it is.
func textEncoding(head []byte) encoding.Encoding {
	switch {
	case bytes.HasPrefix(head, []byte{0xff, 0xfe, 0, 0}):
		return utf32.UTF32(utf32.LittleEndian, utf32.ExpectBOM)
	case bytes.HasPrefix(head, []byte{0, 0, 0xfe, 0xff}):
		return utf32.UTF32(utf32.BigEndian, utf32.ExpectBOM)
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		return unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	}
	n := min(len(head), BinaryProbe) &^ 3
	if n < 16 || bytes.IndexByte(head[:n], 0) < 0 {
		return nil
	}
	var zeros [4]int
	for i, b := range head[:n] {
		if b == 0 {
			zeros[i&3]++
		}
	}
	q := n / 4 // bytes per position class
	mostly := func(z int) bool { return z >= q*9/10 }
	rarely := func(z int) bool { return z <= q/10 }
	switch {
	case rarely(zeros[0]) && mostly(zeros[1]) && mostly(zeros[2]) && mostly(zeros[3]):
		return utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM)
	case mostly(zeros[0]) && mostly(zeros[1]) && mostly(zeros[2]) && rarely(zeros[3]):
		return utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM)
	case rarely(zeros[0]) && rarely(zeros[2]) && mostly(zeros[1]) && mostly(zeros[3]):
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	case mostly(zeros[0]) && mostly(zeros[2]) && rarely(zeros[1]) && rarely(zeros[3]):
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	}
	return nil
}

// decodedReader is an object's content decoded to UTF-8; closing it closes
// the content.
type decodedReader struct {
	io.Reader
	c io.Closer
}

func (d decodedReader) Close() error { return d.c.Close() }

// decodeText restarts o's content from its first byte, decoded with enc:
// read in place for a file, or the head already read followed by the rest
// for a stream. The decoded length is unknown, and archives are not
// looked for in it.
func (o *object) decodeText(enc encoding.Encoding, head []byte) {
	var src io.Reader
	if o.ra != nil && o.size >= 0 {
		src = io.NewSectionReader(o.ra, 0, o.size)
	} else {
		src = io.MultiReader(bytes.NewReader(bytes.Clone(head)), o.f)
	}
	o.f = decodedReader{Reader: transform.NewReader(src, enc.NewDecoder()), c: o.f}
	o.ra, o.size = nil, -1
	if o.st.carry != nil {
		b := o.st.carry[:0]
		carryPool.Put(&b)
	}
	o.st = stream{line: o.st0}
	o.decoded = true
}
