// Package linediff is git's line diff, exact: for two versions of a file,
// the hunks `git diff -U0` prints, at the places git prints them, and the
// similarity git's rename detection gives two files.
//
//	var d linediff.Differ // one per worker; reused, it stops allocating
//	hunks = d.Diff(old, new, hunks[:0])
//	for _, h := range hunks {
//		// lines [h.NewStart, h.NewStart+h.NewLines) of new are added
//	}
//
// A history scan that reports what `git log -p -U0` adds needs more than
// any minimal diff: where a change is ambiguous (a line moved, a function
// inserted among similar ones, a block of repeated lines grown), git picks
// one placement by rules of its own, and a different placement reports
// other lines as added, or numbers them differently. So Diff reproduces
// git's default line diff step by step: the Myers algorithm with xdiff's
// heuristics (diff.algorithm=myers, not --minimal), diff.indentHeuristic
// on, no whitespace option, and with no context lines. Each step below is
// a rule of git's; none may be dropped or improved without changing the
// output.
//
// # The steps of Diff
//
// Trimming the common tail. With no context lines asked for, git diffs
// only part of the files: it drops the longest common tail made of whole
// 1 KiB blocks, then gives back the dropped bytes up to and including
// their first newline, so both files still end on a whole line. The lines
// left change what follows: the files' line counts, how often each line
// occurs, and where the end of the file is for the indent heuristic.
//
// Lines and classes. A line is its bytes up to and including its newline
// (a last line without one is a different line from the same text with
// one). Equal lines of both files form a class; each class counts its
// lines in each file, over the whole of each (tail-trimmed) file. Lines
// are hashed (hash/maphash, seeded per Differ, so crafted input cannot aim
// at collisions) into an open-addressing table whose slot number is the
// class; bytes are compared on every hash hit, so classes are exact. The
// longest common prefix of whole lines is the same bytes in both files:
// it is split and hashed once and counted for both.
//
// Setting lines aside. The lines equal at the start and at the end of both
// files are unchanged. Of the lines between, one whose class the other file
// lacks is changed whatever else happens, and is not searched. One whose
// class the other file holds many times, at least a limit that is a cheap
// power-of-two square root of the file's line count (at most 1024), is not
// searched either when it sits among unmatched lines: counting, within 100
// lines on each side, the run of lines that are unmatched or many-matched,
// both runs must contain unmatched lines, and the unmatched ones must
// outnumber the many-matched ones (the line itself counted once on each
// side) more than three to one. These lines are marked changed. What is
// left, in order, is what the search sees.
//
// The search. Myers' algorithm finds a shortest edit script by divide and
// conquer: for a box of lines of both files it runs the greedy search for
// the furthest-reaching path on each diagonal from the box's start and,
// at the same time, from its end, one edit at a time, until the two meet;
// the meeting point cuts the box in two, and each half is searched the
// same way. Unchanged lines at a box's start and end are skipped first; a
// box with one side empty is all changes. Two heuristics bound the cost.
// Past 256 edits, if a search step has followed a run of more than 20
// equal lines, a diagonal that got far enough (its progress in both files,
// less its distance from the middle diagonal, above four times the edit
// count) and that ends (forward) or starts (backward) 20 equal lines is
// taken as the cut. Past max(256, the cheap square root of the number of
// searched lines plus 3) edits, the diagonal that got furthest in either
// direction is taken. A cut found by a heuristic asks for the half on the
// far side of it to be searched without heuristics. The halves are
// independent, so Diff keeps a stack of boxes instead of recursing.
//
// Placing the changes. Each run of changed lines of a file can slide: up
// while the line above it equals its last line, down while the line below
// equals its first, merging with runs it meets (and each unchanged line of
// one file stays paired with one of the other). For the old file and then
// the new one, git slides each run as high and then as low as it goes,
// again while it keeps growing; if along the way the run could face changed
// lines of the other file, it is moved back up to the lowest such place,
// so one change reads as one hunk. Otherwise the indent heuristic chooses:
// each placement, from the lowest up to the run's size plus one places
// higher and at most 100 places, is scored by the two splits between
// changed and unchanged text it makes. A split is measured by the
// indentation of the line below it (tabs to multiples of 8, capped at
// 200; blank lines have none) and of the nearest non-blank lines above and
// below, and the blank lines around it (at most 20 counted); the score adds
// penalties for a split at the start or the end of the file, for blank
// lines (which attract splits), and for a line indented more or less than
// the one above. Two scores compare by the order of their summed indents,
// weighted 60, plus the difference of their penalties, and ties go to the
// lower placement. Whitespace here is space,
// tab, CR and LF only, as in git.
//
// Hunks. Unchanged lines pair up in order, and with no context lines every
// run of changes between two pairs is a hunk of its own.
//
// Inputs larger than MaxSize, which git refuses to diff, and added or
// deleted files are one hunk of every line. Binary content is diffed like
// text: IsBinary says where git would print "Binary files differ" instead.
//
// # Rename similarity
//
// For an added file and a deleted one, git estimates how much of the new
// file comes from the old: it cuts each into spans, each ending at a
// newline or after 64 bytes, and hashes them (in text, a CR right before a
// newline is left out, so CRLF and LF versions compare equal). For every
// span hash, the bytes of the old file's spans with it that the new file
// also has (the smaller of the two byte counts) are copied material, and
// the score is the copied bytes times 60000 over the larger file's size,
// in floating point. git does not compare files whose sizes alone rule out
// the minimum score (SizesAllow), and pairs files whose score reaches it
// (50%, 30000, by default). NewSignature computes a file's span counts
// once, sorted by hash, so that Similarity is a merge of two sorted lists.
// The span reader finds each span's end with bytes.IndexByte and hashes
// the span in a tight loop; a test and FuzzSimilarity check it against the
// rule applied a byte at a time.
//
// # Which git
//
// This is git 2.39.5's behaviour (xdiff-interface.c, xdiff/xprepare.c,
// xdiff/xdiffi.c, xdiff/xemit.c, diffcore-delta.c, diffcore-rename.c), and
// the tests compare with the git on PATH. Between 2.39.5 and git 2.55 the
// Myers path changed only in form (types, names, a new line-hash function,
// which only finds candidates for an exact comparison) plus a re-diff of
// merged runs in the placement step that applies to the histogram
// algorithm alone: the hunks are the same. The similarity estimate did
// change: from git 2.43.2 a last span cut short by the end of the file
// (no newline, under 64 bytes) counts too; here, as in 2.39.5, it counts
// for nothing.
//
// # Cost
//
// Diff allocates nothing once its Differ has grown to the largest pair it
// has met; it holds about 100 to 150 bytes per line of the two files while
// diffing them. Callgrind counts, which do not depend on the machine's load
// (TestInstructionCountWorkload says how to take them): diffing every
// change of a .go file in caddy's history (6,180 pairs, 173 MB of old plus
// new) takes 0.97 G instructions, 5.6 a byte; most of it is splitting and
// hashing lines, the search about a tenth. Building the signatures of the
// new versions (88 MB) takes 1.15 G instructions, 13 a byte. Wall-clock
// figures come from BenchmarkDiffGoHistory, BenchmarkDiffGenerated,
// BenchmarkSignature and BenchmarkSimilarity, in MB/s of old plus new.
//
// # Tests
//
// Where git is on PATH, Diff is compared with `git diff-tree -p -U0` on
// thousands of generated pairs, built to reach each rule above (repeated,
// blank and oddly indented lines, CRLF, missing final newlines, long
// lines, common tails over 1 KiB, files big and busy enough for the
// heuristics, lines matched many times), and with `git log -p` on every
// change of caddy's history (when a copy is at hand) and of this
// repository's. Recorded hunks for the cases that each stand for a rule
// let the comparison run without git. Similarity is compared with the
// similarity git prints for renames, and with its rename decisions at
// several thresholds.
package linediff
