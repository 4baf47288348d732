package scan_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

// Scan a directory with the built-in rules and print each finding.
func ExampleScan() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "deploy.sh"), []byte("#!/bin/sh\nexport GITHUB_TOKEN=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\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "README"), []byte("nothing to see\n"), 0o644)

	det, err := defaultRules()
	if err != nil {
		panic(err)
	}
	stats, err := scan.Scan(context.Background(), scan.Options{
		Detector: scan.Rules(det),
		OnFinding: func(f report.Finding) {
			// Files are named relative to the directory scanned.
			fmt.Printf("%s:%d:%d %s\n", f.File, f.Line, f.Column, f.RuleID)
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

// defaultRules compiles the built-in rules once for all the examples.
var defaultRules = sync.OnceValues(func() (*rules.Detector, error) { return rules.Compile(rules.Default()) })

// Scan archives too: a secret inside a member is reported under the
// member's name, joined to the archive's with "!", at the member's own
// line. Budgets (Options.Archive) keep hostile archives in check.
func ExampleScan_archives() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	env := "# staging\nGITHUB_TOKEN=ghp_" + "R8kz2Lq9Xw4Vt7Ny1Pc6Hs3Jd5Fg0B0HM0Jm\n"
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "deploy/.env", Mode: 0o600, Size: int64(len(env))})
	tw.Write([]byte(env))
	tw.Close()
	gz.Close()
	os.WriteFile(filepath.Join(dir, "release.tar.gz"), b.Bytes(), 0o644)

	det, err := defaultRules()
	if err != nil {
		panic(err)
	}
	stats, err := scan.Scan(context.Background(), scan.Options{
		Detector: scan.Rules(det),
		OnFinding: func(f report.Finding) {
			// Files are named relative to the directory scanned.
			fmt.Printf("%s:%d:%d %s\n", f.File, f.Line, f.Column, f.RuleID)
		},
	}, dir)
	if err != nil {
		panic(err)
	}
	fmt.Println(stats.Archives, "archive,", stats.Members, "member,", stats.Findings, "finding")
	// Output:
	// release.tar.gz!deploy/.env:2:14 github-pat
	// 1 archive, 1 member, 1 finding
}
