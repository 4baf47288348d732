//go:build spindletools

// Command histgen writes one of histgen's histories into a new bare
// repository, for benchmarks against other tools:
//
//	go run -tags spindletools ./scan/git/internal/histgen/cmd/histgen large /tmp/large.git
//
// The presets are small (300 commits), dense (3,000 commits, a third of
// the lines holding keywords or secrets) and large (20,000 commits on the
// main line).
package main

import (
	"fmt"
	"os"

	"github.com/spindle-go/spindle/scan/git/internal/histgen"
)

func main() {
	presets := map[string]histgen.Params{"small": histgen.Small, "dense": histgen.Dense, "large": histgen.Large}
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: histgen small|dense|large DIR")
		os.Exit(2)
	}
	p, ok := presets[os.Args[1]]
	if !ok {
		fmt.Fprintln(os.Stderr, "histgen: no preset", os.Args[1])
		os.Exit(2)
	}
	n, err := histgen.Generate(os.Args[2], p)
	if err != nil {
		fmt.Fprintln(os.Stderr, "histgen:", err)
		os.Exit(1)
	}
	fmt.Printf("%d commits in %s\n", n, os.Args[2])
}
