package report

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"unsafe"
)

// A sorted report (json, gitleaks, csv, sarif, text, junit) cannot write a
// finding until it has seen every finding, and a scan can report millions.
// spillSorter keeps the memory of that wait bounded: findings are buffered
// up to a size (Options' spill threshold, 32 MiB by default), then sorted and
// written as one run to a temporary file; runs are merged level by level as
// they accumulate (see compact), and Close merges what remains straight
// into the writer. Memory is the buffer plus one read buffer per run merged
// at once; disk is about the size of the report, open files a few dozen.
//
// Run files hold findings after redaction, but SARIF's secret hash and the
// unredacted report hold real secrets, so they are created where the
// operating system lets nobody else reach them once this process ends:
// unlinked right after creation (Unix), or delete-on-close (Windows); see
// openSpill. release closes (and where needed removes) them on every path:
// after the merge, after an error, and when a writer is closed without one.

// entry is one finding as a sorted writer holds it: prepared (redacted) for
// output, plus what a format derives from the finding before redaction.
type entry struct {
	f Finding
	// hash is SARIF's spindleSecretHash/v1 of the unredacted finding, or
	// empty; artifact is SARIF's artifact path (see sarifWriter), and
	// member says the finding is inside an archive.
	hash, artifact string
	member         bool
}

// compareEntries orders entries by cmp, then by the fields cmp does not see,
// so that the order is total and no two different entries tie.
func compareEntries(cmp func(a, b *Finding) int, a, b *entry) int {
	if c := cmp(&a.f, &b.f); c != 0 {
		return c
	}
	if a.hash != b.hash {
		if a.hash < b.hash {
			return -1
		}
		return 1
	}
	switch {
	case a.artifact < b.artifact:
		return -1
	case a.artifact > b.artifact:
		return 1
	case a.member != b.member:
		if b.member {
			return -1
		}
		return 1
	}
	return 0
}

const (
	// defaultSpillAt is the estimated size of buffered findings at which a
	// sorted writer writes a run. Peak heap is about twice this (the
	// collector's headroom) plus the merge buffers.
	defaultSpillAt = 32 << 20
	// mergeFanIn is how many runs of one level are merged into one run of
	// the next, and the most Close merges at once, so that read buffers stay
	// at mergeFanIn×runReadBuf and open files at a few dozen.
	mergeFanIn    = 64
	runReadBuf    = 64 << 10
	runWriteBuf   = 256 << 10
	maxRunRecord  = 1 << 30 // a longer record length means a damaged run
	spillPattern  = "spindle-report-*.run"
	entryOverhead = int64(unsafe.Sizeof(entry{})) + 8 // + the index slot
)

// spillSorter sorts entries with bounded memory. The zero value is not
// usable; see newSpillSorter. Not safe for concurrent use.
type spillSorter struct {
	cmp   func(a, b *Finding) int
	dir   string // where runs go; "" is os.TempDir()
	limit int64  // spill when the buffer's estimated size reaches it
	buf   []entry
	size  int64 // estimated bytes held by buf
	runs  []*spillRun
	enc   []byte // scratch for encoding one record
}

// spillRun is one sorted run on disk.
type spillRun struct {
	f     *os.File
	name  string // to remove at release; "" when already unlinked
	size  int64  // bytes written
	level int    // 0 for a spilled buffer, n+1 for a merge of level-n runs
}

func newSpillSorter(cmp func(a, b *Finding) int, dir string, limit int64) *spillSorter {
	if limit <= 0 {
		limit = defaultSpillAt
	}
	return &spillSorter{cmp: cmp, dir: dir, limit: limit}
}

// add buffers e, spilling the buffer to a run when it is full. An error is
// from the temporary file (a full disk): the report cannot be completed.
func (s *spillSorter) add(e entry) error {
	s.buf = append(s.buf, e)
	s.size += entrySize(&e)
	if s.size >= s.limit {
		return s.spill()
	}
	return nil
}

// entrySize estimates the memory e holds.
func entrySize(e *entry) int64 {
	f := &e.f
	n := entryOverhead + int64(len(f.RuleID)+len(f.Description)+len(f.File)+len(f.Secret)+len(f.Match)+
		len(f.Fingerprint)+len(f.Commit)+len(f.Author)+len(f.Email)+len(f.Date)+len(f.Message)+
		len(e.hash)+len(e.artifact))
	for _, t := range f.Tags {
		n += 16 + int64(len(t))
	}
	return n
}

// sorted returns the buffer's indices in order.
func (s *spillSorter) sorted() []int32 {
	order := make([]int32, len(s.buf))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int { return compareEntries(s.cmp, &s.buf[i], &s.buf[j]) })
	return order
}

// spill writes the buffer as one sorted run and empties it.
func (s *spillSorter) spill() error {
	if len(s.buf) == 0 {
		return nil
	}
	order := s.sorted()
	run, err := s.newRun()
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(run.f, runWriteBuf)
	for _, i := range order {
		if err := s.writeRecord(bw, run, &s.buf[i]); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: sort spill: %w", err)
	}
	clear(s.buf) // drop the strings now, not at the next append
	s.buf, s.size = s.buf[:0], 0
	return s.compact()
}

// compact merges runs level by level, as a log-structured merge does: when
// mergeFanIn runs share a level, they become one run of the next level. So
// a scan of any size holds fewer than mergeFanIn runs per level open (a
// handful of levels: 64 runs of 32 MiB make a 2 GiB run), and each finding
// is rewritten once per level rather than once per merge.
func (s *spillSorter) compact() error {
	for level := 0; ; level++ {
		var group []*spillRun
		for _, r := range s.runs {
			if r.level == level {
				group = append(group, r)
			}
		}
		if len(group) < mergeFanIn {
			if len(group) == 0 {
				return nil
			}
			continue
		}
		if err := s.mergeGroup(group, level+1); err != nil {
			return err
		}
	}
}

func (s *spillSorter) newRun() (*spillRun, error) {
	f, name, err := openSpill(s.dir)
	if err != nil {
		return nil, fmt.Errorf("report: sort spill: %w", err)
	}
	run := &spillRun{f: f, name: name}
	s.runs = append(s.runs, run)
	return run, nil
}

func (s *spillSorter) writeRecord(bw *bufio.Writer, run *spillRun, e *entry) error {
	s.enc = appendEntry(s.enc[:0], e)
	n, err := bw.Write(s.enc)
	run.size += int64(n)
	if err != nil {
		return fmt.Errorf("report: sort spill: %w", err)
	}
	return nil
}

// drain calls fn with every entry in order, then releases the sorter. The
// entry passed to fn is valid only during the call.
func (s *spillSorter) drain(fn func(e *entry) error) error {
	defer s.release()
	if len(s.runs) == 0 {
		for _, i := range s.sorted() {
			if err := fn(&s.buf[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.spill(); err != nil {
		return err
	}
	for len(s.runs) > mergeFanIn {
		if err := s.mergeGroup(slices.Clone(s.runs[:mergeFanIn]), 0); err != nil {
			return err
		}
	}
	return s.merge(s.runs, fn)
}

// mergeGroup merges group, runs of s, into one new run of the given level
// and closes them.
func (s *spillSorter) mergeGroup(group []*spillRun, level int) error {
	run, err := s.newRun()
	if err != nil {
		return err
	}
	run.level = level
	bw := bufio.NewWriterSize(run.f, runWriteBuf)
	err = s.merge(group, func(e *entry) error { return s.writeRecord(bw, run, e) })
	if err == nil {
		if err = bw.Flush(); err != nil {
			err = fmt.Errorf("report: sort spill: %w", err)
		}
	}
	for _, r := range group {
		r.close()
	}
	s.runs = slices.DeleteFunc(s.runs, func(r *spillRun) bool { return slices.Contains(group, r) })
	return err
}

// merge calls fn with the entries of runs in order.
func (s *spillSorter) merge(runs []*spillRun, fn func(e *entry) error) error {
	h := &runHeap{cmp: s.cmp}
	for _, r := range runs {
		c := &runCursor{br: bufio.NewReaderSize(io.NewSectionReader(r.f, 0, r.size), runReadBuf)}
		ok, err := c.next()
		if err != nil {
			return err
		}
		if ok {
			h.cursors = append(h.cursors, c)
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		c := h.cursors[0]
		if err := fn(&c.cur); err != nil {
			return err
		}
		ok, err := c.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

// release drops the buffer and closes every run, removing those the
// operating system did not already unlink. It is safe to call twice.
func (s *spillSorter) release() {
	s.buf, s.size = nil, 0
	for _, r := range s.runs {
		r.close()
	}
	s.runs = nil
}

func (r *spillRun) close() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
	if r.name != "" {
		os.Remove(r.name)
		r.name = ""
	}
}

// runCursor reads one run record by record.
type runCursor struct {
	br  *bufio.Reader
	rec []byte
	cur entry
}

// next reads the next record into cur; false at the end of the run.
func (c *runCursor) next() (bool, error) {
	n, err := binary.ReadUvarint(c.br)
	if err == io.EOF {
		return false, nil
	}
	if err != nil || n > maxRunRecord {
		return false, errDamagedRun
	}
	if cap(c.rec) < int(n) {
		c.rec = make([]byte, n)
	}
	c.rec = c.rec[:n]
	if _, err := io.ReadFull(c.br, c.rec); err != nil {
		return false, errDamagedRun
	}
	if !decodeEntry(string(c.rec), &c.cur) {
		return false, errDamagedRun
	}
	return true, nil
}

var errDamagedRun = errors.New("report: sort spill: a temporary run file is damaged")

// runHeap is a min-heap of cursors by their current entry.
type runHeap struct {
	cmp     func(a, b *Finding) int
	cursors []*runCursor
}

func (h *runHeap) Len() int { return len(h.cursors) }
func (h *runHeap) Less(i, j int) bool {
	return compareEntries(h.cmp, &h.cursors[i].cur, &h.cursors[j].cur) < 0
}
func (h *runHeap) Swap(i, j int) { h.cursors[i], h.cursors[j] = h.cursors[j], h.cursors[i] }
func (h *runHeap) Push(x any)    { h.cursors = append(h.cursors, x.(*runCursor)) }
func (h *runHeap) Pop() any {
	c := h.cursors[len(h.cursors)-1]
	h.cursors = h.cursors[:len(h.cursors)-1]
	return c
}

// The run record: a uvarint length, then the fields. Strings are a uvarint
// length and their bytes; integers are zig-zag varints; Entropy is its IEEE
// bits; Tags is a count and that many strings.

func appendEntry(b []byte, e *entry) []byte {
	var body [binary.MaxVarintLen64]byte
	start := len(b)
	b = append(b, body[:]...) // room for the length, moved into place below
	f := &e.f
	for _, s := range [...]string{f.RuleID, f.Description, f.File, f.Secret, f.Match, f.Fingerprint,
		f.Commit, f.Author, f.Email, f.Date, f.Message, e.hash, e.artifact} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, v := range [...]int{f.Line, f.Column, f.EndLine, f.EndColumn} {
		b = binary.AppendVarint(b, int64(v))
	}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f.Entropy))
	member := byte(0)
	if e.member {
		member = 1
	}
	b = append(b, member)
	b = binary.AppendUvarint(b, uint64(len(f.Tags)))
	for _, t := range f.Tags {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	bodyLen := len(b) - start - len(body)
	n := binary.PutUvarint(body[:], uint64(bodyLen))
	copy(b[start:], body[:n])
	copy(b[start+n:], b[start+len(body):])
	return b[:start+n+bodyLen]
}

// decodeEntry parses one record body. The strings of e share rec's memory.
func decodeEntry(rec string, e *entry) bool {
	d := recordReader{s: rec}
	f := &e.f
	for _, p := range [...]*string{&f.RuleID, &f.Description, &f.File, &f.Secret, &f.Match, &f.Fingerprint,
		&f.Commit, &f.Author, &f.Email, &f.Date, &f.Message, &e.hash, &e.artifact} {
		*p = d.str()
	}
	for _, p := range [...]*int{&f.Line, &f.Column, &f.EndLine, &f.EndColumn} {
		*p = int(d.varint())
	}
	f.Entropy = math.Float64frombits(d.u64())
	e.member = d.byte() == 1
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)) {
		return false
	}
	f.Tags = make([]string, n)
	for i := range f.Tags {
		f.Tags[i] = d.str()
	}
	return !d.bad && len(d.s) == 0
}

// recordReader consumes a record body; bad is set at the first overrun.
type recordReader struct {
	s   string
	bad bool
}

func (d *recordReader) uvarint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if len(d.s) == 0 {
			break
		}
		c := d.s[0]
		d.s = d.s[1:]
		v |= uint64(c&0x7F) << shift
		if c < 0x80 {
			return v
		}
	}
	d.bad = true
	return 0
}

func (d *recordReader) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *recordReader) u64() uint64 {
	if len(d.s) < 8 {
		d.bad = true
		return 0
	}
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(d.s[i])
	}
	d.s = d.s[8:]
	return v
}

func (d *recordReader) byte() byte {
	if len(d.s) == 0 {
		d.bad = true
		return 0
	}
	c := d.s[0]
	d.s = d.s[1:]
	return c
}

func (d *recordReader) str() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)) {
		d.bad = true
		return ""
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}
