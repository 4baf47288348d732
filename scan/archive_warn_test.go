package scan

import (
	"archive/zip"
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/spindle-go/spindle/scan/archive"
)

// TestArchiveWarningClasses: an archive warning is lost data when the
// archive package says data went unscanned (a budget hit, always; a
// *archive.FormatError whose Lost is set: a member not read whole, members
// hidden by damage after one was found) and noise otherwise (a file that
// only looks like an archive, bytes appended after a zip's end). Warning.Lost
// and Stats.Lost and Noise follow.
func TestArchiveWarningClasses(t *testing.T) {
	line := "k=" + secret(1) + "\n"
	stored := zipOf(t, zip.Store, member{"a.txt", line}, member{"b.txt", line})
	corrupt := bytes.Clone(stored)
	corrupt[bytes.Index(corrupt, []byte(secret(1)))] ^= 1 // a.txt fails its CRC
	tgz := gzipOf(t, tarOf(t, member{"a.txt", line}, member{"b.txt", text(2, 20_000)}))
	tests := []struct {
		name string
		data []byte
		lim  archive.Limits
		lost bool
	}{
		{"liar.gz", []byte("\x1f\x8b\x08\x00garbage that claims to be gzip"), archive.Limits{}, false},
		{"appended.zip", append(bytes.Clone(stored), "trailing bytes"...), archive.Limits{}, false},
		{"corrupt.zip", corrupt, archive.Limits{}, true},
		{"truncated.tar.gz", tgz[:len(tgz)*2/3], archive.Limits{}, true},
		{"budget.zip", stored, archive.Limits{MaxEntries: 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{tt.name: string(tt.data)})
			_, warns, st, err := collect(t, Options{Detector: newFake(), ArchiveDepth: 1, Archive: tt.lim}, dir)
			if err != nil {
				t.Fatal(err)
			}
			ws := archiveWarnings(t, warns)
			if len(ws) != 1 || ws[0].Lost != tt.lost {
				t.Fatalf("warnings %v: want one, lost %v", warns, tt.lost)
			}
			var fe *archive.FormatError
			if errors.As(ws[0].Err, &fe) && fe.Lost != tt.lost {
				t.Errorf("FormatError.Lost %v, Warning.Lost %v", fe.Lost, ws[0].Lost)
			}
			if want := []int64{0, 1}; tt.lost && (st.Lost != 1 || st.Noise != 0) || !tt.lost && !slices.Equal([]int64{st.Lost, st.Noise}, want) {
				t.Errorf("Stats: %d lost, %d noise", st.Lost, st.Noise)
			}
		})
	}
}
