package sim

import "testing"

// TestRunEndingInsideTheLastStepIsNotAViolation checks a schedule where the
// last task's completion pushes a worker's owed completions to maxOwed, so
// Step settles them and ends the run before it returns. The simulator must
// count that task as completed when done is signalled (it used to count
// completions only after Step returned and reported a false violation).
func TestRunEndingInsideTheLastStepIsNotAViolation(t *testing.T) {
	c := Case{Name: "owed-settle-ends-run", Workers: 3, LocalCap: 64, Seed: 227,
		Roots: 1, Fanout: 3, MaxTasks: 400, End: "join"}
	res, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.DoneCount != 1 || res.Ran != res.Accepted {
		t.Fatalf("done %d times, ran %d of %d", res.DoneCount, res.Ran, res.Accepted)
	}
}

// TestLargeTreesKeepInvariants runs schedules with rings and task counts big
// enough that workers reach maxOwed batched completions.
func TestLargeTreesKeepInvariants(t *testing.T) {
	n := uint64(300)
	if testing.Short() {
		n = 60
	}
	for seed := uint64(1); seed <= n; seed++ {
		c := Case{Workers: 1 + int(seed%3), LocalCap: 64, Seed: seed, Roots: 1 + int(seed%2),
			Fanout: 3, MaxTasks: 400, Global: int(seed % 10), End: "join"}
		if _, err := Run(c); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}
