package linediff

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestDiffMatchesGitOnGeneratedPairs(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
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

// caddyRepo is where the tests look for a copy of caddy's history
// (LINEDIFF_REPO overrides it).
const caddyRepo = "/work/data/caddy.git"

func TestDiffMatchesGitOnCaddyHistory(t *testing.T) {
	needGit(t)
	repo := os.Getenv("LINEDIFF_REPO")
	if repo == "" {
		repo = caddyRepo
	}
	if _, err := os.Stat(repo); err != nil {
		t.Skipf("no repository at %s (set LINEDIFF_REPO)", repo)
	}
	maxCommits := 0
	if testing.Short() {
		maxCommits = 300
	}
	compareHistory(t, repo, maxCommits)
}

func TestDiffMatchesGitOnOwnHistory(t *testing.T) {
	needGit(t)
	out, err := exec.Command("git", "rev-parse", "--git-common-dir").Output()
	if err != nil {
		t.Skip("not in a git repository")
	}
	maxCommits := 400
	if testing.Short() {
		maxCommits = 40
	}
	compareHistory(t, strings.TrimSpace(string(out)), maxCommits)
}
