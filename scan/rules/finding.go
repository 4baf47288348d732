package rules

import (
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
func (d *Detector) finish(s *Scratch, r *rule, path string, data []byte, m0, m1 int, out []found) []found {
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

	lineLo, lineHi := s.gitleaksLine(data, m0, end)
	if !d.ignoreAllow && s.inlineAllowed(data, lineLo, lineHi) {
		return out
	}

	// gitleaks matches the regex again on the trimmed match alone and
	// takes the secret from its groups.
	secret, secretOff := match, 0
	if r.groups > 0 {
		if loc := r.submatches(match); loc != nil {
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
		if al.dropsFinding(s, path, secret, match, data, lineLo, lineHi) {
			return out
		}
	}
	for _, al := range r.allow {
		if al.dropsFinding(s, path, secret, match, data, lineLo, lineHi) {
			return out
		}
	}

	// spindle's validate key (checksum.go) tags what it finds
	// implausible; Settings.SkipImplausible drops it after gitleaks'
	// final filter (collect), so that a generic rule's finding of the
	// same secret goes too.
	v := r.check.judge(secret)

	start := m0
	if m0 < len(data) && data[m0] == '\n' {
		start++ // gitleaks puts a match that starts on a newline on the next line
	}
	secretStart := m0 + a + secretOff
	return append(out, found{
		Match: Match{
			RuleID:      r.ID,
			Description: r.Description,
			Tags:        r.tagged[v],
			Start:       start,
			End:         end,
			SecretStart: secretStart,
			SecretEnd:   secretStart + len(secret),
			Secret:      string(secret),
			Match:       string(match),
			Entropy:     entropy,
		},
		rule:        r.index,
		rawStart:    m0,
		rawEnd:      m1,
		line:        -1,
		implausible: v.implausible(),
	})
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
		pl, pc := s.lineCol(data, p)
		ok := true
		for k, part := range r.required {
			near := false
			for j := bounds[k]; j < bounds[k+1] && !near; j++ {
				al, ac := s.lineCol(data, &s.aux[j])
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
// rule on the same line has a secret containing its secret; spindle's own
// built-in rules give way the same way to every other rule (ruleRank).
// s.found must be sorted by Start.
func (d *Detector) dropGenericDuplicates(s *Scratch, data []byte) {
	yields := false
	for i := range s.found {
		if d.rules[s.found[i].rule].rank < maxRank {
			yields = true
			break
		}
	}
	if !yields || len(s.found) < 2 {
		return
	}
	// s.found is sorted by Start, so the findings of a line are a run of
	// it; each generic finding looks at its own line's run only.
	for i := range s.found {
		s.found[i].line = s.newlinesBefore(data, s.found[i].Start)
	}
	for lo := 0; lo < len(s.found); {
		hi := lo + 1
		for hi < len(s.found) && s.found[hi].line == s.found[lo].line {
			hi++
		}
		line := s.found[lo:hi]
		for i := range line {
			g := &line[i]
			rank := d.rules[g.rule].rank
			if rank == maxRank {
				continue
			}
			for j := range line {
				o := &line[j]
				if o.rule != g.rule && d.rules[o.rule].rank > rank && strings.Contains(o.Secret, g.Secret) {
					g.dropped = true
					break
				}
			}
		}
		lo = hi
	}
}
