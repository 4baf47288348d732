package report

import (
	"bufio"
	"strconv"
)

// Lost is what a report says of a scan that lost data: something it was
// asked to read (a file, an object of a repository, an archive member)
// was not read, so its findings are those of a partial scan.
type Lost struct {
	Warnings int64  // warnings that lost data
	Kinds    string // the kinds of those warnings with their counts, in one line
	First    string // the first of them, in one line
}

// Message is l as one sentence.
func (l Lost) Message() string {
	msg := "the scan lost data: " + strconv.FormatInt(l.Warnings, 10) + " warning"
	if l.Warnings != 1 {
		msg += "s"
	}
	if l.Kinds != "" {
		msg += " (" + l.Kinds + ")"
	}
	if l.First != "" {
		msg += "; first: " + l.First
	}
	return msg + "; what was not read was not searched"
}

// lostFormat is a format that can say in the report that its scan lost
// data (see MarkLost).
type lostFormat interface {
	markLost(l Lost)
}

// MarkLost tells w, before Close, that its scan lost data, for the formats
// that have a place to say it: SARIF marks its invocation with
// executionSuccessful false and a toolExecutionNotification of level error
// carrying l.Message(); junit adds a test case "lost data" with an <error>
// (the suites count it in errors); a shard's json or jsonl report counts
// l.Warnings in its trailer ("lost"). text, csv, a json report that is not
// a shard's (gitleaks' schema, an array of findings) and templates have no
// such place: the command's exit status and summary say it.
func MarkLost(w Writer, l Lost) {
	if l.Warnings <= 0 {
		return
	}
	switch w := w.(type) {
	case *sortedWriter:
		if f, ok := w.format.(lostFormat); ok {
			f.markLost(l)
		}
	case lostFormat:
		w.markLost(l)
	}
}

func (s *sarifFormat) markLost(l Lost) { s.lost = &l }

// notifications writes the invocation's toolExecutionNotifications for a
// run that lost data.
func (s *sarifFormat) notifications(w *bufio.Writer) error {
	if s.lost == nil {
		return nil
	}
	type message struct {
		Text string `json:"text"`
	}
	type notification struct {
		Level      string            `json:"level"`
		Message    message           `json:"message"`
		Properties map[string]string `json:"properties"`
	}
	n := []notification{{Level: "error", Message: message{s.lost.Message()},
		Properties: map[string]string{"lostDataWarnings": strconv.FormatInt(s.lost.Warnings, 10)}}}
	w.WriteString(",\n          \"toolExecutionNotifications\": ")
	return s.encode(w, n, "          ")
}

func (j *junitFormat) markLost(l Lost) { j.lost = &l }

// lostCase writes the errored test case of a scan that lost data, in its
// own suite.
func (j *junitFormat) lostCase(w *bufio.Writer) {
	j.suite(w, "spindle coverage", 1, 0, 1)
	w.WriteString("\t\t<testcase classname=\"spindle\" name=\"lost data\">\n\t\t\t<error")
	attr(w, "message", j.lost.Message())
	attr(w, "type", "lost-data")
	w.WriteString("></error>\n\t\t</testcase>\n\t</testsuite>\n")
}
