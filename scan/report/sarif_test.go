package report

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// sarifDoc mirrors the parts of a SARIF 2.1.0 log the tests read. Pointers
// tell an absent field from a zero one.
type sarifDoc struct {
	Schema  *string `json:"$schema"`
	Version *string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name    *string `json:"name"`
				Version string  `json:"version"`
				Rules   []struct {
					ID               *string `json:"id"`
					ShortDescription struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
					Properties struct {
						Tags []string `json:"tags"`
					} `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    *string `json:"ruleId"`
			RuleIndex *int    `json:"ruleIndex"`
			Message   struct {
				Text *string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       *string `json:"uri"`
						URIBaseID string  `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region *struct {
						StartLine   *int `json:"startLine"`
						StartColumn *int `json:"startColumn"`
						EndLine     *int `json:"endLine"`
						EndColumn   *int `json:"endColumn"`
						Snippet     struct {
							Text string `json:"text"`
						} `json:"snippet"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			Properties          struct {
				File    string `json:"file"`
				Commit  string `json:"commit"`
				Author  string `json:"author"`
				Email   string `json:"email"`
				Date    string `json:"date"`
				Message string `json:"message"`
			} `json:"properties"`
		} `json:"results"`
		VersionControlProvenance []struct {
			RepositoryURI *string `json:"repositoryUri"`
			RevisionID    string  `json:"revisionId"`
		} `json:"versionControlProvenance"`
	} `json:"runs"`
}

// decodeSARIF parses a log and checks the fields SARIF 2.1.0 and GitHub code
// scanning require, so every test that renders SARIF checks them too.
func decodeSARIF(t testing.TB, out string) sarifDoc {
	t.Helper()
	var doc sarifDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("sarif does not parse: %v\n%s", err, out)
	}
	// "results": [] must be present even when empty; decode loosely to see.
	var loose struct {
		Runs []map[string]json.RawMessage `json:"runs"`
	}
	json.Unmarshal([]byte(out), &loose)
	switch {
	case doc.Schema == nil || !strings.Contains(*doc.Schema, "sarif-2.1.0"):
		t.Fatalf("$schema = %v", doc.Schema)
	case doc.Version == nil || *doc.Version != "2.1.0":
		t.Fatalf("version = %v", doc.Version)
	case len(doc.Runs) != 1:
		t.Fatalf("%d runs, want 1", len(doc.Runs))
	case doc.Runs[0].Tool.Driver.Name == nil || *doc.Runs[0].Tool.Driver.Name == "":
		t.Fatal("tool.driver.name missing")
	case doc.Runs[0].Tool.Driver.Rules == nil:
		t.Fatal("tool.driver.rules missing")
	case string(loose.Runs[0]["results"]) == "null" || loose.Runs[0]["results"] == nil:
		t.Fatal("results missing or null")
	}
	run := doc.Runs[0]
	for i, r := range run.Results {
		if r.RuleID == nil || r.Message.Text == nil || *r.Message.Text == "" || len(r.Locations) == 0 || r.PartialFingerprints == nil {
			t.Fatalf("result %d lacks ruleId, message.text, locations or partialFingerprints: %+v", i, r)
		}
		if r.RuleIndex == nil || *r.RuleIndex < 0 || *r.RuleIndex >= len(run.Tool.Driver.Rules) ||
			*run.Tool.Driver.Rules[*r.RuleIndex].ID != *r.RuleID {
			t.Fatalf("result %d: ruleIndex %v does not point at rule %q", i, r.RuleIndex, *r.RuleID)
		}
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI == nil || *loc.ArtifactLocation.URI == "" {
			t.Fatalf("result %d: artifactLocation.uri missing", i)
		}
		if reg := loc.Region; reg != nil {
			if reg.StartLine == nil || *reg.StartLine < 1 || reg.EndLine == nil || *reg.EndLine < *reg.StartLine {
				t.Fatalf("result %d: bad region lines %+v", i, reg)
			}
		}
	}
	return doc
}

func TestSARIFHasRequiredFieldsAndRegions(t *testing.T) {
	findings := sampleFindings()
	opts := Options{
		ToolName: "spindle", ToolVersion: "1.2.3",
		Rules: []RuleMeta{
			{ID: "private-key", Description: "Private Key", Tags: []string{"key"}},
			{ID: "aws-access-token", Description: "AWS Access Token", Tags: []string{"aws"}},
			{ID: "unused-rule", Description: "Never fires"},
		},
	}
	doc := decodeSARIF(t, render(t, FormatSARIF, opts, findings))
	run := doc.Runs[0]
	if run.Tool.Driver.Version != "1.2.3" {
		t.Errorf("driver.version = %q", run.Tool.Driver.Version)
	}
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, *r.ID)
		if !slices.Contains(r.Properties.Tags, "security") {
			t.Errorf("rule %s tags %v lack \"security\"", *r.ID, r.Properties.Tags)
		}
		if r.ShortDescription.Text == "" {
			t.Errorf("rule %s has no shortDescription", *r.ID)
		}
	}
	// Options.Rules in order, then rules only findings named.
	if want := []string{"private-key", "aws-access-token", "unused-rule", "generic-api-key", "github-pat"}; !slices.Equal(ids, want) {
		t.Errorf("rules = %v, want %v", ids, want)
	}
	if len(run.Results) != len(findings) {
		t.Fatalf("%d results, want %d", len(run.Results), len(findings))
	}
	// Every finding is present with its region; endColumn is exclusive.
	for _, f := range findings {
		found := false
		for _, r := range run.Results {
			reg := r.Locations[0].PhysicalLocation.Region
			if *r.RuleID != f.RuleID || reg == nil || *reg.StartLine != f.Line || reg.Snippet.Text != f.Secret {
				continue
			}
			found = true
			if *reg.StartColumn != f.Column || *reg.EndLine != f.EndLine || *reg.EndColumn != f.EndColumn+1 {
				t.Errorf("%s:%d region = %d:%d-%d:%d, want %d:%d-%d:%d", f.File, f.Line,
					*reg.StartLine, *reg.StartColumn, *reg.EndLine, *reg.EndColumn,
					f.Line, f.Column, f.EndLine, f.EndColumn+1)
			}
			if r.PartialFingerprints[fpLocationKey] != f.Fingerprint || r.PartialFingerprints[fpSecretKey] != secretHash(f) {
				t.Errorf("%s:%d fingerprints = %v", f.File, f.Line, r.PartialFingerprints)
			}
		}
		if !found {
			t.Errorf("no result for %s:%d (%s)", f.File, f.Line, f.RuleID)
		}
	}
}

func TestSARIFResultsAreSortedWhateverTheWriteOrder(t *testing.T) {
	findings := sampleFindings()
	want := render(t, FormatSARIF, Options{}, findings)
	slices.Reverse(findings)
	if got := render(t, FormatSARIF, Options{}, findings); got != want {
		t.Fatal("sarif output depends on the order findings were written in")
	}
}

func TestSARIFRedactedLogCarriesNoSecretHash(t *testing.T) {
	doc := decodeSARIF(t, render(t, FormatSARIF, Options{Redact: 100}, sampleFindings()))
	for _, r := range doc.Runs[0].Results {
		if _, ok := r.PartialFingerprints[fpSecretKey]; ok {
			t.Errorf("redacted result has %s", fpSecretKey)
		}
		if r.PartialFingerprints[fpLocationKey] == "" {
			t.Errorf("redacted result lacks %s", fpLocationKey)
		}
	}
}

func TestSARIFRegionClampsOrOmitsInvalidPositions(t *testing.T) {
	tests := []struct {
		name string
		f    Finding
		want *sarifRegion // nil: no region
	}{
		{"no line", Finding{Line: 0, Column: 3}, nil},
		{"no columns", Finding{Line: 4, EndLine: 4}, &sarifRegion{StartLine: 4, EndLine: 4}},
		{"end line before start", Finding{Line: 9, EndLine: 2, Column: 1, EndColumn: 5}, &sarifRegion{StartLine: 9, EndLine: 9, StartColumn: 1, EndColumn: 6}},
		{"end column before start", Finding{Line: 2, EndLine: 2, Column: 10, EndColumn: 3}, &sarifRegion{StartLine: 2, EndLine: 2, StartColumn: 10, EndColumn: 10}},
		{"multi-line region keeps its end column", Finding{Line: 2, EndLine: 3, Column: 10, EndColumn: 3}, &sarifRegion{StartLine: 2, EndLine: 3, StartColumn: 10, EndColumn: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sarifRegionOf(tt.f)
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Fatalf("region = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSARIFArchiveMemberURINamesTheOutermostArchive(t *testing.T) {
	tests := []struct {
		file, uri, base, member string
	}{
		{"config/app.env", "config/app.env", srcRoot, ""},
		{"./config/../app.env", "app.env", srcRoot, ""},
		{"a.zip!dir/x.env", "a.zip", srcRoot, "dir/x.env"},
		{"lib/a.tar.gz!inner.zip!x.env", "lib/a.tar.gz", srcRoot, "inner.zip!x.env"},
		{"Build.JAR!META-INF/key", "Build.JAR", srcRoot, "META-INF/key"},
		{"wow!.txt", "wow%21.txt", srcRoot, ""},            // '!' in an ordinary name
		{"bang!dir.zip!x", "bang%21dir.zip", srcRoot, "x"}, // first archive '!' wins
		{"my dir/key #1.env", "my%20dir/key%20%231.env", srcRoot, ""},
		{"100%.env", "100%25.env", srcRoot, ""},
		{"c:key.env", "./c:key.env", srcRoot, ""},
		{"/srv/repo/a.env", "file:///srv/repo/a.env", "", ""},
		{"C:/repo/a.zip!b.env", "file:///C:/repo/a.zip", "", "b.env"},
		{"données/clé.env", "donn%C3%A9es/cl%C3%A9.env", srcRoot, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := Finding{RuleID: "r", File: tt.file, Line: 1, Column: 1, EndLine: 1, EndColumn: 1, Secret: "s3cr3t-value"}
			doc := decodeSARIF(t, render(t, FormatSARIF, Options{}, []Finding{f}))
			r := doc.Runs[0].Results[0]
			loc := r.Locations[0].PhysicalLocation.ArtifactLocation
			if *loc.URI != tt.uri || loc.URIBaseID != tt.base {
				t.Errorf("uri = %q (base %q), want %q (base %q)", *loc.URI, loc.URIBaseID, tt.uri, tt.base)
			}
			if tt.member == "" {
				if r.Properties.File != "" {
					t.Errorf("properties.file = %q for a plain file", r.Properties.File)
				}
				return
			}
			if r.Properties.File != tt.file || !strings.Contains(*r.Message.Text, tt.file) {
				t.Errorf("member path lost: properties.file = %q, message = %q", r.Properties.File, *r.Message.Text)
			}
		})
	}
}

// TestSARIFRedactsTheCleanedArtifactPath is the regression test for what
// FuzzWriters found: the artifact path was cleaned after the secret had been
// hidden in the file name, and cleaning joined "k/./ey" into the secret
// "k/ey". The path is now cleaned first and the secret hidden in the result.
func TestSARIFRedactsTheCleanedArtifactPath(t *testing.T) {
	tests := []struct{ file, secret string }{
		{"abc/./def", "abc/def"},
		{"a/x/../b-key", "a/b-key"},
		{"keys//s3cr3t.txt", "keys/s3cr3t.txt"},
		{"/srv//tok3n/x", "/srv/tok3n"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := Finding{RuleID: "r", File: tt.file, Line: 1, Column: 1, EndLine: 1, EndColumn: 1, Secret: tt.secret}
			for _, pct := range []int{100, 50} {
				out := render(t, FormatSARIF, Options{Redact: pct}, []Finding{f})
				if strings.Contains(out, tt.secret) {
					t.Errorf("redacted at %d, the log contains the secret %q:\n%s", pct, tt.secret, out)
				}
				decodeSARIF(t, out)
			}
		})
	}
	// An absolute path stays absolute when the mask replaces its root.
	f := Finding{RuleID: "r", File: "/tok3n-abc/x", Line: 1, Secret: "/tok3n-abc"}
	uri := decodeSARIF(t, render(t, FormatSARIF, Options{Redact: 100}, []Finding{f})).Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation
	if !strings.HasPrefix(*uri.URI, "file:///") || strings.Contains(*uri.URI, "tok3n") {
		t.Errorf("uri = %q", *uri.URI)
	}
}

func TestSARIFNamesTheCommitOfHistoryFindings(t *testing.T) {
	hist := sampleFindings()[4]
	opts := Options{RemoteURL: "git@github.com:acme/widgets.git", Revision: "0123456789abcdef0123456789abcdef01234567"}
	doc := decodeSARIF(t, render(t, FormatSARIF, opts, []Finding{hist, sampleFindings()[0]}))
	run := doc.Runs[0]
	if len(run.VersionControlProvenance) != 1 || *run.VersionControlProvenance[0].RepositoryURI != "https://github.com/acme/widgets" ||
		run.VersionControlProvenance[0].RevisionID != opts.Revision {
		t.Errorf("versionControlProvenance = %+v", run.VersionControlProvenance)
	}
	var found bool
	for _, r := range run.Results {
		p := r.Properties
		if *r.RuleID != hist.RuleID {
			if p.Commit != "" || strings.Contains(*r.Message.Text, "commit") {
				t.Errorf("a finding outside history names a commit: %+v", r)
			}
			continue
		}
		found = true
		if p.Commit != hist.Commit || p.Author != hist.Author || p.Email != hist.Email || p.Date != hist.Date || p.Message != hist.Message {
			t.Errorf("properties = %+v", p)
		}
		if !strings.Contains(*r.Message.Text, "in commit "+hist.Commit) {
			t.Errorf("message %q does not name the commit", *r.Message.Text)
		}
	}
	if !found {
		t.Fatal("history finding missing")
	}
	if doc := decodeSARIF(t, render(t, FormatSARIF, Options{}, []Finding{hist})); doc.Runs[0].VersionControlProvenance != nil {
		t.Error("versionControlProvenance without a remote")
	}
}
