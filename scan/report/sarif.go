package report

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"slices"
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
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
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
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Message             sarifMessage      `json:"message"`
		Locations           []sarifLocation   `json:"locations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          *sarifResultProps `json:"properties,omitempty"`
	}
	sarifResultProps struct {
		// File is the finding's full path, archive members included, when
		// the artifact URI names only the outermost archive.
		File string `json:"file"`
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

// sarifWriter buffers the run's findings and writes one SARIF 2.1.0 log at
// Close, in the shape GitHub code scanning accepts:
//
//   - tool.driver.rules lists Options.Rules in their order, then any rule
//     that only a finding named (sorted by ID), each with a short
//     description, level "error", and its tags plus "security" (the tag
//     GitHub uses to file a result under security alerts). Every result's
//     ruleIndex points into this table.
//   - Results are sorted by file, line, column and rule, so the same scan
//     gives the same log whatever the worker count.
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
type sarifWriter struct {
	w        io.Writer
	opts     Options
	findings []Finding // prepared (redacted) copies, in Write order
	hashes   []string  // spindleSecretHash/v1 per finding; empty when redacting
	state    closeState
}

func newSARIFWriter(w io.Writer, opts Options) *sarifWriter {
	return &sarifWriter{w: w, opts: opts}
}

func (s *sarifWriter) Write(f Finding) error {
	if err := s.state.check(); err != nil {
		return err
	}
	// The secret hash is of the real secret, so it is taken before the
	// finding is redacted for buffering.
	hash := ""
	if s.opts.Redact == 0 {
		hash = secretHash(f)
	}
	f = prepare(f, s.opts)
	f.Entropy = 0 // not in SARIF; keep nothing that is not needed
	s.findings = append(s.findings, f)
	s.hashes = append(s.hashes, hash)
	return nil
}

func (s *sarifWriter) Close() error {
	return s.state.close(s.render)
}

func (s *sarifWriter) render() error {
	order := make([]int, len(s.findings))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := &s.findings[i], &s.findings[j]
		return compareFindings(a, b)
	})
	rules, index := s.ruleTable(order)
	results := make([]sarifResult, 0, len(s.findings))
	for _, i := range order {
		results = append(results, s.result(s.findings[i], s.hashes[i], index[s.findings[i].RuleID]))
	}

	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: sarifDriver{
				Name:           s.opts.ToolName,
				Version:        s.opts.ToolVersion,
				InformationURI: sarifInfoURI,
				Rules:          rules,
			}},
			Results: results,
		}},
	}
	s.findings, s.hashes = nil, nil

	bw := bufio.NewWriter(s.w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return err
	}
	return bw.Flush()
}

// ruleTable builds tool.driver.rules and the index of each rule ID in it.
// A rule missing from Options.Rules takes its description and tags from its
// first finding in order, the sorted result order, so that the table does not
// depend on the order findings arrived in.
func (s *sarifWriter) ruleTable(order []int) ([]sarifRule, map[string]int) {
	index := make(map[string]int, len(s.opts.Rules))
	rules := make([]sarifRule, 0, len(s.opts.Rules))
	add := func(id, description string, tags []string) {
		if _, ok := index[id]; ok {
			return
		}
		index[id] = len(rules)
		rules = append(rules, newSARIFRule(id, description, tags))
	}
	for _, r := range s.opts.Rules {
		add(r.ID, r.Description, r.Tags)
	}
	var extra []Finding
	for _, i := range order {
		if _, ok := index[s.findings[i].RuleID]; !ok {
			extra = append(extra, s.findings[i])
		}
	}
	slices.SortStableFunc(extra, func(a, b Finding) int { return strings.Compare(a.RuleID, b.RuleID) })
	for _, f := range extra {
		add(f.RuleID, f.Description, f.Tags)
	}
	return rules, index
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

// result converts one prepared finding.
func (s *sarifWriter) result(f Finding, hash string, ruleIndex int) sarifResult {
	outer, member := splitArchivePath(f.File)
	uri, base := artifactURI(outer)

	what := f.Description
	if what == "" {
		what = f.RuleID
	}
	text := what + " (rule " + f.RuleID + ")"
	if member != "" {
		text += " in archive member " + f.File
	}

	loc := sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: uri, URIBaseID: base}}
	loc.Region = sarifRegionOf(f)

	fps := map[string]string{fpLocationKey: f.Fingerprint}
	if hash != "" {
		fps[fpSecretKey] = hash
	}
	r := sarifResult{
		RuleID:              f.RuleID,
		RuleIndex:           ruleIndex,
		Message:             sarifMessage{Text: text},
		Locations:           []sarifLocation{{PhysicalLocation: loc}},
		PartialFingerprints: fps,
	}
	if member != "" {
		r.Properties = &sarifResultProps{File: f.File}
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

// artifactURI turns a file path into a SARIF artifact URI and its uriBaseId
// (empty for an absolute URI).
func artifactURI(p string) (uri, baseID string) {
	slashed := filepath.ToSlash(p)
	// A Windows drive path (C:/x) is absolute whatever the host OS.
	drive := len(slashed) >= 3 && slashed[1] == ':' && slashed[2] == '/' &&
		(slashed[0]|0x20 >= 'a' && slashed[0]|0x20 <= 'z')
	if drive || strings.HasPrefix(slashed, "/") {
		u := url.URL{Scheme: "file", Path: path.Clean("/" + slashed)}
		return u.String(), ""
	}
	clean := path.Clean(slashed)
	esc := (&url.URL{Path: clean}).EscapedPath()
	// A colon in the first segment would read as a URI scheme ("c:x").
	if first, _, _ := strings.Cut(esc, "/"); strings.Contains(first, ":") {
		esc = "./" + esc
	}
	return esc, srcRoot
}
