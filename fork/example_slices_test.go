package fork_test

import (
	"fmt"
	"strings"

	"github.com/spindle-go/spindle/fork"
)

// Sort and SortFunc sort any slice in parallel, with no grain size.
func ExampleSort() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	s := []int{5, 2, 8, 1, 9, 3}
	fork.Sort(p, s)
	fmt.Println(s)
	// Output: [1 2 3 5 8 9]
}

func ExampleSortFunc() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	names := []string{"Grace", "ada", "Alan", "barbara"}
	fork.SortFunc(p, names, func(a, b string) int {
		return strings.Compare(strings.ToLower(a), strings.ToLower(b))
	})
	fmt.Println(names)
	// Output: [ada Alan barbara Grace]
}

// Map builds a new slice from f applied to every element, in parallel.
func ExampleMap() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	words := []string{"fork", "join", "steal"}
	fmt.Println(fork.Map(p, words, strings.ToUpper))
	// Output: [FORK JOIN STEAL]
}

// Each updates a slice in place, in parallel.
func ExampleEach() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	prices := []float64{10, 20, 30}
	fork.Each(p, prices, func(i int, price *float64) { *price *= 1.5 })
	fmt.Println(prices)
	// Output: [15 30 45]
}

func ExampleSum() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	s := make([]int, 1_000_000)
	for i := range s {
		s[i] = i
	}
	fmt.Println(fork.Sum(p, s))
	// Output: 499999500000
}

func ExampleMinMax() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	lo, hi, ok := fork.MinMax(p, []float64{2.5, -1, 7, 3})
	fmt.Println(lo, hi, ok)
	_, _, ok = fork.MinMax(p, []float64{})
	fmt.Println(ok)
	// Output:
	// -1 7 true
	// false
}
