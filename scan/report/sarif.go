package report

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// SARIF constants. The schema URI is the one GitHub code scanning's
// documentation shows and most producers write.
const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	sarifInfoURI = "https://github.com/spindle-go/spindle"
	// srcRoot is the uriBaseId of every relative artifact URI: the directory
	// the scan's relative paths are relative to.
	srcRoot = "%SRCROOT%"
)

// Keys of Result.partialFingerprints. See sarifWriter for what each hashes.
const (
	fpSecretKey   = "spindleSecretHash/v1" // spindle:allow (a key name, not a secret)
	fpLocationKey = "spindleFingerprint/v1"
)

// The subset of the SARIF 2.1.0 object model this writer emits. Field order
// follows the specification's, so the output reads like other tools' logs.
type (
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string          `json:"id"`
		ShortDescription     sarifMessage    `json:"shortDescription"`
		DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
		Properties           sarifRuleProps  `json:"properties"`
	}
	sarifRuleConfig struct {
		Level string `json:"level"`
	}
	sarifRuleProps struct {
		Tags []string `json:"tags"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifVersionControl struct {
		RepositoryURI string `json:"repositoryUri"`
		RevisionID    string `json:"revisionId,omitempty"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Message             sarifMessage      `json:"message"`
		Locations           []sarifLocation   `json:"locations"`
		PartialFingerprints sarifFingerprints `json:"partialFingerprints"`
		Properties          *sarifResultProps `json:"properties,omitempty"`
	}
	sarifFingerprints struct {
		Location string `json:"spindleFingerprint/v1"`
		Secret   string `json:"spindleSecretHash/v1,omitempty"`
	}
	// sarifResultProps is what a result carries beyond SARIF's own fields:
	// the full path of an archive member (the artifact URI names only the
	// outermost archive), and for a history finding the commit that added
	// it, its author and date, and the first line of its message.
	sarifResultProps struct {
		File    string `json:"file,omitempty"`
		Commit  string `json:"commit,omitempty"`
		Author  string `json:"author,omitempty"`
		Email   string `json:"email,omitempty"`
		Date    string `json:"date,omitempty"`
		Message string `json:"message,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Region           *sarifRegion          `json:"region,omitempty"`
	}
	sarifArtifactLocation struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int           `json:"startLine"`
		StartColumn int           `json:"startColumn,omitempty"`
		EndLine     int           `json:"endLine"`
		EndColumn   int           `json:"endColumn,omitempty"`
		Snippet     *sarifMessage `json:"snippet,omitempty"`
	}
)

// sarifFormat writes one SARIF 2.1.0 log in the shape GitHub code scanning
// accepts:
//
//   - tool.driver.rules lists Options.Rules in their order, then any rule
//     that only a finding named (sorted by ID), each with a short
//     description, level "error", and its tags plus "security" (the tag
//     GitHub uses to file a result under security alerts). Every result's
//     ruleIndex points into this table.
//   - Results are sorted (see compareFindings), so the same scan gives the
//     same log whatever the worker count. They are written one by one, a
//     line each, as the sorted findings come back at Close; the log's
//     opening goes out at the first Write, the rule table (gathered while
//     findings arrive) just before the first result.
//   - A region's endColumn is exclusive in SARIF and inclusive in Finding,
//     so it is EndColumn+1. A finding without a line (Line < 1) gets no
//     region. Columns are written as the engine counted them; SARIF's default
//     column unit is the UTF-16 code unit, which agrees for ASCII lines.
//   - partialFingerprints carries spindleFingerprint/v1, the finding's
//     Fingerprint (file:rule:line, as .gitleaksignore uses), and, in an
//     unredacted report, spindleSecretHash/v1, a SHA-256 of rule, file and
//     secret: the identity Baseline uses, stable when lines move. A redacted
//     report leaves the hash out so that it carries nothing derived from the
//     secret. GitHub computes its own primaryLocationLineHash from the
//     checked-out source when the upload lacks one.
//   - History. With Options.RemoteURL the run has versionControlProvenance
//     naming the repository (and Options.Revision, when set). A history
//     finding's commit, author, email, date and message go into the result's
//     properties, and its message names the commit.
//
// Artifact URIs. A relative path becomes a relative URI with uriBaseId
// %SRCROOT%, slash-separated and percent-encoded (a space is %20, '#' is %23);
// an absolute path becomes a file:// URI. An archive member's path
// (a.zip!dir/x.env) cannot be a URI GitHub resolves, since the member is not
// a file in the repository, so the URI names the outermost archive (a.zip),
// the file a reviewer must fix, and the full member path goes into the
// message and into result.properties.file. The region is then the member's
// own line and columns. Because '!' may also occur in ordinary file names,
// a path is split only at a '!' that follows a name with an archive or
// compression extension (see archiveSuffixes); "wow!.txt" stays one file.
//
// Redaction and paths. The artifact path is cleaned (a/./b is a/b), and
// cleaning can join pieces of a name into the secret where the name as
// given did not hold it. So the path is split and cleaned from the
// unredacted finding and the secret hidden in the result, rather than
// hidden first and cleaned after (FuzzWriters found that order leaking).
type sarifFormat struct {
	opts       Options
	remote     remoteInfo
	n          int   // results written
	incomplete bool  // the run did not complete (CloseIncomplete)
	lost       *Lost // the run lost data (MarkLost)
	// extra holds, for each rule not in Options.Rules, its first finding
	// in sorted order, whose description and tags describe the rule.
	extra map[string]Finding
	index map[string]int // rule ID → ruleIndex, built before the first result
	enc   *json.Encoder
	buf   bytes.Buffer
}

func newSARIFFormat(opts Options, remote remoteInfo) *sarifFormat {
	s := &sarifFormat{opts: opts, remote: remote, extra: map[string]Finding{}}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false)
	s.enc.SetIndent("        ", "  ")
	return s
}

func (s *sarifFormat) entry(f Finding) entry {
	// The secret hash is of the real secret, and the artifact path is
	// cleaned before the secret is hidden in it; both need f unredacted.
	e := entry{}
	if s.opts.Redact == 0 {
		e.hash = secretHash(f)
	}
	outer, member := splitArchivePath(f.File)
	clean := cleanArtifactPath(outer)
	e.artifact = redactIn(clean, f, s.opts.Redact)
	if strings.HasPrefix(clean, "/") && !strings.HasPrefix(e.artifact, "/") {
		e.artifact = "/" + e.artifact // the mask replaced the root; keep the path absolute
	}
	e.member = member != ""
	f = prepare(f, s.opts)
	f.Entropy = 0 // not in SARIF; keep nothing that is not needed
	e.f = f
	if !slices.ContainsFunc(s.opts.Rules, func(r RuleMeta) bool { return r.ID == f.RuleID }) {
		if first, ok := s.extra[f.RuleID]; !ok || compareFindings(&f, &first) < 0 {
			s.extra[f.RuleID] = Finding{RuleID: f.RuleID, Description: f.Description, Tags: f.Tags,
				File: f.File, Line: f.Line, Column: f.Column, Commit: f.Commit, Secret: f.Secret, Match: f.Match}
		}
	}
	return e
}

func (s *sarifFormat) begin(w *bufio.Writer) error {
	_, err := w.WriteString("{\n  \"$schema\": \"" + sarifSchema + "\",\n  \"version\": \"" + sarifVersion + "\",\n  \"runs\": [\n    {\n")
	return err
}

// head writes the run's tool and provenance and opens its results.
func (s *sarifFormat) head(w *bufio.Writer) error {
	rules := s.ruleTable()
	driver := sarifDriver{Name: s.opts.ToolName, Version: s.opts.ToolVersion, InformationURI: sarifInfoURI, Rules: rules}
	w.WriteString("      \"tool\": ")
	if err := s.encode(w, sarifTool{Driver: driver}, "      "); err != nil {
		return err
	}
	w.WriteString(",\n")
	w.WriteString("      \"invocations\": [\n        {\n          \"executionSuccessful\": " +
		strconv.FormatBool(!s.incomplete && s.lost == nil))
	if err := s.notifications(w); err != nil {
		return err
	}
	if c := s.opts.Config; c != nil {
		w.WriteString(",\n          \"properties\": ")
		if err := s.encode(w, c, "          "); err != nil {
			return err
		}
	}
	w.WriteString("\n        }\n      ],\n")
	if p := s.shardProperties(); p != nil {
		w.WriteString("      \"properties\": ")
		if err := s.encode(w, p, "      "); err != nil {
			return err
		}
		w.WriteString(",\n")
	}
	if s.remote.url != "" {
		w.WriteString("      \"versionControlProvenance\": ")
		vc := []sarifVersionControl{{RepositoryURI: s.remote.url, RevisionID: s.opts.Revision}}
		if err := s.encode(w, vc, "      "); err != nil {
			return err
		}
		w.WriteString(",\n")
	}
	_, err := w.WriteString("      \"results\": [")
	return err
}

// shardProperties are the run's properties for a shard's report, or nil.
func (s *sarifFormat) shardProperties() map[string]string {
	if sh := s.opts.Shard; sh != nil {
		return map[string]string{"shard": sh.String(), "scanned": sh.Scanned, "config": sh.Config}
	}
	return nil
}

// markIncomplete makes the run's invocation say that it did not complete.
func (s *sarifFormat) markIncomplete() bool {
	s.incomplete = true
	return true
}

// encode writes v as JSON indented at the given depth, or compact for an
// empty prefix, without a newline.
func (s *sarifFormat) encode(w *bufio.Writer, v any, prefix string) error {
	s.buf.Reset()
	if prefix == "" {
		s.enc.SetIndent("", "")
	} else {
		s.enc.SetIndent(prefix, "  ")
	}
	if err := s.enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(bytes.TrimSuffix(s.buf.Bytes(), []byte("\n")))
	return err
}

func (s *sarifFormat) finding(w *bufio.Writer, e *entry) error {
	if s.n == 0 {
		if err := s.head(w); err != nil {
			return err
		}
		w.WriteString("\n        ")
	} else {
		w.WriteString(",\n        ")
	}
	s.n++
	// One result per line: indenting each result would triple the size of
	// a large log and the time to write it, for no reader's benefit.
	return s.encode(w, s.result(e), "")
}

func (s *sarifFormat) end(w *bufio.Writer) error {
	if s.n == 0 {
		if err := s.head(w); err != nil {
			return err
		}
		_, err := w.WriteString("]\n    }\n  ]\n}\n")
		return err
	}
	_, err := w.WriteString("\n      ]\n    }\n  ]\n}\n")
	return err
}

// ruleTable builds tool.driver.rules and the index of each rule ID in it.
func (s *sarifFormat) ruleTable() []sarifRule {
	s.index = make(map[string]int, len(s.opts.Rules)+len(s.extra))
	rules := make([]sarifRule, 0, len(s.opts.Rules)+len(s.extra))
	add := func(id, description string, tags []string) {
		if _, ok := s.index[id]; ok {
			return
		}
		s.index[id] = len(rules)
		rules = append(rules, newSARIFRule(id, description, tags))
	}
	for _, r := range s.opts.Rules {
		add(r.ID, r.Description, r.Tags)
	}
	for _, id := range slices.Sorted(maps.Keys(s.extra)) {
		f := s.extra[id]
		add(id, f.Description, f.Tags)
	}
	s.extra = nil
	return rules
}

func newSARIFRule(id, description string, tags []string) sarifRule {
	if description == "" {
		description = id
	}
	all := make([]string, 0, len(tags)+1)
	all = append(all, tags...)
	if !slices.Contains(all, "security") {
		all = append(all, "security")
	}
	return sarifRule{
		ID:                   id,
		ShortDescription:     sarifMessage{Text: description},
		DefaultConfiguration: sarifRuleConfig{Level: "error"},
		Properties:           sarifRuleProps{Tags: all},
	}
}

// result converts one prepared entry.
func (s *sarifFormat) result(e *entry) sarifResult {
	f := &e.f
	uri, base := artifactURI(e.artifact)

	what := f.Description
	if what == "" {
		what = f.RuleID
	}
	text := what + " (rule " + f.RuleID + ")"
	if e.member {
		text += " in archive member " + f.File
	}
	if f.Commit != "" {
		text += " in commit " + f.Commit
	}

	loc := sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: uri, URIBaseID: base}}
	loc.Region = sarifRegionOf(*f)

	fps := sarifFingerprints{Location: f.Fingerprint, Secret: e.hash}
	r := sarifResult{
		RuleID:              f.RuleID,
		RuleIndex:           s.index[f.RuleID],
		Message:             sarifMessage{Text: text},
		Locations:           []sarifLocation{{PhysicalLocation: loc}},
		PartialFingerprints: fps,
	}
	props := sarifResultProps{Commit: f.Commit, Author: f.Author, Email: f.Email, Date: f.Date, Message: f.Message}
	if e.member {
		props.File = f.File
	}
	if props != (sarifResultProps{}) {
		r.Properties = &props
	}
	return r
}

// sarifRegionOf returns f's region in SARIF's terms, or nil when f has no
// line. SARIF requires startLine ≥ 1, columns ≥ 1, and an end not before
// the start; a finding that violates that is clamped rather than dropped.
func sarifRegionOf(f Finding) *sarifRegion {
	if f.Line < 1 {
		return nil
	}
	r := &sarifRegion{StartLine: f.Line, EndLine: max(f.EndLine, f.Line)}
	if f.Column >= 1 {
		r.StartColumn = f.Column
		if f.EndColumn >= 1 {
			r.EndColumn = f.EndColumn + 1 // inclusive → exclusive
			if r.EndLine == r.StartLine && r.EndColumn < r.StartColumn {
				r.EndColumn = r.StartColumn
			}
		}
	}
	snippet := f.Secret
	if snippet == "" {
		snippet = f.Match
	}
	if snippet != "" {
		r.Snippet = &sarifMessage{Text: snippet}
	}
	return r
}

// secretHash is the spindleSecretHash/v1 fingerprint: SHA-256 over rule ID,
// file and secret, NUL-separated so that no two triples share an input.
func secretHash(f Finding) string {
	h := sha256.New()
	h.Write([]byte(f.RuleID))
	h.Write([]byte{0})
	h.Write([]byte(f.File))
	h.Write([]byte{0})
	h.Write([]byte(f.Secret))
	return hex.EncodeToString(h.Sum(nil))
}

// archiveSuffixes are the name endings after which a '!' in a finding's path
// is read as the start of an archive member. Lower case; compared
// case-insensitively.
var archiveSuffixes = []string{
	".zip", ".jar", ".war", ".ear", ".apk", ".aar", ".whl", ".nupkg", ".xpi", ".vsix",
	".tar", ".tgz", ".tbz", ".tbz2", ".txz", ".tzst", ".gz", ".bz2", ".xz", ".zst", ".7z", ".rar",
}

// splitArchivePath splits "outer.zip!dir/x.env" into its outermost file and
// the member path beyond it ("dir/x.env"; for nested archives the rest,
// "inner.zip!x.env"). A path with no archive '!' is returned whole with an
// empty member.
func splitArchivePath(p string) (outer, member string) {
	for i := 0; i < len(p); i++ {
		if p[i] != '!' {
			continue
		}
		name := strings.ToLower(p[:i])
		for _, suf := range archiveSuffixes {
			if strings.HasSuffix(name, suf) {
				return p[:i], p[i+1:]
			}
		}
	}
	return p, ""
}

// cleanArtifactPath is the path an artifact URI is made of: slashed and
// cleaned, and rooted ("/C:/x", "/srv/x") when the path is absolute.
func cleanArtifactPath(p string) string {
	slashed := filepath.ToSlash(p)
	// A Windows drive path (C:/x) is absolute whatever the host OS.
	drive := len(slashed) >= 3 && slashed[1] == ':' && slashed[2] == '/' &&
		(slashed[0]|0x20 >= 'a' && slashed[0]|0x20 <= 'z')
	if drive || strings.HasPrefix(slashed, "/") {
		return path.Clean("/" + slashed)
	}
	return path.Clean(slashed)
}

// artifactURI turns a path cleaned by cleanArtifactPath into a SARIF
// artifact URI and its uriBaseId (empty for an absolute URI).
func artifactURI(clean string) (uri, baseID string) {
	if strings.HasPrefix(clean, "/") {
		u := url.URL{Scheme: "file", Path: clean}
		return u.String(), ""
	}
	esc := (&url.URL{Path: clean}).EscapedPath()
	// A colon in the first segment would read as a URI scheme ("c:x").
	if first, _, _ := strings.Cut(esc, "/"); strings.Contains(first, ":") {
		esc = "./" + esc
	}
	return esc, srcRoot
}
