package git

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// This file reads the commits to scan and what each changed, from one
// `git log --raw` process: the commit graph walk, the tree diffs and the
// rename detection are git's own, the same that `git log -p` (and so
// gitleaks) uses, but without a line of any file being diffed.

// oid is an object id: 20 bytes (SHA-1) or 32 (SHA-256), zero-padded.
type oid [32]byte

func (o oid) String(size int) string { return hex.EncodeToString(o[:size]) }

func (o oid) isZero() bool { return o == oid{} }

func parseOID(b []byte) (oid, bool) {
	var o oid
	if len(b) != 40 && len(b) != 64 {
		return o, false
	}
	if _, err := hex.Decode(o[:len(b)/2], b); err != nil {
		return o, false
	}
	return o, true
}

// commit is one commit of the history, as a finding reports it.
type commit struct {
	id      oid
	parents int
	author  string // mailmap applied, as git log shows it
	email   string
	time    int64  // author time, Unix seconds
	subject string // the first line of the message
}

// change is one file a commit changed: the path in the commit, the blob
// before (zero for an added file) and after. A merge's change lists a path
// whose blob differs from every parent's (git's combined diff), with old
// zero.
type change struct {
	commit  int32  // index into history.commits
	path    string // interned
	oldPath string // the source of a rename or copy; "" otherwise
	old     oid
	new     oid
	mode    uint32 // the new mode: 0100644, 0100755, 0120000 (link), 0160000 (submodule)
	status  byte   // 'A', 'M', 'R', 'C', or 'X' for a merge's combined change
	pure    bool   // a rename or copy with no change of content (R100, C100)
}

// logParser parses the output of
//
//	git log --raw --no-abbrev -z --diff-merges=cc --format=%x01%H%x00%P%x00%aN%x00%aE%x00%at%x00%s%x00
//
// into commits and changes. Each record is \x01, six NUL-terminated
// header fields, then raw entries. A raw entry is ":" per parent, the
// modes, the object ids and the status, separated by spaces, then NUL and
// the path (two paths for a rename or copy), each NUL-terminated.
type logParser struct {
	r        *bufio.Reader
	paths    map[string]string // interned paths
	names    map[string]string // interned authors and emails
	commits  []commit
	changes  []change
	hashSize int
}

func newLogParser(r io.Reader) *logParser {
	return &logParser{
		r:     bufio.NewReaderSize(r, 256<<10),
		paths: map[string]string{},
		names: map[string]string{},
	}
}

var errLogFormat = errors.New("git log: unexpected output")

// parse reads the whole output. On an error the commits and changes read
// so far stay.
func (p *logParser) parse() error {
	for {
		more, err := p.parseSome(1 << 20)
		if err != nil || !more {
			return err
		}
	}
}

// parseSome reads records until n more changes are listed or the output
// ends; more is false at the end.
func (p *logParser) parseSome(n int) (more bool, err error) {
	want := len(p.changes) + n
	for len(p.changes) < want {
		c, err := p.r.ReadByte()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		switch c {
		case 0x01:
			if err := p.header(); err != nil {
				return false, err
			}
		case ':':
			if len(p.commits) == 0 {
				return false, fmt.Errorf("%w: a change before any commit", errLogFormat)
			}
			if err := p.entry(); err != nil {
				return false, err
			}
		case 0, '\n':
			// separators between a header and its entries
		default:
			return false, fmt.Errorf("%w: byte %q", errLogFormat, c)
		}
	}
	return true, nil
}

// field reads one NUL-terminated field. The slice is valid only until the
// next read: it points into the reader's buffer.
func (p *logParser) field() ([]byte, error) {
	b, err := p.r.ReadSlice(0)
	if err == bufio.ErrBufferFull {
		// A field longer than the buffer (a huge subject or path): keep
		// reading.
		long := bytes.Clone(b)
		for err == bufio.ErrBufferFull {
			b, err = p.r.ReadSlice(0)
			long = append(long, b...)
		}
		b = long
	}
	if err != nil {
		if err == io.EOF {
			err = fmt.Errorf("%w: truncated", errLogFormat)
		}
		return nil, err
	}
	return b[:len(b)-1], nil
}

func (p *logParser) header() error {
	var f [6][]byte
	for i := range f {
		b, err := p.field()
		if err != nil {
			return err
		}
		f[i] = bytes.Clone(b) // the next field's read may reuse the buffer
	}
	id, ok := parseOID(f[0])
	if !ok {
		return fmt.Errorf("%w: commit id %q", errLogFormat, f[0])
	}
	p.hashSize = len(f[0]) / 2
	t, _ := strconv.ParseInt(string(f[4]), 10, 64)
	p.commits = append(p.commits, commit{
		id:      id,
		parents: len(bytes.Fields(f[1])),
		author:  p.intern(p.names, f[2]),
		email:   p.intern(p.names, f[3]),
		time:    t,
		subject: string(f[5]),
	})
	return nil
}

func (p *logParser) intern(m map[string]string, b []byte) string {
	if s, ok := m[string(b)]; ok {
		return s
	}
	s := string(b)
	m[s] = s
	return s
}

// entry parses one raw entry, its leading ':' read.
func (p *logParser) entry() error {
	meta, err := p.field()
	if err != nil {
		return err
	}
	colons := 1
	for len(meta) > 0 && meta[0] == ':' {
		colons++
		meta = meta[1:]
	}
	parts := bytes.Fields(meta)
	// modes: colons+1; ids: colons+1; status: 1
	if len(parts) != 2*(colons+1)+1 {
		return fmt.Errorf("%w: raw entry %q", errLogFormat, meta)
	}
	mode, err := strconv.ParseUint(string(parts[colons]), 8, 32)
	if err != nil {
		return fmt.Errorf("%w: mode %q", errLogFormat, parts[colons])
	}
	newID, ok1 := parseOID(parts[2*colons+1])
	oldID, ok2 := parseOID(parts[colons+1])
	status := string(parts[2*colons+2]) // copied: the next read may reuse the buffer
	if !ok1 || !ok2 || len(status) == 0 {
		return fmt.Errorf("%w: raw entry %q", errLogFormat, meta)
	}
	path, err := p.field()
	if err != nil {
		return err
	}
	ch := change{
		commit: int32(len(p.commits) - 1),
		new:    newID,
		old:    oldID,
		mode:   uint32(mode),
		status: status[0],
	}
	if colons > 1 {
		ch.status, ch.old = 'X', oid{}
	}
	if ch.status == 'R' || ch.status == 'C' {
		ch.oldPath = p.intern(p.paths, path) // interned (copied) before the next read
		if path, err = p.field(); err != nil {
			return err
		}
		ch.pure = status[1:] == "100" && oldID == newID
	}
	ch.path = p.intern(p.paths, path)
	p.changes = append(p.changes, ch)
	return nil
}
