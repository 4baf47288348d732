package report_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spindle-go/spindle/scan/report"
)

var exampleFindings = []report.Finding{
	{
		RuleID: "aws-access-token", Description: "AWS Access Token",
		File: "config/app.env", Line: 3, Column: 9, EndLine: 3, EndColumn: 28,
		Secret: "AKIAZ7QKXW3VUMPLR2TD", Match: "AWS_KEY=AKIAZ7QKXW3VUMPLR2TD",
		Fingerprint: "config/app.env:aws-access-token:3", Tags: []string{"aws"},
	},
	{
		RuleID: "generic-api-key", Description: "Generic API Key",
		File: "dist/bundle.zip!conf/x.env", Line: 7, Column: 10, EndLine: 7, EndColumn: 29,
		Secret: "q8Vn3kT0pLx9Wz2Rb6Yc", Match: "api_key=\"q8Vn3kT0pLx9Wz2Rb6Yc\"",
		Fingerprint: "dist/bundle.zip!conf/x.env:generic-api-key:7",
	},
}

// The text format groups findings by file; --redact=50 keeps half of each
// secret.
func ExampleNewWriter() {
	w, err := report.NewWriter(report.FormatText, os.Stdout, report.Options{Redact: 50})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range exampleFindings {
		if err := w.Write(f); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// config/app.env
	//   3:9  aws-access-token  AKIAZ7QKXW...
	//
	// dist/bundle.zip!conf/x.env
	//   7:10  generic-api-key  q8Vn3kT0pL...
}

// jsonl writes one finding per line as soon as it is written.
func ExampleNewWriter_jsonl() {
	w, _ := report.NewWriter(report.FormatJSONL, os.Stdout, report.Options{Redact: 100})
	w.Write(exampleFindings[0])
	w.Close()
	// Output:
	// {"rule_id":"aws-access-token","description":"AWS Access Token","file":"config/app.env","line":3,"column":9,"end_line":3,"end_column":28,"secret":"REDACTED","match":"AWS_KEY=REDACTED","entropy":0,"fingerprint":"config/app.env:aws-access-token:3","tags":["aws"]}
}

// An empty json report is still a JSON array.
func ExampleNewWriter_emptyJSON() {
	w, _ := report.NewWriter(report.FormatJSON, os.Stdout, report.Options{})
	w.Close()
	// Output:
	// []
}

func ExampleParseFormat() {
	f, err := report.ParseFormat("SARIF")
	fmt.Println(f, err)
	_, err = report.ParseFormat("xml")
	fmt.Println(err)
	// Output:
	// sarif <nil>
	// report: unknown report format "xml" (valid: text, json, jsonl, sarif, csv, junit, gitleaks, gitleaks-csv, gitleaks-sarif, gitleaks-junit, template)
}

func ExampleFormats() {
	fmt.Println(strings.Join(report.Formats(), "|"))
	// Output:
	// text|json|jsonl|sarif|csv|junit|gitleaks|gitleaks-csv|gitleaks-sarif|gitleaks-junit|template
}

func ExampleRedact() {
	f := exampleFindings[0]
	for _, pct := range []int{0, 50, 100} {
		r := report.Redact(f, pct)
		fmt.Printf("%3d%%  %s\n", pct, r.Match)
	}
	// Output:
	//   0%  AWS_KEY=AKIAZ7QKXW3VUMPLR2TD
	//  50%  AWS_KEY=AKIAZ7QKXW...
	// 100%  AWS_KEY=REDACTED
}

// A baseline is a previous json report. The same secret, in the same file
// and under the same rule, is known even after it moved down the file.
func ExampleBaseline_Contains() {
	previous := `[{"rule_id": "aws-access-token", "file": "config/app.env", "line": 3,
	               "secret": "AKIAZ7QKXW3VUMPLR2TD"}]`
	baseline, err := report.ReadBaseline(strings.NewReader(previous))
	if err != nil {
		log.Fatal(err)
	}
	moved := exampleFindings[0]
	moved.Line = 10
	fmt.Println(baseline.Contains(moved))
	fmt.Println(baseline.Contains(exampleFindings[1]))
	// Output:
	// true
	// false
}

func ExampleLoadBaseline() {
	_, err := report.LoadBaseline("testdata/no-such-report.json")
	fmt.Println(err)
	// Output:
	// report: baseline: stat testdata/no-such-report.json: no such file or directory
}

func ExampleSummary_WriteText() {
	s := report.Summary{
		Files: 48210, Bytes: 3 << 30, Duration: 3200 * time.Millisecond,
		Findings: 2, Lost: 1, Noise: 3,
		Skipped: map[string]int64{"binary": 310, "too large": 2},
	}
	s.WriteText(os.Stdout)
	// Output:
	// scanned 48210 files, 3.0 GiB in 3.2s (960 MiB/s)
	// 2 findings, 4 warnings (1 lost data, 3 noise)
	// skipped: 310 binary, 2 too large
}

// The gitleaks format writes gitleaks' own JSON report; with the remote of
// the repository, history findings link to their commit.
func ExampleNewWriter_gitleaks() {
	f := exampleFindings[0]
	f.Commit = "9fceb02d0ae598e95dc970b74767f19372d61af8"
	f.Author, f.Email, f.Date, f.Message = "Ann", "ann@example.com", "2024-03-01T08:00:00Z", "add config"
	f.Fingerprint = f.Commit + ":config/app.env:aws-access-token:3"
	w, _ := report.NewWriter(report.FormatGitleaks, os.Stdout, report.Options{RemoteURL: "git@github.com:acme/widgets.git"})
	w.Write(f)
	w.Close()
	// Output:
	// [
	//  {
	//   "RuleID": "aws-access-token",
	//   "Description": "AWS Access Token",
	//   "StartLine": 3,
	//   "EndLine": 3,
	//   "StartColumn": 9,
	//   "EndColumn": 28,
	//   "Match": "AWS_KEY=AKIAZ7QKXW3VUMPLR2TD",
	//   "Secret": "AKIAZ7QKXW3VUMPLR2TD",
	//   "File": "config/app.env",
	//   "SymlinkFile": "",
	//   "Commit": "9fceb02d0ae598e95dc970b74767f19372d61af8",
	//   "Link": "https://github.com/acme/widgets/blob/9fceb02d0ae598e95dc970b74767f19372d61af8/config/app.env#L3",
	//   "Entropy": 0,
	//   "Author": "Ann",
	//   "Email": "ann@example.com",
	//   "Date": "2024-03-01T08:00:00Z",
	//   "Message": "add config",
	//   "Tags": [
	//    "aws"
	//   ],
	//   "Fingerprint": "9fceb02d0ae598e95dc970b74767f19372d61af8:config/app.env:aws-access-token:3"
	//  }
	// ]
}

// A template sees the findings with gitleaks' field names, so gitleaks'
// templates work unchanged (--report-template FILE).
func ExampleNewWriter_template() {
	tmpl := `{{ len . }} findings
{{ range . }}- {{ .RuleID }} at {{ .File }}:{{ .StartLine }} ({{ .Secret | trunc 4 }}...)
{{ end }}`
	w, err := report.NewWriter(report.FormatTemplate, os.Stdout, report.Options{Template: tmpl})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range exampleFindings {
		w.Write(f)
	}
	w.Close()
	// Output:
	// 2 findings
	// - aws-access-token at config/app.env:3 (AKIA...)
	// - generic-api-key at dist/bundle.zip!conf/x.env:7 (q8Vn...)
}

// Shards of one scan (--shard i/n) each write a report; Merge joins them,
// in any mix of json and jsonl, spindle's schema or gitleaks'.
func ExampleMerge() {
	dir, _ := os.MkdirTemp("", "shards")
	defer os.RemoveAll(dir)
	shard := func(name string, format report.Format, findings ...report.Finding) string {
		path := filepath.Join(dir, name)
		out, _ := os.Create(path)
		w, _ := report.NewWriter(format, out, report.Options{})
		for _, f := range findings {
			w.Write(f)
		}
		w.Close()
		out.Close()
		return path
	}
	a := shard("0.jsonl", report.FormatJSONL, exampleFindings[0])
	b := shard("1.json", report.FormatGitleaks, exampleFindings[1], exampleFindings[0]) // a duplicate

	w, _ := report.NewWriter(report.FormatText, os.Stdout, report.Options{})
	sum, err := report.Merge(w, a, b)
	if err != nil {
		log.Fatal(err)
	}
	w.Close()
	sum.WriteText(os.Stdout)
	// Output:
	// config/app.env
	//   3:9  aws-access-token  AKIAZ7QKXW3VUMPLR2TD
	//
	// dist/bundle.zip!conf/x.env
	//   7:10  generic-api-key  q8Vn3kT0pLx9Wz2Rb6Yc
	// merged 2 reports: 2 findings, 1 duplicate removed
	// by rule: 1 aws-access-token, 1 generic-api-key
}

// A report file is replaced whole or not at all; an output that names the
// baseline is refused.
func ExampleCreateAtomic() {
	dir, _ := os.MkdirTemp("", "report")
	defer os.RemoveAll(dir)
	baseline := filepath.Join(dir, "baseline.json")
	os.WriteFile(baseline, []byte("[]\n"), 0o644)

	output := filepath.Join(dir, ".", "baseline.json")
	if report.SameFile(output, baseline) {
		fmt.Println("refused: the output is the baseline")
	}

	out, err := report.CreateAtomic(filepath.Join(dir, "report.json"))
	if err != nil {
		log.Fatal(err)
	}
	defer out.Abort() // removes the temporary file unless committed
	w, _ := report.NewWriter(report.FormatJSON, out, report.Options{})
	w.Write(exampleFindings[0])
	if err := w.Close(); err != nil {
		log.Fatal(err) // the deferred Abort leaves any previous report as it was
	}
	if err := out.Commit(); err != nil {
		log.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	fmt.Println(strings.Count(string(b), "rule_id"), "finding")
	// Output:
	// refused: the output is the baseline
	// 1 finding
}
