package scan_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

// Scan a directory with the built-in rules and print each finding.
func ExampleScan() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "deploy.sh"), []byte("#!/bin/sh\nexport GITHUB_TOKEN=ghp_R8kz2Lq9Xw4Vt7Ny1Pc6Hs3Jd5Fg0Bm2Ae9U\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "README"), []byte("nothing to see\n"), 0o644)

	det, err := rules.Compile(rules.Default())
	if err != nil {
		panic(err)
	}
	stats, err := scan.Scan(context.Background(), scan.Options{
		Detector: scan.Rules(det),
		OnFinding: func(f report.Finding) {
			rel, _ := filepath.Rel(dir, f.File)
			fmt.Printf("%s:%d:%d %s\n", rel, f.Line, f.Column, f.RuleID)
		},
	}, dir)
	if err != nil {
		panic(err)
	}
	fmt.Println(stats.Files, "files,", stats.Findings, "finding")
	// Output:
	// deploy.sh:2:21 github-pat
	// 2 files, 1 finding
}
