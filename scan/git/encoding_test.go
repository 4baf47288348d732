package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/report"
)

// TestCommitEncodingHeader: a commit whose encoding header says
// ISO-8859-1, or Shift_JIS, names its author and subject in UTF-8 in
// findings, as git log prints them; an unknown encoding leaves the bytes.
func TestCommitEncodingHeader(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", tok(1)+"\n")
	tree := r.git("write-tree")
	cases := []struct {
		encoding, author, subject string // author and subject in that encoding's bytes
	}{
		{"ISO-8859-1", "J\xf6rg M\xfcller", "Schl\xfcssel hinzugef\xfcgt"},
		{"Shift_JIS", "\x93\x63\x92\x86", "\x8c\xae\x82\xf0\x92\xc7\x89\xc1"}, // 田中, 鍵を追加
		{"x-no-such-encoding", "Ann \xff", "raw \xfe"},
	}
	for _, c := range cases {
		t.Run(c.encoding, func(t *testing.T) {
			body := fmt.Sprintf("tree %s\nauthor %s <a@x> 1767000000 +0000\ncommitter %s <a@x> 1767000000 +0000\nencoding %s\n\n%s\n",
				tree, c.author, c.author, c.encoding, c.subject)
			path := filepath.Join(t.TempDir(), "commit")
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			id := r.git("hash-object", "-t", "commit", "-w", path)
			r.git("update-ref", "refs/heads/main", id)
			// What git log prints, re-encoded to UTF-8.
			want := r.git("log", "-1", "--format=%an|%s", id)
			var got []string
			for _, h := range scanFindings(t, r.dir) {
				got = append(got, h.Author+"|"+h.Message)
			}
			if len(got) != 1 || got[0] != want {
				t.Errorf("findings name %q, git log %q", got, want)
			}
			if c.encoding == "ISO-8859-1" && want != "Jörg Müller|Schlüssel hinzugefügt" ||
				c.encoding == "Shift_JIS" && want != "田中|鍵を追加" {
				t.Errorf("git log did not decode %s: %q", c.encoding, want)
			}
		})
	}
}

// scanFindings scans the history of dir and returns its findings.
func scanFindings(t *testing.T, dir string) []report.Finding {
	t.Helper()
	var (
		mu    sync.Mutex
		found []report.Finding
	)
	_, err := Scan(context.Background(), dir, Options{}, scan.Options{Detector: detector(t), Workers: 2,
		OnFinding: func(f report.Finding) { mu.Lock(); found = append(found, f); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
