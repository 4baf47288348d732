package report

import (
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzWriters renders one arbitrary finding in every format and checks the
// properties every report must keep whatever the scanned files contain:
// machine formats parse back to the same finding, text output carries no
// terminal control, junit is well-formed XML, and at redaction 100 the
// secret is gone.
//
// The last property once failed within seconds: SARIF hid the secret in the
// file name first and cleaned the path after, and cleaning can join pieces
// of a name into the secret ("k/./ey" is "k/ey"); the regression test is
// TestSARIFRedactsTheCleanedArtifactPath. Its check is made where it means
// something: for secrets that look like one, and for names made of
// characters no format escapes, since an escape (\u001b, %20, \x1b) ends in
// letters and digits that can spell a "secret" that is not in the finding.
func FuzzWriters(f *testing.F) {
	f.Add("aws-access-token", "config/app.env", "AKIAZ7QKXW3VUMPLR2TD", "KEY=AKIAZ7QKXW3VUMPLR2TD", 3, 9, "")
	f.Add("r", "a.zip!dir/x.env", "k3y,with\"quote\nnext", "m: k3y,with\"quote\nnext", 1, 1, "")
	f.Add("r\x1b[2J", "evil\x1b]0;x\a.env", "tok\u202eNEK\r", "", 0, 0, "")
	f.Add("", "", "", "", -1, -1, "")
	f.Add("r", "wow!.txt", "\xff\xfe", "\xff\xfe\xfd", 1<<40, 5, "")
	f.Add("r", "k/./ey/x", "k/ey/x", "", 1, 1, "")
	f.Add("r", "d\xffir/f.env", "s3cr3t", "s3cr3t", 2, 1, "9fceb02d0ae598e95dc970b74767f19372d61af8")
	f.Fuzz(func(t *testing.T, rule, file, secret, match string, line, col int, commit string) {
		in := Finding{
			RuleID: rule, Description: "d", File: file, Line: line, Column: col,
			EndLine: line, EndColumn: col, Secret: secret, Match: match,
			Fingerprint: file + ":" + rule, Tags: []string{"t"}, Commit: commit,
		}
		// encoding/csv's reader drops a CR before LF; every other value,
		// bytes that are not UTF-8 included, round-trips exactly.
		csvExact := !strings.Contains(rule+file+secret+match+commit, "\r")
		for _, format := range allFormats() {
			out := render(t, format, Options{}, []Finding{in})
			switch format {
			case FormatJSON, FormatJSONL, FormatGitleaks, FormatCSV:
				got := decodeMachine(t, format, out)
				if len(got) != 1 || ((format != FormatCSV || csvExact) && !sameFinding(got[0], in)) {
					t.Fatalf("%s: round trip\n got %+v\nwant %+v", format, got, in)
				}
			case FormatSARIF:
				if n := len(decodeSARIF(t, out).Runs[0].Results); n != 1 {
					t.Fatalf("sarif: %d results", n)
				}
			case FormatJUnit:
				if n := decodeJUnit(t, out).cases(); n != 1 {
					t.Fatalf("junit: %d test cases", n)
				}
			case FormatText:
				for line := range strings.Lines(out) {
					line = strings.TrimSuffix(line, "\n")
					if !utf8.ValidString(line) || strings.ContainsFunc(line, func(r rune) bool { return !textSafe(r) }) {
						t.Fatalf("text line carries control characters: %q", line)
					}
				}
			}

			// At 100, the secret is gone: the report holds it only where a
			// report of the same finding without secret, match and file
			// would (a rule ID, a key name, a line number can spell it).
			s := secretOf(in)
			if !tokenLike(s) || !unescaped(rule+file+match+commit) {
				continue
			}
			printed := printedAs(format, s)
			redacted := render(t, format, Options{Redact: 100}, []Finding{in})
			fixed := render(t, format, Options{}, []Finding{{RuleID: rule, Description: "d", Line: line, Column: col, EndLine: line, EndColumn: col, Tags: []string{"t"}}})
			if strings.Contains(redacted, printed) && !strings.Contains(fixed, printed) {
				t.Fatalf("%s redacted at 100 contains the secret %q:\n%s", format, s, redacted)
			}
		}
	})
}

// tokenLike reports whether s looks like a credential: six or more of
// [a-z0-9_+/=.-] and upper-case letters other than those of "REDACTED".
func tokenLike(s string) bool {
	if len(s) < 6 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', strings.ContainsRune("_+/=.-", r):
		case r >= 'A' && r <= 'Z' && !strings.ContainsRune(redactedMark, r):
		default:
			return false
		}
	}
	return true
}

// unescaped reports whether no format escapes any character of s: ASCII
// letters, digits, and the punctuation a URI path, JSON, XML, CSV and a
// terminal all carry as it is.
func unescaped(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~!$'()*+,;=:@/", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// junitDoc is the structure CI readers take from a JUnit report.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Cases    []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			File      string `xml:"file,attr"`
			Line      int    `xml:"line,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// cases counts the failed test cases.
func (d junitDoc) cases() int {
	n := 0
	for _, s := range d.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				n++
			}
		}
	}
	return n
}

// decodeJUnit parses a junit report with encoding/xml and checks that its
// counts agree with its content.
func decodeJUnit(t testing.TB, out string) junitDoc {
	t.Helper()
	var doc junitDoc
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("junit report does not parse: %v\n%s", err, out)
	}
	if !strings.HasPrefix(out, xml.Header) {
		t.Fatalf("junit report lacks the XML declaration:\n%s", out)
	}
	tests, failures := 0, 0
	for _, s := range doc.Suites {
		failed := 0
		for _, c := range s.Cases {
			if c.Failure != nil {
				failed++
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != failed {
			t.Fatalf("suite %q: tests=%d failures=%d, holds %d cases, %d failed", s.Name, s.Tests, s.Failures, len(s.Cases), failed)
		}
		tests += s.Tests
		failures += s.Failures
	}
	if doc.Tests != tests || doc.Failures != failures {
		t.Fatalf("testsuites: tests=%d failures=%d, suites hold %d and %d", doc.Tests, doc.Failures, tests, failures)
	}
	return doc
}
