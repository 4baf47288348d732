package archive

import (
	"errors"
	"strings"
	"testing"
)

// TestFormatErrorLostTellsDataFromNoise: a broken archive is lost data when
// content that should have been scanned was not (a named member not read
// whole, members hidden after one was found, a compressed stream cut after
// some of its content came out), and noise when no content of it was ever
// found (a magic number followed by garbage, a zip whose directory is gone
// and that names no member, bytes appended after a zip).
func TestFormatErrorLostTellsDataFromNoise(t *testing.T) {
	text := strings.Repeat("a line of text, 0123456789\n", 4000) // 108 KB: several deflate blocks
	gz := gzipOf(t, []byte(text))
	tgz := gzipOf(t, tarOf(t, file{"a.txt", "first"}, file{"b.txt", text}))
	zip := zipOf(t, zipDeflate, file{"a.txt", text}, file{"b.txt", text})
	corrupt := []byte(string(zipOf(t, zipStore, file{"a.txt", "key=1"})))
	corrupt[strings.Index(string(corrupt), "key=1")] ^= 1 // fails its CRC
	tests := []struct {
		name string
		data []byte
		lost bool
	}{
		{"garbage.gz", []byte("\x1f\x8b\x08\x00garbage that claims to be gzip"), false},
		{"header.gz", gz[:10], false},
		{"garbage.bz2", []byte("BZh91AY&SY garbage that claims to be bzip2"), false},
		{"cut.txt.gz", gz[:len(gz)/2], true},
		{"cut.tar.gz", tgz[:len(tgz)/2], true},
		// An end record whose directory (one entry, at offset 0) is not there.
		{"nodir.zip", []byte("PK\x05\x06\x00\x00\x00\x00\x01\x00\x01\x00\x2e\x00\x00\x00\x00\x00\x00\x00\x00\x00"), false},
		{"cut.zip", zip[:len(zip)/3], true}, // its first local header names a member
		{"appended.zip", append(zipOf(t, zipStore, file{"a.txt", "x"}), "trailing bytes"...), false},
		{"crc.zip", corrupt, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := walkAll(t, tt.name, tt.data, DefaultLimits())
			if res.err != nil {
				t.Fatal(res.err)
			}
			var fe *FormatError
			if len(res.warnings) != 1 || !errors.As(res.warnings[0], &fe) || fe.Lost != tt.lost {
				t.Fatalf("warnings %v: want one FormatError, Lost %v", res.warnings, tt.lost)
			}
		})
	}
}
