package rules

import (
	"math/rand/v2"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"cmp"

	gitleaksconfig "github.com/zricethezav/gitleaks/v8/config"
)

// This file holds the test oracle: gitleaks' matching written the plain
// way (gate on strings.ToLower of the buffer, then the rule's regex over
// the whole buffer), and a generator of text that exercises the rules.

// referenceRawLower returns the rule's regex matches in data the way
// gitleaks finds them, with the standard library (gitleaks' default
// engine): nothing if the rule has keywords and none occurs in the
// lower-cased buffer (lower), else every match over the whole buffer.
func referenceRawLower(r *rule, data []byte, lower string) [][2]int {
	if r.PathOnly {
		return nil
	}
	if len(r.Keywords) > 0 {
		open := false
		for _, k := range r.Keywords {
			if strings.Contains(lower, strings.ToLower(k)) {
				open = true
				break
			}
		}
		if !open {
			return nil
		}
	}
	var out [][2]int
	for _, m := range r.reference().FindAllIndex(data, -1) {
		out = append(out, [2]int{m[0], m[1]})
	}
	return out
}

// detectorRaw returns what the detector finds for the rule in data, gate
// included.
func detectorRaw(s *Scratch, r *rule, data []byte) [][2]int {
	s.setPath("")
	slow := s.prefilter(data)
	if r.PathOnly || !s.gateOpen(r, data, slow) {
		return nil
	}
	var out [][2]int
	s.rawMatches(r, data, slow, func(m0, m1 int) { out = append(out, [2]int{m0, m1}) })
	return out
}

// referenceScan is Scan written the plain way, for end-to-end comparisons.
func referenceScan(d *Detector, path string, data []byte) []Match {
	s := d.NewScratch()
	s.setPath(path)
	if s.skip || len(data) == 0 {
		return nil
	}
	var all []found
	lower := strings.ToLower(string(data))
	for _, r := range d.rules {
		if r.PathOnly || r.skipReport || !s.active[r.index] {
			continue
		}
		start := len(all)
		for _, m := range referenceRawLower(r, data, lower) {
			all = d.finish(s, r, path, data, m[0], m[1], all)
		}
		if len(r.required) > 0 && len(all) > start {
			all = d.applyRequired(s, r, path, data, true, all, start)
		}
	}
	slices.SortFunc(all, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), cmp.Compare(a.rule, b.rule))
	})
	s.found = all
	d.dropGenericDuplicates(s, data)
	var out []Match
	for _, f := range s.found {
		if !f.dropped {
			out = append(out, f.Match)
		}
	}
	return out
}

func scanAll(d *Detector, s *Scratch, path string, data []byte) []Match {
	var out []Match
	d.Scan(s, path, data, func(m Match) { out = append(out, m) })
	return out
}

// gen produces random text that a regex tree would match, ignoring
// zero-width assertions (so the result may or may not match).
type gen struct {
	rng *rand.Rand
}

func (g gen) regex(b *strings.Builder, re *syntax.Regexp, depth int) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && g.rng.IntN(2) == 0 {
				r = flipCase(r)
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(g.classRune(re.Rune))
	case syntax.OpAnyCharNotNL:
		b.WriteRune(g.anyRune(false))
	case syntax.OpAnyChar:
		b.WriteRune(g.anyRune(true))
	case syntax.OpCapture:
		g.regex(b, re.Sub[0], depth)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			g.regex(b, sub, depth)
		}
	case syntax.OpAlternate:
		g.regex(b, re.Sub[g.rng.IntN(len(re.Sub))], depth)
	case syntax.OpQuest:
		if g.rng.IntN(2) == 0 {
			g.regex(b, re.Sub[0], depth)
		}
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo, hi = 1, 4
		case syntax.OpRepeat:
			lo = re.Min
			hi = re.Max
			if hi < 0 {
				hi = lo + 3
			}
		}
		n := lo + g.rng.IntN(hi-lo+1)
		if depth > 3 {
			n = lo
		}
		for range n {
			g.regex(b, re.Sub[0], depth+1)
		}
	}
}

func flipCase(r rune) rune {
	switch {
	case 'a' <= r && r <= 'z':
		return r - 'a' + 'A'
	case 'A' <= r && r <= 'Z':
		return r - 'A' + 'a'
	}
	return r
}

func (g gen) classRune(ranges []rune) rune {
	// Prefer ASCII ranges, as real text does.
	var ascii []int
	for i := 0; i < len(ranges); i += 2 {
		if ranges[i] < utf8.RuneSelf {
			ascii = append(ascii, i)
		}
	}
	i := 2 * g.rng.IntN(len(ranges)/2)
	if len(ascii) > 0 && g.rng.IntN(8) != 0 {
		i = ascii[g.rng.IntN(len(ascii))]
	}
	lo, hi := ranges[i], ranges[i+1]
	if lo < utf8.RuneSelf && hi >= utf8.RuneSelf && g.rng.IntN(8) != 0 {
		hi = utf8.RuneSelf - 1
	}
	return lo + rune(g.rng.IntN(int(hi-lo)+1))
}

func (g gen) anyRune(nl bool) rune {
	for {
		r := g.noiseRune()
		if nl || r != '\n' {
			return r
		}
	}
}

// noiseRune is a character of code-like text, with the occasional
// non-ASCII letter, rare rune or newline.
func (g gen) noiseRune() rune {
	const punct = " \t\n\n\n=:;,.'\"`(){}[]<>/\\-_+*&|!?#$%@~"
	switch n := g.rng.IntN(100); {
	case n < 50:
		return rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[g.rng.IntN(62)])
	case n < 94:
		return rune(punct[g.rng.IntN(len(punct))])
	case n < 97:
		return []rune("éßжλ中€")[g.rng.IntN(6)]
	case n < 98:
		return rareRunes[g.rng.IntN(len(rareRunes))]
	default:
		return '\r'
	}
}

// corpus builds a buffer from noise, rule keywords in random case, and
// text generated from the rules' regexes, sometimes cut short or joined.
func (g gen) corpus(rules []*rule, trees []*syntax.Regexp, size int, allowRare bool) []byte {
	var b strings.Builder
	for b.Len() < size {
		switch n := g.rng.IntN(10); {
		case n < 4:
			for range 1 + g.rng.IntN(40) {
				r := g.noiseRune()
				if !allowRare && isRareRune(r) {
					r = 'k'
				}
				b.WriteRune(r)
			}
		case n < 6:
			r := rules[g.rng.IntN(len(rules))]
			if len(r.Keywords) > 0 {
				k := []rune(r.Keywords[g.rng.IntN(len(r.Keywords))])
				for i := range k {
					if g.rng.IntN(2) == 0 {
						k[i] = flipCase(k[i])
					}
				}
				b.WriteString(string(k))
			}
		case n < 9:
			i := g.rng.IntN(len(trees))
			if trees[i] == nil {
				continue
			}
			var m strings.Builder
			g.regex(&m, trees[i], 0)
			s := m.String()
			if !allowRare {
				for _, r := range rareRunes {
					s = strings.ReplaceAll(s, string(r), "s")
				}
			}
			if g.rng.IntN(8) == 0 && len(s) > 2 {
				s = s[:g.rng.IntN(len(s))] // a truncated near-match
			}
			b.WriteString(s)
		default:
			if g.rng.IntN(3) == 0 {
				b.WriteByte(byte(0x80 + g.rng.IntN(0x80))) // invalid UTF-8
			} else {
				b.WriteString("\n")
			}
		}
	}
	return []byte(b.String())
}

func ruleTrees(t testing.TB, d *Detector) []*syntax.Regexp {
	trees := make([]*syntax.Regexp, len(d.rules))
	for i, r := range d.rules {
		if r.PathOnly {
			continue
		}
		tree, err := syntax.Parse(r.source, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		trees[i] = tree
	}
	return trees
}

// gitleaksTOML is gitleaks' own default config, from the gitleaks module
// this module requires.
func gitleaksTOML() []byte { return []byte(gitleaksconfig.DefaultConfig) }

func gitleaksDetector(t testing.TB) *Detector {
	return cachedDetector(t, "gitleaks", compileGitleaks)
}

func compileGitleaks(t testing.TB) *Detector {
	data := gitleaksTOML()
	cfg, err := Parse(data, "gitleaks.toml")
	if err != nil {
		t.Fatalf("Parse(gitleaks.toml): %v", err)
	}
	d, err := CompileWith(cfg, noDecoding)
	if err != nil {
		t.Fatalf("Compile(gitleaks.toml): %v", err)
	}
	return d
}
