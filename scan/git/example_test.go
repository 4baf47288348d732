package git_test

import (
	"context"
	"fmt"
	"log"
	"path/filepath"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/git"
	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

// Open a repository once, then scan its history. The repository of odb's
// example (its testdata/example.git, a bare one with no remote) holds
// three commits that build a configuration file; the last sets a
// password in it, and the history scan reports the commit and the line
// that added it.
func Example() {
	cfg, err := rules.Parse([]byte(`
[[rules]]
id = "password"
description = "A password in a configuration file"
regex = '''password = (\w+)'''
keywords = ["password"]
`), "example.toml")
	if err != nil {
		log.Fatal(err)
	}
	det, err := rules.Compile(cfg)
	if err != nil {
		log.Fatal(err)
	}

	repo, err := git.Open("../internal/gitrepo/odb/testdata/example.git")
	if err != nil {
		log.Fatal(err)
	}
	defer repo.Close()
	fmt.Printf("%s, remote %q\n", filepath.Base(repo.Top()), repo.RemoteURL())

	st, err := repo.Scan(context.Background(), git.Options{}, scan.Options{
		Detector: scan.Rules(det),
		OnFinding: func(f report.Finding) {
			fmt.Println(f.Commit[:7], f.File, f.Line, f.RuleID, f.Secret)
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Commits, "commits,", st.Findings, "finding")
	// Output:
	// example.git, remote ""
	// 1e778b7 config/app.conf 31 password hunter2
	// 3 commits, 1 finding
}

// Top and RemoteURL answer for the repository that holds a path without
// keeping it open: where a scan looks for .gitleaks.toml, and the remote
// that reports link findings to.
func ExampleTop() {
	path := "../internal/gitrepo/odb/testdata/example.git"
	top, err := git.Top(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s, remote %q\n", filepath.Base(top), git.RemoteURL(path))
	// Output:
	// example.git, remote ""
}
