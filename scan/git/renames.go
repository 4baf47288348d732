package git

import (
	"slices"
	"strings"

	"github.com/spindle-go/spindle/scan/git/internal/linediff"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// Rename detection as `git log -p` does it by default (diffcore-rename,
// rename detection on, copies off, no break): deleted paths are the
// sources, added paths the destinations, and each destination takes at
// most one source, in three rounds.
//
//  1. Exact renames: a destination takes a source with the same blob (and,
//     unless both are regular files, the same mode), preferring one not
//     yet used and then one with the same file name.
//  2. Same file name: a source and a destination whose file name (after
//     the last '/') is unique among the remaining sources and among the
//     remaining destinations are paired if they are at least 75% similar.
//  3. Similarity: if the remaining destinations times the remaining
//     sources is at most the rename limit squared (1000²), every pair is
//     scored; each destination keeps its best four, all kept pairs are
//     sorted by score (then same file name first) and taken in that order
//     down to 50% similar, each destination and source once.
//
// Similarity is git's estimate (package linediff): how much of the
// larger file's bytes, counted in spans that end at a newline or after
// 64 bytes, also appear in the source. The size check and the ties are
// git's, so the pairs are git's pairs.

const (
	maxScore           = 60000 // git's MAX_SCORE: 100%
	minRenameScore     = 30000 // 50%
	minBasenameScore   = minRenameScore + (maxScore-minRenameScore)/2
	renameLimit        = 1000
	candidatesPerDst   = 4
	maxIdenticalChoice = 100
)

// blobSource gives rename detection what it needs of a blob: its size,
// and its similarity signature (which needs its content).
type blobSource interface {
	size(id odb.ID) (int64, bool)
	signature(id odb.ID) (*linediff.Signature, bool)
}

// detectRenames pairs the deletions and additions of changes (in diff
// queue order) into renames, in place: a paired addition becomes an 'R'
// change from the source's path and blob, and the paired deletion is
// removed. It returns the changes.
func detectRenames(changes []fileChange, blobs blobSource) []fileChange {
	var srcs, dsts []int // indexes into changes
	for i := range changes {
		switch changes[i].status {
		case 'A':
			dsts = append(dsts, i)
		case 'D':
			srcs = append(srcs, i)
		}
	}
	if len(srcs) == 0 || len(dsts) == 0 {
		return changes
	}
	used := make([]bool, len(srcs))    // a source taken by a rename
	renamed := make([]bool, len(dsts)) // a destination paired
	pair := func(di, si, score int) {
		d, s := &changes[dsts[di]], &changes[srcs[si]]
		d.status, d.oldPath, d.oldID, d.oldMode, d.score = 'R', s.oldPath, s.oldID, s.oldMode, score
		renamed[di], used[si] = true, true
	}

	// 1. Exact renames. The sources are looked up by blob id, each id's
	// in diff queue order (git's hash table of sources): comparing every
	// destination with every source would be quadratic in a commit that
	// adds and deletes many files.
	byID := make(map[odb.ID][]int, len(srcs))
	for si, sx := range srcs {
		id := changes[sx].oldID
		byID[id] = append(byID[id], si)
	}
	for di, dx := range dsts {
		d := &changes[dx]
		best, bestScore, tries := -1, -1, maxIdenticalChoice
		for _, si := range byID[d.newID] {
			s := &changes[srcs[si]]
			if used[si] {
				continue
			}
			if !(s.oldMode.IsFile() && d.newMode.IsFile()) && s.oldMode != d.newMode {
				continue
			}
			score := 1
			if sameBasename(s.oldPath, d.path) {
				score++
			}
			if score > bestScore {
				best, bestScore = si, score
				if score == 2 {
					break
				}
			}
			if tries--; tries == 0 {
				break
			}
		}
		if best >= 0 {
			pair(di, best, maxScore)
		}
	}

	// 2. Unique file names.
	remainingSrc := func() []int {
		var r []int
		for si := range srcs {
			if !used[si] {
				r = append(r, si)
			}
		}
		return r
	}
	rs := remainingSrc()
	srcByBase := map[string]int{}
	for _, si := range rs {
		b := basename(changes[srcs[si]].oldPath)
		if _, dup := srcByBase[b]; dup {
			srcByBase[b] = -1
		} else {
			srcByBase[b] = si
		}
	}
	dstByBase := map[string]int{}
	for di := range dsts {
		if renamed[di] {
			continue
		}
		b := basename(changes[dsts[di]].path)
		if _, dup := dstByBase[b]; dup {
			dstByBase[b] = -1
		} else {
			dstByBase[b] = di
		}
	}
	for _, si := range rs {
		b := basename(changes[srcs[si]].oldPath)
		di, ok := dstByBase[b]
		if !ok || di < 0 || srcByBase[b] != si || renamed[di] {
			continue
		}
		if score := similarity(&changes[srcs[si]], &changes[dsts[di]], minBasenameScore, blobs); score >= minBasenameScore {
			pair(di, si, score)
		}
	}

	// 3. The similarity matrix, within the rename limit.
	rs = remainingSrc()
	var rd []int
	for di := range dsts {
		if !renamed[di] {
			rd = append(rd, di)
		}
	}
	if len(rs) == 0 || len(rd) == 0 || int64(len(rs))*int64(len(rd)) > renameLimit*renameLimit {
		return dropRenamedSources(changes, srcs, used)
	}
	type candidate struct {
		src, dst  int // indexes into srcs, dsts; dst -1: an empty slot
		score     int
		nameScore int
	}
	// less is git's score_compare < 0: empty slots last, then higher
	// score, then same file name.
	cmp := func(a, b candidate) int {
		switch {
		case a.dst < 0 && b.dst < 0:
			return 0
		case a.dst < 0:
			return 1
		case b.dst < 0:
			return -1
		case a.score == b.score:
			return b.nameScore - a.nameScore
		}
		return b.score - a.score
	}
	mx := make([]candidate, 0, len(rd)*candidatesPerDst)
	for _, di := range rd {
		var m [candidatesPerDst]candidate
		for k := range m {
			m[k].dst = -1
		}
		d := &changes[dsts[di]]
		for _, si := range rs {
			s := &changes[srcs[si]]
			o := candidate{src: si, dst: di, score: similarity(s, d, minRenameScore, blobs)}
			if sameBasename(s.oldPath, d.path) {
				o.nameScore = 1
			}
			worst := 0
			for k := 1; k < candidatesPerDst; k++ {
				if cmp(m[k], m[worst]) > 0 {
					worst = k
				}
			}
			if cmp(m[worst], o) > 0 {
				m[worst] = o
			}
		}
		mx = append(mx, m[:]...)
	}
	slices.SortStableFunc(mx, cmp)
	for _, c := range mx {
		if c.dst < 0 || c.score < minRenameScore {
			break
		}
		if renamed[c.dst] || used[c.src] {
			continue
		}
		pair(c.dst, c.src, c.score)
	}
	return dropRenamedSources(changes, srcs, used)
}

// dropRenamedSources removes the deletions whose path a rename took.
func dropRenamedSources(changes []fileChange, srcs []int, used []bool) []fileChange {
	drop := map[int]bool{}
	for si, u := range used {
		if u {
			drop[srcs[si]] = true
		}
	}
	if len(drop) == 0 {
		return changes
	}
	out := changes[:0]
	for i, c := range changes {
		if !drop[i] {
			out = append(out, c)
		}
	}
	return out
}

// similarity is git's estimate_similarity of a source and a destination:
// 0 unless both are regular files whose sizes allow minScore.
func similarity(s, d *fileChange, minScore int, blobs blobSource) int {
	if !s.oldMode.IsFile() || !d.newMode.IsFile() {
		return 0
	}
	ss, ok1 := blobs.size(s.oldID)
	ds, ok2 := blobs.size(d.newID)
	if !ok1 || !ok2 {
		return 0
	}
	if !linediff.SizesAllow(ss, ds, minScore) {
		return 0
	}
	sa, ok1 := blobs.signature(s.oldID)
	sb, ok2 := blobs.signature(d.newID)
	if !ok1 || !ok2 {
		return 0
	}
	return linediff.Similarity(sa, sb, minScore)
}

// basename is the part of a path after its last '/'.
func basename(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// sameBasename is git's basename_same: the two paths end in the same file
// name.
func sameBasename(a, b string) bool { return basename(a) == basename(b) }
