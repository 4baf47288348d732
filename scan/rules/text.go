package rules

import (
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// regexText returns the text of a regex syntax tree, for compiling a tree
// that this package derived from a rule's regex: a window form (the regex
// with \A or \z made impossible) or a match core. It is what
// (*syntax.Regexp).String is for, but String is slow on large regexes:
// for every character class it walks the class's runes up to U+1E943 to
// infer case-folding flags, so that gitleaks' generic-api-key, full of
// negated classes, takes tens of milliseconds, and a scan spent 45 ms of
// CPU there. regexText writes every node as a group of its own with its
// flags stated. It checks its work: the text of tree as it is must parse
// back to tree itself (syntax.Regexp.Equal), or String is used. Given
// that, writing \A or \z as a class that matches nothing is exact, since
// each node is an atom of its own in the text and the parser composes
// atoms. begin and end say which to make impossible.
func regexText(tree *syntax.Regexp, begin, end bool) string {
	var b strings.Builder
	writeRegex(&b, tree, false, false)
	if again, err := syntax.Parse(b.String(), syntax.Perl); err != nil || !again.Equal(tree) {
		return withoutTextAnchors(tree, begin, end).String()
	}
	if !begin && !end {
		return b.String()
	}
	b.Reset()
	writeRegex(&b, tree, begin, end)
	return b.String()
}

// writeRegex writes re so that every node parses back to itself: each
// operand in a non-capturing group, flags set where they matter; \A (if
// noBegin) and \z (if noEnd) as a class that matches nothing.
func writeRegex(b *strings.Builder, re *syntax.Regexp, noBegin, noEnd bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString(`[^\x00-\x{10FFFF}]`)
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			b.WriteString(`(?i:`)
		} else {
			b.WriteString(`(?-i:`)
		}
		for _, r := range re.Rune {
			writeRune(b, r)
		}
		b.WriteByte(')')
	case syntax.OpCharClass:
		// The ranges already hold every case variant; the flag is part of
		// the node (syntax.Regexp.Equal compares it), and folding the
		// ranges again changes nothing.
		if re.Flags&syntax.FoldCase != 0 {
			b.WriteString(`(?i:[`)
		} else {
			b.WriteString(`(?-i:[`)
		}
		for i := 0; i < len(re.Rune); i += 2 {
			writeRune(b, re.Rune[i])
			if re.Rune[i+1] != re.Rune[i] {
				b.WriteByte('-')
				writeRune(b, re.Rune[i+1])
			}
		}
		b.WriteString(`])`)
	case syntax.OpAnyCharNotNL:
		b.WriteString(`(?-s:.)`)
	case syntax.OpAnyChar:
		b.WriteString(`(?s:.)`)
	case syntax.OpBeginLine:
		b.WriteString(`(?m:^)`)
	case syntax.OpEndLine:
		b.WriteString(`(?m:$)`)
	case syntax.OpBeginText:
		if noBegin {
			b.WriteString(`[^\x00-\x{10FFFF}]`)
		} else {
			b.WriteString(`\A`)
		}
	case syntax.OpEndText:
		if noEnd {
			b.WriteString(`[^\x00-\x{10FFFF}]`)
		} else if re.Flags&syntax.WasDollar != 0 {
			b.WriteString(`(?-m:$)`)
		} else {
			b.WriteString(`\z`)
		}
	case syntax.OpWordBoundary:
		b.WriteString(`\b`)
	case syntax.OpNoWordBoundary:
		b.WriteString(`\B`)
	case syntax.OpCapture:
		if re.Name != "" {
			b.WriteString(`(?P<` + re.Name + `>`)
		} else {
			b.WriteByte('(')
		}
		writeRegex(b, re.Sub[0], noBegin, noEnd)
		b.WriteByte(')')
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		b.WriteString(`(?:`)
		writeRegex(b, re.Sub[0], noBegin, noEnd)
		b.WriteByte(')')
		switch re.Op {
		case syntax.OpStar:
			b.WriteByte('*')
		case syntax.OpPlus:
			b.WriteByte('+')
		case syntax.OpQuest:
			b.WriteByte('?')
		default:
			b.WriteByte('{')
			b.WriteString(strconv.Itoa(re.Min))
			if re.Max != re.Min {
				b.WriteByte(',')
				if re.Max >= 0 {
					b.WriteString(strconv.Itoa(re.Max))
				}
			}
			b.WriteByte('}')
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b.WriteByte('?')
		}
	case syntax.OpConcat:
		b.WriteString(`(?:`)
		for _, sub := range re.Sub {
			writeRegex(b, sub, noBegin, noEnd)
		}
		b.WriteByte(')')
	case syntax.OpAlternate:
		b.WriteString(`(?:`)
		for i, sub := range re.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			writeRegex(b, sub, noBegin, noEnd)
		}
		b.WriteByte(')')
	default:
		b.WriteString(re.String()) // unknown to this writer; the check decides
	}
}

// writeRune writes r as an escape that means r inside and outside a
// character class.
func writeRune(b *strings.Builder, r rune) {
	if r < utf8.RuneSelf && (('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
		b.WriteRune(r)
		return
	}
	b.WriteString(`\x{`)
	b.WriteString(strconv.FormatInt(int64(r), 16))
	b.WriteByte('}')
}
