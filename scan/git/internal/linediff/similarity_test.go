package linediff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// simPair is a deleted file and an added one whose similarity git judges.
type simPair struct {
	name     string
	src, dst []byte
}

// genSimPairs returns n pairs whose similarity sweeps from 0 to almost
// 100%, with the shapes that change the estimate: lines longer than a
// span, CRLF against LF in text and in binary content, no final newline,
// and sizes far apart.
func genSimPairs(seed uint64, n int) []simPair {
	r := rand.New(rand.NewPCG(seed, 77))
	var pairs []simPair
	for i := 0; len(pairs) < n; i++ {
		lines := 5 + r.IntN(120)
		var src bytes.Buffer
		for range lines {
			switch r.IntN(8) {
			case 0:
				src.WriteString(strings.Repeat("long", 10+r.IntN(60)) + "\n")
			case 1:
				src.WriteString("\n")
			default:
				fmt.Fprintf(&src, "line %d of %d: %x\n", r.IntN(1000), lines, r.Uint64())
			}
		}
		s := src.Bytes()
		// Change a fraction f of the lines, so the scores sweep the range.
		f := r.Float64()
		var dst bytes.Buffer
		for _, l := range bytes.SplitAfter(s, []byte("\n")) {
			switch {
			case r.Float64() >= f:
				dst.Write(l)
			case r.IntN(3) == 0: // dropped
			case r.IntN(2) == 0:
				fmt.Fprintf(&dst, "new %x\n", r.Uint64())
			default:
				dst.Write(l)
				fmt.Fprintf(&dst, "added %x\n", r.Uint32())
			}
		}
		d := dst.Bytes()
		switch r.IntN(8) {
		case 0:
			d = bytes.ReplaceAll(d, []byte("\n"), []byte("\r\n"))
		case 1:
			s = bytes.ReplaceAll(s, []byte("\n"), []byte("\r\n"))
			d = bytes.ReplaceAll(d, []byte("\n"), []byte("\r\n"))
		case 2: // binary: CR before LF counts
			s = append([]byte("\x00bin\r\n"), bytes.ReplaceAll(s, []byte("\n"), []byte("\r\n"))...)
			d = append([]byte("\x00bin\n"), d...)
		case 3: // no final newline: the last partial span counts for nothing
			tail := fmt.Sprintf("the same last line, %d bytes of it counted by newer gits", r.IntN(1000))
			s = append(s, tail...)
			d = append(d, tail...)
		case 4: // a size far from the source's
			d = append(d, bytes.Repeat([]byte("padding line\n"), r.IntN(200))...)
		}
		if bytes.Equal(s, d) || len(d) == 0 {
			continue // an exact rename never reaches the estimate
		}
		pairs = append(pairs, simPair{fmt.Sprintf("sim-%d-%d", seed, i), s, d})
	}
	return pairs
}

// gitRenames builds a repository where commit k deletes pair k's source
// and adds its destination, and returns, per pair, the similarity git
// prints for the rename (-1 when git does not pair them) at the given -M
// threshold.
func gitRenames(t *testing.T, pairs []simPair, threshold string) []int {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	gitCmd(t, dir, nil, "init", "-q", "--bare", ".")
	var stream bytes.Buffer
	stream.WriteString("commit refs/heads/main\ncommitter t <t@t> 0 +0000\ndata 0\n")
	for k, p := range pairs {
		fmt.Fprintf(&stream, "M 100644 inline s/src-%d.txt\ndata %d\n%s\n", k, len(p.src), p.src)
	}
	for k, p := range pairs {
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter t <t@t> %d +0000\ndata 0\n", k+1)
		fmt.Fprintf(&stream, "D s/src-%d.txt\nM 100644 inline d/dst-%d.dat\ndata %d\n%s\n", k, k, len(p.dst), p.dst)
	}
	gitCmd(t, dir, &stream, "fast-import", "--quiet")
	out := gitCmd(t, dir, nil, "log", "--format=format:commit", "--name-status", "--no-ext-diff", "-M"+threshold, "main")

	got := make([]int, len(pairs))
	for i := range got {
		got[i] = -1
	}
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 3 || f[0][0] != 'R' {
			continue
		}
		pct, err1 := strconv.Atoi(f[0][1:])
		k, err2 := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(f[1], "s/src-"), ".txt"))
		if err1 != nil || err2 != nil || f[2] != fmt.Sprintf("d/dst-%d.dat", k) {
			t.Fatalf("git log: unexpected %q", line)
		}
		got[k] = pct
	}
	return got
}

func TestSimilarityMatchesGitsPercentages(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 150
	}
	pairs := genSimPairs(1, n)
	const minScore = 600 // -M1%
	git := gitRenames(t, pairs, "1%")
	renamed := 0
	for k, p := range pairs {
		score := Similarity(NewSignature(p.src), NewSignature(p.dst), minScore)
		want := -1
		if score >= minScore {
			want = int(float64(score) * 100 / MaxScore)
			renamed++
		}
		if git[k] != want {
			t.Errorf("%s: git shows %d%%, Similarity %d (%d%%)", p.name, git[k], score, want)
		}
	}
	t.Logf("%d pairs, %d renamed at 1%%", len(pairs), renamed)
	if renamed < len(pairs)/2 {
		t.Errorf("only %d of %d pairs renamed: the test pairs are too dissimilar to test much", renamed, len(pairs))
	}
}

func TestSimilarityDecidesRenamesAtGitsThresholds(t *testing.T) {
	pairs := genSimPairs(2, 300)
	for _, tc := range []struct {
		flag     string
		minScore int
	}{{"", DefaultMinScore}, {"30%", 18000}, {"75%", 45000}, {"90%", 54000}} {
		git := gitRenames(t, pairs, tc.flag)
		near := 0
		for k, p := range pairs {
			score := Similarity(NewSignature(p.src), NewSignature(p.dst), tc.minScore)
			if (git[k] >= 0) != (score >= tc.minScore) {
				t.Errorf("-M%s %s: git renamed=%v, score %d", tc.flag, p.name, git[k] >= 0, score)
			}
			if d := score - tc.minScore; d > -1200 && d < 1200 {
				near++
			}
		}
		t.Logf("-M%s: %d pairs within 2%% of the threshold", tc.flag, near)
	}
}

func TestSignatureSpans(t *testing.T) {
	for _, tc := range []struct {
		name  string
		data  string
		bytes int // total bytes the spans count
		spans int // distinct span hashes
	}{
		{"empty", "", 0, 0},
		{"one line", "abc\n", 4, 1},
		{"partial last line not counted", "abc\nde", 4, 1},
		{"no newline at all", "abcdef", 0, 0},
		{"CR before LF skipped in text", "abc\r\n", 4, 1},
		{"lone CR kept", "a\rc\n", 4, 1},
		{"CR kept in binary", "\x00bc\r\n", 5, 1},
		{"64-byte spans", strings.Repeat("x", 130) + "\n", 131, 2},
		{"equal lines merge", "ab\nab\nab\n", 9, 1},
	} {
		s := NewSignature([]byte(tc.data))
		total := 0
		for _, v := range s.spans {
			total += int(v & 0xffffffff)
		}
		if total != tc.bytes || len(s.spans) != tc.spans {
			t.Errorf("%s: %d bytes in %d spans, want %d in %d", tc.name, total, len(s.spans), tc.bytes, tc.spans)
		}
	}
}

func TestSimilarityOfEqualContentIsMax(t *testing.T) {
	data := []byte("one\ntwo\nthree\n")
	s := NewSignature(data)
	if got := Similarity(s, s, DefaultMinScore); got != MaxScore {
		t.Fatalf("got %d, want %d", got, MaxScore)
	}
	if got := Similarity(s, NewSignature(nil), 0); got != 0 {
		t.Fatalf("against empty: got %d, want 0", got)
	}
}

func TestSizesAllow(t *testing.T) {
	for _, tc := range []struct {
		src, dst int64
		min      int
		want     bool
	}{
		{100, 100, DefaultMinScore, true},
		{100, 200, DefaultMinScore, true}, // 200*30000 < 100*60000 is false
		{100, 201, DefaultMinScore, false},
		{201, 100, DefaultMinScore, false},
		{0, 0, DefaultMinScore, true},
		{0, 1, 0, true},
		{0, 1, 1, false},
	} {
		if got := SizesAllow(tc.src, tc.dst, tc.min); got != tc.want {
			t.Errorf("SizesAllow(%d, %d, %d) = %v, want %v", tc.src, tc.dst, tc.min, got, tc.want)
		}
	}
}

func TestIsBinary(t *testing.T) {
	for _, tc := range []struct {
		data string
		want bool
	}{
		{"", false}, {"text\n", false}, {"a\x00b", true},
		{strings.Repeat("x", 7999) + "\x00", true},
		{strings.Repeat("x", 8000) + "\x00", false},
	} {
		if got := IsBinary([]byte(tc.data)); got != tc.want {
			t.Errorf("IsBinary(%.20q... len %d) = %v, want %v", tc.data, len(tc.data), got, tc.want)
		}
	}
}

// referenceSignature is the signature computed a byte at a time, the
// plainest reading of git's rule, for NewSignature to be checked against.
func referenceSignature(data []byte) []uint64 {
	text := !IsBinary(data)
	m := map[uint32]uint64{}
	var acc1, acc2 uint32
	n := uint64(0)
	for i, c := range data {
		if text && c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			continue
		}
		old1 := acc1
		acc1 = acc1<<7 ^ acc2>>25
		acc2 = acc2<<7 ^ old1>>25
		acc1 += uint32(c)
		n++
		if n < 64 && c != '\n' {
			continue
		}
		m[(acc1+acc2*0x61)%107927] += n
		n, acc1, acc2 = 0, 0, 0
	}
	var out []uint64
	for h, c := range m {
		out = append(out, uint64(h)<<32|c)
	}
	slices.Sort(out)
	return out
}

func TestSignatureMatchesByteAtATimeRule(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	alphabet := []byte("ab\r\n\r\n\x00")
	n := 20000
	if testing.Short() {
		n = 3000
	}
	for i := range n {
		data := make([]byte, r.IntN(400))
		for j := range data {
			if r.IntN(4) == 0 {
				data[j] = alphabet[r.IntN(len(alphabet))]
			} else {
				data[j] = 'x'
			}
		}
		if i%2 == 0 {
			data = bytes.ReplaceAll(data, []byte{0}, []byte("z"))
		}
		got, want := NewSignature(data).spans, referenceSignature(data)
		if !slices.Equal(got, want) {
			t.Fatalf("%q: spans %x, want %x", data, got, want)
		}
	}
}
