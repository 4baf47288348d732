package report

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"strconv"
)

// gitleaksJUnitFormat is gitleaks' JUnit report (`gitleaks --report-format
// junit`), byte for byte but for the order of test cases: one
// <testsuite> named after the tool holding every finding as a failed
// <testcase>, whose classname and failure type are the rule's description,
// whose name and failure message are gitleaks' sentence ("rule has
// detected a secret in file F, line N."), and whose failure text is the
// finding as gitleaks' JSON (tab-indented). Text is escaped as
// encoding/xml escapes it (quotes, tabs and newlines as character
// references, what XML cannot hold as U+FFFD), and the document ends
// without a newline, as gitleaks' does.
//
// The counts come first in XML: they are gathered as findings arrive and
// the suite is opened at the first sorted finding (or at Close).
type gitleaksJUnitFormat struct {
	opts   Options
	remote remoteInfo // for each history finding's Link
	total  int
	open   bool
	lost   *Lost // the scan lost data (MarkLost): one more test case, in error
}

func (j *gitleaksJUnitFormat) entry(f Finding) entry {
	j.total++
	return entry{f: prepare(f, j.opts)}
}

func (j *gitleaksJUnitFormat) begin(w *bufio.Writer) error {
	_, err := w.WriteString(xml.Header)
	return err
}

// suite opens <testsuites> and the suite.
func (j *gitleaksJUnitFormat) suite(w *bufio.Writer) {
	j.open = true
	n := strconv.Itoa(j.total)
	w.WriteString("<testsuites>\n\t<testsuite ")
	if j.lost != nil {
		w.WriteString("errors=\"1\" ")
		n = strconv.Itoa(j.total + 1)
	}
	w.WriteString("failures=\"" + strconv.Itoa(j.total) + "\" name=\"")
	xml.EscapeText(w, []byte(j.opts.ToolName))
	w.WriteString("\" tests=\"" + n + "\" time=\"\">")
}

func (j *gitleaksJUnitFormat) markLost(l Lost) { j.lost = &l }

func (j *gitleaksJUnitFormat) finding(w *bufio.Writer, e *entry) error {
	if !j.open {
		j.suite(w)
	}
	gf := toGitleaks(&e.f, j.remote)
	message := gf.RuleID + " has detected a secret in file " + gf.File + ", line " + strconv.Itoa(gf.StartLine)
	if gf.Commit != "" {
		message += ", at commit " + gf.Commit
	}
	message += "."
	data, err := json.MarshalIndent(gf, "", "\t")
	if err != nil {
		return err
	}
	text := func(s string) { xml.EscapeText(w, []byte(s)) }
	w.WriteString("\n\t\t<testcase classname=\"")
	text(gf.Description)
	w.WriteString("\" file=\"")
	text(gf.File)
	w.WriteString("\" name=\"")
	text(message)
	w.WriteString("\" time=\"\">\n\t\t\t<failure message=\"")
	text(message)
	w.WriteString("\" type=\"")
	text(gf.Description)
	w.WriteString("\">")
	xml.EscapeText(w, data)
	_, err = w.WriteString("</failure>\n\t\t</testcase>")
	return err
}

func (j *gitleaksJUnitFormat) end(w *bufio.Writer) error {
	if !j.open {
		j.suite(w)
		if j.lost == nil {
			_, err := w.WriteString("</testsuite>\n</testsuites>")
			return err
		}
	}
	if l := j.lost; l != nil {
		// A scan that lost data is an errored test case, after the
		// findings (gitleaks has none such).
		w.WriteString("\n\t\t<testcase classname=\"spindle\" name=\"lost data\" time=\"\">\n\t\t\t<error message=\"")
		xml.EscapeText(w, []byte(l.Message()))
		w.WriteString("\" type=\"lost-data\"></error>\n\t\t</testcase>")
	}
	_, err := w.WriteString("\n\t</testsuite>\n</testsuites>")
	return err
}
