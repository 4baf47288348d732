package ignore

import (
	"strings"
	"testing"
)

func TestGlobRegexp(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		noMatch []string
	}{
		{"*.log", []string{"a.log", "x/y/a.log", ".log"}, []string{"a.logs", "a.log/x"}},
		{"/root.txt", []string{"root.txt"}, []string{"x/root.txt"}},
		{"doc/frotz", []string{"doc/frotz"}, []string{"a/doc/frotz"}},
		{"**/foo", []string{"foo", "a/foo", "a/b/foo"}, []string{"foo/x"}},
		{"a/**/b", []string{"a/b", "a/x/b", "a/x/y/b"}, []string{"b", "xa/b"}},
		{"abc/**", []string{"abc/x", "abc/x/y"}, []string{"abc"}},
		{"f?o", []string{"foo", "x/fao"}, []string{"f/o", "fooo"}},
		{"[!a]bc", []string{"bbc", "zbc"}, []string{"abc", "/bc"}},
		{"n[0-9]", []string{"n0", "n9"}, []string{"na"}},
		{"d[[:digit:]]", []string{"d7"}, []string{"dd"}},
		{`lit\*x`, []string{"lit*x"}, []string{"litax"}},
		{"[a-", []string{"[a-"}, []string{"a"}},                  // unclosed: literal
		{`\#x`, []string{"#x"}, []string{"x"}},                   // escaped comment sign
		{"[\\]]x", []string{"]x"}, []string{"x"}},                // escaped bracket in a class
		{"a.b", []string{"a.b"}, []string{"axb"}},                // dots are literal
		{"(x)+", []string{"(x)+"}, []string{"xx"}},               // regexp syntax is literal
		{"[^/]", []string{"a"}, []string{"/", "ab"}},             // git also negates with ^
		{"[\\d]", []string{"d"}, []string{"1"}},                  // an escaped letter is the letter
		{"***", []string{"a", "a/b"}, nil},                       // stars only
		{"x/**/**/y", []string{"x/y", "x/a/b/y"}, []string{"y"}}, // repeated globstars
	}
	for _, tt := range tests {
		rules, err := parse(tt.pattern)
		if err != nil || len(rules) != 1 {
			t.Errorf("%q: %d rules, %v", tt.pattern, len(rules), err)
			continue
		}
		re := rules[0].re
		for _, p := range tt.match {
			if !re.MatchString(p) {
				t.Errorf("%q (%s) does not match %q", tt.pattern, re, p)
			}
		}
		for _, p := range tt.noMatch {
			if re.MatchString(p) {
				t.Errorf("%q (%s) matches %q", tt.pattern, re, p)
			}
		}
	}
}

// FuzzParseIgnore feeds arbitrary ignore files and paths to the parser and
// matcher: nothing may panic, every pattern that compiles is anchored, and
// a pattern made only of plain name characters matches that name at any
// depth, as git's does.
func FuzzParseIgnore(f *testing.F) {
	f.Add("*.log\nbuild/\n!keep.log\n", "a/keep.log")
	f.Add("[!a]bc\n\\#x\nx/**/y\n", "x/q/y")
	f.Add("[[:alpha:]\n[\\\n\\", "[")
	f.Fuzz(func(t *testing.T, text, path string) {
		rules, _ := parse(text)
		lvl := &Level{rules: rules}
		lvl.Ignored(path, false)
		lvl.Ignored(path, true)
		for line := range strings.SplitSeq(text, "\n") {
			if line == "" || strings.Trim(line, "abcdefghijklmnopqrstuvwxyz0123456789._-") != "" {
				continue
			}
			rs, err := parse(line)
			if err != nil || len(rs) != 1 {
				t.Fatalf("%q: %v", line, err)
			}
			for _, p := range []string{line, "x/" + line, "x/y/" + line} {
				if !rs[0].re.MatchString(p) {
					t.Fatalf("literal pattern %q does not match %q", line, p)
				}
			}
			if rs[0].re.MatchString(line + "x") {
				t.Fatalf("literal pattern %q matches %q", line, line+"x")
			}
		}
	})
}
