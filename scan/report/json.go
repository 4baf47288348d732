package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
)

// prepare is what every writer does to a finding before formatting it: hide
// the secret as opts asks, and normalise the fields that would otherwise make
// the output awkward to consume (a nil Tags would print as JSON null, a
// non-finite Entropy cannot be encoded at all and would abort the report).
func prepare(f Finding, opts Options) Finding {
	f = Redact(f, opts.Redact)
	if f.Tags == nil {
		f.Tags = []string{}
	}
	if math.IsNaN(f.Entropy) || math.IsInf(f.Entropy, 0) {
		f.Entropy = 0
	}
	return f
}

// jsonWriter writes a JSON array of findings, one indented element per Write.
// It streams: each element reaches w during its Write, and Close adds the
// closing bracket, so memory does not grow with the report. A consumer that
// reads the output before Close sees an unterminated array; jsonl is the
// format for reading while the scan runs.
type jsonWriter struct {
	w     io.Writer
	opts  Options
	n     int          // findings written so far
	buf   bytes.Buffer // one element, reused
	enc   *json.Encoder
	state closeState
}

func newJSONWriter(w io.Writer, opts Options) *jsonWriter {
	jw := &jsonWriter{w: w, opts: opts}
	jw.enc = json.NewEncoder(&jw.buf)
	// Secrets and paths are shown as they are: "<" stays "<", not "\u003c".
	jw.enc.SetEscapeHTML(false)
	jw.enc.SetIndent(" ", " ")
	return jw
}

func (jw *jsonWriter) Write(f Finding) error {
	if err := jw.state.check(); err != nil {
		return err
	}
	jw.buf.Reset()
	if jw.n == 0 {
		jw.buf.WriteString("[\n ")
	} else {
		jw.buf.WriteString(",\n ")
	}
	if err := jw.enc.Encode(prepare(f, jw.opts)); err != nil {
		return jw.state.fail(err)
	}
	// Encode ends the element with a newline; the separator or the closing
	// bracket supplies it instead, so that no comma sits on a line alone.
	jw.buf.Truncate(jw.buf.Len() - 1)
	if _, err := jw.w.Write(jw.buf.Bytes()); err != nil {
		return jw.state.fail(err)
	}
	jw.n++
	return nil
}

func (jw *jsonWriter) Close() error {
	return jw.state.close(func() error {
		tail := "\n]\n"
		if jw.n == 0 {
			tail = "[]\n"
		}
		_, err := io.WriteString(jw.w, tail)
		return err
	})
}

// jsonlWriter writes one compact JSON object per line (JSON Lines). Each
// finding reaches w in a single Write call before Write returns, so a
// consumer can act on findings while the scan runs, and concurrent readers of
// a pipe never see half a line from this writer. JSON escapes every newline
// inside a string, so a finding is always exactly one line.
type jsonlWriter struct {
	w     io.Writer
	opts  Options
	enc   *json.Encoder
	state closeState
}

func newJSONLWriter(w io.Writer, opts Options) *jsonlWriter {
	lw := &jsonlWriter{w: w, opts: opts}
	// json.Encoder writes each value with one call to w.Write.
	lw.enc = json.NewEncoder(w)
	lw.enc.SetEscapeHTML(false)
	return lw
}

func (lw *jsonlWriter) Write(f Finding) error {
	if err := lw.state.check(); err != nil {
		return err
	}
	if err := lw.enc.Encode(prepare(f, lw.opts)); err != nil {
		return lw.state.fail(err)
	}
	return nil
}

// Close writes nothing: an empty jsonl report is empty.
func (lw *jsonlWriter) Close() error {
	return lw.state.close(func() error { return nil })
}
