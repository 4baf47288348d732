package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Baseline is the set of findings a previous report already contained, so
// that a scan reports only what is new (--baseline FILE).
//
// Identity. A finding is known when the baseline holds one with the same
// rule, the same file, and the same secret. The line is deliberately not part
// of it: an edit above a secret moves it without making it new, and
// gitleaks' field-by-field comparison (which includes lines and columns)
// resurfaces every such secret. Two consequences, both intended: a known
// secret repeated in the same file under the same rule is known at every
// occurrence (the remedy, rotating the secret, is per secret, not per
// occurrence), and the same secret in another file is new (a new exposure).
// Paths are compared after cleaning ("./a/../b.env" is "b.env") and with
// slashes, so a report written on Windows matches on Linux.
//
// Redacted baselines. A report written with --redact holds "REDACTED" or a
// prefix followed by "..." instead of the secret. Such an entry cannot be
// matched by secret, so it matches a finding with the same rule, file and
// line whose secret starts with the kept prefix; it is line-sensitive
// because nothing else identifies it. Unredacted baselines are the better
// kind; the command's documentation should say so.
//
// A nil *Baseline contains nothing. A Baseline is read-only once loaded and
// safe for concurrent use.
type Baseline struct {
	known    map[baselineKey]struct{}
	redacted map[baselineLoc][]string // kept prefixes of redacted secrets
	n        int
}

// baselineKey is a finding's identity for Contains.
type baselineKey struct{ rule, file, secret string }

// baselineLoc locates a redacted entry, which has no usable secret.
type baselineLoc struct {
	rule, file string
	line       int
}

// LoadBaseline reads the report at path: a JSON array of findings as the
// json format writes it, or one finding per line as jsonl writes it. The keys
// of gitleaks' JSON report (RuleID, File, StartLine, Secret, Match) are read
// too, so a gitleaks baseline can be reused when migrating. Unknown keys are
// ignored. Errors name the file and, for a malformed entry, its position.
func LoadBaseline(path string) (*Baseline, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("report: baseline: %w", err)
	}
	defer file.Close()
	b, err := parseBaseline(file)
	if err != nil {
		return nil, fmt.Errorf("report: baseline %s: %w", path, err)
	}
	return b, nil
}

// ReadBaseline is LoadBaseline for a report that is not in a file (standard
// input, an embedded test fixture).
func ReadBaseline(r io.Reader) (*Baseline, error) {
	b, err := parseBaseline(r)
	if err != nil {
		return nil, fmt.Errorf("report: baseline: %w", err)
	}
	return b, nil
}

// Len returns the number of findings the baseline was read from.
func (b *Baseline) Len() int {
	if b == nil {
		return 0
	}
	return b.n
}

// Contains reports whether f was already in the baseline (see Baseline for
// what "the same finding" means). f must be unredacted: call Contains before
// Redact, or before a writer redacts it.
func (b *Baseline) Contains(f Finding) bool {
	if b == nil {
		return false
	}
	secret := secretOf(f)
	file := cleanFile(f.File)
	if _, ok := b.known[baselineKey{f.RuleID, file, secret}]; ok {
		return true
	}
	for _, prefix := range b.redacted[baselineLoc{f.RuleID, file, f.Line}] {
		if strings.HasPrefix(secret, prefix) {
			return true
		}
	}
	return false
}

// add records one baseline entry.
func (b *Baseline) add(rule, file string, line int, secret string) {
	file = cleanFile(file)
	b.n++
	// Every entry is known literally: a real secret may end in "...".
	b.known[baselineKey{rule, file, secret}] = struct{}{}
	var prefix string
	switch {
	case secret == redactedMark:
		prefix = ""
	case strings.HasSuffix(secret, partialMark):
		prefix = strings.TrimSuffix(secret, partialMark)
	default:
		return
	}
	loc := baselineLoc{rule, file, line}
	b.redacted[loc] = append(b.redacted[loc], prefix)
}

// secretOf is the secret that identifies f; Redact treats Match as the
// secret when Secret is empty, and so does the baseline.
func secretOf(f Finding) string {
	if f.Secret != "" {
		return f.Secret
	}
	return f.Match
}

// cleanFile is the form paths are compared in.
func cleanFile(p string) string {
	if p == "" {
		return ""
	}
	return path.Clean(filepath.ToSlash(p))
}

// The keys read from each baseline entry: this package's JSON names first,
// then gitleaks' for reports it wrote.
var (
	ruleKeys   = []string{"rule_id", "RuleID"}
	fileKeys   = []string{"file", "File"}
	lineKeys   = []string{"line", "StartLine"}
	secretKeys = []string{"secret", "Secret"}
	matchKeys  = []string{"match", "Match"}
)

// utf8BOM is skipped at the start of a report; some Windows editors and
// shells write one.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// parseBaseline reads a report as LoadBaseline describes. It streams: memory
// is one entry's raw fields plus the baseline itself, whatever the file size.
func parseBaseline(r io.Reader) (*Baseline, error) {
	br := bufio.NewReader(r)
	p := &baselineParser{}
	if head, _ := br.Peek(len(utf8BOM)); bytes.Equal(head, utf8BOM) {
		br.Discard(len(utf8BOM))
		p.skipped += len(utf8BOM)
	}
	first, err := p.peekNonSpace(br)
	if err == io.EOF {
		return nil, errors.New("empty file, want a JSON array of findings")
	}
	if err != nil {
		return nil, err
	}

	b := &Baseline{known: map[baselineKey]struct{}{}, redacted: map[baselineLoc][]string{}}
	p.dec = json.NewDecoder(br)
	switch first {
	case '[': // a json report
		if _, err := p.dec.Token(); err != nil {
			return nil, p.context(err)
		}
		for i := 1; p.dec.More(); i++ {
			if err := p.entry(b, i); err != nil {
				return nil, err
			}
		}
		if _, err := p.dec.Token(); err != nil { // the closing ']'
			return nil, p.context(err)
		}
	case '{': // a jsonl report
		for i := 1; p.dec.More(); i++ {
			if err := p.entry(b, i); err != nil {
				return nil, err
			}
		}
	case 'n': // null: what a tool that marshals a nil slice writes
		var v any
		if err := p.dec.Decode(&v); err != nil {
			return nil, p.context(err)
		}
		if v != nil {
			return nil, errors.New("want a JSON array of findings")
		}
	default:
		return nil, fmt.Errorf("starts with %q, want a JSON array of findings", first)
	}
	if _, err := p.dec.Token(); err != io.EOF {
		if err == nil {
			return nil, fmt.Errorf("unexpected data after the report at byte %d", p.offset())
		}
		return nil, p.context(err)
	}
	return b, nil
}

// baselineParser is the state of one parseBaseline call.
type baselineParser struct {
	dec     *json.Decoder
	skipped int // bytes consumed before dec started (BOM, white space)
}

// offset is the byte offset in the file the decoder has reached.
func (p *baselineParser) offset() int64 { return int64(p.skipped) + p.dec.InputOffset() }

// peekNonSpace skips JSON white space and returns the next byte, unread.
func (p *baselineParser) peekNonSpace(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			p.skipped++
			continue
		}
		return c, br.UnreadByte()
	}
}

// context adds the file offset to a JSON syntax error, whose message lacks
// it, and names a truncated file.
func (p *baselineParser) context(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("%w (at byte %d)", err, int64(p.skipped)+syn.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("truncated JSON (at byte %d): %w", p.offset(), io.ErrUnexpectedEOF)
	}
	return err
}

// entry reads the report's n-th (1-based) finding into b.
func (p *baselineParser) entry(b *Baseline, n int) error {
	var raw map[string]json.RawMessage
	if err := p.dec.Decode(&raw); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return fmt.Errorf("finding %d: is a JSON %s, want an object", n, typeErr.Value)
		}
		return fmt.Errorf("finding %d: %w", n, p.context(err))
	}
	if raw == nil {
		return fmt.Errorf("finding %d: is null, want an object", n)
	}
	if _, ok := raw["runs"]; ok && n == 1 {
		// The likeliest wrong file: the sarif report of the same scan.
		return errors.New("this is a SARIF log; a baseline is a json report (--format json)")
	}
	var rule, file, secret, match string
	var line int
	for _, field := range []struct {
		keys []string
		dst  any
		need bool
	}{
		{ruleKeys, &rule, true},
		{fileKeys, &file, true},
		{lineKeys, &line, false},
		{secretKeys, &secret, false},
		{matchKeys, &match, false},
	} {
		found, err := decodeField(raw, field.keys, field.dst)
		if err != nil {
			return fmt.Errorf("finding %d: %w", n, err)
		}
		if field.need && !found {
			return fmt.Errorf("finding %d: no %q (or %q) key", n, field.keys[0], field.keys[1])
		}
	}
	if secret == "" {
		secret = match
	}
	b.add(rule, file, line, secret)
	return nil
}

// decodeField decodes the first of keys present in raw into dst, reporting
// whether one was present. JSON null counts as absent. The error names the
// key and the JSON type found, never the value: a baseline holds secrets,
// and error messages end up in CI logs.
func decodeField(raw map[string]json.RawMessage, keys []string, dst any) (bool, error) {
	for _, k := range keys {
		v, ok := raw[k]
		if !ok || string(v) == "null" {
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil {
			want := "string"
			if _, ok := dst.(*int); ok {
				want = "whole number"
			}
			return false, fmt.Errorf("key %q: got a JSON %s, want a %s", k, jsonKind(v), want)
		}
		return true, nil
	}
	return false, nil
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
