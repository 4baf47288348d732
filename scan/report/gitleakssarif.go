package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
)

// gitleaksSARIFFormat is gitleaks' SARIF report (`gitleaks --report-format
// sarif`), key for key and indented as gitleaks' encoder writes it (one
// space per level, <, > and & escaped): one run whose tool.driver lists
// Options.Rules in their order (id and shortDescription only), and a result
// per finding with gitleaks' message, the file as the artifact's URI as it
// stands, a region with the secret as its snippet, and partialFingerprints
// holding the commit, author, email, date and message (empty strings
// outside history). The driver is this program, named and versioned by
// Options.ToolName and ToolVersion, where gitleaks names itself.
//
// Results are sorted, as in every sorted format (gitleaks lists them in
// the order its workers found them). A run that did not complete, closed
// through CloseIncomplete, adds SARIF's invocations with
// executionSuccessful false, and a run that lost data (MarkLost) the same
// with a toolExecutionNotification saying what was lost; gitleaks has no
// such run to report.
type gitleaksSARIFFormat struct {
	opts       Options
	n          int
	incomplete bool
	lost       *Lost // the run lost data (MarkLost)
	buf        bytes.Buffer
}

// The keys of gitleaks' SARIF objects, in its order.
type (
	glSARIFDriver struct {
		Name            string        `json:"name"`
		SemanticVersion string        `json:"semanticVersion"`
		InformationURI  string        `json:"informationUri"`
		Rules           []glSARIFRule `json:"rules"`
	}
	glSARIFRule struct {
		ID               string       `json:"id"`
		ShortDescription sarifMessage `json:"shortDescription"`
	}
	glSARIFResult struct {
		Message             sarifMessage          `json:"message"`
		RuleID              string                `json:"ruleId"`
		Locations           []glSARIFLocation     `json:"locations"`
		PartialFingerprints glSARIFFingerprints   `json:"partialFingerprints"`
		Properties          glSARIFResultProperty `json:"properties"`
	}
	glSARIFLocation struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Region struct {
				StartLine   int          `json:"startLine"`
				StartColumn int          `json:"startColumn"`
				EndLine     int          `json:"endLine"`
				EndColumn   int          `json:"endColumn"`
				Snippet     sarifMessage `json:"snippet"`
			} `json:"region"`
		} `json:"physicalLocation"`
	}
	glSARIFFingerprints struct {
		CommitSha     string `json:"commitSha"`
		Email         string `json:"email"`
		Author        string `json:"author"`
		Date          string `json:"date"`
		CommitMessage string `json:"commitMessage"`
	}
	glSARIFResultProperty struct {
		Tags []string `json:"tags"`
	}
)

func (g *gitleaksSARIFFormat) entry(f Finding) entry { return entry{f: prepare(f, g.opts)} }

func (g *gitleaksSARIFFormat) begin(w *bufio.Writer) error {
	rules := make([]glSARIFRule, len(g.opts.Rules))
	for i, r := range g.opts.Rules {
		rules[i] = glSARIFRule{ID: r.ID, ShortDescription: sarifMessage{Text: r.Description}}
	}
	driver := glSARIFDriver{Name: g.opts.ToolName, SemanticVersion: g.opts.ToolVersion, InformationURI: sarifInfoURI, Rules: rules}
	w.WriteString("{\n \"$schema\": \"" + sarifSchema + "\",\n \"version\": \"" + sarifVersion + "\",\n \"runs\": [\n  {\n   \"tool\": {\n    \"driver\": ")
	if err := g.encode(w, driver, "    "); err != nil {
		return err
	}
	w.WriteString("\n   },\n")
	if s := g.opts.Shard; s != nil {
		w.WriteString("   \"properties\": ")
		props := map[string]string{"shard": s.String(), "scanned": s.Scanned, "config": s.Config}
		if err := g.encode(w, props, "   "); err != nil {
			return err
		}
		w.WriteString(",\n")
	}
	_, err := w.WriteString("   \"results\": [")
	return err
}

// encode writes v as gitleaks' encoder would at the given indentation,
// without a final newline.
func (g *gitleaksSARIFFormat) encode(w *bufio.Writer, v any, prefix string) error {
	g.buf.Reset()
	enc := json.NewEncoder(&g.buf)
	enc.SetIndent(prefix, " ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(bytes.TrimSuffix(g.buf.Bytes(), []byte("\n")))
	return err
}

func (g *gitleaksSARIFFormat) finding(w *bufio.Writer, e *entry) error {
	if g.n > 0 {
		w.WriteByte(',')
	}
	g.n++
	w.WriteString("\n    ")
	gf := toGitleaks(&e.f, remoteInfo{})
	text := gf.RuleID + " has detected secret for file " + gf.File + "."
	if gf.Commit != "" {
		text = strings.TrimSuffix(text, ".") + " at commit " + gf.Commit + "."
	}
	var loc glSARIFLocation
	loc.PhysicalLocation.ArtifactLocation.URI = gf.File
	r := &loc.PhysicalLocation.Region
	r.StartLine, r.StartColumn, r.EndLine, r.EndColumn = gf.StartLine, gf.StartColumn, gf.EndLine, gf.EndColumn
	r.Snippet.Text = gf.Secret
	return g.encode(w, glSARIFResult{
		Message:   sarifMessage{Text: text},
		RuleID:    gf.RuleID,
		Locations: []glSARIFLocation{loc},
		PartialFingerprints: glSARIFFingerprints{
			CommitSha: gf.Commit, Email: gf.Email, Author: gf.Author, Date: gf.Date, CommitMessage: gf.Message,
		},
		Properties: glSARIFResultProperty{Tags: gf.Tags},
	}, "    ")
}

func (g *gitleaksSARIFFormat) end(w *bufio.Writer) error {
	if g.n > 0 {
		w.WriteString("\n   ")
	}
	w.WriteString("]")
	switch {
	case g.lost != nil:
		w.WriteString(",\n   \"invocations\": [\n    {\n     \"executionSuccessful\": false,\n     \"toolExecutionNotifications\": [\n      {\n       \"level\": \"error\",\n       \"message\": {\n        \"text\": ")
		if err := g.encode(w, g.lost.Message(), ""); err != nil {
			return err
		}
		w.WriteString("\n       }\n      }\n     ]\n    }\n   ]")
	case g.incomplete:
		w.WriteString(",\n   \"invocations\": [\n    {\n     \"executionSuccessful\": false\n    }\n   ]")
	}
	_, err := w.WriteString("\n  }\n ]\n}\n")
	return err
}

// markIncomplete makes the log say that the run did not complete.
func (g *gitleaksSARIFFormat) markIncomplete() bool {
	g.incomplete = true
	return true
}

func (g *gitleaksSARIFFormat) markLost(l Lost) { g.lost = &l }
