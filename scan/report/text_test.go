package report

import (
	"slices"
	"strings"
	"testing"
)

func TestTextGroupsByFileInPathOrder(t *testing.T) {
	out := render(t, FormatText, Options{}, sampleFindings()[:4]) // no history finding
	var files []string
	groups := map[string][]string{}
	current := ""
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			current = ""
		case !strings.HasPrefix(line, "  "):
			if current != "" {
				t.Fatalf("file header %q not preceded by a blank line", line)
			}
			current = line
			files = append(files, line)
		default:
			if current == "" {
				t.Fatalf("finding line %q outside a file group", line)
			}
			groups[current] = append(groups[current], strings.Fields(line)[0])
		}
	}
	want := []string{`config/app.env`, `dist/bundle.zip!conf/x.env`, `notes, "draft".txt`}
	if !slices.Equal(files, want) {
		t.Fatalf("file groups = %q, want %q\n%s", files, want, out)
	}
	// Within a file, findings are in line order.
	if got := groups["config/app.env"]; !slices.Equal(got, []string{"1:8", "3:11"}) {
		t.Errorf("config/app.env positions = %v, want [1:8 3:11]", got)
	}
}

func TestTextShowsLineRuleAndSecretAligned(t *testing.T) {
	out := render(t, FormatText, Options{}, sampleFindings()[:1])
	want := "config/app.env\n  3:11  aws-access-token  AKIAZ7QKXW3VUMPLR2TD\n"
	if out != want {
		t.Fatalf("text =\n%q\nwant\n%q", out, want)
	}
	two := []Finding{
		{RuleID: "a", File: "f", Line: 9, Column: 1, Secret: "s1"},
		{RuleID: "long-rule", File: "f", Line: 10, Column: 22, Secret: "s2"},
	}
	out = render(t, FormatText, Options{}, two)
	want = "f\n  9:1    a          s1\n  10:22  long-rule  s2\n"
	if out != want {
		t.Fatalf("text =\n%q\nwant\n%q", out, want)
	}
}

func TestTextColourOnlyWhenAsked(t *testing.T) {
	plain := render(t, FormatText, Options{}, sampleFindings())
	if strings.Contains(plain, "\x1b") {
		t.Fatalf("uncoloured text contains an escape sequence:\n%q", plain)
	}
	coloured := render(t, FormatText, Options{Color: true}, sampleFindings())
	for _, sgr := range []string{sgrFile, sgrRule, sgrSecret, sgrReset} {
		if !strings.Contains(coloured, sgr) {
			t.Errorf("coloured text lacks %q", sgr)
		}
	}
	// Removing the colour gives the plain report back.
	stripped := coloured
	for _, sgr := range []string{sgrFile, sgrPos, sgrRule, sgrSecret, sgrCommit, sgrReset} {
		stripped = strings.ReplaceAll(stripped, sgr, "")
	}
	if stripped != plain {
		t.Errorf("coloured text without colour differs from plain text:\n%q\n%q", stripped, plain)
	}
	for _, format := range allFormats()[1:] {
		if out := render(t, format, Options{Color: true}, sampleFindings()); strings.Contains(out, "\x1b[") {
			t.Errorf("%s output is coloured", format)
		}
	}
}

func TestTextEscapesTerminalControlFromHostileFiles(t *testing.T) {
	f := Finding{
		RuleID: "r\x1b[2J",
		File:   "evil\x1b]0;pwned\x07.env",
		Line:   1, Column: 1,
		Secret: "tok\u202eNEK\rhidden\n\xff",
	}
	for _, color := range []bool{false, true} {
		out := render(t, FormatText, Options{Color: color}, []Finding{f})
		if color {
			for _, sgr := range []string{sgrFile, sgrPos, sgrRule, sgrSecret, sgrReset} {
				out = strings.ReplaceAll(out, sgr, "")
			}
		}
		for _, bad := range []string{"\x1b", "\x07", "\r", "\u202e", "\xff"} {
			if strings.Contains(out, bad) {
				t.Errorf("color=%v: output contains raw %q:\n%q", color, bad, out)
			}
		}
		if n := strings.Count(out, "\n"); n != 2 {
			t.Errorf("color=%v: %d lines, want 2 (header and finding):\n%q", color, n, out)
		}
		for _, shown := range []string{`\x1b[2J`, `\u202e`, `\r`, `\n`, `\xff`} {
			if !strings.Contains(out, shown) {
				t.Errorf("color=%v: output lacks the escape %q:\n%q", color, shown, out)
			}
		}
	}
}

func TestEscapeTextLeavesPrintableTextAlone(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain ascii", "plain ascii"},
		{"clé-秘密-🔑", "clé-秘密-🔑"},
		{`back\slash`, `back\slash`},
		{"tab\there", `tab\there`},
		{"nul\x00", `nul\x00`},
		{"del\x7f", `del\x7f`},
		{"c1\u0085", `c1\u0085`},
		{"bidi\u2066x\u2069", `bidi\u2066x\u2069`},
		{"sep\u2028", `sep\u2028`},
		{"bad\xc3", `bad\xc3`},
		{"real \ufffd stays", "real \ufffd stays"},
	}
	for _, tt := range tests {
		if got := escapeText(tt.in); got != tt.want {
			t.Errorf("escapeText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTextShowsMatchWhenSecretIsEmpty(t *testing.T) {
	out := render(t, FormatText, Options{}, []Finding{{RuleID: "r", File: "f", Line: 1, Column: 1, Match: "whole-match-token"}})
	if !strings.Contains(out, "whole-match-token") {
		t.Fatalf("text lacks the match:\n%s", out)
	}
}

func TestTextGroupsHistoryFindingsByCommitThenFile(t *testing.T) {
	c1, c2 := "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	hist := func(commit, file string, line int) Finding {
		return Finding{RuleID: "r", File: file, Line: line, Column: 1, Secret: "s" + file, Commit: commit,
			Author: "Ann", Email: "ann@example.com", Date: "2024-03-01T08:00:00Z", Message: "add\x1b[2J keys"}
	}
	findings := []Finding{
		hist(c2, "b.env", 1), hist(c1, "b.env", 2), {RuleID: "r", File: "z.env", Line: 1, Column: 1, Secret: "plain"},
		hist(c1, "a.env", 5), hist(c1, "b.env", 1),
	}
	got := render(t, FormatText, Options{}, findings)
	want := `z.env
  1:1  r  plain

commit 1111111111111111111111111111111111111111
Author: Ann <ann@example.com>
Date:   2024-03-01T08:00:00Z
Message: add\x1b[2J keys

a.env
  5:1  r  sa.env

b.env
  1:1  r  sb.env
  2:1  r  sb.env

commit 2222222222222222222222222222222222222222
Author: Ann <ann@example.com>
Date:   2024-03-01T08:00:00Z
Message: add\x1b[2J keys

b.env
  1:1  r  sb.env
`
	if got != want {
		t.Fatalf("text =\n%s\nwant\n%s", got, want)
	}
}

func TestTextAlignsLongFilesInBlocks(t *testing.T) {
	var findings []Finding
	for i := 1; i <= textBlock+1; i++ {
		findings = append(findings, Finding{RuleID: "r", File: "f", Line: i, Column: 1, Secret: "s"})
	}
	out := render(t, FormatText, Options{}, findings)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != textBlock+2 || lines[0] != "f" {
		t.Fatalf("%d lines, header %q", len(lines), lines[0])
	}
	// The first block is aligned to its widest position (1024:1), the
	// last row, alone in its block, to its own.
	if lines[1] != "  1:1     r  s" || lines[len(lines)-1] != "  1025:1  r  s" {
		t.Fatalf("rows %q ... %q", lines[1], lines[len(lines)-1])
	}
}
