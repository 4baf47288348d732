package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Reports read back (baselines, shard reports for Merge) are untrusted: a
// baseline may come from a pull request, a shard report from any machine.
// reportReader streams one, entry by entry, under limits checked on the raw
// bytes before encoding/json buffers them (see readGuard), so that no input
// can make it hold more than one bounded entry: a file that is one 5 GiB
// JSON string, a 5 GiB object, or a million nested arrays each end with a
// clear error at the point where they cross a limit. Errors never quote a
// value from the report: reports hold secrets and errors reach CI logs.

// Limits on what a report read back may hold. A finding's longest strings
// are its match and secret (a private key is a few KiB), so these are far
// above any real report and far below what would hurt.
const (
	maxReportString = 1 << 20 // bytes in one JSON string, escapes included
	maxReportEntry  = 4 << 20 // bytes in one finding object
	maxReportDepth  = 32      // nesting of arrays and objects
	// MaxBaselineSize is the largest baseline LoadBaseline reads: a
	// baseline is held in memory (about its own size again), and a report
	// that large holds over a million findings.
	MaxBaselineSize = 512 << 20
)

// ErrReportLimit is wrapped by the error for a report that crosses one of
// the limits on what a report read back may hold (its size as a baseline,
// the length of a string, the size of one finding, the nesting depth).
var ErrReportLimit = errors.New("report exceeds a limit")

// readGuard is an io.Reader that watches the JSON it passes for the limits
// above. It tracks just enough syntax to do so (whether a byte is inside a
// string, the nesting depth) and fails the read at the first byte past a
// limit; the decoder then returns that error. The error sticks.
type readGuard struct {
	r        io.Reader
	maxTotal int64 // 0: no limit on the whole input
	offset   int64 // bytes passed so far
	depth    int
	entryAt  int   // depth at which entries open: 1 (jsonl) or 2 (json); 0 until known
	start    int64 // offset where the current entry opened
	inString bool
	escape   bool
	strStart int64 // offset where the current string opened
	scalar   int64 // length of the number or literal being read
	err      error
}

func (g *readGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	for i := 0; i < n; i++ {
		if g.err = g.step(p[i]); g.err != nil {
			return i, g.err
		}
		g.offset++
	}
	if g.maxTotal > 0 && g.offset > g.maxTotal {
		g.err = fmt.Errorf("%w: larger than %s", ErrReportLimit, humanBytes(g.maxTotal))
		return n, g.err
	}
	return n, err
}

// step advances the syntax state by one byte at g.offset.
func (g *readGuard) step(c byte) error {
	if g.inString {
		switch {
		case g.escape:
			g.escape = false
		case c == '\\':
			g.escape = true
		case c == '"':
			g.inString = false
		}
		if g.offset-g.strStart >= maxReportString {
			return fmt.Errorf("%w: a string longer than %s at byte %d", ErrReportLimit, humanBytes(maxReportString), g.strStart)
		}
		return g.checkEntry()
	}
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '"', '[', '{', ']', '}':
		g.scalar = 0
	default: // a byte of a number or a literal, which the decoder buffers whole
		if g.scalar++; g.scalar > maxReportString {
			return fmt.Errorf("%w: a value longer than %s at byte %d", ErrReportLimit, humanBytes(maxReportString), g.offset-g.scalar+1)
		}
	}
	switch c {
	case '"':
		g.inString, g.strStart = true, g.offset
	case '[', '{':
		if g.entryAt == 0 {
			g.entryAt = 1
			if c == '[' {
				g.entryAt = 2
			}
		}
		g.depth++
		if g.depth > maxReportDepth {
			return fmt.Errorf("%w: nested deeper than %d at byte %d", ErrReportLimit, maxReportDepth, g.offset)
		}
		if g.depth == g.entryAt {
			g.start = g.offset
		}
	case ']', '}':
		g.depth--
	}
	return g.checkEntry()
}

// checkEntry fails when the entry being read has grown past its limit.
func (g *readGuard) checkEntry() error {
	if g.entryAt > 0 && g.depth >= g.entryAt && g.offset-g.start >= maxReportEntry {
		return fmt.Errorf("%w: a finding larger than %s at byte %d", ErrReportLimit, humanBytes(maxReportEntry), g.start)
	}
	return nil
}

// reportReader reads the findings of a json report (an array), a jsonl
// report (one object per line, or any run of objects), or JSON null, in
// spindle's schema or gitleaks' (see reportKeys). A shard's header (see
// Shard), the first entry of a shard's report, is read into shard.
type reportReader struct {
	guard   *readGuard
	dec     *json.Decoder
	skipped int64 // bytes consumed before dec started (BOM, white space)
	array   bool
	done    bool
	n       int    // entries read, the shard header included
	shard   *Shard // the report's shard header, if it has one
	schema  Schema // the schema of the findings read so far
	// trailer is the report's trailer, once read (see findingSum); sum and
	// findings are what the findings read add up to, to check it against.
	trailer  *trailer
	sum      findingSum
	findings int64
	sums     bool // sum the findings' text (Merge's reports; not a baseline)
}

// isTypeError reports whether err is a JSON value of the wrong type.
func isTypeError(err error) bool {
	var typeErr *json.UnmarshalTypeError
	return errors.As(err, &typeErr)
}

// Schema names the shape of a report Merge reads: the container (a json
// array or jsonl lines) and the keys of its findings (spindle's snake_case
// or gitleaks' names).
type Schema string

// The schemas of reports read back. SchemaUnknown is a report with no
// findings to tell by.
const (
	SchemaUnknown      Schema = ""
	SchemaJSON         Schema = "json"          // spindle's json: an array, snake_case keys
	SchemaJSONL        Schema = "jsonl"         // spindle's jsonl: a line per finding
	SchemaGitleaksJSON Schema = "gitleaks json" // gitleaks' json: an array, its keys
	schemaGitleaksL    Schema = "gitleaks jsonl"
)

// Format is the report format that writes the schema.
func (s Schema) Format() Format {
	switch s {
	case SchemaJSON:
		return FormatJSON
	case SchemaJSONL, schemaGitleaksL:
		return FormatJSONL
	case SchemaGitleaksJSON:
		return FormatGitleaks
	}
	return ""
}

// utf8BOM is skipped at the start of a report; some Windows editors and
// shells write one.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// newReportReader reads up to the first entry. maxTotal bounds the whole
// input (0: no bound).
func newReportReader(r io.Reader, maxTotal int64) (*reportReader, error) {
	g := &readGuard{r: r, maxTotal: maxTotal}
	br := bufio.NewReader(g)
	rr := &reportReader{guard: g}
	if head, _ := br.Peek(len(utf8BOM)); bytes.Equal(head, utf8BOM) {
		br.Discard(len(utf8BOM))
		rr.skipped += int64(len(utf8BOM))
	}
	first, err := rr.peekNonSpace(br)
	if err == io.EOF {
		return nil, errors.New("empty file, want a JSON array of findings")
	}
	if err != nil {
		return nil, err
	}
	rr.dec = json.NewDecoder(br)
	switch first {
	case '[': // a json report
		rr.array = true
		if _, err := rr.dec.Token(); err != nil {
			return nil, rr.context(err)
		}
	case '{': // a jsonl report
	case 'n': // null: what a tool that marshals a nil slice writes
		var v any
		if err := rr.dec.Decode(&v); err != nil {
			return nil, rr.context(err)
		}
		if v != nil {
			return nil, errors.New("want a JSON array of findings")
		}
		rr.done = true
		if err := rr.finish(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("starts with %q, want a JSON array of findings", first)
	}
	return rr, nil
}

// peekNonSpace skips JSON white space and returns the next byte, unread.
func (rr *reportReader) peekNonSpace(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			rr.skipped++
			continue
		}
		return c, br.UnreadByte()
	}
}

// next returns the next finding; ok is false after the last.
func (rr *reportReader) next() (f Finding, ok bool, err error) {
	if rr.done {
		return Finding{}, false, nil
	}
	if !rr.dec.More() {
		rr.done = true
		if rr.array {
			if _, err := rr.dec.Token(); err != nil { // the closing ']'
				return Finding{}, false, rr.context(err)
			}
		}
		return Finding{}, false, rr.finish()
	}
	if rr.trailer != nil {
		return Finding{}, false, fmt.Errorf("an entry after the trailer at byte %d", rr.offset())
	}
	rr.n++
	f, isFinding, err := rr.entry()
	if err != nil {
		return Finding{}, false, fmt.Errorf("finding %d: %w", rr.n, err)
	}
	if !isFinding {
		return rr.next() // the header or the trailer
	}
	return f, true, nil
}

// finish checks that nothing follows the report.
func (rr *reportReader) finish() error {
	if _, err := rr.dec.Token(); err != io.EOF {
		if err == nil {
			return fmt.Errorf("unexpected data after the report at byte %d", rr.offset())
		}
		return rr.context(err)
	}
	return nil
}

// offset is the byte offset in the file the decoder has reached.
func (rr *reportReader) offset() int64 { return rr.skipped + rr.dec.InputOffset() }

// context adds the file offset to a JSON syntax error, whose message lacks
// it, and names a truncated file. A limit crossed is reported as such.
func (rr *reportReader) context(err error) error {
	if rr.guard.err != nil && errors.Is(rr.guard.err, ErrReportLimit) {
		return rr.guard.err
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("%w (at byte %d)", err, rr.skipped+syn.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("truncated JSON (at byte %d): %w", rr.offset(), io.ErrUnexpectedEOF)
	}
	return err
}

// The keys read from each entry: spindle's JSON names first, then
// gitleaks'. Keys not listed are ignored (gitleaks' Line, SymlinkFile, Link).
var (
	ruleKeys        = []string{"rule_id", "RuleID"}
	descriptionKeys = []string{"description", "Description"}
	fileKeys        = []string{"file", "File"}
	lineKeys        = []string{"line", "StartLine"}
	columnKeys      = []string{"column", "StartColumn"}
	endLineKeys     = []string{"end_line", "EndLine"}
	endColumnKeys   = []string{"end_column", "EndColumn"}
	secretKeys      = []string{"secret", "Secret"}
	matchKeys       = []string{"match", "Match"}
	entropyKeys     = []string{"entropy", "Entropy"}
	fingerprintKeys = []string{"fingerprint", "Fingerprint"}
	tagsKeys        = []string{"tags", "Tags"}
	commitKeys      = []string{"commit", "Commit"}
	authorKeys      = []string{"author", "Author"}
	emailKeys       = []string{"email", "Email"}
	dateKeys        = []string{"date", "Date"}
	messageKeys     = []string{"message", "Message"}
)

// entry decodes one finding. Strings are decoded with unquoteJSON, so the
// reversible escapes of bytes that are not UTF-8 come back as those bytes.
//
// isFinding is false for a shard's header and a report's trailer, which
// are read into rr.shard and rr.trailer.
func (rr *reportReader) entry() (f Finding, isFinding bool, err error) {
	var (
		text json.RawMessage
		raw  map[string]json.RawMessage
		err2 error
	)
	if rr.sums {
		// The entry's text as it stands, for the trailer's checksum, then
		// its members: two passes over it, so only where a trailer is
		// checked.
		if err := rr.dec.Decode(&text); err != nil {
			return Finding{}, false, rr.context(err)
		}
		err2 = json.Unmarshal(text, &raw)
	} else if err2 = rr.dec.Decode(&raw); err2 != nil && !isTypeError(err2) {
		return Finding{}, false, rr.context(err2)
	}
	if err2 != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err2, &typeErr) {
			return Finding{}, false, fmt.Errorf("is a JSON %s, want an object", typeErr.Value)
		}
		return Finding{}, false, err2
	}
	if raw == nil {
		return Finding{}, false, errors.New("is null, want an object")
	}
	if _, ok := raw["runs"]; ok && rr.n == 1 {
		// The likeliest wrong file: the sarif report of the same scan.
		return Finding{}, false, errors.New("this is a SARIF log; a baseline or a shard report is a json or jsonl report")
	}
	if _, ok := raw["shard"]; ok {
		if rr.n != 1 {
			return Finding{}, false, errors.New("a shard header after the first entry")
		}
		sh, err := decodeShard(raw)
		if err != nil {
			return Finding{}, false, err
		}
		rr.shard = sh
		return Finding{}, false, nil
	}
	if t, ok := raw["trailer"]; ok && len(raw) == 1 {
		tr, err := decodeTrailer(t)
		if err != nil {
			return Finding{}, false, err
		}
		rr.trailer = tr
		return Finding{}, false, nil
	}
	rr.findings++
	if rr.sums {
		rr.sum.add(text)
	}
	f, err = rr.finding(raw)
	return f, err == nil, err
}

// finding decodes one finding's members.
func (rr *reportReader) finding(raw map[string]json.RawMessage) (Finding, error) {
	rr.noteSchema(raw)
	var f Finding
	fields := []struct {
		keys []string
		dst  any
		need bool
	}{
		{ruleKeys, &f.RuleID, true},
		{fileKeys, &f.File, true},
		{descriptionKeys, &f.Description, false},
		{lineKeys, &f.Line, false},
		{columnKeys, &f.Column, false},
		{endLineKeys, &f.EndLine, false},
		{endColumnKeys, &f.EndColumn, false},
		{secretKeys, &f.Secret, false},
		{matchKeys, &f.Match, false},
		{entropyKeys, &f.Entropy, false},
		{fingerprintKeys, &f.Fingerprint, false},
		{tagsKeys, &f.Tags, false},
		{commitKeys, &f.Commit, false},
		{authorKeys, &f.Author, false},
		{emailKeys, &f.Email, false},
		{dateKeys, &f.Date, false},
		{messageKeys, &f.Message, false},
	}
	for _, field := range fields {
		found, err := decodeField(raw, field.keys, field.dst)
		if err != nil {
			return Finding{}, err
		}
		if field.need && !found {
			return Finding{}, fmt.Errorf("no %q (or %q) key", field.keys[0], field.keys[1])
		}
	}
	return f, nil
}

// noteSchema records the schema of a finding's keys.
func (rr *reportReader) noteSchema(raw map[string]json.RawMessage) {
	if rr.schema != SchemaUnknown {
		return
	}
	_, gitleaks := raw["RuleID"]
	switch {
	case gitleaks && rr.array:
		rr.schema = SchemaGitleaksJSON
	case gitleaks:
		rr.schema = schemaGitleaksL
	case rr.array:
		rr.schema = SchemaJSON
	default:
		rr.schema = SchemaJSONL
	}
}

// decodeShard reads a shard header entry.
func decodeShard(raw map[string]json.RawMessage) (*Shard, error) {
	var text, scanned, config string
	for _, f := range []struct {
		key string
		dst *string
	}{{"shard", &text}, {"scanned", &scanned}, {"config", &config}} {
		found, err := decodeField(raw, []string{f.key}, f.dst)
		if err != nil {
			return nil, fmt.Errorf("shard header: %w", err)
		}
		if !found {
			return nil, fmt.Errorf("shard header: no %q key", f.key)
		}
	}
	i, n, err := parseShardIndex(text)
	if err != nil {
		return nil, fmt.Errorf("shard header: %w", err)
	}
	return &Shard{Index: i, Count: n, Scanned: scanned, Config: config}, nil
}

// decodeField decodes the first of keys present in raw into dst (a *string,
// *int, *float64 or *[]string), reporting whether one was present. JSON
// null counts as absent. The error names the key and the JSON type found,
// never the value.
func decodeField(raw map[string]json.RawMessage, keys []string, dst any) (bool, error) {
	for _, k := range keys {
		v, ok := raw[k]
		if !ok || string(v) == "null" {
			continue
		}
		if !decodeValue(v, dst) {
			return false, fmt.Errorf("key %q: got a JSON %s, want %s", k, jsonKind(v), wantOf(dst))
		}
		return true, nil
	}
	return false, nil
}

// decodeValue decodes the well-formed JSON value v into dst.
func decodeValue(v json.RawMessage, dst any) bool {
	switch d := dst.(type) {
	case *string:
		s, ok := unquoteJSON(v)
		*d = s
		return ok
	case *int:
		n, err := strconv.ParseInt(string(v), 10, 0)
		*d = int(n)
		return err == nil
	case *float64:
		return json.Unmarshal(v, d) == nil && v[0] != '"'
	case *[]string:
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return false
		}
		*d = make([]string, len(items))
		for i, item := range items {
			s, ok := unquoteJSON(item)
			if !ok {
				return false
			}
			(*d)[i] = s
		}
		return true
	}
	return false
}

// wantOf names the JSON type dst takes, for errors.
func wantOf(dst any) string {
	switch dst.(type) {
	case *int:
		return "a whole number"
	case *float64:
		return "a number"
	case *[]string:
		return "a list of strings"
	}
	return "a string"
}

// jsonKind names the type of the JSON value v, which the decoder has
// already checked is well formed.
func jsonKind(v json.RawMessage) string {
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	}
	return "number" // a number out of int range or with a fraction
}

// checkTrailer checks a whole report against its trailer: a shard's
// report must have one, and any trailer must count and sum the findings
// read.
func (rr *reportReader) checkTrailer() error {
	t := rr.trailer
	switch {
	case t == nil && rr.shard != nil:
		return fmt.Errorf("shard %s's report has no trailer: it was cut short (%s read)", rr.shard, plural(rr.findings, "finding", "findings"))
	case t == nil:
		return nil
	case !rr.sums:
		return errors.New("the findings were not summed (a reader for a baseline)")
	case t.findings != rr.findings:
		return fmt.Errorf("the trailer counts %s, the report holds %d", plural(t.findings, "finding", "findings"), rr.findings)
	case t.sum != rr.sum:
		return fmt.Errorf("the findings (%d, as the trailer counts) do not match the trailer's checksum: the report was changed", rr.findings)
	}
	return nil
}
