//go:build !race

package main

// The README's scan example. It compiles the built-in rules, which takes
// tens of seconds under the race detector for no gain (the example runs on
// one goroutine of its own; the engine's concurrency is raced in package
// scan), so it is left out of -race builds. go vet, which CI runs without
// the tag, still type-checks it, and plain go test runs it.

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

func Example_scan() {
	// A tree with one planted secret, built at run time so that this file
	// holds none.
	root, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	key := "AKIA" + "Z7QKXW3V" + "UMPLR2TD"
	os.WriteFile(filepath.Join(root, "deploy.env"), []byte("AWS_KEY="+key+"\n"), 0o644)
	ctx := context.Background()

	det, err := rules.Compile(rules.Default())
	if err != nil {
		log.Fatal(err)
	}
	stats, err := scan.Scan(ctx, scan.Options{
		Detector: scan.Rules(det),
		OnFinding: func(f report.Finding) {
			fmt.Println(filepath.Base(f.File), f.Line, f.RuleID)
		},
	}, root)
	fmt.Println(stats.Files, "files,", stats.Findings, "findings,", err)
	// Output:
	// deploy.env 1 aws-access-token
	// 1 files, 1 findings, <nil>
}
