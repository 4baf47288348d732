package ignore_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/spindle-go/spindle/scan/ignore"
)

// A .gitleaksignore lists fingerprints of findings not to report: file,
// rule and line for a file, with the commit in front for a finding in a
// repository's history.
func ExampleParseFingerprints() {
	ig, err := ignore.ParseFingerprints(strings.NewReader(`
# reviewed 2026-01-10
src/fixtures/keys.go:private-key:12
4f1c0a2e9d:deploy/.env:github-pat:3
`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ig.Has("src/fixtures/keys.go:private-key:12"))
	fmt.Println(ig.Has("4f1c0a2e9d:deploy/.env:github-pat:3"), ig.Has("deploy/.env:github-pat:3"))
	// Output:
	// true
	// true false
}
