package rules

import (
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// pathRegex is a regular expression over file paths (a rule's path, an
// allowlist's paths) that answers MatchString exactly as the standard
// library's regexp does, without running the regex on most paths.
//
// Path regexes are asked about every file and directory of a scan, and the
// standard library's matcher is slow on them: gitleaks' global allowlist
// joins 25 path regexes into one alternation of some 1,500 bytes, which
// compiles to a program whose NFA simulation costs tens of microseconds
// per path, more than reading a small file. Yet nearly every branch of such
// an alternation needs a literal that nearly no path holds: an extension
// (".png"), a file name ("go.sum"), a directory ("node_modules/"). So:
//
//   - The top-level alternation is split into its branches. A string
//     matches an alternation, somewhere, exactly when it matches one of its
//     branches somewhere; leftmost-first priority decides which match is
//     reported, never whether there is one.
//   - Each branch is compiled on its own, from its syntax tree's String().
//     That text is parsed again and the split is kept only if the tree is
//     the same (syntax.Regexp.Equal), so the branch regex is the branch;
//     otherwise the whole regex is one branch. Flags that a branch set for
//     the ones after it (gitleaks joins the regexes textually, so a leading
//     (?i) leaks into later branches) are in the tree, hence in the text.
//   - From each branch's tree, analyze.go derives a set of folded literals
//     one of which every match contains (derivedAnchoring). One pass of a
//     keyword automaton over the path finds which literals occur, and only
//     their branches run, plus the branches for which no literal is known.
//
// The literal sets ignore the runes on which ASCII case folding and (?i)
// disagree (see rareRunes), and the automaton folds only ASCII, so the
// prefilter is sound for ASCII paths only: a path with a byte >= 0x80 is
// matched by the whole regex, as written. On every other path the answer is
// the whole regex's by the two arguments above: a branch skipped by the
// prefilter has no match, and a branch that runs is the same regex as that
// branch of the whole.
type pathRegex struct {
	full     *regexp.Regexp   // the expression as written: the reference
	branches []*regexp.Regexp // the top-level alternatives, or just full
	always   []int            // branches with no literal: run on every path
	lits     *keywordDFA      // the literals of the other branches; nil if none
	owner    []int32          // pattern id of lits -> branch
}

// compilePathRegex compiles expr for matching paths. The error is the
// standard library's.
func compilePathRegex(expr string) (*pathRegex, error) {
	full, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	p := &pathRegex{full: full}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err // unreachable: regexp.Compile parsed it
	}
	subs := []*syntax.Regexp{tree}
	if tree.Op == syntax.OpAlternate {
		subs = tree.Sub
	}
	branches := make([]*regexp.Regexp, 0, len(subs))
	for _, sub := range subs {
		re := full
		if len(subs) > 1 {
			re = compileBranch(sub)
			if re == nil {
				subs, branches = []*syntax.Regexp{tree}, []*regexp.Regexp{full}
				break
			}
		}
		branches = append(branches, re)
	}
	p.branches = branches

	var lits []string
	for b, sub := range subs {
		set, ok := pathLiterals(newAnalyzer(), sub, maxPathAlternatives)
		if !ok {
			p.always = append(p.always, b)
			continue
		}
		for _, s := range set {
			lits = append(lits, s)
			p.owner = append(p.owner, int32(b))
		}
	}
	if len(lits) > 0 {
		p.lits = newKeywordDFA(lits)
	}
	return p, nil
}

// maxPathAlternatives bounds how many alternatives pathLiterals expands a
// branch into.
const maxPathAlternatives = 64

// pathLiterals returns a set of folded literals one of which every match
// of re contains (as derivedAnchoring does), or false. It first rewrites re
// as a union of alternatives, distributing concatenations over the
// alternations in them: the parser factors `\.(?:png|gif)$|\.(?:pdf|.dll)$`
// into `\.(?:(?:png|gif)$|(?:pdf|.dll)$)`, where the only literal every
// match holds is "."; distributed, each alternative has its own (".png",
// ".gif", ".pdf", "dll"). Distribution keeps the set of strings matched at
// every position, assertions included, so the union of the alternatives'
// sets is a sound set for re. At most budget alternatives are made;
// beyond that, re is analyzed as it is.
func pathLiterals(an *analyzer, re *syntax.Regexp, budget int) ([]string, bool) {
	alts := distribute(re, budget)
	if alts == nil {
		a, ok := an.derivedAnchoring(re)
		return a.set, ok
	}
	var all []string
	for _, alt := range alts {
		a, ok := an.derivedAnchoring(alt)
		if !ok {
			return nil, false
		}
		all = append(all, a.set...)
	}
	return all, true
}

// distribute returns alternatives whose union matches what re matches, at
// most budget of them, with no alternation left among the children of
// their concatenations; nil if that takes more than budget.
func distribute(re *syntax.Regexp, budget int) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpCapture:
		return distribute(re.Sub[0], budget)
	case syntax.OpAlternate:
		var out []*syntax.Regexp
		for _, sub := range re.Sub {
			alts := distribute(sub, budget-len(out))
			if alts == nil {
				return nil
			}
			out = append(out, alts...)
		}
		return out
	case syntax.OpConcat:
		out := []*syntax.Regexp{{Op: syntax.OpConcat}}
		for _, sub := range re.Sub {
			alts := distribute(sub, budget)
			if alts == nil || len(out)*len(alts) > budget {
				return nil
			}
			next := make([]*syntax.Regexp, 0, len(out)*len(alts))
			for _, head := range out {
				for _, alt := range alts {
					c := &syntax.Regexp{Op: syntax.OpConcat, Sub: append([]*syntax.Regexp(nil), head.Sub...)}
					if alt.Op == syntax.OpConcat {
						c.Sub = append(c.Sub, alt.Sub...)
					} else {
						c.Sub = append(c.Sub, alt)
					}
					next = append(next, c)
				}
			}
			out = next
		}
		return out
	}
	if budget < 1 {
		return nil
	}
	return []*syntax.Regexp{re}
}

// compileBranch compiles one alternative of a path regex from its text,
// or returns nil if that text does not parse back to the same tree.
func compileBranch(sub *syntax.Regexp) *regexp.Regexp {
	text := sub.String()
	again, err := syntax.Parse(text, syntax.Perl)
	if err != nil || !again.Equal(sub) {
		return nil
	}
	re, err := regexp.Compile(text)
	if err != nil {
		return nil
	}
	return re
}

// MatchString reports whether path contains a match of the regex, exactly
// as regexp.MatchString does.
func (p *pathRegex) MatchString(path string) bool {
	for _, b := range p.always {
		if p.branches[b].MatchString(path) {
			return true
		}
	}
	d := p.lits
	if d == nil {
		return false // every branch has run
	}
	var tried uint64 // branches below 64 already run on this path
	s := uint32(0)
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c >= utf8.RuneSelf {
			return p.full.MatchString(path)
		}
		s = d.trans[s+uint32(d.class[c])]
		if s < d.matchFrom {
			continue
		}
		k := (s - d.matchFrom) / uint32(d.stride)
		for _, pat := range d.outs[d.outStart[k]:d.outStart[k+1]] {
			b := p.owner[pat]
			if b < 64 {
				if tried&(1<<b) != 0 {
					continue
				}
				tried |= 1 << b
			}
			if p.branches[b].MatchString(path) {
				return true
			}
		}
	}
	return false
}

// String returns the expression as written.
func (p *pathRegex) String() string { return p.full.String() }
