package git

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// This file is the tests' reference: it reads what `git log -p -U0`
// prints, the patches gitleaks reads, and cuts them into the fragments
// gitleaks scans (one per hunk, from the hunk's first new line), so that
// the in-process history scan can be checked against git's own diffs on
// any history, with or without gitleaks installed.

// fragment is a run of consecutive lines a commit added to a file.
type refFragment struct {
	line int    // the line number of the first one, in the new file
	text []byte // the lines, each with its newline (but a last line without one)
}

// filePatch is what one commit did to one file.
type refPatch struct {
	commit    []byte // hex id
	path      string // the new path
	binary    bool   // git found it binary: no lines, no fragments
	fragments []refFragment
}

// patchReader parses `git log -p -U0 --format=%x01%H` output, one file at
// a time.
type patchReader struct {
	r      *bufio.Reader
	commit []byte
	line   []byte // the next line, read ahead; nil at the end
	err    error
}

func newPatchReader(r io.Reader) *patchReader {
	p := &patchReader{r: bufio.NewReaderSize(r, 256<<10)}
	p.advance()
	return p
}

// advance reads the next line into p.line (without its newline).
func (p *patchReader) advance() {
	if p.err != nil {
		p.line = nil
		return
	}
	b, err := p.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		long := bytes.Clone(b)
		for err == bufio.ErrBufferFull {
			b, err = p.r.ReadSlice('\n')
			long = append(long, b...)
		}
		b = long
	}
	if err != nil && err != io.EOF {
		p.err = err
	}
	if len(b) == 0 && err != nil {
		p.line = nil
		if err != io.EOF {
			p.err = err
		}
		return
	}
	p.line = bytes.TrimSuffix(b, []byte("\n"))
	if err == io.EOF {
		// The last line had no newline; mark the end for the next call.
		p.err = io.EOF
	}
}

// next returns the next file's patch, or nil at the end.
func (p *patchReader) next() (*refPatch, error) {
	for p.line != nil {
		l := p.line
		switch {
		case len(l) > 0 && l[0] == 0x01:
			p.commit = bytes.Clone(l[1:])
			p.advance()
		case bytes.HasPrefix(l, []byte("diff --git ")) || bytes.HasPrefix(l, []byte("diff --cc ")) || bytes.HasPrefix(l, []byte("diff --combined ")):
			return p.file()
		default:
			p.advance() // a blank line between commits
		}
	}
	if p.err != nil && p.err != io.EOF {
		return nil, p.err
	}
	return nil, nil
}

// file parses one file's patch, from its diff line to the next file's or
// commit's.
func (p *patchReader) file() (*refPatch, error) {
	combined := !bytes.HasPrefix(p.line, []byte("diff --git "))
	fp := &refPatch{commit: p.commit}
	if !combined {
		// The header names the file too, which is all a binary file's
		// patch gives (no ---/+++ lines); "rename to" and "+++" override.
		fp.path = headerPath(p.line[len("diff --git "):])
	} else {
		// "diff --cc PATH": the path is the only one.
		rest := p.line[bytes.IndexByte(p.line[5:], ' ')+6:]
		path, err := unquotePath(rest)
		if err != nil {
			return nil, err
		}
		fp.path = path
	}
	p.advance()
	// Extended headers, up to the first hunk or the next file.
	for p.line != nil && !isFileStart(p.line) && !bytes.HasPrefix(p.line, []byte("@@")) {
		l := p.line
		switch {
		case bytes.HasPrefix(l, []byte("+++ ")):
			// git ends a name that holds a space with a tab.
			if name := bytes.TrimSuffix(l[4:], []byte("\t")); !bytes.Equal(name, []byte("/dev/null")) {
				path, err := unquotePath(name)
				if err != nil {
					return nil, err
				}
				fp.path = trimPrefix(path, "b/")
			}
		case bytes.HasPrefix(l, []byte("rename to ")) || bytes.HasPrefix(l, []byte("copy to ")):
			_, name, _ := bytes.Cut(l, []byte(" to "))
			path, err := unquotePath(name)
			if err != nil {
				return nil, err
			}
			fp.path = path
		case bytes.HasPrefix(l, []byte("Binary files ")):
			fp.binary = true
		}
		p.advance()
	}
	for p.line != nil && bytes.HasPrefix(p.line, []byte("@@")) {
		if err := p.hunk(fp, combined); err != nil {
			return nil, err
		}
	}
	return fp, nil
}

// headerPath reads the new path from a "diff --git a/P b/P" header's
// operands, when they are the same path (no rename): unquoted, the two
// halves around " b/" are equal; quoted, the second quoted string.
func headerPath(rest []byte) string {
	if len(rest) > 0 && rest[0] == '"' {
		// "a/P" "b/P": the second quoted operand is the new path.
		if i := bytes.Index(rest, []byte(`" "b/`)); i >= 0 {
			if p, err := unquotePath(rest[i+2:]); err == nil {
				return trimPrefix(p, "b/")
			}
		}
		return ""
	}
	n := len(rest)
	if n < 7 || (n-5)%2 != 0 {
		return ""
	}
	half := (n - 5) / 2
	if string(rest[:2]) != "a/" || string(rest[2+half:2+half+3]) != " b/" || !bytes.Equal(rest[2:2+half], rest[5+half:]) {
		return ""
	}
	return string(rest[5+half:])
}

func isFileStart(l []byte) bool {
	return len(l) > 0 && l[0] == 0x01 || bytes.HasPrefix(l, []byte("diff --git ")) ||
		bytes.HasPrefix(l, []byte("diff --cc ")) || bytes.HasPrefix(l, []byte("diff --combined "))
}

// hunk parses one hunk and appends its fragments of added lines. In a
// plain hunk ("@@ -a,b +c,d @@") the added lines are those starting with
// '+', consecutive from line c. In a combined one ("@@@ -a,b -c,d +e,f
// @@@", one column per parent) a line is in the result unless a column
// says '-', and it is new against every parent when every column says
// '+'.
func (p *patchReader) hunk(fp *refPatch, combined bool) error {
	hdr := p.line
	cols := 1
	for cols < len(hdr) && hdr[cols] == '@' {
		cols++
	}
	cols-- // "@@" is one parent, "@@@" two
	start, err := newStart(hdr)
	if err != nil {
		return err
	}
	p.advance()
	line := start
	var cur *refFragment
	lastAdded := false // the line before was added to cur
	for p.line != nil && !isFileStart(p.line) && !bytes.HasPrefix(p.line, []byte("@@")) {
		l := p.line
		if len(l) > 0 && l[0] == '\\' {
			// "\ No newline at end of file": the line before has none.
			if lastAdded && bytes.HasSuffix(cur.text, []byte("\n")) {
				cur.text = cur.text[:len(cur.text)-1]
			}
			p.advance()
			continue
		}
		lastAdded = false
		if len(l) < cols {
			p.advance()
			continue
		}
		prefix, text := l[:cols], l[cols:]
		inResult := bytes.IndexByte(prefix, '-') < 0
		added := bytes.Count(prefix, []byte("+")) == cols
		if !combined {
			inResult, added = prefix[0] != '-', prefix[0] == '+'
		}
		switch {
		case added:
			if cur == nil || cur.line+bytes.Count(cur.text, []byte("\n")) != line {
				fp.fragments = append(fp.fragments, refFragment{line: line})
				cur = &fp.fragments[len(fp.fragments)-1]
			}
			cur.text = append(append(cur.text, text...), '\n')
			lastAdded = true
			line++
		case inResult:
			cur = nil
			line++
		default:
			// A removed line: in no fragment. gitleaks joins the added
			// lines of one hunk into one fragment even across removed
			// lines, and in a -U0 hunk removed lines come first, so the
			// added lines stay consecutive either way.
		}
		p.advance()
	}
	return nil
}

// newStart reads the new file's start line from a hunk header: the number
// after the last '+' range ("+c,d" or "+c").
func newStart(hdr []byte) (int, error) {
	i := bytes.Index(hdr, []byte(" +"))
	if i < 0 {
		return 0, fmt.Errorf("git: hunk header %q", hdr)
	}
	num := hdr[i+2:]
	if j := bytes.IndexAny(num, ", "); j >= 0 {
		num = num[:j]
	}
	n, err := strconv.Atoi(string(num))
	if err != nil {
		return 0, fmt.Errorf("git: hunk header %q", hdr)
	}
	if n == 0 {
		n = 1 // an empty new side: no line is added
	}
	return n, nil
}

func trimPrefix(s, prefix string) string {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):]
	}
	return s
}

// unquotePath undoes git's quoting of a path in a patch header: a path
// with a double quote, a backslash, a control character (or, with
// core.quotePath, a byte above 0x7f) is written between double quotes
// with C escapes (\t, \n, \", \\, \ooo octal). An unquoted path is taken
// as it is.
func unquotePath(b []byte) (string, error) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return string(b), nil
	}
	b = b[1 : len(b)-1]
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(b) {
			return "", fmt.Errorf("git: quoted path %q ends in a backslash", b)
		}
		switch c = b[i]; c {
		case 'a':
			out = append(out, '\a')
		case 'b':
			out = append(out, '\b')
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		case 'v':
			out = append(out, '\v')
		case 'f':
			out = append(out, '\f')
		case 'r':
			out = append(out, '\r')
		case '"', '\\':
			out = append(out, c)
		default:
			if c < '0' || c > '3' || i+2 >= len(b) {
				return "", fmt.Errorf("git: bad escape in quoted path %q", b)
			}
			v, err := strconv.ParseUint(string(b[i:i+3]), 8, 8)
			if err != nil {
				return "", fmt.Errorf("git: bad escape in quoted path %q", b)
			}
			out = append(out, byte(v))
			i += 2
		}
	}
	return string(out), nil
}
