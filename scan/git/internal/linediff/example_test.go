package linediff_test

import (
	"fmt"

	"github.com/spindle-go/spindle/scan/git/internal/linediff"
)

func ExampleDiffer_Diff() {
	old := []byte("package p\n\nfunc a() {}\n\nfunc c() {}\n")
	new := []byte("package p\n\nfunc a() {}\n\nfunc b() {}\n\nfunc c() {}\n")
	var d linediff.Differ
	for _, h := range d.Diff(old, new, nil) {
		// git diff -U0 prints this hunk as @@ -4,0 +5,2 @@: the new
		// function and the blank line after it, not the one before.
		fmt.Printf("old [%d,%d) -> new [%d,%d)\n", h.OldStart, h.OldStart+h.OldLines, h.NewStart, h.NewStart+h.NewLines)
	}
	// Output:
	// old [4,4) -> new [4,6)
}

func ExampleSimilarity() {
	src := []byte("one\ntwo\nthree\nfour\n")
	dst := []byte("one\ntwo\nthree\nfive\n")
	score := linediff.Similarity(linediff.NewSignature(src), linediff.NewSignature(dst), linediff.DefaultMinScore)
	// 14 of the 19 bytes are copied; git --name-status shows the rename
	// as R073.
	fmt.Println(score, score*100/linediff.MaxScore, score >= linediff.DefaultMinScore)
	// Output:
	// 44210 73 true
}

func ExampleIsBinary() {
	fmt.Println(linediff.IsBinary([]byte("text\n")), linediff.IsBinary([]byte("\x89PNG\r\n\x1a\n\x00")))
	// Output:
	// false true
}
