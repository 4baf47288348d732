// Package rules reads gitleaks-schema rule files and finds secrets in
// buffers with them, giving the same findings as gitleaks v8 while running
// each rule's regular expression only near the keywords that announce it.
//
// # Configuration
//
// Parse, LoadFile, Find and Default produce a Config: the gitleaks TOML
// schema (title, description, minVersion; [[rules]] with id, description,
// regex, secretGroup, entropy, keywords, path, tags, skipReport,
// [[rules.allowlists]] and [[rules.required]]; global [[allowlists]] with
// targetRules; [extend] with useDefault, path and disabledRules; and the
// deprecated single [allowlist] tables), with every [extend] merged the way
// gitleaks merges it: base rules first, a rule present in both files takes
// the extending file's non-zero scalars and the union of both lists, base
// global allowlists are added. Keys are matched without regard to case,
// as gitleaks' viper does. Find looks for a config the way gitleaks does for
// a directory: the explicit path, else <root>/.gitleaks.toml, else the
// built-in rules (default.toml, embedded; written for this project, with
// examples for every rule in default_rules_test.go).
//
// Parse is stricter than gitleaks, on purpose: an unknown key, a value of
// the wrong type, an invalid regex (gitleaks panics), a secretGroup beyond
// the regex's groups, an allowlist without checks, a rule id defined twice
// in one file, an [extend] URL (never implemented by gitleaks) and an
// extend chain longer than two links (gitleaks silently stops following
// it) are all errors. Every error is a *ConfigError naming the file, the
// line when it can be found (the TOML decoder reports lines only for
// syntax errors; a small line locator, locate.go, finds the others), the
// rule id and the problem. Other differences: an [extend] path is relative
// to the extending file rather than to the working directory; targetRules
// allowlists of an extended file are applied (gitleaks drops them); and
// skipReport and required are merged like the other fields. gitleaks'
// own config/gitleaks.toml parses unchanged (see
// TestParseAcceptsGitleaksDefaultConfig).
//
// # Matching
//
// Compile turns a Config into a Detector, immutable and safe for
// concurrent use; each goroutine brings a Scratch. Scan(scratch, path,
// data, emit) reproduces gitleaks' detect.go for one fragment:
//
//  1. Keywords: a rule with keywords runs only if one of them occurs in the
//     lower-cased buffer.
//  2. Matches: every match of the rule's regex in the buffer (FindAll).
//  3. For each match: trim '\n' from both ends; drop it if its line holds
//     "gitleaks:allow" or "spindle:allow"; take the secret by matching the
//     regex again on the trimmed text alone (secretGroup, else the first
//     non-empty group, else the whole match); drop it if entropy is set and
//     the secret's Shannon entropy is not above it; drop it if a global
//     allowlist, then one of the rule's, allows it.
//  4. Composite rules keep a finding only if each required rule has one
//     nearby; rules with skipReport report nothing themselves.
//  5. A finding of a rule whose id contains "generic" is dropped when a
//     non-generic rule's finding on the same line has a secret containing
//     its secret.
//
// Allowlists follow gitleaks exactly, quirks included: regexes are joined
// textually into one alternation (so a leading (?i) leaks into the later
// ones), a regex counts only if its leftmost match is non-empty, stop words
// are substrings of the lower-cased secret, a path check in an OR
// allowlist (or an AND allowlist with only paths) excludes the whole file
// before it is read (Detector.SkipPath for global ones), and commits never
// match since a directory has no commits. Path-only rules (a path and no
// regex) are reported by ScanPath, once per file.
//
// # Windows
//
// gitleaks runs each triggered rule's regex over the whole fragment; on
// source code, where "key", "token" or "secret" occur in most files, that
// is most of its time. Scan instead makes one pass over the buffer with an
// Aho-Corasick automaton of every keyword (keywords.go), then runs each
// rule's regex only in windows around the keyword hits. The result is the
// same as running the regex over the whole buffer, by this argument:
//
//   - Anchors. From the regexp/syntax tree, Compile proves that every
//     match of the regex contains one of the rule's keywords (compared
//     with ASCII case folding, as the automaton reads): literal strings,
//     small character classes and alternations are expanded into exact
//     sets, and a keyword may straddle the parts of a concatenation
//     (`api[_-]?key`) or the branches an alternation was factored into
//     (`A(?:KIA|SIA)`). If the keywords cannot be proved, literals derived
//     from the regex the same way serve, if selective enough, while the
//     keyword gate still decides whether the rule runs at all. Rules with
//     neither run over the whole buffer: in gitleaks' config, only
//     facebook-access-token (its keyword is not in its regex) and
//     sourcegraph-access-token (one branch is 40 bare hex digits).
//   - Reach. From an anchor occurrence, a match extends at most so far
//     left and right. The bound is computed per syntax node as a list of
//     steps: a number of bytes, or "to the line end" for a run that cannot
//     contain '\n', or unbounded. Each step is monotone, so bounds compose
//     through concatenation and join through alternation. Two bounds are
//     kept, one preferring byte counts and one preferring line ends; the
//     window is their intersection, which is tight on both short lines and
//     minified ones.
//   - Cuts. A window starts just after, and ends just before, an ASCII
//     non-word byte ('\n' when the regex uses (?m)^ or $), so UTF-8
//     decoding and \b and \B agree with the whole buffer at its edges. \A
//     and \z cannot hold inside the buffer, so a window that does not
//     touch the buffer's start or end runs a copy of the regex in which
//     they can never match.
//   - Merging. Overlapping windows are merged. Every whole-buffer match
//     lies in one window; inside it, the regex sees the same text and the
//     same assertions along every path up to the window's end, so it
//     prefers the same alternative at the same start, and the leftmost-
//     first sequence of matches is the same.
//
// Case folding has three exceptions: strings.ToLower maps U+0130 to "i"
// and U+212A (Kelvin) to "k", and (?i) lets 'k' match U+212A and 's' match
// U+017F. The automaton also looks for those runes; a buffer holding one
// takes the slow path, which is gitleaks' method verbatim (gate on
// strings.ToLower, regex over the whole buffer). TestRareRunesComplete
// proves by brute force that there are no others. Rules whose keywords are
// not ASCII use the slow path on buffers that are not ASCII.
//
// TestWindowedMatchesEqualWholeBuffer checks the property on generated
// corpora (text drawn from the rules' own regexes, keywords in random
// case, noise, non-ASCII and invalid UTF-8) for the built-in rules,
// gitleaks' rules and a set of rules chosen to stress windowing (text
// anchors, (?m) anchors, word boundaries, unbounded and multi-line
// matches); FuzzWindowedMatchesEqualWholeBuffer checks it on arbitrary
// bytes.
//
// # Chunks
//
// Scan treats data as a whole fragment: \z matches at its end and lines
// are cut at its edges. A caller that splits a file into chunks carries
// Overlap() bytes (twice MaxWindow, the bound on a match's length) from
// one chunk's buffer into the next and keeps the matches that Owns
// assigns to each chunk: a chunk leaves the matches ending in its last
// MaxWindow bytes to the next one, which sees them whole, unless it ends
// the file. Dropping only the matches that end in the carried prefix is
// not enough: a match cut short by a chunk's end, or one that relied on \z
// holding there, would be reported by both chunks. TestChunkedScanEqualsWholeScan
// checks that chunked and whole scans agree for random chunk sizes. Lines
// longer than the overlap lose context for inline allows and regexTarget
// = "line"; a rule that falls back to the whole buffer because its keyword
// is not in its regex sees the keyword gate per chunk, as gitleaks sees it
// per fragment.
//
// Line numbers: a finding's line is 1 + the number of '\n' in data[:Start].
// Start is where gitleaks places the match: a match that starts with '\n'
// counts from the next line. End is gitleaks' end offset (the raw start
// plus the length of the trimmed match). gitleaks' quirk of giving a match
// on an unterminated last line a "line" that reaches back to the start of
// the fragment is kept, within data.
//
// # Engines and measurements
//
// Medians of go test -bench -count=6 (benchstat) on the 2-core development
// machine (AMD EPYC, shared with other jobs, so ±15% noise), over 16 MiB
// of $GOROOT/src .go files in 256 KiB chunks, one goroutine unless noted.
//
// Keyword pass, gitleaks' 244 distinct keywords (BenchmarkKeywords): this
// package's DFA 498 MiB/s; github.com/BobuSumisu/aho-corasick 191 MiB/s
// and github.com/petar-dambovaliev/aho-corasick 166 MiB/s, both including
// the lower-cased copy they need and the second allocating per hit. The
// DFA folds case through its byte classes (no copy), stores premultiplied
// next states, numbers match states last (one comparison per byte), and
// runs the two halves of a buffer in lockstep so that two chains of
// dependent table loads overlap.
//
// Regex engine (BenchmarkScanEngine; MiB/s with the built-in rules /
// gitleaks' rules): standard library for every rule 112 / 54; go-re2 for
// every rule 348 / 150; the per-rule choice Scan makes 341 / 212. The
// standard library has the lowest cost per call and skips to a literal
// prefix with a fast substring search; go-re2 (RE2 compiled to Go through
// WebAssembly) costs about a microsecond per call, but its DFA does not
// slow down with program size or window length. So a rule's regex goes to
// go-re2 unless it starts with a literal (80 of the 89 built-in rules, 178
// of gitleaks' 222). go-re2 sees only valid UTF-8 (on invalid bytes it
// matches nothing where the standard library reads U+FFFD), so the
// results are the standard library's in every case. It adds about 12 MiB
// of resident memory (its WebAssembly heap) to a scan.
//
// Whole scans: gitleaks' method (the keyword gate, then each triggered
// regex over the whole chunk, standard library; BenchmarkWholeBuffer) runs
// at 2.4 MiB/s with gitleaks' config, in line with gitleaks itself (88 MB
// of Go source in about 35 CPU-seconds). Scan runs at 185-212 MiB/s with
// gitleaks' config and 324-341 MiB/s with the built-in rules; with one
// goroutine per core (BenchmarkScanParallel, 2 cores) at 326 and 586
// MiB/s. A scan allocates nothing per chunk without findings
// (TestScanAllocatesNothingWithoutFindings). On the whole Go source tree,
// Scan and ScanPath report the same 96 findings (file, line, rule) as
// gitleaks v8.30.1 with its default config (TestGitleaksParity).
//
// # Not done
//
// gitleaks also decodes base64, hex and percent-encoded text and scans the
// result (--max-decode-depth, 5 by default); this package does not. On the
// Go source tree this changes nothing: gitleaks reports the same 96
// findings with decoding on and off.
package rules
