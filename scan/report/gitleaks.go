package report

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// gitleaksFinding is a finding as gitleaks v8 (report.Finding) presents it:
// its field names, types and order. It is what the gitleaks format writes
// and what a template receives, so that tools and templates made for
// gitleaks read spindle's findings unchanged.
//
// Two fields have no counterpart in Finding. SymlinkFile is always empty
// (spindle reports a link's target under the link's own path). Line, which
// gitleaks fills with the whole line around the secret and leaves out of
// its JSON, holds the Match here: spindle does not keep the line.
type gitleaksFinding struct {
	RuleID      string
	Description string
	StartLine   int
	EndLine     int
	StartColumn int
	EndColumn   int
	Line        string `json:"-"`
	Match       string
	Secret      string
	File        string
	SymlinkFile string
	Commit      string
	Link        string `json:",omitempty"`
	Entropy     float32
	Author      string
	Email       string
	Date        string
	Message     string
	Tags        []string
	Fingerprint string
}

// toGitleaks converts a prepared finding. A history finding's Date is
// written in UTC, as gitleaks writes it, when it is RFC 3339.
func toGitleaks(f *Finding, remote remoteInfo) gitleaksFinding {
	date := f.Date
	if t, err := time.Parse(time.RFC3339, date); err == nil {
		date = t.UTC().Format(time.RFC3339)
	}
	return gitleaksFinding{
		RuleID: f.RuleID, Description: f.Description,
		StartLine: f.Line, EndLine: f.EndLine, StartColumn: f.Column, EndColumn: f.EndColumn,
		Line: f.Match, Match: f.Match, Secret: f.Secret, File: f.File,
		Commit: f.Commit, Link: remote.link(f), Entropy: float32(f.Entropy),
		Author: f.Author, Email: f.Email, Date: date, Message: f.Message,
		Tags: f.Tags, Fingerprint: f.Fingerprint,
	}
}

// appendGitleaksJSON appends g as gitleaks' JSON encoder writes one element
// of its report: every field but Line, in order, Link only when set,
// Entropy as a float32, and <, > and & escaped (gitleaks keeps
// encoding/json's default). Tags print as [] when empty; gitleaks prints
// null only for a rule without tags in a config that omits them.
func appendGitleaksJSON(b []byte, g *gitleaksFinding) []byte {
	o := jsonObject{b: b, indent: true, html: true}
	o.open()
	o.str("RuleID", g.RuleID)
	o.str("Description", g.Description)
	o.int("StartLine", g.StartLine)
	o.int("EndLine", g.EndLine)
	o.int("StartColumn", g.StartColumn)
	o.int("EndColumn", g.EndColumn)
	o.str("Match", g.Match)
	o.str("Secret", g.Secret)
	o.str("File", g.File)
	o.str("SymlinkFile", g.SymlinkFile)
	o.str("Commit", g.Commit)
	if g.Link != "" {
		o.str("Link", g.Link)
	}
	o.float("Entropy", float64(g.Entropy), 32)
	o.str("Author", g.Author)
	o.str("Email", g.Email)
	o.str("Date", g.Date)
	o.str("Message", g.Message)
	o.strs("Tags", g.Tags)
	o.str("Fingerprint", g.Fingerprint)
	o.close()
	return o.b
}

// gitleaksFormat is gitleaks' JSON report (`gitleaks --report-format json`),
// byte for byte: a JSON array indented by one space, the elements as
// appendGitleaksJSON writes them, "[]" when empty, a final newline. Two
// differences, both on purpose: findings are sorted (gitleaks lists them in
// the order its workers found them), and a byte of a string that is not
// UTF-8 is escaped reversibly (see jsonenc.go) where gitleaks writes U+FFFD.
type gitleaksFormat struct {
	opts    Options
	remote  remoteInfo
	n       int
	buf     []byte
	trailer trailer // a shard's: what its findings add up to
}

func (g *gitleaksFormat) entry(f Finding) entry { return entry{f: prepare(f, g.opts)} }

func (g *gitleaksFormat) begin(w *bufio.Writer) error {
	return beginArray(w, g.opts.Shard, &g.n, true)
}

func (g *gitleaksFormat) finding(w *bufio.Writer, e *entry) error {
	sep := ",\n "
	if g.n == 0 {
		sep = "\n "
	}
	g.n++
	gf := toGitleaks(&e.f, g.remote)
	g.buf = appendGitleaksJSON(append(g.buf[:0], sep...), &gf)
	g.trailer.count(g.buf[len(sep):])
	_, err := w.Write(g.buf)
	return err
}

func (g *gitleaksFormat) end(w *bufio.Writer) error {
	return endArray(w, g.opts.Shard, &g.trailer, g.n)
}

func (g *gitleaksFormat) markLost(l Lost) { g.trailer.lost = l.Warnings }

// Platforms a remote's links can be built for, as gitleaks' --platform
// names them.
const (
	platformNone      = "none"
	platformGitHub    = "github"
	platformGitLab    = "gitlab"
	platformAzure     = "azuredevops"
	platformGitea     = "gitea"
	platformBitbucket = "bitbucket"
)

// remoteInfo is the repository a history scan read, for links to findings.
type remoteInfo struct {
	url      string // https://host/owner/repo, no credentials, no .git
	platform string // one of the platform names; "" builds no links
}

// scpRemote is git's scp-like remote syntax, git@host:owner/repo.git.
var scpRemote = regexp.MustCompile(`^git@([a-zA-Z0-9.-]+):(?:\d{1,5}/)?([\w/.-]+?)(?:\.git)?$`)

// parseRemote normalises a remote URL the way gitleaks does (scp-like ssh to
// https, no .git suffix, no user information) and settles its platform:
// the one named, or for "" or "unknown" the one its host is known to run.
// A URL that does not parse gives no remote rather than an error: the
// command passes what git printed, and a scan should not fail over links.
func parseRemote(raw, platform string) (remoteInfo, error) {
	switch p := strings.ToLower(strings.TrimSpace(platform)); p {
	case "", "unknown":
		platform = ""
	case platformNone, platformGitHub, platformGitLab, platformAzure, platformGitea, platformBitbucket:
		platform = p
	default:
		return remoteInfo{}, fmt.Errorf("report: unknown platform %q (valid: github, gitlab, azuredevops, gitea, bitbucket, none)", platform)
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return remoteInfo{}, nil
	}
	if m := scpRemote.FindStringSubmatch(raw); m != nil {
		raw = "https://" + m[1] + "/" + m[2]
	}
	u, err := url.Parse(strings.TrimSuffix(raw, ".git"))
	if err != nil {
		return remoteInfo{}, nil
	}
	u.User = nil
	if platform == "" {
		switch strings.ToLower(u.Hostname()) {
		case "github.com":
			platform = platformGitHub
		case "gitlab.com":
			platform = platformGitLab
		case "dev.azure.com", "visualstudio.com":
			platform = platformAzure
		case "gitea.com", "code.forgejo.org", "codeberg.org":
			platform = platformGitea
		case "bitbucket.org":
			platform = platformBitbucket
		}
	}
	if platform == platformNone {
		platform = ""
	}
	return remoteInfo{url: u.String(), platform: platform}, nil
}

// linkPath escapes a path for a link as gitleaks does: spaces and percent
// signs only.
var linkPath = strings.NewReplacer(" ", "%20", "%", "%25")

// link is the web address of a history finding on its platform, as
// gitleaks builds it: the file at the finding's commit, with its lines when
// the platform can show them. An archive member links to the archive.
func (r remoteInfo) link(f *Finding) string {
	if r.platform == "" || f.Commit == "" {
		return ""
	}
	file, _, member := strings.Cut(f.File, "!")
	file = linkPath.Replace(file)
	line := func(start, end string) string {
		s := ""
		if f.Line != 0 {
			s += start + strconv.Itoa(f.Line)
		}
		if f.EndLine != f.Line {
			s += end + strconv.Itoa(f.EndLine)
		}
		return s
	}
	ext := strings.ToLower(filepath.Ext(file))
	source := ext == ".ipynb" || ext == ".md" // rendered by default; ask for the source
	switch r.platform {
	case platformGitHub, platformGitLab, platformGitea:
		link := r.url + "/blob/" + f.Commit + "/" + file
		if r.platform == platformGitea {
			link = r.url + "/src/commit/" + f.Commit + "/" + file
		}
		if member {
			return link
		}
		switch {
		case r.platform == platformGitHub && source:
			link += "?plain=1"
		case r.platform == platformGitea && source:
			link += "?display=source"
		}
		if r.platform == platformGitLab {
			return link + line("#L", "-")
		}
		return link + line("#L", "-L")
	case platformAzure:
		link := r.url + "/commit/" + f.Commit + "?path=/" + file
		if member {
			return link
		}
		return link + line("&line=", "&lineEnd=") +
			"&lineStartColumn=1&lineEndColumn=10000000&type=2&lineStyle=plain&_a=files"
	case platformBitbucket:
		link := r.url + "/src/" + f.Commit + "/" + file
		if member {
			return link
		}
		return link + line("#lines-", ":")
	}
	return ""
}

// gitleaksCSVHeader is the header of gitleaks' CSV report, in its order.
var gitleaksCSVHeader = []string{
	"RuleID", "Commit", "File", "SymlinkFile", "Secret", "Match", "StartLine", "EndLine",
	"StartColumn", "EndColumn", "Author", "Message", "Date", "Email", "Fingerprint", "Tags",
}

// gitleaksCSVFormat is gitleaks' CSV report (`gitleaks --report-format
// csv`): its columns in its order, tags joined by a space, a Link column
// when findings have links (gitleaks decides by its first finding; here the
// first to arrive), and nothing at all, not even the header, when there are
// no findings. Findings are sorted, as in the gitleaks format. Nothing is
// written before Close, since an empty report is an empty file.
type gitleaksCSVFormat struct {
	opts   Options
	remote remoteInfo
	link   bool // the Link column is present
	first  bool // the first finding has been seen
	cw     *csv.Writer
	row    []string
}

func (g *gitleaksCSVFormat) entry(f Finding) entry {
	f = prepare(f, g.opts)
	if !g.first {
		g.first, g.link = true, g.remote.link(&f) != ""
	}
	return entry{f: f}
}

func (g *gitleaksCSVFormat) begin(*bufio.Writer) error { return nil }

func (g *gitleaksCSVFormat) finding(w *bufio.Writer, e *entry) error {
	if g.cw == nil {
		g.cw = csv.NewWriter(w)
		header := gitleaksCSVHeader
		if g.link {
			header = append(slices.Clip(header), "Link")
		}
		g.cw.Write(header)
		g.row = make([]string, len(header))
	}
	gf := toGitleaks(&e.f, g.remote)
	copy(g.row, []string{gf.RuleID, gf.Commit, gf.File, gf.SymlinkFile, gf.Secret, gf.Match,
		strconv.Itoa(gf.StartLine), strconv.Itoa(gf.EndLine), strconv.Itoa(gf.StartColumn), strconv.Itoa(gf.EndColumn),
		gf.Author, gf.Message, gf.Date, gf.Email, gf.Fingerprint, strings.Join(gf.Tags, " ")})
	if g.link {
		g.row[len(g.row)-1] = gf.Link
	}
	return g.cw.Write(g.row)
}

func (g *gitleaksCSVFormat) end(*bufio.Writer) error {
	if g.cw == nil {
		return nil
	}
	g.cw.Flush()
	return g.cw.Error()
}
