package odb

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// A commit object is header lines, a blank line and the message:
//
//	tree <id>
//	parent <id>            (zero or more)
//	author <name> <<email>> <seconds> <±hhmm>
//	committer <name> <<email>> <seconds> <±hhmm>
//	encoding, gpgsig, mergetag, ... (a continuation line starts with a space)
//
//	<message>
//
// git writes what its users give it, so identities can be odd (no email,
// no date, a bad zone); git log shows such commits, and so the parser
// takes what it can from an identity rather than failing. Only a commit
// without a proper tree line, or with a bad parent line, is an error.

var errCommit = errors.New("bad commit")

// Signature is an identity line of a commit or tag.
type Signature struct {
	Name  string
	Email string
	// When is the time in the signer's zone (a fixed zone of the recorded
	// offset); the zero Time if the line has no readable date.
	When time.Time
}

// Commit is a parsed commit object.
type Commit struct {
	Tree      ID
	Parents   []ID
	Author    Signature
	Committer Signature
	// Encoding is the encoding header, empty when absent (UTF-8).
	Encoding string
	// Message is everything after the blank line that ends the headers.
	Message string
}

// Subject returns the first line of the message.
func (c *Commit) Subject() string {
	if i := indexByte(c.Message, '\n'); i >= 0 {
		return c.Message[:i]
	}
	return c.Message
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// headerLines calls fn for each header of a commit or tag (key, value with
// continuation lines joined by '\n' and their leading space dropped) and
// returns the message.
func headerLines(data []byte, fn func(key, value []byte) error) ([]byte, error) {
	for len(data) > 0 {
		if data[0] == '\n' {
			return data[1:], nil
		}
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		key, value, _ := bytes.Cut(line, []byte{' '})
		for len(data) > 0 && data[0] == ' ' {
			// A continuation line; only multi-line headers (gpgsig,
			// mergetag) have them, and none is parsed further here.
			_, data, _ = bytes.Cut(data, []byte{'\n'})
		}
		if err := fn(key, value); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// commitLinks collects the tree and parent lines of a commit's headers.
type commitLinks struct {
	tree     ID
	parents  []ID
	seenTree bool
}

// header takes one header line; it reports whether the key was one of
// its own.
func (l *commitLinks) header(key, value []byte) (bool, error) {
	switch string(key) {
	case "tree":
		if l.seenTree {
			return true, fmt.Errorf("%w: two tree lines", errCommit)
		}
		id, err := ParseID(string(value))
		if err != nil {
			return true, fmt.Errorf("%w: tree: %w", errCommit, err)
		}
		l.tree, l.seenTree = id, true
		return true, nil
	case "parent":
		id, err := ParseID(string(value))
		if err != nil {
			return true, fmt.Errorf("%w: parent: %w", errCommit, err)
		}
		l.parents = append(l.parents, id)
		return true, nil
	}
	return false, nil
}

// done checks that there was a tree line.
func (l *commitLinks) done() error {
	if !l.seenTree {
		return fmt.Errorf("%w: no tree line", errCommit)
	}
	return nil
}

// ParseCommitLinks reads what a history walk needs of a commit, and
// nothing else: its tree, its parents (appended to parents) and the
// committer's time in seconds (0 if unreadable), without copying the
// message or the identities.
func ParseCommitLinks(data []byte, parents []ID) (tree ID, ps []ID, when int64, err error) {
	l := commitLinks{parents: parents}
	_, err = headerLines(data, func(key, value []byte) error {
		if ok, err := l.header(key, value); ok {
			return err
		}
		if string(key) == "committer" {
			if gt := bytes.LastIndexByte(value, '>'); gt >= 0 {
				if t := parseGitDate(value[gt+1:]); !t.IsZero() {
					when = t.Unix()
				}
			}
		}
		return nil
	})
	if err == nil {
		err = l.done()
	}
	return l.tree, l.parents, when, err
}

// ParseCommitLimit is ParseCommit keeping at most limit bytes of each
// identity's name and email and of the message (limit < 0: all of them),
// so that a commit made to be huge costs no more than its read.
func ParseCommitLimit(data []byte, limit int) (*Commit, error) {
	c := &Commit{}
	var l commitLinks
	msg, err := headerLines(data, func(key, value []byte) error {
		if ok, err := l.header(key, value); ok {
			return err
		}
		switch string(key) {
		case "author":
			c.Author = parseSignature(value, limit)
		case "committer":
			c.Committer = parseSignature(value, limit)
		case "encoding":
			c.Encoding = string(value)
		}
		return nil
	})
	if err == nil {
		err = l.done()
	}
	if err != nil {
		return nil, err
	}
	c.Tree, c.Parents = l.tree, l.parents
	if limit >= 0 && len(msg) > limit {
		msg = msg[:limit]
	}
	c.Message = string(msg)
	return c, nil
}

// parseSignature reads "Name <email> seconds ±hhmm" as git's
// split_ident_line does: the name is what precedes the first '<', less
// trailing spaces; the email runs to the next '>'; the date is digits,
// spaces and a signed number of hhmm, or is absent if any part of that is
// missing. Missing parts stay empty.
func parseSignature(b []byte, limit int) Signature {
	var s Signature
	capped := func(b []byte) string {
		if limit >= 0 && len(b) > limit {
			b = b[:limit]
		}
		return string(b)
	}
	lt := bytes.IndexByte(b, '<')
	if lt < 0 {
		s.Name = capped(bytes.TrimSpace(b))
		return s
	}
	s.Name = capped(bytes.TrimRight(b[:lt], " \t\n\r\v\f"))
	gt := bytes.IndexByte(b[lt+1:], '>')
	if gt < 0 {
		s.Email = capped(b[lt+1:])
		return s
	}
	s.Email = capped(b[lt+1 : lt+1+gt])
	s.When = parseGitDate(b[lt+1+gt+1:])
	return s
}

// parseGitDate reads the date after an identity's email: spaces, decimal
// seconds, spaces, a sign and decimal ±hhmm. Anything else gives the zero
// Time, as git shows no date then.
func parseGitDate(b []byte) time.Time {
	i := skipSpace(b, 0)
	j := skipDigits(b, i)
	if j == i {
		return time.Time{}
	}
	sec, err := strconv.ParseInt(string(b[i:j]), 10, 64)
	if err != nil {
		return time.Time{}
	}
	k := skipSpace(b, j)
	if k >= len(b) || (b[k] != '+' && b[k] != '-') {
		return time.Time{}
	}
	l := skipDigits(b, k+1)
	if l == k+1 {
		return time.Time{}
	}
	hhmm, err := strconv.Atoi(string(b[k+1 : min(l, k+1+9)]))
	if err != nil {
		return time.Time{}
	}
	offset := (hhmm/100)*3600 + (hhmm%100)*60
	if b[k] == '-' {
		offset = -offset
	}
	return time.Unix(sec, 0).In(time.FixedZone("", offset))
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r' || b[i] == '\v' || b[i] == '\f') {
		i++
	}
	return i
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// Tag is a parsed annotated tag object.
type Tag struct {
	Object  ID   // what the tag points at
	Type    Type // the type of Object
	Name    string
	Tagger  Signature
	Message string
}

var errTag = errors.New("bad tag")

// ParseTag parses a tag object's content.
func ParseTag(data []byte) (*Tag, error) {
	t := &Tag{}
	seenObject := false
	msg, err := headerLines(data, func(key, value []byte) error {
		switch string(key) {
		case "object":
			id, err := ParseID(string(value))
			if err != nil {
				return fmt.Errorf("%w: object: %w", errTag, err)
			}
			t.Object, seenObject = id, true
		case "type":
			typ, ok := parseType(value)
			if !ok {
				return fmt.Errorf("%w: type %q", errTag, value)
			}
			t.Type = typ
		case "tag":
			t.Name = string(value)
		case "tagger":
			t.Tagger = parseSignature(value, -1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !seenObject || t.Type == 0 {
		return nil, fmt.Errorf("%w: no object or type line", errTag)
	}
	t.Message = string(msg)
	return t, nil
}
