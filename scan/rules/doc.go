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
// built-in rules (Default; see Built-in rules below). A rule may name a
// check (spindle's `validate` key: a provider's checksum such as GitHub's
// CRC-32, a JWT's structure, a placeholder filter), and carry examples
// and negatives (spindle's keys), which `spindle rules --check` and the
// tests run (examples.go).
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
// What a config names but the rules lack is a Warning in
// Config.Warnings, never an error and never silent, since a config
// written for one set of rules may extend another (one written for
// another version of gitleaks' rules, say): a disabledRules id the
// extended config does
// not have; a targetRules id no rule has (gitleaks makes this an error;
// the allowlist still applies to the rules that exist); a rule that only
// amends a base rule (no regex, no path) that the base lacks, which is
// dropped; and, in a config that extends another, a rule that requires
// a rule the config lacks, which could never report and is dropped (in a
// config that extends nothing, that stays an error, as in gitleaks).
// Each warning names the file, the line and the ids; the caller prints
// them.
//
// # Built-in rules
//
// Default is gitleaks' default config, taken from the gitleaks Go module
// this module requires (github.com/zricethezav/gitleaks/v8 at
// GitleaksVersion; its config package embeds gitleaks.toml as
// DefaultConfig), parsed and compiled by this package like any config,
// then spindle's own rules (spindle.toml) for kinds of secret gitleaks'
// rules miss: passwords in the files people leak (.netrc, .pgpass,
// .git-credentials, URLs and connection strings with a password,
// wp-config.php, .env, shadow and htpasswd files, Django and Spring
// settings, SQL dumps, FileZilla and WinSCP) and tokens that gitleaks'
// rules do not find. Updating gitleaks' rules is `go get` of a new version,
// `go generate ./scan/rules` (for its examples, below) and the tests; the
// module is the single source, and no rule of gitleaks' is written here.
//
// Each rule says where it comes from (Rule.From, RuleInfo.From:
// FromGitleaks, FromSpindle, FromConfig). Spindle's ids never clash with
// gitleaks' (Default fails if they do), and a rule of spindle's stays in
// spindle.toml only while it finds, on its corpus and examples and on
// gitleaks' rule examples, a secret that no rule of gitleaks' finds, and
// reports none of gitleaks' false-positive examples
// (TestSpindleRulesFindWhatGitleaksMisses); 69 rules do. spindle.toml's global allowlists apply to its
// own rules only; gitleaks' apply to all. A finding of one of spindle's
// rules gives way to a finding of any of gitleaks' rules on the same line
// whose secret holds its secret (gitleaks' own filter of generic findings,
// extended: ruleRank), and never takes one of gitleaks' findings away. So
// the built-in rules report every finding gitleaks' defaults report, under
// the same rule id, with the same secret, line and fingerprint: a
// baseline or a .gitleaksignore written by gitleaks applies unchanged, and
// [extend] useDefault = true and disabledRules work on this catalog as
// they do on gitleaks' (the figures are in BENCHMARKS.md and the tests).
//
// Which built-in rules a load means is the caller's choice (Builtin):
// Default, Find, Parse and LoadFile take both catalogs (WithSpindle,
// spindle scan's); DefaultOf, FindWith and ParseWith take a Builtin, and
// GitleaksOnly is gitleaks' default config alone, as the gitleaks drop-ins
// run it, so that their rule ids, findings and exit status are gitleaks'.
// [extend] useDefault = true names the chosen set; spindle's own key
// [extend] useSpindleRules (gitleaks ignores it) decides for a config
// either way: true adds spindle's rules to what it extends (alone, without
// useDefault), false leaves them out.
//
// Checks tag, they do not drop. The built-in rules give gitleaks' rules
// checks (gitleaksChecks): GitHub's and npm's CRC-32 (github-pat,
// github-oauth, github-app-token, npm-access-token), Bech32 (age-secret-key),
// a JWT's structure (jwt, jwt-base64), and the placeholder check for every
// other rule. A finding whose secret a check finds implausible is reported
// as gitleaks reports it, tagged checksum:invalid, placeholder or
// malformed; Settings.SkipImplausible (the command's --skip-implausible)
// drops those findings, after gitleaks' filter of generic findings, so a
// generic rule's finding of the same secret goes with them.
//
// gitleaks' examples: each rule function in the module's
// cmd/generate/config/rules package validates its rule on true and false
// positives, mostly generated at run time from regexes. The generator in
// internal/gitleaksexamples (go generate) parses that package with
// go/parser, rewrites its validation calls into recorders and its secret
// generator into the same generator seeded, builds and runs it in a
// temporary module against the required gitleaks version, and writes what
// it recorded to gitleaks_examples.json.gz (6,396 true and 374 false
// positives for 220 rules; gitleaks gives dropbox-short-lived-api-token
// and dropbox-long-lived-api-token none). ExamplesOf gives a rule from
// gitleaks those examples; CheckExamples runs them as gitleaks' generator
// does: the rule alone, with the global allowlists, without decoding.
// TestGitleaksExamplesAreCurrent regenerates the file and compares.
//
// Taking the config from the module costs an import of its config
// package, which brings viper, zerolog and gitleaks' regexp wrapper into
// the binary (github.com/zricethezav/gitleaks/v8/config). Measured on the
// command: the import adds 4.45 MB to the binary (22.2 MB; stripped, 3.2
// MB to 14.7 MB), of which the 98 KB of gitleaks.toml is a small part,
// and 1.1 million instructions to its start (`spindle version` under
// callgrind: 5.29 million, 4.19 million without; about a third of a
// millisecond, the package initialisation of viper and its
// dependencies). Loading and compiling the built-in rules, as
// `spindle scan` of an empty directory does, takes 338 million
// instructions. A go:generate copy of gitleaks.toml checked against the module
// by a test would save the 4.45 MB, at the price of a second copy of
// gitleaks' rules in this repository; the import keeps the module the
// single source, and its cost is small beside the rules it brings.
//
// # Untrusted configs
//
// A scan reads the scanned tree's own .gitleaks.toml unasked (Find does,
// as gitleaks does), so whoever can add a file to a repository, a pull
// request for one, chooses that config. Everything that reads a config
// therefore treats it as hostile input and fails with a clear
// ConfigError, in bounded time and memory:
//
//   - Only regular files are read, checked before the open (which for a
//     FIFO would wait for a writer forever) and on the open file; a FIFO,
//     a device such as /dev/zero or a directory is an error. Find does
//     not fall back to the built-in rules when .gitleaks.toml exists but
//     is not a file.
//   - A config file, and Parse's data, may have at most 1 MiB (ten times
//     gitleaks' own 98 KB config), and at most 4,096 rules and 4,096
//     allowlists once extended (about twenty times gitleaks' 222 rules),
//     since a scan's time grows with both. A config at these limits parses
//     and compiles in a third of a second, allocating 120 MB
//     (BenchmarkHostileConfig).
//   - Before the TOML decoder runs, a linear scan of the bytes (nesting.go)
//     refuses text nested more than 32 levels deep. The decoder's cost
//     grows with the square of the depth: 16 KB of nested inline tables
//     took it 22 s and 1.8 GiB, 8 KB of dotted key 2.9 s and 640 MiB. The
//     scan lexes strings and comments as TOML does, and FuzzConfig checks
//     that it never counts less than the decoder builds.
//   - An [extend] path is relative to the config that names it. A config
//     that Find found in the tree (Origin FoundInTree) may extend only
//     files inside that tree: the path may not climb out, an absolute path
//     must lead into the tree, and no symbolic link on the way may lead
//     out (links are resolved and checked, then the file is opened through
//     an os.Root, which refuses a link changed in between). A config the
//     caller named (LoadFile, Parse; Origin Explicit) may extend any
//     file. Chains longer than two links, cycles included, are errors.
//   - A regex (a rule's, a path's, an allowlist's, and an allowlist's
//     patterns joined) is refused before any engine compiles it if it is
//     longer than 32 KiB or compiles to more than about 50,000
//     instructions (regexsize.go). Its size is estimated from the syntax
//     tree in UTF-8 byte ranges, as RE2 builds it, because a short regex
//     can be huge: `\pL{1000}` is 1.2 million RE2 instructions, and RE2
//     prints "DFA out of memory" to standard error for it. The estimate is
//     within a factor of two of RE2's count on every rule of the built-in
//     set and gitleaks' (found by bisecting go-re2's memory limit); the
//     largest of them estimates at 18,000.
//   - A rule regex that can match the empty string (`a*`, `x?`, `key|`,
//     `\b`) is an error. gitleaks reports an empty finding at every
//     position where such a regex matches empty (16 findings for `a*` in a
//     17-byte file) and scans every byte for it; no rule of the built-in
//     set or of gitleaks' can match empty.
//
// Config.Origin tells a caller which kind of config it got, to say so.
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
//     allowlist, then one of the rule's, allows it; tag it if the rule's
//     check finds the secret implausible (checksum.go).
//  4. Composite rules keep a finding only if each required rule has one
//     nearby; rules with skipReport report nothing themselves.
//  5. A finding of a rule whose id contains "generic" is dropped when a
//     non-generic rule's finding on the same line has a secret containing
//     its secret; a finding of one of spindle's built-in rules gives way
//     the same way to a finding of any rule not of spindle's, and among
//     spindle's a generic one to a specific one (ruleRank).
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
// # Paths
//
// A scan asks about every path: SkipPath for each file and directory, a
// rule's path regex and its allowlists' paths for each file. gitleaks'
// global allowlist joins 25 path regexes into one alternation that the
// standard library's NFA runs in tens of microseconds per path, which was
// most of a scan's CPU. Path regexes are therefore split into the
// branches of their top-level alternation (each compiled alone, kept only
// if its text parses back to the same tree), and one pass of a keyword
// automaton over the path finds which branches can match at all: each
// branch carries the literals one of which its every match contains
// (derived as for anchors, after distributing concatenations over the
// alternations the parser factored out). A path with a byte >= 0x80 runs
// the whole regex. The answer is regexp.MatchString's, for every path
// (path.go; TestPathRegexMatchesLikeTheStandardLibrary, FuzzPathRegex).
// A Scratch remembers the verdicts for the last path it saw, so a worker
// that calls Scratch.SkipPath and Scratch.ScanPath before scanning a
// file's chunks evaluates them once per file.
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
//   - Anchor filters. A window is needed only around an anchor occurrence
//     that can be a match's own anchor element, and two tests derived from
//     the syntax tree rule out most others before any window is made. A
//     rule whose every match starts with \b and then an anchor that
//     starts with a word byte (gitleaks' jwt, `\b(ey...`; vault's
//     `\b((?:hvs\.|s\.)...`) skips occurrences after a word byte: "ey"
//     in "key" and "they", "s." in "os." (startsAtWordBoundary). A rule
//     whose anchor element is followed by bounded repetitions of some
//     bytes and then an element that starts with none of them (gitleaks'
//     semi-generic rules: the keyword, at most 23 bytes of
//     `[ \t\w.-]` and `[\s'"]`, then an assignment operator) skips
//     occurrences not followed that way (followAfterAnchor): most "key",
//     "token" and "api" in code are not assigned to. Each match's own
//     anchor passes both, and its window holds the match. On GOROOT's
//     source, the filters leave jwt 42 of its 2,018 windows that hold its
//     run, and vault-service-token 159 of 6,022.
//
// Inside a window, three cheaper tests come before the regex:
//
//   - Runs. Many regexes need a long run of one kind of byte
//     (`[a-z0-9]{24}`, `[0-9a-f]{32}`); runs.go derives, from the syntax
//     tree, a set of bytes and a length such that every match holds that
//     many consecutive bytes of the set, and a window without such a run
//     is skipped. gitleaks' vault-service-token opens a window at every
//     "s." of Go source; 95% of them go no further.
//   - Match cores. A regex whose top-level concatenation starts or ends
//     with parts that can match the empty string anywhere (a star, a
//     `{0,n}`) matches a text exactly when the rest, its core, does
//     (matchCore), and the core is what decides whether a window holds a
//     match. For gitleaks' generic-api-key that removes the leading
//     `[\w.-]{0,50}?`, whose counter multiplies the states of RE2's DFA.
//   - Lazy prefixes. For a regex X{0,n}? C, X an ASCII class, the matches
//     are C's matches with each start moved left over at most n X bytes,
//     never past the previous match (prefix.go has the proof); 95 of
//     gitleaks' rules have that form, and they never run their full regex.
//     Nor do they to take a match's secret: C's groups, on ASCII text, are
//     the regex's (rule.submatches), and C is the smaller program
//     (generic-api-key: 454 instructions against 554, under the 500 up to
//     which the standard library uses its backtracker rather than its
//     NFA).
//
// Case folding has three exceptions: strings.ToLower maps U+0130 to "i"
// and U+212A (Kelvin) to "k", and (?i) lets 'k' match U+212A and 's' match
// U+017F. The automaton also looks for those runes; a buffer holding one
// takes the slow path: the gate is gitleaks' (strings.ToLower), and a rule
// is matched in its anchor windows plus a window around each rare rune,
// by the rule's reach as if the rune were an anchor's end and start (an
// anchor written with a rare rune holds it, and the bounds are monotone),
// running the regex itself in windows that hold a rare rune (lazy
// prefixes and runs assume there is none). Random binary holds these runes
// once per 64 KiB or so, and files with NUL bytes are scanned, so this
// matters: on a Go module cache it took the scan from 5.5 s to 1.8 s.
// TestRareRunesComplete proves by brute force that there are no other
// such runes. Rules whose keywords are not ASCII match over the whole
// buffer (gitleaks' method verbatim) when the buffer is not ASCII.
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
// are cut at its edges. A match depends only on the bytes within
// MaxWindow of it, so a caller can split a file into chunks and still get
// the whole file's matches, each once: it carries Overlap() bytes from one
// chunk's buffer into the next and keeps the matches that Owns assigns to
// each chunk. The rule, and why it reports every match exactly once, are
// package scan's (chunk.go), whose engine applies it; Owns is that rule
// for other callers, and TestChunkedScanEqualsWholeScan checks chunked and
// whole scans against each other for random chunk sizes. Lines
// longer than the overlap lose context for inline allows and regexTarget
// = "line"; a rule that falls back to the whole buffer because its keyword
// is not in its regex sees the keyword gate per chunk, as gitleaks sees it
// per fragment.
//
// Line questions (a line's bounds, line numbers, inline allows) search at
// most 256 bytes before indexing the buffer's newlines, so their cost does
// not grow with the length of a line: on a one-line megabyte dense with
// findings, answering them from the line's start would make a scan
// quadratic (lines.go). Allowlists that
// test a finding's line remember their verdict per line.
//
// Line numbers: a finding's line is 1 + the number of '\n' in data[:Start].
// Start is where gitleaks places the match: a match that starts with '\n'
// counts from the next line. End is gitleaks' end offset (the raw start
// plus the length of the trimmed match). gitleaks' quirk of giving a match
// on an unterminated last line a "line" that reaches back to the start of
// the fragment is kept, within data.
//
// # Engines, compilation and measurements
//
// Medians of go test -bench -count=6 (benchstat) on the 2-core development
// machine (AMD EPYC, shared with other jobs, so ±15% noise), over 16 MiB
// of $GOROOT/src .go files in 256 KiB chunks, one goroutine unless noted.
//
// Keyword pass (BenchmarkKeywords, keywordDFA.find): the automaton folds
// case through its byte classes (no copy), stores premultiplied next
// states, numbers match states last (one comparison per byte), and runs
// four parts of a buffer in lockstep so that four chains of dependent
// table loads overlap (keywords.go), in a leaf loop that holds its states
// in registers and leaves the rare match states to a separate function:
// on GOROOT's source, 11.5 instructions per byte under callgrind (22.7
// with the matches handled inside the loop, whose states then live in
// memory). Earlier, with two
// chains: 615-647 MiB/s, against 191 and 166 MiB/s for
// github.com/BobuSumisu/aho-corasick and petar-dambovaliev/aho-corasick.
// Before it, a pair filter rules out eight bytes at a time: at each even
// offset, one lookup of the byte pair in a bitmap of the pairs that an
// occurrence starting there or one byte before can put there; only
// candidates run the automaton, for a few bytes. Five typical keywords:
// 1.9 GiB/s, 3.0 times the automaton alone. Large keyword sets make
// candidates dense; the filter then hands the buffer to the automaton and
// the Scratch skips it for the next 16 buffers (gitleaks' 244 keywords:
// 617 MiB/s).
//
// Regex engine (BenchmarkScanEngine; MiB/s with the built-in rules /
// gitleaks' rules): standard library for every rule 148 / 76; go-re2 for
// every rule 500 / 327; the per-rule choice Scan makes 477 / 366. The
// standard library has the lowest cost per call and skips to a literal
// prefix with a fast substring search; go-re2 (RE2 compiled to Go through
// WebAssembly) costs about half a microsecond per call, but its DFA does
// not slow down with program size or window length. So a rule's regex
// (and its match core, separately) goes to go-re2 unless it starts with a
// literal, and only once the rule has given the standard library enough
// text (bytes times program size, switchWork) that compiling and warming
// up go-re2's forms pays off: in a scan that meets a hundred rules once
// or twice each, go-re2's start-up was most of what they cost (gitleaks'
// own history: 1.72 → 1.29 s of CPU for the CLI, medians of 5 alternated
// runs; caddy's 0.93 → 0.88; trufflehog's unchanged at 9.0). go-re2 sees
// only valid UTF-8 (on invalid bytes it matches
// nothing where the standard library reads U+FFFD), so the results are
// the standard library's in every case. It adds about 12 MiB of resident
// memory (its WebAssembly heap) to a scan. Under the race detector, which
// slows go-re2's translated WebAssembly a hundredfold, every rule uses the
// standard library (race.go): same findings, and the tests of every
// package that scans stay fast.
//
// Compile parses and analyzes every regex once (parsing finds every
// regex the standard library would refuse: parseRegex); a Config that
// Parse read carries the trees it checked, which Compile clones rather
// than parsing them again (gitleaks' config: 37–40 → 27–30 ms on a fresh
// heap, where Parse takes 16–19 ms: BenchmarkParse); everything else
// (the standard library's compilation, the reference, window forms,
// go-re2 forms, match cores) is compiled by a rule when it first needs it
// (engine.go), and compiled from regexText, a writer that states every
// flag, because (*syntax.Regexp).String walks every rune of every class
// to infer them. An allowlist that several rules share (spindle.toml's
// global ones, on each of its rules) is compiled once. The engine of a
// rule is chosen from its syntax tree (literalPrefix, held to the
// standard library's LiteralPrefix by a test). BenchmarkCompile, gitleaks'
// config: 34 ms (337 ms when every form was compiled up front); the
// built-in rules (gitleaks' and spindle's), on a loaded machine, 49 ms,
// and Default's parsing of both files 26 ms. Under -race, gitleaks'
// config compiled in 186 ms.
//
// An allowlist's regexes whose program is large (more than the 500
// instructions of the standard library's backtracker) are asked first
// whether they match at all through a pathRegex of them (path.go: only
// the alternatives whose literals the text holds run), since the NFA
// costs a few hundred thousand instructions per candidate on gitleaks'
// generic-api-key allowlist of some 2,000.
//
// A DFA is built lazily, state by state, the first time text reaches a
// state, and go-re2 builds states slowly: in a process that scans once,
// a cold DFA costs more than the scanning. On the Go source tree, cold
// generic-api-key took 643 ms of CPU with its whole regex, 110 ms with
// its core and lazy prefix. This is why the steady-state figures below
// understate what the cores and prefixes save in a one-shot scan.
//
// Steady state (BenchmarkScan): five simple rules 1.6 GiB/s; built-in
// rules 489 MiB/s (374 MiB/s before the pair filter, runs, cores, lazy
// prefixes and one automaton pass for the slow path's gate); gitleaks'
// config 334 MiB/s (201 MiB/s). gitleaks' method (the keyword gate, then
// each triggered regex over the whole chunk, standard library;
// BenchmarkWholeBuffer) runs at 2.4 MiB/s with gitleaks' config, in line
// with gitleaks itself. A scan allocates nothing per chunk without
// findings (TestScanAllocatesNothingWithoutFindings). A 1 MiB buffer in
// which every line holds a finding scans in the same time per byte whole
// or in 64 KiB pieces (BenchmarkScanDense; with gitleaks' rules on one
// line of 1 MiB, 1.9 s instead of 307 s before lines.go).
//
// Whole tree (go run ./scan/internal/scanbench, $GOROOT/src, 86 MB, 2
// cores, medians of 7 interleaved runs): gitleaks' config 0.47 s against
// gitleaks v8.30.1's 4.96 s (10.6 times; 1.70 s, 2.9 times, before this
// package's path prefilter, lazy compilation, runs, cores and prefixes);
// the five simple rules 0.128 s against ripgrep's (rg -uuu with the same
// five patterns) 0.088 s (1.46 times; 2.19 times before the pair
// filter), of which 0.112 s is the scan engine with a detector that finds
// nothing. Scan and ScanPath report the same 96 findings (file, line,
// rule) as gitleaks with its default config (TestGitleaksParity).
//
// # Decoding
//
// Secrets are often stored encoded: Kubernetes Secrets and docker auth
// values in base64, URLs percent-encoded, strings in code as \uXXXX or
// \xXX escapes, HTML and XML as character references. After the rules
// have run over a buffer, Scan finds the encoded text in it (encoded.go),
// decodes what decodes to printable text, and runs the rules over the
// decoded text in its context (decoded.go); what they find there is
// reported at the place of the encoded text, tagged decoded:<kind> and
// decode-depth:<n>, and the decoded text is searched for encoded text in
// turn, to Settings.MaxDecodeDepth (5 by default, gitleaks' default). The
// candidates are gitleaks' (base64 of 16 or more characters holding a
// digit or +/-_, hex of 32 or more holding a digit, percent-encoding
// through the last %XX of a line, \uXXXX and U+XXXX runs), found with its
// precedence and overlap rule, plus \xXX escapes and HTML character
// references (these two only when they spell 8 bytes or more: a stray
// \x41 or &amp; in code is not worth a rescan). The 208 findings on 144
// encoded files (six encodings, whole lines and values alone, nested two
// and three deep, escapes inside long segments, padding a JSON encoder
// escaped, one secret twice in a string) equal gitleaks', as a multiset
// and with their tags (TestDecodedFindingsMatchGitleaks in the command).
//
// Settings.GitleaksDecoding, which the gitleaks drop-in commands set,
// decodes exactly as gitleaks does: its four kinds only, so that its
// candidates and what they consume are gitleaks' own; runs of encoded text
// up to 96 KiB (gitleaks decodes an 88 KB base64 line of a real history);
// and a finding reported again at each depth where it touches text decoded
// at that depth, as gitleaks reports it. Otherwise a finding is reported
// once per rule, place and secret, one that owes to an escape or an HTML
// reference must lie on one line (decoded markup must not join a line to
// the next into a match nobody wrote), and runs up to 8 KiB are decoded.
//
// gitleaks substitutes the decoded text into the whole fragment and scans
// all of it again at each depth. Scan builds the decoded text only for the
// lines around decoded segments (whole lines, so that the encoded text of
// the next depth is found whole, as gitleaks finds it), and runs the rules
// over each decoded segment with 512 bytes on either side (nearby segments
// share a window), so a buffer with one decodable string is not scanned
// twice; TestDecodingEqualsWholeText holds it to gitleaks' loop over the
// whole text. A finding spans at least its encoded segment, so it ends at
// or after the segment's end; encoded text longer than the budget (8 or
// 96 KiB) is not decoded, and what decides a decoded finding lies within
// the budget and 512 bytes before its end and 512 bytes after it. Decoding
// raises MaxWindow to cover that (16 KiB, or 97 KiB), so the chunk that
// owns a decoded finding sees its segment and context whole and a chunk
// that sees it cut does not own it: an encoded string across a chunk
// boundary is found once (TestChunkedDecodingEqualsWholeScan,
// TestLongRunsAreDecodedWithinTheBudget). Objects that fit in one chunk
// (256 KiB) pay nothing for the window; a larger one carries twice the
// window from chunk to chunk, which for the larger budget costs a 64 MiB
// file about 1.5 times the instructions (BENCHMARKS.md): the reason the
// budgets differ.
//
// Cost. The search for encoded text reads every byte: eight bytes at a
// time, classified by table lookups without a branch, stopping only at a
// block that is all base64 characters (the run around it may be a
// candidate) or holds a marker byte; about 1 ns per byte on GOROOT's
// source, where 10% of blocks are all base64 (identifiers, paths) and 6%
// hold a marker. Base64 candidates are rejected on their first four
// characters when those do not decode to printable text, which is most of
// them. With gitleaks' config, GOROOT scans 14–16% slower with decoding
// than without (0.43 s against 0.37 s; the target was 10%), and random base64,
// every line a candidate, at 135 MB/s against 186 MB/s
// (BenchmarkDecodingBase64); nothing in it decodes to text, so nothing is
// rescanned. Folding the block classification into the keyword
// automaton's two-stream loop was measured and does not pay: the loop
// slows by 0.6 ns per byte, about what the search costs on its own. A
// vector (SIMD) classification of 32 bytes at a time is what would.
//
// # Not done
//
// In a chunk of a file (Scan), a run of encoded text longer than the budget
// (a large file base64-encoded on one line) is not decoded: gitleaks decodes
// it. Its wrapped form (base64 at 76 columns, as most tools write it) is
// decoded line by line. A whole object (ScanWhole: a history's added lines)
// is decoded whatever the run's length, as in gitleaks. The
// keyword gate of a decoded region sees the region, not the whole buffer:
// a rule whose keyword lies more than 512 bytes from the encoded text is
// not tried on it.
package rules
