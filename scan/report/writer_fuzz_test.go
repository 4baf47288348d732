package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzWriters renders one arbitrary finding in every format and checks the
// properties every report must keep whatever the scanned files contain:
// machine formats parse back to the same finding, text output carries no
// terminal control, and at redaction 100 the secret is gone.
func FuzzWriters(f *testing.F) {
	f.Add("aws-access-token", "config/app.env", "AKIAZ7QKXW3VUMPLR2TD", "KEY=AKIAZ7QKXW3VUMPLR2TD", 3, 9)
	f.Add("r", "a.zip!dir/x.env", "k3y,with\"quote\nnext", "m: k3y,with\"quote\nnext", 1, 1)
	f.Add("r\x1b[2J", "evil\x1b]0;x\a.env", "tok\u202eNEK\r", "", 0, 0)
	f.Add("", "", "", "", -1, -1)
	f.Add("r", "wow!.txt", "\xff\xfe", "\xff\xfe\xfd", 1<<40, 5)
	f.Fuzz(func(t *testing.T, rule, file, secret, match string, line, col int) {
		in := Finding{
			RuleID: rule, Description: "d", File: file, Line: line, Column: col,
			EndLine: line, EndColumn: col, Secret: secret, Match: match,
			Fingerprint: file + ":" + rule, Tags: []string{"t"},
		}
		// JSON turns invalid UTF-8 into U+FFFD and encoding/csv's reader
		// drops a CR before LF; only other findings round-trip exactly.
		exact := true
		for _, s := range []string{rule, file, secret, match} {
			exact = exact && utf8.ValidString(s) && !strings.Contains(s, "\r")
		}
		for _, format := range allFormats() {
			out := render(t, format, Options{}, []Finding{in})
			switch format {
			case FormatJSON, FormatJSONL, FormatCSV:
				got := decodeMachine(t, format, out)
				if len(got) != 1 || (exact && !sameFinding(got[0], in)) {
					t.Fatalf("%s: round trip\n got %+v\nwant %+v", format, got, in)
				}
			case FormatSARIF:
				if n := len(decodeSARIF(t, out).Runs[0].Results); n != 1 {
					t.Fatalf("sarif: %d results", n)
				}
			case FormatText:
				for line := range strings.Lines(out) {
					line = strings.TrimSuffix(line, "\n")
					if !utf8.ValidString(line) || strings.ContainsFunc(line, func(r rune) bool { return !textSafe(r) }) {
						t.Fatalf("text line carries control characters: %q", line)
					}
				}
			}

			// At 100, the secret is gone. The check is made for secrets
			// that look like one (six or more of the characters tokens
			// are made of, none of the mask's), so that the secret cannot
			// be spelled by the report's own punctuation or by the mask.
			s := secretOf(in)
			if !tokenLike(s) {
				continue
			}
			printed := printedAs(format, s)
			redacted := render(t, format, Options{Redact: 100}, []Finding{in})
			fixed := render(t, format, Options{}, []Finding{{RuleID: rule, Description: "d", Line: line, Column: col, EndLine: line, EndColumn: col, Tags: []string{"t"}}})
			if strings.Contains(redacted, printed) && !strings.Contains(fixed, printed) {
				t.Fatalf("%s redacted at 100 contains the secret %q:\n%s", format, s, redacted)
			}
		}
	})
}

// tokenLike reports whether s looks like a credential: six or more of
// [a-z0-9_+/=.-] and upper-case letters other than those of "REDACTED".
func tokenLike(s string) bool {
	if len(s) < 6 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', strings.ContainsRune("_+/=.-", r):
		case r >= 'A' && r <= 'Z' && !strings.ContainsRune(redactedMark, r):
		default:
			return false
		}
	}
	return true
}
