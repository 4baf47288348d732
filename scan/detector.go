package scan

// Match is one hit reported by a detector, in byte offsets into the data it
// was given. It mirrors rules.Match field for field; the engine turns it into
// a report.Finding: the line and column of data[Start], the end line and
// column of data[End-1], the fingerprint from the file, the rule and the
// line. A match is owned by the chunk its End falls in (see chunk).
//
// Start and End follow gitleaks' placement: a match that begins with a
// line break starts after it, and End is Start plus the length of Match.
type Match struct {
	RuleID      string
	Description string
	Tags        []string
	Start, End  int
	// SecretStart and SecretEnd locate the secret (a capture group, or the
	// whole match) inside data.
	SecretStart, SecretEnd int
	Secret                 string
	Match                  string
	Entropy                float64
}

// Scratch is a detector's per-worker working memory.
type Scratch = any

// Detector is what the engine needs from a rule set; *rules.Detector
// implements it. Its methods are called concurrently from every worker,
// each with its own Scratch.
//
// The chunking contract (see doc.go): whether a match is reported, and what
// it contains, depends only on the bytes within MaxWindow of it on either
// side. The engine relies on this to give the same findings for every chunk
// size.
type Detector interface {
	// MaxWindow is the detector's reach in bytes: the engine carries
	// 2*MaxWindow bytes from one chunk into the next.
	MaxWindow() int
	// SkipPath reports whether a path is excluded as a whole (global
	// allowlist paths). It is asked for directories too.
	SkipPath(path string) bool
	// NewScratch returns working memory for Scan, used by one worker.
	NewScratch() Scratch
	// ScanPath reports the path-only rules that match path.
	ScanPath(path string, emit func(Match))
	// Scan reports the matches in data, a chunk of the file at path.
	Scan(s Scratch, path string, data []byte, emit func(Match))
}
