package report

import (
	"bufio"
	"encoding/xml"
	"strconv"
	"strings"
)

// junitFormat writes JUnit XML, the test report CI systems (Jenkins,
// GitLab, GitHub Actions reporters, Azure Pipelines) read: a <testsuites>
// holding a <testsuite> per rule, in rule order, and in it a failed
// <testcase> per finding:
//
//	<testsuites name="spindle" tests="2" failures="2" errors="0">
//		<testsuite name="aws-access-token" tests="2" failures="2" errors="0">
//			<testcase classname="aws-access-token" name="config/app.env:3:11" file="config/app.env" line="3">
//				<failure message="AWS Access Token in config/app.env line 3" type="aws-access-token">rule: aws-access-token
//	file: config/app.env
//	...</failure>
//
// A test case is named by its position (commit:file:line:column for a
// history finding), so the same finding has the same name from run to run
// and a CI system can follow it across builds. The failure's body lists the
// finding's fields, one per line, with the secret redacted as asked.
//
// A scan without findings writes one suite holding one passing test case,
// "no secrets found": several CI readers treat a report with no test cases
// as a broken report rather than a clean one.
//
// Counts come first in XML, so they are gathered while findings arrive
// (entry) and written when the sorted findings come back at Close. Text is
// escaped for XML; a character XML 1.0 cannot hold at all (a NUL, an escape
// character, a byte that is not UTF-8) is written as a Go escape (\x1b), as
// the text format does, rather than dropped.
type junitFormat struct {
	opts    Options
	total   int64
	perRule map[string]int64
	rule    string // the open suite
	open    bool
	lost    *Lost // the scan lost data (MarkLost): one more test case, in error
}

func (j *junitFormat) entry(f Finding) entry {
	f = prepare(f, j.opts)
	if j.perRule == nil {
		j.perRule = map[string]int64{}
	}
	j.perRule[f.RuleID]++
	j.total++
	return entry{f: f}
}

func (j *junitFormat) begin(w *bufio.Writer) error {
	_, err := w.WriteString(xml.Header)
	return err
}

func (j *junitFormat) finding(w *bufio.Writer, e *entry) error {
	f := &e.f
	if !j.open || f.RuleID != j.rule {
		if j.open {
			w.WriteString("\t</testsuite>\n")
		} else {
			j.suites(w, j.total)
		}
		j.open, j.rule = true, f.RuleID
		j.suite(w, f.RuleID, j.perRule[f.RuleID], j.perRule[f.RuleID], 0)
	}
	name := f.File + ":" + strconv.Itoa(f.Line) + ":" + strconv.Itoa(f.Column)
	if f.Commit != "" {
		name = f.Commit + ":" + name
	}
	w.WriteString("\t\t<testcase")
	attr(w, "classname", f.RuleID)
	attr(w, "name", name)
	attr(w, "file", f.File)
	attr(w, "line", strconv.Itoa(f.Line))
	w.WriteString(">\n\t\t\t<failure")
	what := f.Description
	if what == "" {
		what = f.RuleID
	}
	message := what + " in " + f.File + " line " + strconv.Itoa(f.Line)
	if f.Commit != "" {
		message += " at commit " + f.Commit
	}
	attr(w, "message", message)
	attr(w, "type", f.RuleID)
	w.WriteString(">")
	xmlText(w, junitBody(f), false)
	_, err := w.WriteString("</failure>\n\t\t</testcase>\n")
	return err
}

func (j *junitFormat) end(w *bufio.Writer) error {
	switch {
	case j.open:
		w.WriteString("\t</testsuite>\n")
	case j.lost != nil:
		// No finding in what was read: no "no secrets found" either.
		j.suites(w, 0)
	default:
		j.suites(w, 1)
		j.suite(w, "spindle", 1, 0, 0)
		w.WriteString("\t\t<testcase classname=\"spindle\" name=\"no secrets found\"></testcase>\n\t</testsuite>\n")
	}
	if j.lost != nil {
		j.lostCase(w)
	}
	_, err := w.WriteString("</testsuites>\n")
	return err
}

// suites opens <testsuites> with tests test cases of findings (or the
// passing one), and the lost-data case if any.
func (j *junitFormat) suites(w *bufio.Writer, tests int64) {
	var errs int64
	if j.lost != nil {
		errs = 1
	}
	w.WriteString("<testsuites")
	attr(w, "name", j.opts.ToolName)
	attr(w, "tests", strconv.FormatInt(tests+errs, 10))
	attr(w, "failures", strconv.FormatInt(j.total, 10))
	attr(w, "errors", strconv.FormatInt(errs, 10))
	w.WriteString(">\n")
}

func (j *junitFormat) suite(w *bufio.Writer, name string, tests, failures, errs int64) {
	w.WriteString("\t<testsuite")
	attr(w, "name", name)
	attr(w, "tests", strconv.FormatInt(tests, 10))
	attr(w, "failures", strconv.FormatInt(failures, 10))
	attr(w, "errors", strconv.FormatInt(errs, 10))
	w.WriteString(">\n")
}

// junitBody is a failure's text: the finding's fields, one per line.
func junitBody(f *Finding) string {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	line("rule", f.RuleID)
	line("description", f.Description)
	line("file", f.File)
	line("line", strconv.Itoa(f.Line)+", column "+strconv.Itoa(f.Column))
	line("secret", f.Secret)
	line("match", f.Match)
	line("commit", f.Commit)
	line("author", strings.TrimSpace(f.Author+" <"+f.Email+">"))
	line("date", f.Date)
	line("message", f.Message)
	line("fingerprint", f.Fingerprint)
	line("tags", strings.Join(f.Tags, " "))
	return strings.TrimSuffix(b.String(), "\n")
}

// attr writes ` name="value"`, the value escaped.
func attr(w *bufio.Writer, name, value string) {
	w.WriteString(" " + name + "=\"")
	xmlText(w, value, true)
	w.WriteByte('"')
}

// xmlText writes s escaped for XML: &, < and > always, a carriage return as
// a character reference (a parser would fold it into a newline), and in an
// attribute value also the quote, tab and newline (which a parser would
// fold into spaces). Characters XML 1.0 cannot carry at all are first
// written as Go escapes (see xmlSafe).
func xmlText(w *bufio.Writer, s string, inAttr bool) {
	s = xmlSafe(s)
	start := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch c := s[i]; {
		case c == '&':
			esc = "&amp;"
		case c == '<':
			esc = "&lt;"
		case c == '>':
			esc = "&gt;"
		case c == '\r':
			esc = "&#xD;"
		case inAttr && c == '"':
			esc = "&quot;"
		case inAttr && c == '\n':
			esc = "&#xA;"
		case inAttr && c == '\t':
			esc = "&#x9;"
		default:
			continue
		}
		w.WriteString(s[start:i])
		w.WriteString(esc)
		start = i + 1
	}
	w.WriteString(s[start:])
}

// xmlSafe replaces what XML 1.0 cannot hold (control characters other than
// tab, newline and carriage return; U+FFFE, U+FFFF; bytes that are not
// UTF-8) with Go escapes.
func xmlSafe(s string) string {
	return escapeUnsafe(s, func(r rune) bool {
		return r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r != 0xFFFE && r != 0xFFFF)
	})
}
