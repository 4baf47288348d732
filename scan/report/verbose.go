package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// NewFindingPrinter returns a Writer that prints each finding as it
// arrives, in the form gitleaks prints findings with --verbose:
//
//	Finding:     AWS_KEY=AKIAIOSFODNN7EXAMPLE
//	Secret:      AKIAIOSFODNN7EXAMPLE
//	RuleID:      aws-access-token
//	Entropy:     4.121928
//	File:        app.env
//	Line:        1
//	Fingerprint: app.env:aws-access-token:1
//
// then Tags (when the finding has some, before File), and for a finding
// from history Commit, Author, Email and Date before the fingerprint and
// Link after it (built from Options.RemoteURL as the gitleaks format
// builds it), and a blank line. Secrets are redacted as Options.Redact
// asks. With Options.Color the match is drawn in gitleaks' colours, the
// secret in bold italics. Where gitleaks prints the whole line around the
// match, a finding here has only the match to print.
//
// Findings are printed in arrival order, as gitleaks prints them while it
// scans; Close writes nothing. The text is written as found but for the
// control characters that would let a scanned file drive a terminal or a
// CI log (escape sequences, carriage returns), which are shown as Go
// escapes; line breaks and tabs stay.
func NewFindingPrinter(w io.Writer, opts Options) (Writer, error) {
	if opts.Redact < 0 || opts.Redact > 100 {
		return nil, fmt.Errorf("report: redact percentage %d out of range 0..100", opts.Redact)
	}
	remote, err := parseRemote(opts.RemoteURL, opts.Platform)
	if err != nil {
		return nil, err
	}
	return &findingPrinter{w: w, opts: opts, remote: remote}, nil
}

type findingPrinter struct {
	w      io.Writer
	opts   Options
	remote remoteInfo
	buf    strings.Builder
	state  closeState
}

// gitleaks' colours for a match and its secret (lipgloss styles there).
const (
	sgrGLMatch  = "\x1b[38;2;245;212;69m"
	sgrGLSecret = "\x1b[1;3;38;2;240;92;7m"
)

func (p *findingPrinter) Write(f Finding) error {
	if err := p.state.check(); err != nil {
		return err
	}
	f = prepare(f, p.opts)
	g := toGitleaks(&f, p.remote)
	match, secret := consoleSafe(strings.TrimSpace(g.Match)), consoleSafe(strings.TrimSpace(g.Secret))
	b := &p.buf
	b.Reset()
	field := func(name, value string) {
		fmt.Fprintf(b, "%-12s %s\n", name+":", value)
	}
	i := strings.Index(match, secret)
	if !p.opts.Color || strings.HasPrefix(match, "file detected:") || i < 0 || secret == "" {
		field("Finding", match)
		field("Secret", secret)
	} else {
		shown := secret
		if len(shown) > 100 {
			shown = shown[:100] + "..."
		}
		painted := sgrGLSecret + shown + sgrReset
		field("Finding", sgrGLMatch+match[:i]+sgrReset+painted+sgrGLMatch+match[i+len(secret):]+sgrReset)
		field("Secret", painted)
	}
	field("RuleID", g.RuleID)
	field("Entropy", fmt.Sprintf("%f", g.Entropy))
	if len(g.Tags) > 0 {
		field("Tags", consoleSafe(fmt.Sprintf("%s", g.Tags)))
	}
	field("File", consoleSafe(g.File))
	field("Line", strconv.Itoa(g.StartLine))
	if g.Commit != "" {
		field("Commit", g.Commit)
		field("Author", consoleSafe(g.Author))
		field("Email", consoleSafe(g.Email))
		field("Date", g.Date)
	}
	field("Fingerprint", consoleSafe(g.Fingerprint))
	if g.Link != "" {
		field("Link", consoleSafe(g.Link))
	}
	b.WriteString("\n")
	if _, err := io.WriteString(p.w, b.String()); err != nil {
		return p.state.fail(err)
	}
	return nil
}

// Close writes nothing: every finding is out when Write returns.
func (p *findingPrinter) Close() error { return p.state.close(func() error { return nil }) }

// consoleSafe shows the control characters of s other than tab and line
// feed as Go escapes, and bytes that are not UTF-8 as \xXX.
func consoleSafe(s string) string {
	return escapeUnsafe(s, func(r rune) bool {
		return !(r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0)
	})
}
