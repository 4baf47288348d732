package git

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"testing/iotest"

	"github.com/spindle-go/spindle/scan/git/internal/histgen"
)

// logOutput is git log --raw output of a generated history, in the
// format the scan asks for.
func logOutput(t testing.TB) []byte {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := filepath.Join(t.TempDir(), "gen.git")
	p := histgen.Small
	p.Commits = 120
	if _, err := histgen.Generate(dir, p); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "--git-dir="+dir, "log", "--raw", "--no-abbrev", "-z", "--diff-merges=cc",
		"--format=%x01%H%x00%P%x00%aN%x00%aE%x00%at%x00%s%x00", "--all", "--full-history").Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The parser gives the same result however the bytes arrive: a field must
// not be used after the reader's buffer moved on (this once corrupted
// rename statuses when a pipe's reads fell badly).
func TestLogParserDoesNotDependOnReadSizes(t *testing.T) {
	out := logOutput(t)
	parse := func(r io.Reader) ([]commit, []change) {
		p := newLogParser(r)
		if err := p.parse(); err != nil {
			t.Fatal(err)
		}
		return p.commits, p.changes
	}
	c1, ch1 := parse(bytes.NewReader(out))
	c2, ch2 := parse(iotest.OneByteReader(bytes.NewReader(out)))
	c3, ch3 := parse(iotest.HalfReader(bytes.NewReader(out)))
	if !reflect.DeepEqual(c1, c2) || !reflect.DeepEqual(ch1, ch2) || !reflect.DeepEqual(c1, c3) || !reflect.DeepEqual(ch1, ch3) {
		t.Fatal("parses differ with the read sizes")
	}
	var renames int
	for _, c := range ch1 {
		if c.status == 'R' {
			renames++
		}
	}
	if len(c1) < 100 || renames == 0 {
		t.Errorf("%d commits, %d renames: the history should have both", len(c1), renames)
	}
}

// FuzzLogParser: git log output is made of what a repository's authors
// wrote (names, subjects, paths). Nothing may panic, and what parses must
// parse the same byte by byte.
func FuzzLogParser(f *testing.F) {
	f.Add([]byte("\x01" + fmt.Sprintf("%040x", 1) + "\x00\x00A\x00a@x\x001\x00subject\x00\x00\n:100644 100644 " +
		fmt.Sprintf("%040x %040x", 2, 3) + " M\x00a.txt\x00:100644 100644 " + fmt.Sprintf("%040x %040x", 3, 3) + " R100\x00a\x00b\x00"))
	f.Add([]byte("\x01" + fmt.Sprintf("%040x", 1) + "\x00p q\x00A\x00a@x\x001\x00m\x00\x00::100644 100644 100644 " +
		fmt.Sprintf("%040x %040x %040x", 2, 3, 4) + " MM\x00c.txt\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p1 := newLogParser(bytes.NewReader(data))
		err1 := p1.parse()
		p2 := newLogParser(iotest.OneByteReader(bytes.NewReader(data)))
		err2 := p2.parse()
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(p1.changes, p2.changes) || !reflect.DeepEqual(p1.commits, p2.commits) {
			t.Fatalf("parses differ: %v / %v", err1, err2)
		}
	})
}

// FuzzPatchReader: patches carry file content and names; nothing may
// panic, and every fragment's lines must come from '+' lines.
func FuzzPatchReader(f *testing.F) {
	f.Add([]byte("\x01abc\n\ndiff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1,0 +2,2 @@\n+one\n+two\n\\ No newline at end of file\n"))
	f.Add([]byte("diff --cc c.txt\nindex 1,2..3\n--- a/c.txt\n+++ b/c.txt\n@@@ -1,1 -1,1 +1,1 @@@\n- ours\n -theirs\n++resolved\n"))
	f.Add([]byte("diff --git \"a/q\\\"x\" \"b/q\\\"x\"\nBinary files /dev/null and \"b/q\\\"x\" differ\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pr := newPatchReader(bytes.NewReader(data))
		for i := 0; i < 10000; i++ {
			fp, err := pr.next()
			if err != nil || fp == nil {
				return
			}
			for _, fr := range fp.fragments {
				if fr.line < 1 || len(fr.text) == 0 && fr.line == 0 {
					t.Fatalf("fragment at line %d", fr.line)
				}
			}
		}
	})
}
