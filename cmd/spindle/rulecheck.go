package main

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"

	"github.com/spindle-go/spindle/scan/rules"
)

// rules --check tests each rule end to end. A rule that has examples is
// checked against them (rules.ExamplesOf): spindle's examples and
// negatives keys, as every one of spindle's built-in rules has, or, for a
// rule that comes from gitleaks' default config, the true and false
// positives gitleaks' own code gives it. Each example must be reported by
// the rule, no negative may be (unless tagged implausible). A rule without
// examples is checked on strings generated from its own regex (and a file
// path from its path regex): the rule fails if it finds none of its own
// samples. The bug this catches is the silent
// one: a rule whose keywords do not occur in what its regex matches (the
// detector only looks near keyword hits, so such a rule never fires), a
// secretGroup that captures nothing, an entropy threshold its secrets can
// never reach, or an allowlist that swallows everything. It works for any
// config, not only the built-in rules, which is what someone writing a
// .gitleaks.toml needs.
//
// Samples are random within each character class, so secrets are
// high-entropy, as real ones are; a rule gets checkSamples tries, and
// passes if any sample is reported. The random source is seeded from the
// rule id, so a run is reproducible.

// checkSamples is how many strings are generated per rule.
const checkSamples = 24

// ruleCheck is the outcome for one rule.
type ruleCheck struct {
	id       string
	from     rules.Provenance
	examples int    // examples and negatives run; 0 if the rule was checked on samples
	skipped  string // why the rule was not checked, if it was not
	failed   string // why it failed, if it did
}

// checkConfig checks every rule of cfg against det, its compiled form.
func checkConfig(cfg *rules.Config, det *rules.Detector) []ruleCheck {
	out := make([]ruleCheck, 0, len(cfg.Rules))
	scratch := det.NewScratch()
	for _, r := range cfg.Rules {
		examples, negatives := rules.ExamplesOf(r)
		if n := len(examples) + len(negatives); n > 0 {
			out = append(out, checkExamples(cfg, r, det, n))
			continue
		}
		out = append(out, checkRule(r, det, scratch))
	}
	return out
}

// checkExamples runs a rule's examples and negatives.
func checkExamples(cfg *rules.Config, r rules.Rule, det *rules.Detector, n int) ruleCheck {
	c := ruleCheck{id: r.ID, from: r.From, examples: n}
	if r.SkipReport {
		c.skipped = "reported only as part of a composite rule"
		return c
	}
	var problems []string
	for _, f := range det.CheckExamples(cfg, r.ID) {
		problems = append(problems, strings.TrimPrefix(f.Error(), fmt.Sprintf("rule %q: ", r.ID)))
	}
	c.failed = strings.Join(problems, "; ")
	return c
}

func checkRule(r rules.Rule, det *rules.Detector, scratch *rules.Scratch) ruleCheck {
	c := ruleCheck{id: r.ID, from: r.From}
	switch {
	case r.SkipReport:
		c.skipped = "reported only as part of a composite rule"
		return c
	case len(r.Required) > 0:
		c.skipped = "composite: needs its parts nearby"
		return c
	}
	h := fnv.New64a()
	h.Write([]byte(r.ID))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x5eed))

	pathGen, err := newSampler(r.Path)
	if err != nil {
		c.failed = "path regex: " + err.Error()
		return c
	}
	textGen, err := newSampler(r.Regex)
	if err != nil {
		c.failed = "regex: " + err.Error()
		return c
	}
	var last string
	for range checkSamples {
		path := "sample.txt"
		if pathGen != nil {
			path = pathGen.sample(rng)
		}
		found := false
		emit := func(m rules.Match) {
			if m.RuleID == r.ID {
				found = true
			}
		}
		if textGen == nil { // a path-only rule
			det.ScanPath(path, emit)
			last = "path " + path
		} else {
			text := textGen.sample(rng)
			// Blank lines around the sample satisfy ^, $ and \b at its
			// ends, as a secret on a line of its own would.
			det.Scan(scratch, path, []byte("\n"+text+"\n"), emit)
			last = text
		}
		if found {
			return c
		}
	}
	c.failed = fmt.Sprintf("none of %d samples generated from its regex was reported, e.g. %q", checkSamples, last)
	return c
}

// sampler generates strings that match one regex.
type sampler struct {
	re    *syntax.Regexp
	match *regexp.Regexp
}

// newSampler parses expr; an empty expr gives a nil sampler.
func newSampler(expr string) (*sampler, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	match, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	return &sampler{re: re.Simplify(), match: match}, nil
}

// sample returns a string the regex matches, trying a few times: a sample
// can fail to match when an assertion (\b, ^) is not met by the characters
// around it.
func (s *sampler) sample(rng *rand.Rand) string {
	var b strings.Builder
	for range 8 {
		b.Reset()
		generate(&b, s.re, rng)
		if s.match.MatchString(b.String()) {
			break
		}
	}
	return b.String()
}

// generate appends to b a string matched by re, choosing repetition counts,
// alternatives and characters at random. Assertions generate nothing.
func generate(b *strings.Builder, re *syntax.Regexp, rng *rand.Rand) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && rng.IntN(2) == 0 {
				r = unicode.SimpleFold(r)
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(pickRune(re.Rune, rng))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteRune(rune('a' + rng.IntN(26)))
	case syntax.OpCapture:
		generate(b, re.Sub[0], rng)
	case syntax.OpStar:
		repeat(b, re.Sub[0], rng.IntN(3), rng)
	case syntax.OpPlus:
		repeat(b, re.Sub[0], 1+rng.IntN(3), rng)
	case syntax.OpQuest:
		repeat(b, re.Sub[0], rng.IntN(2), rng)
	case syntax.OpRepeat:
		hi := re.Max
		if hi < 0 {
			hi = re.Min + 3
		}
		repeat(b, re.Sub[0], re.Min+rng.IntN(hi-re.Min+1), rng)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			generate(b, sub, rng)
		}
	case syntax.OpAlternate:
		generate(b, re.Sub[rng.IntN(len(re.Sub))], rng)
	}
	// OpEmptyMatch, OpNoMatch and the assertions (^ $ \A \z \b \B)
	// generate nothing.
}

func repeat(b *strings.Builder, re *syntax.Regexp, n int, rng *rand.Rand) {
	for range n {
		generate(b, re, rng)
	}
}

// pickRune returns a rune from a character class (pairs of inclusive
// ranges), preferring printable ASCII other than space: what secrets are
// made of, and what a negated class such as [^A-Za-z0-9] is meant to
// separate them from.
func pickRune(ranges []rune, rng *rand.Rand) rune {
	var printable []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := max(ranges[i], '!'); r <= min(ranges[i+1], '~'); r++ {
			printable = append(printable, r)
		}
	}
	if len(printable) > 0 {
		return printable[rng.IntN(len(printable))]
	}
	if len(ranges) >= 2 {
		return ranges[0]
	}
	return 'a'
}
