package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Config is a git configuration file, parsed as git-config(1) describes
// it: sections and subsections ([remote "origin"], and the old
// [section.subsection] form), case-insensitive section and key names, a
// key alone meaning true, values with double quotes, backslash escapes
// and line continuations, comments after '#' or ';'. Includes are not
// followed: a scan reads only what the repository holds.
//
// A nil *Config is empty.
type Config struct {
	vals map[string][]string // "section\x00subsection\x00key" -> values in order
}

// maxConfig bounds the configuration file read.
const maxConfig = 1 << 20

// ReadConfig reads and parses the configuration file at path. A missing
// file is an os.ErrNotExist error and an empty Config.
func ReadConfig(path string) (*Config, error) {
	b, err := readLimited(path, maxConfig)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &Config{}, err
		}
		return &Config{}, fmt.Errorf("gitrepo: config: %w", err)
	}
	c, err := ParseConfig(b)
	if err != nil {
		return c, fmt.Errorf("gitrepo: %s: %w", path, err)
	}
	return c, nil
}

// ParseConfig parses a configuration file's content.
func ParseConfig(b []byte) (*Config, error) {
	c := &Config{vals: map[string][]string{}}
	p := configParser{s: string(b), line: 1}
	var section, sub string
	for {
		p.skipSpace(true)
		if p.done() {
			return c, nil
		}
		switch ch := p.peek(); {
		case ch == '#' || ch == ';':
			p.skipLine()
		case ch == '[':
			var err error
			if section, sub, err = p.header(); err != nil {
				return c, err
			}
		case isKeyStart(ch):
			if section == "" {
				return c, p.errorf("key outside a section")
			}
			key := p.name()
			p.skipSpace(false)
			value := "true"
			if !p.done() && p.peek() == '=' {
				p.i++
				v, err := p.value()
				if err != nil {
					return c, err
				}
				value = v
			} else if !p.done() && p.peek() != '\n' && p.peek() != '#' && p.peek() != ';' {
				return c, p.errorf("bad key %q", key)
			}
			k := section + "\x00" + sub + "\x00" + strings.ToLower(key)
			c.vals[k] = append(c.vals[k], value)
		default:
			return c, p.errorf("unexpected %q", ch)
		}
	}
}

// Get returns the last value of section.subsection.key ("" if unset);
// section and key are case-insensitive, subsection is not.
func (c *Config) Get(section, subsection, key string) string {
	v := c.All(section, subsection, key)
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// All returns every value of the key, in order.
func (c *Config) All(section, subsection, key string) []string {
	if c == nil {
		return nil
	}
	return c.vals[strings.ToLower(section)+"\x00"+subsection+"\x00"+strings.ToLower(key)]
}

// Bool returns the key as git reads a boolean, and whether it was set to
// one.
func (c *Config) Bool(section, subsection, key string) (bool, bool) {
	v := c.All(section, subsection, key)
	if len(v) == 0 {
		return false, false
	}
	switch strings.ToLower(v[len(v)-1]) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0", "":
		return false, true
	}
	return false, false
}

// Int returns the key as an integer (git's k, m, g suffixes included),
// and whether it was set to one.
func (c *Config) Int(section, subsection, key string) (int64, bool) {
	v := c.Get(section, subsection, key)
	if v == "" {
		return 0, false
	}
	mul := int64(1)
	switch v[len(v)-1] {
	case 'k', 'K':
		mul, v = 1<<10, v[:len(v)-1]
	case 'm', 'M':
		mul, v = 1<<20, v[:len(v)-1]
	case 'g', 'G':
		mul, v = 1<<30, v[:len(v)-1]
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	return n * mul, true
}

type configParser struct {
	s    string
	i    int
	line int
}

func (p *configParser) done() bool { return p.i >= len(p.s) }
func (p *configParser) peek() byte { return p.s[p.i] }

func (p *configParser) errorf(format string, a ...any) error {
	return fmt.Errorf("config line %d: %s", p.line, fmt.Sprintf(format, a...))
}

// skipSpace skips blanks, and newlines too if lines is set.
func (p *configParser) skipSpace(lines bool) {
	for !p.done() {
		switch p.peek() {
		case ' ', '\t', '\r':
		case '\n':
			if !lines {
				return
			}
			p.line++
		default:
			return
		}
		p.i++
	}
}

func (p *configParser) skipLine() {
	for !p.done() && p.peek() != '\n' {
		p.i++
	}
}

func isKeyStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func (p *configParser) name() string {
	start := p.i
	for !p.done() {
		c := p.peek()
		if !isKeyStart(c) && !(c >= '0' && c <= '9') && c != '-' {
			break
		}
		p.i++
	}
	return p.s[start:p.i]
}

// header parses "[section]", "[section "sub"]" or "[section.sub]".
func (p *configParser) header() (section, sub string, err error) {
	p.i++ // '['
	start := p.i
	for !p.done() && p.peek() != ']' && p.peek() != ' ' && p.peek() != '\t' && p.peek() != '\n' {
		c := p.peek()
		if !isKeyStart(c) && !(c >= '0' && c <= '9') && c != '-' && c != '.' {
			return "", "", p.errorf("bad section name")
		}
		p.i++
	}
	section = strings.ToLower(p.s[start:p.i])
	if section == "" {
		return "", "", p.errorf("empty section name")
	}
	if dot := strings.IndexByte(section, '.'); dot >= 0 {
		// The old form: the subsection is lower-cased too.
		section, sub = section[:dot], section[dot+1:]
	}
	p.skipSpace(false)
	if !p.done() && p.peek() == '"' {
		p.i++
		var b strings.Builder
		for {
			if p.done() || p.peek() == '\n' {
				return "", "", p.errorf("unterminated subsection")
			}
			c := p.peek()
			p.i++
			if c == '"' {
				break
			}
			if c == '\\' {
				if p.done() || p.peek() == '\n' {
					return "", "", p.errorf("unterminated subsection")
				}
				c = p.peek()
				p.i++
			}
			b.WriteByte(c)
		}
		sub = b.String()
		p.skipSpace(false)
	}
	if p.done() || p.peek() != ']' {
		return "", "", p.errorf("unterminated section header")
	}
	p.i++
	return section, sub, nil
}

// value parses a value up to the end of its line: quotes, escapes,
// continuations, trailing comments, surrounding blanks dropped (those
// inside quotes kept).
func (p *configParser) value() (string, error) {
	var b strings.Builder
	quoted := false
	pending := 0 // blanks seen outside quotes, written only if more follows
	p.skipSpace(false)
	for !p.done() {
		c := p.peek()
		switch {
		case c == '\n':
			if quoted {
				return "", p.errorf("unterminated quote")
			}
			return b.String(), nil
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return b.String(), nil
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			pending++
			p.i++
			continue
		case c == '"':
			quoted = !quoted
			p.i++
			continue
		}
		for ; pending > 0; pending-- {
			b.WriteByte(' ')
		}
		p.i++
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if p.done() {
			return "", p.errorf("value ends in a backslash")
		}
		e := p.peek()
		p.i++
		switch e {
		case '\n':
			p.line++ // a continuation
		case '\r':
			if !p.done() && p.peek() == '\n' {
				p.i++
				p.line++
			}
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'b':
			b.WriteByte('\b')
		case '\\', '"':
			b.WriteByte(e)
		default:
			return "", p.errorf("bad escape \\%c", e)
		}
	}
	if quoted {
		return "", p.errorf("unterminated quote")
	}
	return b.String(), nil
}

// unquoteC reads a C-quoted string at the start of s (as git quotes paths
// and list entries): it returns the string, the rest of s after the
// closing quote, and whether s held one.
func unquoteC(s string) (string, string, bool) {
	if s == "" || s[0] != '"' {
		return "", s, false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), s[i+1:], true
		case '\\':
			i++
			if i >= len(s) {
				return "", s, false
			}
			switch e := s[i]; e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case '"', '\\':
				b.WriteByte(e)
			default:
				if e < '0' || e > '3' || i+2 >= len(s) {
					return "", s, false
				}
				v, err := strconv.ParseUint(s[i:i+3], 8, 8)
				if err != nil {
					return "", s, false
				}
				b.WriteByte(byte(v))
				i += 2
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", s, false
}
