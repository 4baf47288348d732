package report

import (
	"bufio"
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

// appendFindingJSON appends f as one object of spindle's JSON schema (the
// json and jsonl formats): snake_case keys in Finding's order, the history
// fields only when set. See jsonenc.go for how strings are escaped.
func appendFindingJSON(b []byte, f *Finding, indent bool) []byte {
	o := jsonObject{b: b, indent: indent}
	o.open()
	o.str("rule_id", f.RuleID)
	o.str("description", f.Description)
	o.str("file", f.File)
	o.int("line", f.Line)
	o.int("column", f.Column)
	o.int("end_line", f.EndLine)
	o.int("end_column", f.EndColumn)
	o.str("secret", f.Secret)
	o.str("match", f.Match)
	o.float("entropy", f.Entropy, 64)
	o.str("fingerprint", f.Fingerprint)
	o.strs("tags", f.Tags)
	for _, kv := range [...][2]string{
		{"commit", f.Commit}, {"author", f.Author}, {"email", f.Email}, {"date", f.Date}, {"message", f.Message},
	} {
		if kv[1] != "" {
			o.str(kv[0], kv[1])
		}
	}
	o.close()
	return o.b
}

// jsonFormat is the json report: a JSON array of findings, one indented
// element per finding, sorted (see compareFindings). The opening bracket
// goes out at the first Write; an empty report is "[]". A shard's report
// has its Shard header as the first element.
type jsonFormat struct {
	opts    Options
	n       int     // elements written: findings, and a shard's header
	buf     []byte  // one element, reused
	trailer trailer // a shard's: what its findings add up to
}

func (j *jsonFormat) entry(f Finding) entry { return entry{f: prepare(f, j.opts)} }

func (j *jsonFormat) begin(w *bufio.Writer) error {
	return beginArray(w, j.opts.Shard, &j.n, false)
}

// beginArray writes the opening of a json array report and, for a shard's
// report, its header element, counted in *n.
func beginArray(w *bufio.Writer, shard *Shard, n *int, html bool) error {
	b := []byte("[")
	if shard != nil {
		b = appendShardJSON(append(b, "\n "...), shard, true, html)
		*n++
	}
	_, err := w.Write(b)
	return err
}

func (j *jsonFormat) finding(w *bufio.Writer, e *entry) error {
	sep := ",\n "
	if j.n == 0 {
		sep = "\n "
	}
	j.n++
	j.buf = appendFindingJSON(append(j.buf[:0], sep...), &e.f, true)
	j.trailer.count(j.buf[len(sep):])
	_, err := w.Write(j.buf)
	return err
}

func (j *jsonFormat) end(w *bufio.Writer) error {
	return endArray(w, j.opts.Shard, &j.trailer, j.n)
}

func (j *jsonFormat) markLost(l Lost) { j.trailer.lost = l.Warnings }

// endArray closes a json array report of n elements, after a shard's
// report's trailer.
func endArray(w *bufio.Writer, shard *Shard, t *trailer, n int) error {
	if shard != nil {
		b := appendTrailerJSON([]byte(",\n "), t, true)
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	tail := "\n]\n"
	if n == 0 {
		tail = "]\n"
	}
	_, err := w.WriteString(tail)
	return err
}

// jsonlWriter writes one compact JSON object per line (JSON Lines), in
// arrival order. Each finding reaches w in a single Write call before Write
// returns, so a consumer can act on findings while the scan runs, and
// concurrent readers of a pipe never see half a line from this writer. JSON
// escapes every newline inside a string, so a finding is always exactly one
// line. A shard's report starts with its Shard header line.
type jsonlWriter struct {
	w       io.Writer
	opts    Options
	buf     []byte
	headed  bool // the shard header is written
	state   closeState
	trailer trailer // a shard's: what its findings add up to
}

func newJSONLWriter(w io.Writer, opts Options) *jsonlWriter {
	return &jsonlWriter{w: w, opts: opts}
}

func (lw *jsonlWriter) Write(f Finding) error {
	if err := lw.state.check(); err != nil {
		return err
	}
	f = prepare(f, lw.opts)
	lw.buf = lw.header(lw.buf[:0])
	at := len(lw.buf)
	lw.buf = appendFindingJSON(lw.buf, &f, false)
	lw.trailer.count(lw.buf[at:])
	lw.buf = append(lw.buf, '\n')
	if _, err := lw.w.Write(lw.buf); err != nil {
		return lw.state.fail(err)
	}
	return nil
}

// header appends a shard's header line, once, before the first finding.
func (lw *jsonlWriter) header(b []byte) []byte {
	if lw.opts.Shard == nil || lw.headed {
		return b
	}
	lw.headed = true
	return append(appendShardJSON(b, lw.opts.Shard, false, false), '\n')
}

// Close writes a shard's header if no finding came, and its trailer; an
// empty jsonl report that is not a shard's is empty.
func (lw *jsonlWriter) Close() error {
	return lw.state.close(func() error {
		b := lw.header(nil)
		if lw.opts.Shard != nil {
			b = append(appendTrailerJSON(b, &lw.trailer, false), '\n')
		}
		if len(b) > 0 {
			_, err := lw.w.Write(b)
			return err
		}
		return nil
	})
}

func (lw *jsonlWriter) markLost(l Lost) { lw.trailer.lost = l.Warnings }
