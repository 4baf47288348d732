package deque_test

import (
	"fmt"

	"github.com/spindle-go/spindle/internal/deque"
)

// The owner of a ring works at the bottom, newest first; thieves take from
// the top, oldest first, and StealHalf moves about half of what is left.
func ExampleRing() {
	r := deque.NewRing[string](4)
	for _, task := range []string{"a", "b", "c", "d", "e"} {
		if !r.Push(task) {
			fmt.Println("full, spill", task)
		}
	}
	newest, _ := r.Pop()
	oldest, _ := r.Steal()
	fmt.Println("owner popped", newest, "thief stole", oldest)

	var batch []string
	r.StealHalf(8, func(task string) { batch = append(batch, task) })
	fmt.Println("stole half:", batch, "left:", r.Len())
	// Output:
	// full, spill e
	// owner popped d thief stole a
	// stole half: [b] left: 1
}

// Workers take from the injector in batches, each taking at most its share so
// that siblings find work too.
func ExampleInjector_PopBatch() {
	var q deque.Injector[int]
	q.PushBatch([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})

	const workers = 4
	batch := make([]int, 8)
	n := q.PopBatch(batch, workers) // at most ceil(10/4) = 3
	fmt.Println(batch[:n], "left:", q.Len())
	// Output: [1 2 3] left: 7
}

// A waker looks for a parked worker starting from its own position and claims
// it with TryClear; only one of several racing wakers wins a given worker.
func ExampleBitmask() {
	parked := deque.NewBitmask(130)
	parked.Set(3)
	parked.Set(100)

	w := parked.Next(101) // wraps around past 129 to 3
	fmt.Println("next parked after 101:", w)
	fmt.Println("claimed:", parked.TryClear(w), "again:", parked.TryClear(w))
	fmt.Println("next parked after 101:", parked.Next(101))
	// Output:
	// next parked after 101: 3
	// claimed: true again: false
	// next parked after 101: 100
}
