package scan

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/encoding"

	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

// fetch is the Fetch task: it reads an object's next chunk and has it
// scanned. The first Fetch of an object opens the file and applies the
// checks that need its size or first bytes.
//
// Buffers: a chunk that is the object's last (every chunk of a small file)
// is read into the worker's own buffer and scanned right here; nothing is
// handed over, nothing is shared. A chunk with more to follow takes a
// buffer from the shared pool and becomes a Scan task, and the next Fetch
// goes onto the worker's ring, where an idle worker can steal it: that is
// how one large file is read and scanned by several workers at once. When
// the pool is empty, the chunk goes into the worker's own buffer and is
// scanned inline: the fetcher turns scanner, which is the backpressure.
// No path blocks.
func (e *engine) fetch(w *worker, o *object) {
	ws := w.Scratch
	if e.stopped() {
		e.drop(w, o)
		return
	}
	if o.f == nil && !e.open(w, o) {
		e.drop(w, o)
		return
	}
	first := o.st.off == 0
	var (
		c    *chunk
		last bool
		n    int
		err  error
	)
	if o.data != nil && !o.decoded {
		// Content in memory is one chunk, whatever its length.
		n = len(o.data)
		c = &chunk{buf: o.data, n: n, lo: -1, hi: n, line: o.st.line, col: o.st.col}
		last = true
		o.st.off = int64(n)
	} else {
		if _, known := e.geo.plan(o.size, o.st.off); !known {
			c = e.pool.get() // more chunks follow: this one can go to a Scan task
		}
		if c == nil {
			c = ws.own
		}
		last, n, err = e.geo.next(c, &o.st, o.f, o.size)
	}
	ws.c.bytesRead += int64(n)
	if err != nil {
		e.warn(o.name, "read", err)
	}
	if first {
		action, enc := e.firstChunk(ws, o, c, last, err == nil, true)
		if action == restartIt {
			// UTF-16 or UTF-32 text: read again from the start, decoded.
			// A stream's head is taken from the chunk before the chunk
			// goes back to its pool (which forgets what it held).
			o.decodeText(enc, c.buf[:c.n])
		}
		if action != scanIt && c.pooled {
			e.pool.put(c)
		}
		switch action {
		case skipIt:
			o.closeFile()
			e.drop(w, o)
			return
		case walkIt:
			// The archive's Enumerate task takes over this task's
			// reference. It runs next on this worker (the LIFO slot): the
			// walk reads the archive from its start, while the page cache
			// still holds it.
			w.Spawn(task{kind: kindEnumerate, obj: o})
			return
		case restartIt:
			w.Spawn(task{kind: kindFetch, obj: o})
			return
		}
	}
	o.scanned = true
	ws.c.bytesScanned += int64(n)
	if p := e.s.Progress; p != nil {
		p.Bytes.Add(int64(n))
	}
	if last {
		o.closeFile()
	}
	switch {
	case !c.pooled:
		ws.c.inline++
		e.scanChunk(ws, o, c)
		if last {
			e.drop(w, o)
		} else {
			w.Spawn(task{kind: kindFetch, obj: o}) // passes on this task's reference
		}
	case last:
		ws.c.inline++
		e.scanChunk(ws, o, c)
		e.pool.put(c)
		e.drop(w, o)
	default:
		o.acquire() // for the Scan task; this task's reference goes to the next Fetch
		// Spawn order matters: the last spawn takes the worker's LIFO slot.
		// The Scan runs next, here, while the chunk is hot in cache; the
		// next Fetch sits on the ring for an idle worker to steal.
		w.Spawn(task{kind: kindFetch, obj: o})
		w.Spawn(task{kind: kindScan, obj: o, c: c})
	}
}

// open opens the object's content for its first Fetch and checks its type
// and size. It returns false if the object is not to be read.
func (e *engine) open(w *worker, o *object) bool {
	if o.path == "" {
		return e.openOther(w, o)
	}
	f, err := openFile(o.path)
	if err != nil {
		e.warn(o.name, "open", err)
		return false
	}
	size, regular, err := f.stat()
	if err != nil {
		f.Close()
		e.warn(o.name, "stat", err)
		return false
	}
	if !regular {
		// Enumerate admits regular files only, but a file can be replaced
		// between the listing and the open.
		f.Close()
		w.Scratch.c.skipped[skipSpecial]++
		return false
	}
	if e.s.MaxFileSize > 0 && size > e.s.MaxFileSize {
		f.Close()
		w.Scratch.c.skipped[skipSize]++
		e.skipped(o.name, SkipSize, size)
		return false
	}
	o.f, o.ra, o.size = f, f, size
	return true
}

// openOther opens a stream or a Source's object: its size, if known, is
// what the source said.
func (e *engine) openOther(w *worker, o *object) bool {
	if e.s.MaxFileSize > 0 && o.size > e.s.MaxFileSize {
		w.Scratch.c.skipped[skipSize]++
		e.skipped(o.name, SkipSize, o.size)
		return false
	}
	if o.data != nil {
		r := bytes.NewReader(o.data) // for an archive walk, or a decoder
		o.f, o.ra = io.NopCloser(r), r
		return true
	}
	var (
		rc  io.ReadCloser
		err error
	)
	if !e.guard(func() { rc, err = o.open() }) {
		return false
	}
	if err != nil {
		e.warn(o.name, "open", err)
		return false
	}
	if rc == nil {
		e.warn(o.name, "open", errors.New("open returned no reader"))
		return false
	}
	o.f = rc
	if ra, ok := rc.(io.ReaderAt); ok && o.size >= 0 {
		o.ra = ra
	}
	return true
}

// firstAction is what an object's first chunk decides.
type firstAction uint8

const (
	scanIt    firstAction = iota // scan it as it is
	skipIt                       // a known binary format (or the scan stopped)
	walkIt                       // an archive: walk its members
	restartIt                    // UTF-16 or UTF-32 text: read it again, decoded with the encoding returned
)

// firstChunk applies what needs an object's first chunk, in order: the
// path-only rules, which fire for every object that is not empty,
// whatever its content;
// archives (ok: the chunk was read without error; canWalk: the object can
// be handed to an archive walk, which a member being streamed cannot);
// known binary formats, whose content rules are not run; and UTF-16 or
// UTF-32 text, which the caller decodes to UTF-8 (with the encoding
// returned) and reads again.
func (e *engine) firstChunk(ws *workerState, o *object, c *chunk, last, ok, canWalk bool) (firstAction, encoding.Encoding) {
	head := c.buf[:c.n]
	if o.decoded {
		return scanIt, nil
	}
	// An empty file holds nothing, and gitleaks reads no fragment of it,
	// so its path-only rules do not fire there either; an empty fragment
	// of a change (a hunk that only removes lines) is a fragment all the
	// same.
	if empty := last && ok && len(head) == 0 && !o.fragment; !empty && !e.scanPath(ws, o) {
		return skipIt, nil
	}
	if canWalk && ok && e.isArchive(o, c, last) {
		return walkIt, nil
	}
	if _, bin := knownBinary(head); bin && !e.s.ScanBinary {
		ws.c.skipped[skipBinary]++
		return skipIt, nil
	}
	if enc := textEncoding(head); enc != nil {
		ws.c.decoded++
		return restartIt, enc
	}
	return scanIt, nil
}

// scanPath reports the path-only rules that match o's name. It returns
// false if the detector panicked (the scan is then stopped).
func (e *engine) scanPath(ws *workerState, o *object) bool {
	return e.guard(func() {
		e.det.ScanPath(ws.scratch, o.name, func(m rules.Match) {
			e.report(o, report.Finding{
				RuleID:      m.RuleID,
				Description: m.Description,
				File:        o.name,
				Match:       m.Match,
				Secret:      m.Secret,
				Entropy:     m.Entropy,
				Tags:        m.Tags,
				Fingerprint: fingerprint(o.name, m.RuleID, 0),
			})
		})
	})
}

// scanTask is the Scan task: it scans a chunk that a Fetch read into a
// pooled buffer, then gives the buffer back and drops its reference.
func (e *engine) scanTask(w *worker, o *object, c *chunk) {
	if !e.stopped() {
		e.scanChunk(w.Scratch, o, c)
	}
	e.pool.put(c)
	e.drop(w, o)
}

// scanChunk runs the detector over c and reports the matches c owns (see
// chunk), with their lines and columns.
func (e *engine) scanChunk(ws *workerState, o *object, c *chunk) {
	data := c.buf[:c.n]
	ws.matches = ws.matches[:0]
	scan := e.det.Scan
	if e.whole != nil && o.data != nil && !o.decoded {
		scan = e.whole.ScanWhole // the chunk is the whole content
	}
	if !e.guard(func() { scan(ws.scratch, o.name, data, ws.emit) }) || len(ws.matches) == 0 {
		ws.matches = ws.matches[:0]
		return
	}
	own := ws.matches[:0]
	for _, m := range ws.matches {
		if m.End > c.lo && m.End <= c.hi && 0 <= m.Start && m.Start <= m.End && m.End <= len(data) {
			own = append(own, m)
		}
	}
	slices.SortFunc(own, func(a, b rules.Match) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), strings.Compare(a.RuleID, b.RuleID),
			strings.Compare(a.Secret, b.Secret), slices.Compare(a.Tags, b.Tags))
	})
	loc := locator{data: data, line: c.line, col: c.col, last: -1}
	if e.s.GitleaksColumns {
		loc.first, loc.final, loc.lastNL = o.st0, c.hi == c.n, -2
	}
	// Every match is reported, equal ones too: the detector decides what
	// is one finding (gitleaks reports a secret found twice in one encoded
	// string twice, and again at each depth of decoding it touches).
	for _, m := range own {
		e.report(o, loc.finding(o.name, m))
	}
	clear(ws.matches) // drop the references to this chunk's strings
	ws.matches = ws.matches[:0]
}

// locator turns buffer offsets into 1-based lines and columns. It moves
// forward only: callers ask for offsets in increasing order, so a chunk's
// newlines are counted once however many findings it has.
type locator struct {
	data []byte
	pos  int // offset up to which newlines have been counted
	line int // line number at pos
	col  int // column of data[0], for offsets before any newline in data
	last int // offset of the last newline before pos, or -1
	// first, when not 0, is the object's first line: columns on the lines
	// after it are counted as gitleaks counts them, one more than the
	// true column (Options.GitleaksColumns). final says data runs to the
	// object's end; lastNL is the offset of data's last newline, -1 for
	// none, -2 until looked for.
	first  int
	final  bool
	lastNL int
}

// at returns the line and 1-based column of data[off], off >= l.pos, and
// moves to off.
func (l *locator) at(off int) (line, col int) {
	seg := l.data[l.pos:off]
	if nl := bytes.Count(seg, newline); nl > 0 {
		l.line += nl
		l.last = l.pos + bytes.LastIndexByte(seg, '\n')
	}
	l.pos = off
	return l.line, l.column(l.last, off)
}

// peek returns the line and column of data[off], off >= l.pos, without
// moving.
func (l *locator) peek(off int) (line, col int) {
	seg := l.data[l.pos:off]
	line, last := l.line, l.last
	if nl := bytes.Count(seg, newline); nl > 0 {
		line += nl
		last = l.pos + bytes.LastIndexByte(seg, '\n')
	}
	return line, l.column(last, off)
}

// runsOffTheEnd says whether m spans a newline and runs into the object's
// last line, which no newline ends: gitleaks places such a match's end
// nowhere.
func (l *locator) runsOffTheEnd(m rules.Match) bool {
	if !l.final {
		return false
	}
	if l.lastNL == -2 {
		l.lastNL = bytes.LastIndexByte(l.data, '\n')
	}
	return m.Start < l.lastNL && l.lastNL < m.End
}

func (l *locator) column(last, off int) int {
	if last < 0 {
		return l.col + off + 1
	}
	return off - last
}

// finding places m: its line and column are those of data[Start], its end
// those of data[End-1], the last byte of the match (EndColumn inclusive, as
// in gitleaks). Start and End follow gitleaks' placement (see Match).
func (l *locator) finding(path string, m rules.Match) report.Finding {
	line, col := l.at(m.Start)
	endLine, endCol := l.peek(max(m.End-1, m.Start))
	if l.first != 0 {
		if line > l.first {
			col++
		}
		switch {
		case l.runsOffTheEnd(m):
			// gitleaks finds no newline at or after the match's end, so
			// it leaves the end where the start is, at column 0.
			endLine, endCol = line, 0
		case endLine > l.first:
			endCol++
		}
	}
	return report.Finding{
		RuleID:      m.RuleID,
		Description: m.Description,
		File:        path,
		Line:        line,
		Column:      col,
		EndLine:     endLine,
		EndColumn:   endCol,
		Secret:      m.Secret,
		Match:       m.Match,
		Entropy:     m.Entropy,
		Fingerprint: fingerprint(path, m.RuleID, line),
		Tags:        m.Tags,
	}
}

// fingerprint is the .gitleaksignore key of a finding: file:rule:line.
func fingerprint(path, rule string, line int) string {
	return path + ":" + rule + ":" + strconv.Itoa(line)
}
