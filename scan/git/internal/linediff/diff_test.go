package linediff

import (
	"bytes"
	"fmt"
	"testing"
)

// checkHunks reports what is wrong with hunks as a diff from a to b: hunks
// out of order, overlapping or touching (git separates two hunks by at
// least one unchanged line), empty, out of range, or not turning a into b.
func checkHunks(a, b []byte, hunks []Hunk) error {
	la, lb := splitLinesForTest(a), splitLinesForTest(b)
	var out [][]byte
	i1, i2 := 0, 0
	for k, h := range hunks {
		if h.OldLines < 0 || h.NewLines < 0 || h.OldLines+h.NewLines == 0 {
			return fmt.Errorf("hunk %d %+v is empty", k, h)
		}
		if h.OldStart < i1 || h.NewStart < i2 || (k > 0 && (h.OldStart == i1 || h.NewStart == i2) && h.OldStart-i1 != h.NewStart-i2) {
			return fmt.Errorf("hunk %d %+v overlaps the one before", k, h)
		}
		if k > 0 && h.OldStart == i1 && h.NewStart == i2 {
			return fmt.Errorf("hunk %d %+v touches the one before", k, h)
		}
		if h.OldStart-i1 != h.NewStart-i2 {
			return fmt.Errorf("hunk %d %+v: %d unchanged old lines before it, %d new", k, h, h.OldStart-i1, h.NewStart-i2)
		}
		if h.OldStart+h.OldLines > len(la) || h.NewStart+h.NewLines > len(lb) {
			return fmt.Errorf("hunk %d %+v out of range (%d, %d lines)", k, h, len(la), len(lb))
		}
		out = append(out, la[i1:h.OldStart]...)
		out = append(out, lb[h.NewStart:h.NewStart+h.NewLines]...)
		i1, i2 = h.OldStart+h.OldLines, h.NewStart+h.NewLines
	}
	if len(la)-i1 != len(lb)-i2 {
		return fmt.Errorf("%d unchanged old lines after the last hunk, %d new", len(la)-i1, len(lb)-i2)
	}
	out = append(out, la[i1:]...)
	if got := bytes.Join(out, nil); !bytes.Equal(got, b) {
		return fmt.Errorf("applying the hunks to the old file does not give the new one")
	}
	return nil
}

// checkSpans checks that d.Span places each hunk of d's last Diff of b
// where b's lines put it.
func checkSpans(d *Differ, b []byte, hunks []Hunk) error {
	lines := splitLinesForTest(b)
	for _, h := range hunks {
		lo := len(bytes.Join(lines[:h.NewStart], nil))
		hi := lo + len(bytes.Join(lines[h.NewStart:h.NewStart+h.NewLines], nil))
		if glo, ghi := d.Span(h); glo != lo || ghi != hi {
			return fmt.Errorf("Span(%v) = %d, %d; the lines lie at %d, %d", h, glo, ghi, lo, hi)
		}
	}
	return nil
}

func splitLinesForTest(data []byte) [][]byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func TestHunksTurnOldIntoNew(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 250
	}
	var d Differ
	for _, p := range genPairs(7, n) {
		hunks := d.Diff(p.a, p.b, nil)
		if err := checkHunks(p.a, p.b, hunks); err != nil {
			t.Fatalf("%s: %v\n%s", p.name, err, formatHunks(hunks))
		}
		if err := checkSpans(&d, p.b, hunks); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if bytes.Equal(p.a, p.b) != (len(hunks) == 0) {
			t.Fatalf("%s: %d hunks for inputs equal=%v", p.name, len(hunks), bytes.Equal(p.a, p.b))
		}
	}
}

func TestDiffAppendsToDst(t *testing.T) {
	var d Differ
	prefix := []Hunk{{1, 2, 3, 4}}
	got := d.Diff([]byte("a\nb\n"), []byte("a\nc\n"), prefix)
	want := []Hunk{{1, 2, 3, 4}, {1, 1, 1, 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestDifferReuseGivesTheSameHunks(t *testing.T) {
	// One Differ across pairs of all sizes (its scratch grown by big ones
	// and reused by small ones) against a fresh Differ for each pair.
	n := 400
	if testing.Short() {
		n = 100
	}
	var reused Differ
	for _, p := range genPairs(11, n) {
		var fresh Differ
		got := reused.Diff(p.a, p.b, nil)
		want := fresh.Diff(p.a, p.b, nil)
		if formatHunks(got) != formatHunks(want) {
			t.Fatalf("%s: reused Differ gives\n%s\nfresh one\n%s", p.name, formatHunks(got), formatHunks(want))
		}
	}
}

func TestDiffAllocatesNothingOnceWarm(t *testing.T) {
	pairs := genPairs(3, 30)
	var d Differ
	dst := make([]Hunk, 0, 1<<14)
	for _, p := range pairs {
		d.Diff(p.a, p.b, dst)
	}
	for _, p := range pairs {
		allocs := testing.AllocsPerRun(3, func() { d.Diff(p.a, p.b, dst[:0]) })
		if allocs != 0 {
			t.Fatalf("%s: %v allocations per Diff with a warm Differ", p.name, allocs)
		}
	}
}

func TestDiffOverMaxSizeIsOneHunk(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 2 GiB")
	}
	a := bytes.Repeat([]byte("x\n"), MaxSize/2+1)
	b := append([]byte("y\n"), a...)
	var d Differ
	got := d.Diff(a, b, nil)
	want := []Hunk{{0, len(a) / 2, 0, len(b) / 2}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestCutCommonTail(t *testing.T) {
	block := bytes.Repeat([]byte("0123456789abcde\n"), 64) // 1 KiB, 64 lines
	for _, tc := range []struct {
		name   string
		a, b   []byte
		na, nb int
	}{
		{"short", []byte("a\nb\n"), []byte("c\nb\n"), 4, 4},
		{"one block, cut after its first newline", cat([]byte("a\n"), block), cat([]byte("bb\n"), block), 2 + 16, 3 + 16},
		{"two blocks", cat([]byte("a"), block, block), cat([]byte("b"), block, block), 1 + 16, 1 + 16},
		{"no newline in the common tail", bytes.Repeat([]byte("x"), 3000), cat([]byte("y"), bytes.Repeat([]byte("x"), 2999)), 3000, 3000},
		{"smaller than a block", cat([]byte("a"), block[:1000]), cat([]byte("b"), block[:1000]), 1001, 1001},
		{"empty", nil, block, 0, 1024},
	} {
		na, nb := cutCommonTail(tc.a, tc.b)
		if na != tc.na || nb != tc.nb {
			t.Errorf("%s: got %d, %d; want %d, %d", tc.name, na, nb, tc.na, tc.nb)
		}
	}
}

func TestRoughSqrt(t *testing.T) {
	for _, tc := range [][2]int{{0, 1}, {1, 2}, {3, 2}, {4, 4}, {15, 4}, {16, 8}, {65535, 256}, {65536, 512}, {1 << 20, 2048}} {
		if got := roughSqrt(tc[0]); got != tc[1] {
			t.Errorf("roughSqrt(%d) = %d, want %d", tc[0], got, tc[1])
		}
	}
}

func TestIndentOf(t *testing.T) {
	for _, tc := range []struct {
		line string
		want int
	}{
		{"x\n", 0}, {"  x\n", 2}, {"\tx\n", 8}, {" \tx\n", 8}, {"   \t\tx", 16}, {"\t  x", 10},
		{"\n", -1}, {"", -1}, {" \t\r\n", -1}, {"\r\tx", 8}, {"\vx\n", 0}, {"\fx\n", 0},
		{string(bytes.Repeat([]byte(" "), 300)) + "x", maxIndent}, {string(bytes.Repeat([]byte(" "), 300)), maxIndent},
	} {
		if got := indentOf([]byte(tc.line)); got != tc.want {
			t.Errorf("indentOf(%q) = %d, want %d", tc.line, got, tc.want)
		}
	}
}
