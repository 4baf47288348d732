package linediff

import (
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// This file checks Diff against hunks recorded from git, so that the
// comparison runs where git is absent. The cases in testdata/cases are
// small pairs, most of them found by breaking one rule of the algorithm
// at a time and keeping the smallest generated pairs on which the broken
// version disagreed with git: each stands for one rule (its name says
// which). go test -run Recorded -update rewrites the recordings from the
// git on PATH.

var update = flag.Bool("update", false, "rewrite the recorded hunks in testdata from the git on PATH")

// recordedCases loads testdata/cases: NAME.a, NAME.b and NAME.hunks (git's
// hunk headers, one a line).
func recordedCases(t *testing.T) ([]pair, []string) {
	t.Helper()
	names, err := filepath.Glob("testdata/cases/*.a")
	if err != nil || len(names) == 0 {
		t.Fatalf("no cases in testdata/cases: %v", err)
	}
	var pairs []pair
	var want []string
	for _, na := range names {
		base := strings.TrimSuffix(na, ".a")
		a, err1 := os.ReadFile(na)
		b, err2 := os.ReadFile(base + ".b")
		h, err3 := os.ReadFile(base + ".hunks")
		if err1 != nil || err2 != nil || (err3 != nil && !*update) {
			t.Fatalf("case %s: %v %v %v", base, err1, err2, err3)
		}
		pairs = append(pairs, pair{filepath.Base(base), a, b})
		want = append(want, string(h))
	}
	return pairs, want
}

func TestDiffMatchesRecordedCases(t *testing.T) {
	pairs, want := recordedCases(t)
	if *update {
		hunks, _ := gitHunks(t, pairs)
		for i, p := range pairs {
			want[i] = formatHunks(hunks[i])
			if err := os.WriteFile(filepath.Join("testdata/cases", p.name+".hunks"), []byte(want[i]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var d Differ
	for i, p := range pairs {
		got := d.Diff(p.a, p.b, nil)
		if formatHunks(got) != want[i] {
			t.Errorf("%s: got\n%swant\n%s", p.name, formatHunks(got), want[i])
		}
		if err := checkHunks(p.a, p.b, got); err != nil {
			t.Errorf("%s: %v", p.name, err)
		}
	}
}

func TestRecordedCasesAreGits(t *testing.T) {
	needGit(t)
	pairs, want := recordedCases(t)
	hunks, _ := gitHunks(t, pairs)
	for i, p := range pairs {
		if got := formatHunks(hunks[i]); got != want[i] {
			t.Errorf("%s: git gives\n%srecorded\n%s", p.name, got, want[i])
		}
	}
}

// hugeRecorded are generated pairs too big to keep in testdata (tens of
// thousands of lines, for the search's cost heuristics): the generator,
// seeded, makes them again, and testdata/huge.hunks holds git's hunks.
func hugeRecorded() []pair {
	r := rand.New(rand.NewPCG(2, 2))
	var pairs []pair
	for i := range 4 {
		a, b := hugePair(r)
		if i%2 == 1 {
			a, b = hugeSkewPair(r)
		}
		pairs = append(pairs, pair{"huge-" + string(rune('a'+i)), a, b})
	}
	return pairs
}

func TestDiffMatchesRecordedHugeCases(t *testing.T) {
	pairs := hugeRecorded()
	const file = "testdata/huge.hunks"
	if *update {
		hunks, _ := gitHunks(t, pairs)
		var b strings.Builder
		for i, p := range pairs {
			b.WriteString("# " + p.name + "\n" + formatHunks(hunks[i]))
		}
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	var d Differ
	for _, p := range pairs {
		got.WriteString("# " + p.name + "\n" + formatHunks(d.Diff(p.a, p.b, nil)))
	}
	if got.String() != string(data) {
		t.Errorf("hunks differ from %s (rerun with -update if the generator changed on purpose)", file)
	}
}
