package rules

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"
)

// Detector is a compiled configuration. It is immutable after Compile and
// safe for concurrent use; per-goroutine state lives in a Scratch.
type Detector struct {
	rules            []*rule
	byID             map[string]int
	global           []*allowlist // global allowlists (targeted ones live on their rules)
	pathRules        []int        // rules whose path regex or allowlists can exclude a file
	pathOnly         []int        // reported rules with a path and no regex (see ScanPath)
	ungated          bool         // a reported rule with a regex and no keywords: it runs on every text
	keywords         *keywordDFA  // every keyword and anchor literal, plus the rare-rune sentinels
	npatterns        int          // patterns in keywords
	rareFrom         int          // pattern ids >= rareFrom are rare-rune sentinels
	nonASCII         bool         // some keyword has a non-ASCII byte (see Scan)
	commitAllowlists bool         // see HasCommitAllowlists
	// opens lists, per keyword pattern of ASCII bytes only, the reported
	// content rules whose gate it is in (see MayFind).
	opens     [][]int32
	maxWindow int

	decodeDepth int       // Settings.MaxDecodeDepth, resolved; 0: off
	enc         encodings // what is decoded (Settings.GitleaksDecoding)
	gitleaksDec bool      // Settings.GitleaksDecoding
	// With gitleaks' decoding, the rules whose matches can span lines
	// further than a decoded window reaches (rule.spans), and the others,
	// as Scratch.only masks; nil when no rule spans (see decoded.go).
	spanning, windowed []bool
	ignoreAllow        bool   // Settings.IgnoreInlineAllow
	skipImplausible    bool   // Settings.SkipImplausible
	key                string // see Key

	// examples is the detector CheckExamples runs examples with, for cfg
	// (see exampleDetector).
	examples struct {
		sync.Mutex
		cfg *Config
		d   *Detector
		err error
	}
}

// DefaultDecodeDepth is how many times encoded text is decoded and scanned
// again unless Settings say otherwise: gitleaks' default.
const DefaultDecodeDepth = 5

// Settings are a Detector's choices besides its rules. The zero value is
// the default, the same as the spindle command's.
type Settings struct {
	// MaxDecodeDepth is how many times text that is base64, hex,
	// percent-encoded, escaped (\uXXXX, \xXX) or HTML-encoded is decoded
	// and scanned again, the decoded text searched for encoded text in
	// turn (gitleaks' --max-decode-depth). 0 means DefaultDecodeDepth; a
	// negative value turns decoding off.
	MaxDecodeDepth int
	// IgnoreInlineAllow reports findings on lines that hold
	// "gitleaks:allow" or "spindle:allow" too (gitleaks'
	// --ignore-gitleaks-allow).
	IgnoreInlineAllow bool
	// GitleaksDecoding decodes as gitleaks does: only its four kinds of
	// encoding (percent, \uXXXX and U+XXXX, hex, base64), runs of encoded
	// text up to 96 KiB long (MaxWindow grows to match), and a finding is
	// reported again at each depth where it meets text decoded at that
	// depth, tagged with that depth. Otherwise \xXX escapes and HTML
	// character references are decoded too (a finding they make must lie
	// on one line of the scanned text), runs up to 8 KiB, and a finding is
	// reported once per rule, place and secret, at the lowest depth that
	// finds it.
	GitleaksDecoding bool
	// SkipImplausible drops the findings a rule's check (spindle's
	// validate key) tags as implausible: TagChecksumInvalid,
	// TagPlaceholder and TagMalformed. By default they are reported,
	// tagged, as gitleaks reports them. gitleaks' rules without spindle's
	// (GitleaksOnly) carry no check, so that they tag nothing; with
	// SkipImplausible they get the built-in checks, to drop what those
	// find implausible.
	SkipImplausible bool
}

// RuleInfo describes a compiled rule.
type RuleInfo struct {
	ID          string
	Description string
	Keywords    []string
	Tags        []string
	PathOnly    bool       // the rule matches file paths, not content (see ScanPath)
	From        Provenance // the catalog the rule comes from
}

// Match is one finding in a buffer. Offsets are byte offsets into the data
// passed to Scan. Tags is shared with the rule and must not be modified.
//
// Start is where gitleaks places the finding for line numbering: the line
// of a finding is 1 + the number of '\n' bytes in data[:Start] (a match
// that begins with a newline is placed on the line after it, as gitleaks
// does). End is gitleaks' end offset: Start of the raw match plus the
// length of Match, so the last line is the one holding data[End-1].
// data[SecretStart:SecretEnd] is Secret.
type Match struct {
	RuleID, Description    string
	Tags                   []string
	Start, End             int
	SecretStart, SecretEnd int
	Secret, Match          string
	Entropy                float64
}

// rule is a compiled Rule.
type rule struct {
	RuleInfo
	index  int
	source string // the regex as written

	// The regex compiled by the standard library, whose semantics are
	// the reference (gitleaks' default build uses it), is built on first
	// use (reference), like the other compiled forms (see lazy): Compile
	// parses every regex, which finds every regex the standard library
	// would refuse (see parseRegex). Unused for a path-only rule.
	ref     lazyRef        // see reference
	tree    *syntax.Regexp // the parsed regex
	groups  int            // its capture groups
	asserts assertions     // its zero-width assertions
	choice  engine         // ruleEngine when the rule was compiled
	engine  engine         // the engine chosen for speed (lazy's fast forms use it if it compiles them)
	lazy    lazyForms      // built on first use (engine.go)

	path       *pathRegex
	group      int
	entropy    float64
	allow      []*allowlist
	required   []requiredPart
	skipReport bool
	rank       int8                    // a finding is dropped when one of a higher rank on its line holds its secret (see ruleRank)
	check      *validator              // spindle's validate key (checksum.go); nil: none
	tagged     [malformed + 1][]string // the finding's tags for each verdict of check

	gate    []int    // keyword pattern ids; nil: the rule always runs
	keyText []string // its folded keywords
	anchors []int    // pattern ids whose hits bound every match; nil: scan the whole buffer
	// anchorSet is the anchors' folded text. wordStart says that every
	// match starts with one of them, right after a \b, and they start
	// with a word byte: a hit after a word byte starts no match, and needs
	// no window (see startsAtWordBoundary).
	anchorSet []string
	wordStart bool
	// follow, if not nil, tests what must follow an anchor occurrence
	// that is a match's anchor element (see followAfterAnchor).
	follow *follow
	left   bound       // from an anchor's end back to the start of a match
	right  bound       // from an anchor's start on to the end of a match
	cutNL  bool        // windows must be cut at '\n' ((?m)^ or $ present)
	run    *byteRun    // every match holds this run; nil if none worth checking (runs.go)
	prefix *lazyPrefix // the regex is X{0,n}? C, and C finds its matches (prefix.go); nil if not
	maxLen int         // longest match in bytes; -1 if unbounded
	// spans says that a match can run across lines further than decoded
	// text's windows reach (decodeContext): decoding with gitleaks'
	// semantics scans whole texts for it (see Repeats in decoded.go).
	spans bool
}

// ruleRank orders rules for gitleaks' last filter, which drops a finding
// of a rule whose id contains "generic" when a finding of a rule whose id
// does not, on the same line, holds its secret: such a finding is dropped
// when one of a higher rank does. Spindle's own built-in rules rank below
// every other rule, in the same order among themselves: they add what
// gitleaks' rules miss and never take a finding from them.
func ruleRank(id string, from Provenance) int8 {
	rank := int8(maxRank)
	if strings.Contains(strings.ToLower(id), "generic") {
		rank = 2
	}
	if from == FromSpindle {
		rank -= 2
	}
	return rank
}

// maxRank is the highest rank: a rule whose id does not contain
// "generic", other than one of spindle's own.
const maxRank = 3

type requiredPart struct {
	rule          int
	lines, column *int
}

// Compile checks cfg and builds its Detector with the default Settings.
func Compile(cfg *Config) (*Detector, error) { return CompileWith(cfg, Settings{}) }

// CompileWith checks cfg and builds its Detector with the given Settings.
func CompileWith(cfg *Config, set Settings) (*Detector, error) {
	d := &Detector{byID: map[string]int{}, ignoreAllow: set.IgnoreInlineAllow, skipImplausible: set.SkipImplausible,
		enc: spindleEncodings, gitleaksDec: set.GitleaksDecoding}
	if set.GitleaksDecoding {
		d.enc = gitleaksEncodings
	}
	switch {
	case set.MaxDecodeDepth == 0:
		d.decodeDepth = DefaultDecodeDepth
	case set.MaxDecodeDepth > 0:
		d.decodeDepth = set.MaxDecodeDepth
	}
	patterns := map[string]int{}
	var patList []string
	pattern := func(s string) int {
		if id, ok := patterns[s]; ok {
			return id
		}
		patterns[s] = len(patList)
		patList = append(patList, s)
		return len(patList) - 1
	}
	fail := func(id, problem string) error {
		return &ConfigError{File: cfg.Source, RuleID: id, Problem: problem}
	}

	for _, a := range cfg.Allowlists {
		ca, p := compileAllowlist(a, true)
		if p != "" {
			return nil, fail("", "allowlists: "+p)
		}
		if len(a.TargetRules) > 0 {
			return nil, fail("", "allowlists: Config.Allowlists must not have TargetRules (Parse moves them onto their rules)")
		}
		d.global = append(d.global, ca)
	}

	maxBounded, unbounded := 0, false
	allowlists := map[string]*allowlist{}
	for i := range cfg.Rules {
		cr := cfg.Rules[i]
		tree, p := validateRuleTree(&cr, false, cfg.checked, false)
		if p != "" {
			return nil, fail(cr.ID, p)
		}
		if _, dup := d.byID[cr.ID]; dup {
			return nil, fail(cr.ID, "rule id is defined twice")
		}
		r := &rule{
			RuleInfo: RuleInfo{
				ID:          cr.ID,
				Description: cr.Description,
				Keywords:    append([]string(nil), cr.Keywords...),
				Tags:        append([]string(nil), cr.Tags...),
				PathOnly:    cr.Regex == "",
				From:        cr.From,
			},
			index:      len(d.rules),
			group:      cr.SecretGroup,
			entropy:    cr.Entropy,
			skipReport: cr.SkipReport,
			rank:       ruleRank(cr.ID, cr.From),
			check:      validatorNamed(ruleCheck(&cr, set.SkipImplausible)),
		}
		for v := range r.tagged {
			r.tagged[v] = r.Tags
			if tag := verdict(v).tag(); tag != "" {
				r.tagged[v] = append(append(make([]string, 0, len(r.Tags)+1), r.Tags...), tag)
			}
		}
		if cr.Path != "" {
			var err error
			if r.path, err = compilePathRegex(cr.Path); err != nil {
				return nil, fail(cr.ID, "invalid path regex: "+regexErrText(err))
			}
		}
		for j, a := range cr.Allowlists {
			// Rules often share an allowlist (spindle's own rules share
			// spindle.toml's global ones): each distinct one is compiled
			// once. A compiled allowlist holds no state of its rule.
			key := fmt.Sprintf("%#v", a)
			ca, ok := allowlists[key]
			if !ok {
				var p string
				if ca, p = compileAllowlist(a, false); p != "" {
					return nil, fail(cr.ID, fmt.Sprintf("allowlist %d: %s", j+1, p))
				}
				allowlists[key] = ca
			}
			r.allow = append(r.allow, ca)
		}
		if !r.PathOnly {
			if err := r.compileContent(cr, tree, pattern); err != nil {
				return nil, fail(cr.ID, err.Error())
			}
			if r.maxLen < 0 {
				unbounded = true
			} else {
				maxBounded = max(maxBounded, r.maxLen)
			}
		}
		d.byID[cr.ID] = r.index
		d.rules = append(d.rules, r)
	}
	for i, r := range d.rules {
		pathDependent := r.path != nil
		for _, a := range r.allow {
			pathDependent = pathDependent || a.paths != nil
		}
		if pathDependent {
			d.pathRules = append(d.pathRules, i)
		}
		if r.PathOnly && !r.skipReport && r.path != nil {
			d.pathOnly = append(d.pathOnly, i)
		}
		if !r.PathOnly && !r.skipReport && r.gate == nil {
			d.ungated = true
		}
		if r.spans && d.gitleaksDec && d.decodeDepth > 0 {
			if d.spanning == nil {
				d.spanning, d.windowed = make([]bool, len(d.rules)), make([]bool, len(d.rules))
			}
			d.spanning[i] = true
		}
	}
	for i := range d.windowed {
		d.windowed[i] = !d.spanning[i]
	}
	for i, cr := range cfg.Rules {
		for _, req := range cr.Required {
			j, ok := d.byID[req.ID]
			if !ok {
				return nil, fail(cr.ID, fmt.Sprintf("required rule %q does not exist", req.ID))
			}
			d.rules[i].required = append(d.rules[i].required, requiredPart{rule: j, lines: req.WithinLines, column: req.WithinColumns})
		}
	}
	for _, r := range d.rules {
		for _, k := range r.keyText {
			for i := 0; i < len(k); i++ {
				if k[i] >= utf8.RuneSelf {
					d.nonASCII = true
				}
			}
		}
	}
	d.commitAllowlists = d.hasCommitAllowlists()
	d.opens = make([][]int32, len(patList))
	for i, r := range d.rules {
		if r.PathOnly || r.skipReport {
			continue
		}
		for _, p := range r.gate {
			if isASCII([]byte(patList[p])) {
				d.opens[p] = append(d.opens[p], int32(i))
			}
		}
	}
	d.rareFrom = len(patList)
	for _, r := range rareRunes {
		patList = append(patList, string(r))
	}
	d.npatterns = len(patList)
	d.keywords = newKeywordDFA(patList)

	d.maxWindow = max(4096, maxBounded)
	if unbounded {
		d.maxWindow = max(d.maxWindow, 16<<10)
	}
	d.maxWindow = min(d.maxWindow, 64<<10)
	if d.decodeDepth > 0 {
		// A decoded finding depends on up to maxSegment+decodeContext
		// bytes before its end (decoded.go).
		d.maxWindow = max(d.maxWindow, 16<<10, d.enc.window())
	}
	d.key = configKey(cfg, set, d.decodeDepth)
	return d, nil
}

// compileContent compiles the rule's regex and works out how to find its
// matches: which literals bound them (anchors) and how far a match reaches
// around one (see analyze.go and doc.go).
func (r *rule) compileContent(cr Rule, tree *syntax.Regexp, pattern func(string) int) error {
	r.source = cr.Regex

	// The gate: gitleaks runs a rule with keywords only if one of them
	// occurs (case-insensitively) in the buffer. An empty keyword occurs
	// everywhere, which makes the rule ungated.
	gated := len(cr.Keywords) > 0
	var folded []string
	for _, k := range cr.Keywords {
		if k == "" {
			gated = false
			break
		}
		folded = append(folded, foldString(strings.ToLower(k)))
	}
	if gated {
		for _, k := range folded {
			r.gate = append(r.gate, pattern(k))
		}
		r.keyText = folded
	}

	// Anchors: the keywords, if every match provably contains one;
	// otherwise literals derived from the regex; otherwise none, and the
	// rule scans the whole buffer.
	an := newAnalyzer()
	r.maxLen = shapeOf(tree, false).maxLen
	r.spans = spansLines(tree, decodeContext)
	if gated {
		if a, ok := an.keywordAnchoring(tree, containsKeyword(folded)); ok {
			a.set = folded
			r.setAnchors(a, pattern)
		}
	}
	if r.anchors == nil {
		if a, ok := an.derivedAnchoring(tree); ok && literalScore(a.set) >= minAnchorScore {
			r.setAnchors(a, pattern)
		}
	}

	if r.anchors != nil {
		r.wordStart = an.startsAtWordBoundary(tree, r.anchorSet)
		r.follow = an.followAfterAnchor(tree, r.anchorSet)
	}
	r.run, _ = requiredRun(tree)
	r.prefix, _ = lazyPrefixOf(tree)
	r.tree, r.asserts = tree, assertionsOf(tree)
	r.groups = tree.MaxCap()
	r.cutNL = r.asserts.beginLine || r.asserts.endLine
	r.choice = ruleEngine
	r.engine = chooseEngine(r.choice, tree)
	return nil
}

func (r *rule) setAnchors(a anchoring, pattern func(string) int) {
	for _, s := range a.set {
		r.anchors = append(r.anchors, pattern(s))
	}
	r.left, r.right = a.left, a.right
	r.anchorSet = a.set
}

// compileForms compiles the four window forms of a regex with one engine:
// form v is the regex for a window that does not start at the buffer's
// start (bit 0: \A cannot match) or does not end at its end (bit 1: \z
// cannot match). Only the forms that differ are compiled; the others
// share. zero, if not nil, is form 0 already compiled.
func compileForms(e engine, expr string, tree *syntax.Regexp, a assertions, zero matcher) ([4]matcher, error) {
	var forms [4]matcher
	var err error
	for v := range forms {
		begin, end := v&1 != 0 && a.beginText, v&2 != 0 && a.endText
		switch {
		case v == 0 && zero != nil:
			forms[0] = zero
		case v == 0:
			if forms[0], err = compileWith(e, expr); err != nil {
				return forms, fmt.Errorf("invalid regex: %s", regexErrText(err))
			}
		case !begin && !end:
			forms[v] = forms[0]
		case begin != (v&1 != 0) || end != (v&2 != 0):
			forms[v] = forms[b2i(begin)|b2i(end)<<1]
		default:
			if forms[v], err = compileWith(e, regexText(tree, begin, end)); err != nil {
				return forms, fmt.Errorf("internal: cannot compile the window form of the regex: %v", err)
			}
		}
	}
	return forms, nil
}

// minAnchorScore is the least selective derived literal set worth using as
// anchors (see literalScore): two strings of three bytes, say. Below it,
// hits would be so frequent that scanning the whole buffer is as cheap.
const minAnchorScore = 10

// Rules describes the compiled rules, in configuration order.
func (d *Detector) Rules() []RuleInfo {
	out := make([]RuleInfo, len(d.rules))
	for i, r := range d.rules {
		out[i] = r.RuleInfo
		out[i].Keywords = append([]string(nil), r.Keywords...)
		out[i].Tags = append([]string(nil), r.Tags...)
	}
	return out
}

// MaxWindow bounds how far a match extends, in bytes: the longest match
// of any rule whose length is bounded (at least 4 KiB), or 16 KiB when
// some rule's matches are unbounded, capped at 64 KiB; with decoding on,
// at least 16 KiB and what a decoded finding depends on (97 KiB with
// Settings.GitleaksDecoding; see decoded.go). A match longer than this may
// be missed or cut short where a file is split into chunks.
func (d *Detector) MaxWindow() int { return d.maxWindow }

// Overlap is how many bytes a caller that splits a file into chunks should
// carry from the end of one chunk's buffer to the start of the next:
// 2*MaxWindow. See Owns.
func (d *Detector) Overlap() int { return 2 * d.maxWindow }

// Owns reports whether a chunk keeps a match that ends at end (Match.End)
// in its buffer of size bytes, whose first prefix bytes were carried from
// the previous chunk (0 for a file's first chunk); final says whether the
// buffer ends the file. It is the ownership rule that package scan states,
// with its proof, in chunk.go, for callers that chunk files themselves.
func (d *Detector) Owns(end, prefix, size int, final bool) bool {
	lo := max(0, prefix-d.maxWindow)
	hi := size
	if !final {
		hi = size - d.maxWindow
	}
	return (prefix == 0 || end > lo) && end <= hi
}

// SkipPath reports whether a global allowlist excludes the file entirely,
// as gitleaks decides before reading a file.
func (d *Detector) SkipPath(path string) bool {
	if path == "" {
		return false
	}
	for _, a := range d.global {
		if a.skipsFile(path) {
			return true
		}
	}
	return false
}

// ScanPath reports the path-only rules (rules with a path and no regex)
// that match path. The caller calls it once per file that is not skipped;
// gitleaks reports such a finding for every non-empty file it reads.
func (d *Detector) ScanPath(path string, emit func(Match)) {
	if d.SkipPath(path) {
		return
	}
	for _, i := range d.pathOnly {
		r := d.rules[i]
		if fileAllowed(r.allow, path) || !r.path.MatchString(path) {
			continue
		}
		emit(Match{
			RuleID:      r.ID,
			Description: r.Description,
			Tags:        r.Tags,
			Match:       "file detected: " + path,
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
