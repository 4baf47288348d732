package linediff

import (
	"math/rand/v2"
	"testing"
)

func TestDiffMatchesGitOnGeneratedPairs(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	compareWithGit(t, genPairs(1, n))
}

func TestDiffMatchesGitOnHugeFiles(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 2
	}
	r := rand.New(rand.NewPCG(2, 2))
	var pairs []pair
	for i := range n {
		a, b := hugePair(r)
		if i%2 == 1 {
			a, b = hugeSkewPair(r)
		}
		pairs = append(pairs, pair{"huge-" + string(rune('a'+i)), a, b})
	}
	compareWithGit(t, pairs)
}
