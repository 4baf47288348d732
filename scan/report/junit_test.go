package report

import (
	"slices"
	"strings"
	"testing"
)

func TestJUnitHasASuitePerRuleAndAFailedCasePerFinding(t *testing.T) {
	findings := sampleFindings()
	doc := decodeJUnit(t, render(t, FormatJUnit, Options{}, findings))
	if doc.Tests != len(findings) || doc.Failures != len(findings) || doc.Name != "spindle" {
		t.Fatalf("testsuites name=%q tests=%d failures=%d, want spindle, %d, %d", doc.Name, doc.Tests, doc.Failures, len(findings), len(findings))
	}
	var suites []string
	perRule := map[string]int{}
	for _, f := range findings {
		perRule[f.RuleID]++
	}
	for _, s := range doc.Suites {
		suites = append(suites, s.Name)
		if s.Tests != perRule[s.Name] {
			t.Errorf("suite %s has %d tests, want %d", s.Name, s.Tests, perRule[s.Name])
		}
		for _, c := range s.Cases {
			if c.Classname != s.Name || c.Failure == nil || c.Failure.Type != s.Name {
				t.Errorf("case %q in suite %s: classname %q, failure %+v", c.Name, s.Name, c.Classname, c.Failure)
			}
		}
	}
	if want := []string{"aws-access-token", "generic-api-key", "github-pat", "private-key"}; !slices.Equal(suites, want) {
		t.Fatalf("suites = %v, want one per rule in rule order %v", suites, want)
	}
}

func TestJUnitCaseNamesAndBodiesCarryTheFinding(t *testing.T) {
	f := sampleFindings()[4] // a history finding
	doc := decodeJUnit(t, render(t, FormatJUnit, Options{}, []Finding{f}))
	c := doc.Suites[0].Cases[0]
	if want := f.Commit + ":deploy/ci.yml:2:9"; c.Name != want {
		t.Errorf("name = %q, want %q", c.Name, want)
	}
	if c.File != f.File || c.Line != f.Line {
		t.Errorf("file, line = %q, %d; want %q, %d", c.File, c.Line, f.File, f.Line)
	}
	for _, want := range []string{f.Secret, f.Commit, "Ann Example <ann@example.com>", f.Date, f.Message, f.Fingerprint} {
		if !strings.Contains(c.Failure.Body, want) {
			t.Errorf("failure body lacks %q:\n%s", want, c.Failure.Body)
		}
	}
	if !strings.Contains(c.Failure.Message, "at commit "+f.Commit) {
		t.Errorf("failure message %q does not name the commit", c.Failure.Message)
	}
}

func TestJUnitCarriesHostileTextAsWellFormedXML(t *testing.T) {
	f := Finding{
		RuleID: `r"<&>`, Description: "d\x00\x1b[2J", File: "a\"b'<c>&\r\n\t.env\xff", Line: 1, Column: 1,
		Secret: "]]></failure><x>\x7f\ufffe", Match: "m\x0b",
	}
	out := render(t, FormatJUnit, Options{}, []Finding{f})
	doc := decodeJUnit(t, out)
	c := doc.Suites[0].Cases[0]
	// Attribute values keep quotes, tabs and newlines (escaped as
	// references); what XML cannot hold comes back as a Go escape.
	if c.File != "a\"b'<c>&\r\n\t.env\\xff" {
		t.Errorf("file attribute = %q", c.File)
	}
	if doc.Suites[0].Name != `r"<&>` {
		t.Errorf("suite name = %q", doc.Suites[0].Name)
	}
	if !strings.Contains(c.Failure.Body, "]]></failure><x>\x7f\\ufffe") || !strings.Contains(c.Failure.Body, `d\x00\x1b[2J`) {
		t.Errorf("failure body = %q", c.Failure.Body)
	}
}

func TestJUnitRedactsTheSecret(t *testing.T) {
	f := sampleFindings()[0]
	out := render(t, FormatJUnit, Options{Redact: 100}, []Finding{f})
	if strings.Contains(out, f.Secret) || !strings.Contains(out, "REDACTED") {
		t.Fatalf("junit redacted at 100:\n%s", out)
	}
}
