package rules_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/spindle-go/spindle/scan/rules"
)

func ExampleParse() {
	cfg, err := rules.Parse([]byte(`
[extend]
useDefault = true
disabledRules = ["generic-api-key"]

[[rules]]
id = "internal-token"
description = "Our own service token."
regex = '''\b(itk_[a-z0-9]{24})\b'''
keywords = ["itk_"]
`), ".gitleaks.toml")
	if err != nil {
		log.Fatal(err)
	}
	last := cfg.Rules[len(cfg.Rules)-1]
	fmt.Println(last.ID, last.Keywords)
	// Output: internal-token [itk_]
}

func ExampleParse_error() {
	_, err := rules.Parse([]byte(`
[[rules]]
id = "broken"
regex = '''(unclosed'''
`), "team.toml")
	fmt.Println(err)
	// Output: rules: team.toml:4: rule "broken": invalid regex: missing closing ): `(unclosed`
}

func ExampleDetector_Scan() {
	cfg, err := rules.Parse([]byte(`
[[rules]]
id = "internal-token"
regex = '''\b(itk_[a-z0-9]{24})\b'''
keywords = ["itk_"]
`), "")
	if err != nil {
		log.Fatal(err)
	}
	d, err := rules.Compile(cfg)
	if err != nil {
		log.Fatal(err)
	}
	data := []byte("url: https://example.com\ntoken: itk_0123456789abcdefghijklmn\nsafe: itk_aaaaaaaaaaaaaaaaaaaaaaaa // gitleaks:allow\n")
	s := d.NewScratch() // one per goroutine
	d.Scan(s, "config.yaml", data, func(m rules.Match) {
		line := 1 + strings.Count(string(data[:m.Start]), "\n")
		fmt.Printf("%s line %d: %s\n", m.RuleID, line, m.Secret)
	})
	// Output: internal-token line 2: itk_0123456789abcdefghijklmn
}

func ExampleDetector_ScanPath() {
	d, err := rules.Compile(rules.Default())
	if err != nil {
		log.Fatal(err)
	}
	d.ScanPath("deploy/signing.p12", func(m rules.Match) { fmt.Println(m.RuleID, m.Match) })
	// Output: pkcs12-file file detected: deploy/signing.p12
}

// A worker that asks about a file's path before reading it, then scans
// its chunks, keeps the verdicts in its Scratch: the path's regexes run
// once per file.
func ExampleScratch_SkipPath() {
	d, err := rules.Compile(rules.Default())
	if err != nil {
		log.Fatal(err)
	}
	s := d.NewScratch()
	for _, path := range []string{"node_modules/left-pad/index.js", "deploy/signing.p12"} {
		if s.SkipPath(path) {
			fmt.Println("skip", path)
			continue
		}
		s.ScanPath(path, func(m rules.Match) { fmt.Println(m.RuleID, m.Match) })
	}
	// Output:
	// skip node_modules/left-pad/index.js
	// pkcs12-file file detected: deploy/signing.p12
}

func ExampleFind() {
	cfg, used, err := rules.Find("/nonexistent/repo", "")
	if err != nil {
		log.Fatal(err)
	}
	// No explicit config and no /nonexistent/repo/.gitleaks.toml: the
	// built-in rules.
	fmt.Printf("path %q, title %q\n", used, cfg.Title)
	// Output: path "", title "built-in rules: gitleaks v8.30.1 defaults and spindle's own"
}

// The built-in rules are gitleaks' default config, from the gitleaks Go
// module, and spindle's own rules for kinds of secret it lacks; a check
// tags the findings it finds implausible instead of dropping them.
func ExampleDefault() {
	cfg := rules.Default()
	d, err := rules.Compile(cfg)
	if err != nil {
		log.Fatal(err)
	}
	from := map[string]rules.Provenance{}
	for _, r := range d.Rules() {
		from[r.ID] = r.From
	}
	// A token of GitHub's format with a checksum that fails (split so
	// that this file holds no token).
	data := []byte("GITHUB_TOKEN=gh" + "p_r0y4v0qn46j606ytslghtv1cr7nqn6jotzrw\n" +
		"machine git.example.com login deploy password Qw8vN2pLk5rT\n")
	d.Scan(d.NewScratch(), "ci/notes.txt", data, func(m rules.Match) {
		fmt.Printf("%s (%s) %v\n", m.RuleID, from[m.RuleID], m.Tags)
	})
	// Output:
	// github-pat (gitleaks v8.30.1) [checksum:invalid]
	// netrc-password (spindle) [netrc password]
}

// A config written for gitleaks' default rules may name rules the
// built-in set lacks: a warning, not an error, which the caller shows.
func ExampleParse_warnings() {
	cfg, err := rules.Parse([]byte(`
[extend]
useDefault = true
disabledRules = ["acme-legacy-token"]
`), "team.toml")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cfg.Origin)
	for _, w := range cfg.Warnings {
		fmt.Println(w)
	}
	// Output:
	// given explicitly
	// rules: team.toml:4: extend.disabledRules: not in the built-in rules, ignored: "acme-legacy-token"
}
