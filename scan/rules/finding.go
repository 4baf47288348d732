package rules

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file turns a regex match into a finding, following gitleaks'
// detectRule step by step: trim newlines, check the line for an inline
// allow, extract the secret by matching the regex again on the trimmed
// text, check entropy, then the global and the rule's allowlists.

// finish appends the finding for the regex match data[m0:m1] to out, unless
// a filter drops it.
func (d *Detector) finish(r *rule, path string, data []byte, m0, m1 int, out []found) []found {
	raw := data[m0:m1]
	a, b := 0, len(raw)
	for a < b && raw[a] == '\n' {
		a++
	}
	for b > a && raw[b-1] == '\n' {
		b--
	}
	match := raw[a:b]
	end := m0 + len(match) // gitleaks' end offset (it keeps the untrimmed start)

	lineLo, lineHi := gitleaksLine(data, m0, end)
	line := data[lineLo:lineHi]
	if inlineAllowed(line) {
		return out
	}

	// gitleaks matches the regex again on the trimmed match alone and
	// takes the secret from its groups.
	secret, secretOff := match, 0
	if re := r.std[0]; re.NumSubexp() > 0 {
		if loc := re.FindSubmatchIndex(match); loc != nil {
			if r.group > 0 {
				if g := loc[2*r.group:]; g[0] >= 0 {
					secret, secretOff = match[g[0]:g[1]], g[0]
				} else {
					secret = match[:0]
				}
			} else {
				for g := 1; 2*g < len(loc); g++ {
					if loc[2*g] >= 0 && loc[2*g+1] > loc[2*g] {
						secret, secretOff = match[loc[2*g]:loc[2*g+1]], loc[2*g]
						break
					}
				}
			}
		}
	}

	entropy := shannonEntropy(secret)
	if r.entropy != 0 && entropy <= r.entropy {
		return out
	}
	for _, al := range d.global {
		if al.dropsFinding(path, secret, match, line) {
			return out
		}
	}
	for _, al := range r.allow {
		if al.dropsFinding(path, secret, match, line) {
			return out
		}
	}

	start := m0
	if m0 < len(data) && data[m0] == '\n' {
		start++ // gitleaks puts a match that starts on a newline on the next line
	}
	secretStart := m0 + a + secretOff
	return append(out, found{
		Match: Match{
			RuleID:      r.ID,
			Description: r.Description,
			Tags:        r.Tags,
			Start:       start,
			End:         end,
			SecretStart: secretStart,
			SecretEnd:   secretStart + len(secret),
			Secret:      string(secret),
			Match:       string(match),
			Entropy:     entropy,
		},
		rule:     r.index,
		rawStart: m0,
		line:     -1,
	})
}

// gitleaksLine returns the bounds of what gitleaks calls the finding's
// line, for the inline-allow check and regexTarget = "line": from the '\n'
// before the start (inclusive, or 0) to the first '\n' at or after end.
// Two gitleaks quirks are kept: a buffer without any '\n' is one line, and
// a match on an unterminated last line gets a "line" that begins at the
// start of the buffer and ends at the next '\r' or the end.
func gitleaksLine(data []byte, start, end int) (lo, hi int) {
	if bytes.IndexByte(data, '\n') < 0 {
		return 0, len(data)
	}
	if start+1 > len(data) || bytes.IndexByte(data[start+1:], '\n') < 0 {
		hi = end
		for hi < len(data) && data[hi] != '\n' && data[hi] != '\r' {
			hi++
		}
		return 0, hi
	}
	lo = max(bytes.LastIndexByte(data[:start+1], '\n'), 0)
	hi = end
	if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
		hi = end + i
	}
	return lo, hi
}

// shannonEntropy is gitleaks' entropy: over the runes of s (each invalid
// byte counting as U+FFFD), with frequencies relative to the byte length.
func shannonEntropy(s []byte) float64 {
	if len(s) == 0 {
		return 0
	}
	inv := 1 / float64(len(s))
	var ascii [utf8.RuneSelf]int
	var other map[rune]int
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			ascii[c]++
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if other == nil {
			other = map[rune]int{}
		}
		other[r]++
		i += n
	}
	var e float64
	for _, n := range ascii {
		if n > 0 {
			f := float64(n) * inv
			e -= f * math.Log2(f)
		}
	}
	if other != nil {
		keys := make([]rune, 0, len(other))
		for r := range other {
			keys = append(keys, r)
		}
		slices.Sort(keys)
		for _, r := range keys {
			f := float64(other[r]) * inv
			e -= f * math.Log2(f)
		}
	}
	return e
}

// lineCol returns gitleaks' line index (newlines before Start) and column
// of a finding. gitleaks counts the column from the '\n' before the match
// (or from 1 on the first line), so columns after the first line are one
// more than the usual 1-based column; it is kept for withinColumns.
func lineCol(data []byte, f *found) (line, col int) {
	if f.rawStart < 0 {
		return 0, 0 // path-only finding
	}
	if f.line < 0 {
		f.line = bytes.Count(data[:f.Start], []byte{'\n'})
	}
	prev := max(bytes.LastIndexByte(data[:f.rawStart+1], '\n'), 0)
	return f.line, f.rawStart - prev + 1
}

// applyRequired keeps a composite rule's findings out[start:] only where
// every required rule also has a finding within the given distance, as
// gitleaks does. Required rules run without their keyword gate and
// regardless of skipReport.
func (d *Detector) applyRequired(s *Scratch, r *rule, path string, data []byte, slow bool, out []found, start int) []found {
	s.aux = s.aux[:0]
	bounds := make([]int, 0, len(r.required)+1) // s.aux[bounds[i]:bounds[i+1]] belong to part i
	for _, part := range r.required {
		bounds = append(bounds, len(s.aux))
		s.aux = d.findRule(s, d.rules[part.rule], path, data, slow, s.aux)
	}
	bounds = append(bounds, len(s.aux))

	kept := out[:start]
	for i := start; i < len(out); i++ {
		p := &out[i]
		pl, pc := lineCol(data, p)
		ok := true
		for k, part := range r.required {
			near := false
			for j := bounds[k]; j < bounds[k+1] && !near; j++ {
				al, ac := lineCol(data, &s.aux[j])
				near = (part.lines == nil || abs(pl-al) <= *part.lines) &&
					(part.column == nil || abs(pc-ac) <= *part.column)
			}
			if !near {
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, *p)
		}
	}
	return kept
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// dropGenericDuplicates applies gitleaks' final filter: a finding of a rule
// whose id contains "generic" is dropped when a finding of a non-generic
// rule on the same line has a secret containing its secret. s.found must
// be sorted by Start.
func (d *Detector) dropGenericDuplicates(s *Scratch, data []byte) {
	anyGeneric := false
	for i := range s.found {
		if d.rules[s.found[i].rule].generic {
			anyGeneric = true
			break
		}
	}
	if !anyGeneric || len(s.found) < 2 {
		return
	}
	// Line of each finding, counting newlines incrementally.
	line, pos := 0, 0
	for i := range s.found {
		f := &s.found[i]
		line += bytes.Count(data[pos:f.Start], []byte{'\n'})
		pos = f.Start
		f.line = line
	}
	for i := range s.found {
		g := &s.found[i]
		if !d.rules[g.rule].generic {
			continue
		}
		for j := range s.found {
			o := &s.found[j]
			if o.line != g.line || o.rule == g.rule || d.rules[o.rule].generic {
				continue
			}
			if strings.Contains(o.Secret, g.Secret) {
				g.dropped = true
				break
			}
		}
	}
}
