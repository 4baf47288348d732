package linediff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// This file generates file pairs that exercise each path of git's diff:
// repeated, blank and indented lines, braces, CRLF, missing final newlines,
// long lines, common tails over 1 KiB, and files big and busy enough for
// the cost heuristics and the discarding of many-match lines.

// genStyle is one family of generated files.
type genStyle struct {
	name string
	gen  func(r *rand.Rand) ([]byte, []byte)
}

var genStyles = []genStyle{
	{"code", func(r *rand.Rand) ([]byte, []byte) { return editPair(r, codeFile(r, 5+r.IntN(60)), 1+r.IntN(6)) }},
	{"tiny", func(r *rand.Rand) ([]byte, []byte) {
		return editPair(r, vocabFile(r, r.IntN(6), tinyVocab), 1+r.IntN(3))
	}},
	{"repeats", func(r *rand.Rand) ([]byte, []byte) {
		return editPair(r, vocabFile(r, 10+r.IntN(200), repeatVocab), 1+r.IntN(10))
	}},
	{"blanks", func(r *rand.Rand) ([]byte, []byte) { return editPair(r, blankyFile(r, 10+r.IntN(80)), 1+r.IntN(5)) }},
	{"crlf", func(r *rand.Rand) ([]byte, []byte) {
		a, b := editPair(r, codeFile(r, 5+r.IntN(40)), 1+r.IntN(4))
		return crlf(r, a), crlf(r, b)
	}},
	{"longlines", func(r *rand.Rand) ([]byte, []byte) { return editPair(r, longLineFile(r, 3+r.IntN(20)), 1+r.IntN(4)) }},
	{"tail", func(r *rand.Rand) ([]byte, []byte) {
		// A common tail of several KiB after the edits, so git trims it.
		head := codeFile(r, 5+r.IntN(30))
		tail := codeFile(r, 40+r.IntN(200))
		a, b := editPair(r, head, 1+r.IntN(4))
		if r.IntN(3) == 0 {
			tail = bytes.TrimSuffix(tail, []byte("\n"))
		}
		if r.IntN(4) == 0 {
			// Text that continues the last edited line without a newline
			// between, so the trimmed cut falls inside a line.
			a = bytes.TrimSuffix(a, []byte("\n"))
			b = bytes.TrimSuffix(b, []byte("\n"))
		}
		return cat(a, tail), cat(b, tail)
	}},
	{"tailslide", func(r *rand.Rand) ([]byte, []byte) {
		// An insertion of repeated blocks right before a long common tail
		// that starts with the same lines, so the change could slide into
		// the part git trims.
		unit := vocabFile(r, 1+r.IntN(4), tinyVocab)
		n := 1 + r.IntN(3)
		pre := codeFile(r, 3+r.IntN(10))
		tail := cat(bytes.Repeat(unit, 3+r.IntN(40)), codeFile(r, 30+r.IntN(100)))
		return cat(pre, tail), cat(pre, bytes.Repeat(unit, n), tail)
	}},
	{"big", func(r *rand.Rand) ([]byte, []byte) {
		// Many scattered edits in a big file: edit costs above 256.
		return editPair(r, vocabFile(r, 2000+r.IntN(3000), bigVocab(r)), 150+r.IntN(300))
	}},
	{"shuffled", func(r *rand.Rand) ([]byte, []byte) {
		// Two unrelated orders of the same lines: no long snakes, high cost.
		a := vocabFile(r, 600+r.IntN(900), bigVocab(r))
		lines := bytes.SplitAfter(a, []byte("\n"))
		r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		return a, bytes.Join(lines, nil)
	}},
	{"manymatch", func(r *rand.Rand) ([]byte, []byte) {
		// Lines repeated more than the square root of the line count,
		// among runs of unmatched lines: the discarding of many-match lines.
		a := manyMatchFile(r, 200+r.IntN(800))
		b := manyMatchFile(r, 200+r.IntN(800))
		if r.IntN(2) == 0 {
			b, _ = editPair(r, a, 20+r.IntN(80))
		}
		return a, b
	}},
	{"runs", func(r *rand.Rand) ([]byte, []byte) {
		// Long runs of unmatched lines around runs of many-match lines:
		// which many-match lines the discarding step drops depends on its
		// 100-line window.
		a := runsFile(r, 4+r.IntN(8))
		if r.IntN(2) == 0 {
			_, b := editPair(r, a, 5+r.IntN(20))
			return a, b
		}
		return a, runsFile(r, 4+r.IntN(8))
	}},
	{"slider", func(r *rand.Rand) ([]byte, []byte) {
		// Small files of oddly indented lines with a block duplicated or
		// dropped in place: changes that can slide, scored by indentation.
		base := vocabFile(r, 2+r.IntN(14), sliderVocab)
		lines := bytes.SplitAfter(base, []byte("\n"))
		lines = lines[:len(lines)-1]
		pos := r.IntN(len(lines))
		end := min(len(lines), pos+1+r.IntN(3))
		var b []byte
		if r.IntN(2) == 0 {
			b = cat(bytes.Join(lines[:end], nil), bytes.Join(lines[pos:end], nil), bytes.Join(lines[end:], nil))
		} else {
			b = cat(bytes.Join(lines[:pos], nil), bytes.Join(lines[end:], nil))
		}
		return base, b
	}},
	{"longslide", func(r *rand.Rand) ([]byte, []byte) {
		// A unit repeated 50 to 300 times with units added or removed:
		// changes that could slide further than the heuristic looks.
		unit := vocabFile(r, 1+r.IntN(3), sliderVocab)
		pre := vocabFile(r, r.IntN(4), sliderVocab)
		post := vocabFile(r, r.IntN(4), sliderVocab)
		n := 50 + r.IntN(250)
		k := 1 + r.IntN(3)
		if r.IntN(3) == 0 {
			k = 40 + r.IntN(60) // runs of over 100 lines
		}
		a := cat(pre, bytes.Repeat(unit, n), post)
		b := cat(pre, bytes.Repeat(unit, n+k), post)
		return a, b
	}},
	{"nonewline", func(r *rand.Rand) ([]byte, []byte) {
		a, b := editPair(r, codeFile(r, 1+r.IntN(10)), 1+r.IntN(3))
		if r.IntN(2) == 0 {
			a = bytes.TrimSuffix(a, []byte("\n"))
		}
		if r.IntN(2) == 0 {
			b = bytes.TrimSuffix(b, []byte("\n"))
		}
		return a, b
	}},
	{"indent", func(r *rand.Rand) ([]byte, []byte) {
		// Functions added or removed among similar ones: the classic
		// sliders the indent heuristic places.
		return funcPair(r)
	}},
}

var tinyVocab = []string{"a\n", "b\n", "\n", "{\n", "}\n", "\tx\n", "  y\n"}

var sliderVocab = []string{"x\n", "\tx\n", " \tx\n", "    x\n", "\t    x\n", "   \t\ty\n", "\n", " \n", "\t\n",
	"\v\n", "\vx\n", "\f x\n", "{\n", "}\n", "\t}\n", "\r\n", " \r\n", "\r\tx\n", "\t\t\tz\n", "        z\n"}

var repeatVocab = []string{"\n", "\n", "}\n", "\t}\n", "{\n", "\treturn nil\n", "\t\treturn err\n",
	"\tif err != nil {\n", "// comment\n", "x := 1\n", "  \n", "\t\n", "end\n"}

var codeVocab = []string{
	"func f() {\n", "}\n", "\n", "\tif err != nil {\n", "\t\treturn err\n", "\t}\n", "\treturn nil\n",
	"\tx := y + 1\n", "\tfor i := range n {\n", "\t\ts += i\n", "// Doc comment.\n", "  indented with spaces\n",
	"    four spaces\n", "\t\t\tdeep\n", "else {\n", "} else {\n", "case 1:\n", "default:\n", "\t\n", " \n",
	"#include <stdio.h>\n", "int main(void)\n", "{\n", "\tprintf(\"hi\\n\");\n", "end\n", "\r\n", "x\r\n",
}

// bigVocab returns a vocabulary of a few hundred distinct lines with some
// blank and brace lines mixed in.
func bigVocab(r *rand.Rand) []string {
	n := 50 + r.IntN(400)
	v := make([]string, 0, n+6)
	for i := range n {
		v = append(v, fmt.Sprintf("%sline %d\n", strings.Repeat("\t", i%4), i))
	}
	return append(v, "\n", "\n", "}\n", "{\n", "\t}\n", "\n")
}

func pickLine(r *rand.Rand, vocab []string) string { return vocab[r.IntN(len(vocab))] }

func vocabFile(r *rand.Rand, n int, vocab []string) []byte {
	var b bytes.Buffer
	for range n {
		b.WriteString(pickLine(r, vocab))
	}
	return b.Bytes()
}

func codeFile(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for range n {
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, "%sv%d := %d\n", strings.Repeat("\t", r.IntN(4)), r.IntN(50), r.IntN(5))
		} else {
			b.WriteString(pickLine(r, codeVocab))
		}
	}
	return b.Bytes()
}

func blankyFile(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for range n {
		switch r.IntN(5) {
		case 0, 1:
			b.WriteString("\n")
		case 2:
			b.WriteString(strings.Repeat(" ", r.IntN(3)) + strings.Repeat("\t", r.IntN(2)) + "\n")
		default:
			fmt.Fprintf(&b, "%sw%d\n", strings.Repeat("  ", r.IntN(5)), r.IntN(8))
		}
	}
	return b.Bytes()
}

func longLineFile(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for range n {
		if r.IntN(3) == 0 {
			b.WriteString(strings.Repeat(string(rune('a'+r.IntN(3))), 500+r.IntN(3000)))
			b.WriteString("\n")
		} else {
			b.WriteString(pickLine(r, codeVocab))
		}
	}
	return b.Bytes()
}

// runsFile alternates runs of unique lines (50 to 250) with runs of a few
// common lines (1 to 200), so that both files share only the common ones.
func runsFile(r *rand.Rand, runs int) []byte {
	var b bytes.Buffer
	for range runs {
		for range 50 + r.IntN(200) {
			fmt.Fprintf(&b, "unique %d %d\n", r.Uint32(), r.Uint32())
		}
		for range 1 + r.IntN(200) {
			fmt.Fprintf(&b, "common %d\n", r.IntN(4))
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "few %d\n", r.IntN(50))
		}
	}
	return b.Bytes()
}

// hugePair returns two versions of a file of about 35,000 lines of a
// vocabulary of 5,000, a few hundred edits apart: enough kept lines
// (over 65,536 in both files) for the search to try its snake heuristic
// before it gives up at cost 512.
func hugePair(r *rand.Rand) ([]byte, []byte) {
	return editPair(r, vocabFile(r, 34000+r.IntN(2000), hugeVocab), 300+r.IntN(600))
}

// hugeSkewPair is hugePair with the first part of the new file heavily
// edited and the rest lightly: the forward search moves slowly where the
// backward one finds long snakes.
func hugeSkewPair(r *rand.Rand) ([]byte, []byte) {
	head := vocabFile(r, 4000+r.IntN(4000), hugeVocab)
	tail := vocabFile(r, 30000, hugeVocab)
	_, h := editPair(r, head, 1500+r.IntN(1000))
	_, t := editPair(r, tail, 100+r.IntN(200))
	return cat(head, tail), cat(h, t)
}

var hugeVocab = func() []string {
	v := make([]string, 5000)
	for i := range v {
		v[i] = fmt.Sprintf("v%d\n", i)
	}
	return v
}()

func manyMatchFile(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for range n {
		switch r.IntN(6) {
		case 0, 1, 2:
			fmt.Fprintf(&b, "unique %d %d\n", r.Uint32(), r.Uint32())
		case 3:
			b.WriteString("\n")
		case 4:
			b.WriteString("}\n")
		default:
			fmt.Fprintf(&b, "common %d\n", r.IntN(3))
		}
	}
	return b.Bytes()
}

// funcPair returns a file of similar functions and the same with one
// function or block added or removed somewhere.
func funcPair(r *rand.Rand) ([]byte, []byte) {
	var funcs [][]byte
	for i := range 3 + r.IntN(6) {
		var f bytes.Buffer
		if r.IntN(2) == 0 {
			fmt.Fprintf(&f, "// f%d does things.\n", i)
		}
		fmt.Fprintf(&f, "func f%d() {\n", i%3)
		for range 1 + r.IntN(4) {
			f.WriteString(pickLine(r, []string{"\tx := 1\n", "\treturn\n", "\tif x {\n\t\ty()\n\t}\n", "\n"}))
		}
		f.WriteString("}\n")
		if r.IntN(3) > 0 {
			f.WriteString("\n")
		}
		funcs = append(funcs, f.Bytes())
	}
	a := bytes.Join(funcs, nil)
	k := r.IntN(len(funcs))
	var b []byte
	if r.IntN(2) == 0 {
		b = bytes.Join(append(append(append([][]byte{}, funcs[:k]...), funcs[r.IntN(len(funcs))]), funcs[k:]...), nil)
	} else {
		b = bytes.Join(append(append([][]byte{}, funcs[:k]...), funcs[k+1:]...), nil)
	}
	if r.IntN(2) == 0 {
		return a, b
	}
	return b, a
}

func crlf(r *rand.Rand, data []byte) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, l := range lines {
		if bytes.HasSuffix(l, []byte("\n")) && r.IntN(4) > 0 {
			lines[i] = append(bytes.TrimSuffix(l, []byte("\n")), '\r', '\n')
		}
	}
	return bytes.Join(lines, nil)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// editPair returns base and base after k random edits: insertions,
// deletions, replacements, duplicated and moved blocks.
func editPair(r *rand.Rand, base []byte, k int) ([]byte, []byte) {
	lines := bytes.SplitAfter(base, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	b := append([][]byte{}, lines...)
	for range k {
		pos := r.IntN(len(b) + 1)
		n := 1 + r.IntN(4)
		end := min(len(b), pos+n)
		switch r.IntN(6) {
		case 0, 1: // insert
			ins := bytes.SplitAfter(vocabFile(r, n, codeVocab), []byte("\n"))
			b = slices.Insert(b, pos, ins[:len(ins)-1]...)
		case 2: // delete
			b = slices.Delete(b, pos, end)
		case 3: // replace
			for i := pos; i < end; i++ {
				b[i] = []byte(pickLine(r, codeVocab))
			}
		case 4: // duplicate a block in place
			b = slices.Insert(b, end, slices.Clone(b[pos:end])...)
		case 5: // move a block
			blk := slices.Clone(b[pos:end])
			b = slices.Delete(b, pos, end)
			b = slices.Insert(b, r.IntN(len(b)+1), blk...)
		}
	}
	// A last line without newline moved into the middle would glue two
	// lines; keep the input's shape: only the last line may lack one.
	for i := 0; i+1 < len(b); i++ {
		if !bytes.HasSuffix(b[i], []byte("\n")) {
			b[i] = append(append([]byte{}, b[i]...), '\n')
		}
	}
	return base, bytes.Join(b, nil)
}

// genPairs returns n generated pairs from seed, cycling through the styles.
func genPairs(seed uint64, n int) []pair {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	pairs := make([]pair, 0, n)
	for i := range n {
		st := genStyles[i%len(genStyles)]
		a, b := st.gen(r)
		if r.IntN(10) == 0 {
			a, b = b, a
		}
		pairs = append(pairs, pair{fmt.Sprintf("%s-%d-%d", st.name, seed, i), a, b})
	}
	return pairs
}
