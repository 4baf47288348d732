package rules

import (
	"fmt"
	"testing"
)

// TestAllowlistSemanticsFollowGitleaks checks each allowlist feature on a
// rule whose secret is the value after "tok=" and whose match is the whole
// "tok=..." text.
func TestAllowlistSemanticsFollowGitleaks(t *testing.T) {
	cases := []struct {
		name      string
		allowlist string // body of a [[rules.allowlists]] table
		path      string
		text      string
		dropped   bool
	}{
		{"regex on the secret", `regexes = ['''^abc''']`, "", "tok=abcdef12", true},
		{"regex on the secret misses the match", `regexes = ['''^tok''']`, "", "tok=abcdef12", false},
		{"regexTarget match", "regexTarget = 'match'\nregexes = ['''^tok=abc''']", "", "tok=abcdef12", true},
		{"regexTarget line", "regexTarget = 'line'\nregexes = ['''# test fixture''']", "", "tok=abcdef12 # test fixture", true},
		{"regexTarget line sees only its line", "regexTarget = 'line'\nregexes = ['''fixture''']", "", "# fixture\ntok=abcdef12\n", false},
		{"an unterminated last line reaches back to the buffer start", "regexTarget = 'line'\nregexes = ['''fixture''']", "", "# fixture\ntok=abcdef12", true},
		{"stopword, case-insensitive", `stopwords = ["CDEF"]`, "", "tok=abcdef12", true},
		{"stopword on the secret only", `stopwords = ["tok"]`, "", "tok=abcdef12", false},
		{"OR: regex or stopword", "regexes = ['''^zzz''']\nstopwords = ['ef1']", "", "tok=abcdef12", true},
		{"AND: regex and stopword", "condition = 'AND'\nregexes = ['''^abc''']\nstopwords = ['zzz']", "", "tok=abcdef12", false},
		{"AND: both hold", "condition = 'AND'\nregexes = ['''^abc''']\nstopwords = ['def']", "", "tok=abcdef12", true},
		{"AND: path and regex", "condition = 'AND'\npaths = ['''_test\\.go$''']\nregexes = ['''^abc''']", "a_test.go", "tok=abcdef12", true},
		{"AND: path fails", "condition = 'AND'\npaths = ['''_test\\.go$''']\nregexes = ['''^abc''']", "a.go", "tok=abcdef12", false},
		{"AND with a commit never holds in a directory scan", "condition = 'AND'\ncommits = ['abc1234']\nregexes = ['''^abc''']", "", "tok=abcdef12", false},
		{"OR with only commits never holds", "commits = ['abc1234']", "", "tok=abcdef12", false},
		{"OR path skips the file for the rule", "paths = ['''^gen/''']", "gen/x.go", "tok=abcdef12", true},
		{"condition spelled &&", "condition = '&&'\nregexes = ['''^abc''']\nstopwords = ['12']", "", "tok=abcdef12", true},
		// gitleaks quirks kept on purpose:
		{"leftmost empty match does not count", `regexes = ['''z*''']`, "", "tok=abczzz12", false},
		{"(?i) at the front leaks into later regexes", "regexes = ['''(?i)nothing''', '''ABCDEF''']", "", "tok=abcdef12", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := mustDetector(t, fmt.Sprintf(`
[[rules]]
id = "r"
regex = '''tok=([a-z0-9]{8})'''
keywords = ["tok="]
[[rules.allowlists]]
%s
`, c.allowlist))
			got := scanText(d, c.path, c.text)
			if dropped := len(got) == 0; dropped != c.dropped {
				t.Errorf("dropped = %v, want %v (%+v)", dropped, c.dropped, got)
			}
		})
	}
}

func TestGlobalAllowlistsApplyToEveryRuleUnlessTargeted(t *testing.T) {
	d := mustDetector(t, `
[[allowlists]]
stopwords = ["fake"]
[[allowlists]]
targetRules = ["b"]
regexes = ['''^x''']

[[rules]]
id = "a"
regex = '''a=(\w+)'''
keywords = ["a="]
[[rules]]
id = "b"
regex = '''b=(\w+)'''
keywords = ["b="]
`)
	cases := map[string][]string{
		"a=fakeval":   {},
		"b=fakeval":   {},
		"a=xval":      {"a"},
		"b=xval":      {},
		"a=ok b=okay": {"a", "b"},
	}
	for text, want := range cases {
		got := ids(scanText(d, "", text))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}
