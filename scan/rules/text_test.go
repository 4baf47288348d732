package rules

import (
	"reflect"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// TestRegexTextKeepsEveryRuleItsLanguage checks regexText on the trees
// it is used for: every rule's regex and its match core, in the built-in,
// tricky and gitleaks' rules, in every window form. Its text must find
// what String's text finds on sample texts. And it must be regexText's own
// text, not String's fallback, for nearly all of them, generic-api-key
// (the regex it was written for) included.
func TestRegexTextKeepsEveryRuleItsLanguage(t *testing.T) {
	samples := []string{"", "key=0123456789abcdefABCDEF", "token: \"abc\"\nsecret=xyz", "AKIAABCDEFGHIJKLMNOP\n-----BEGIN"}
	trees, own := 0, 0
	for _, d := range []*Detector{defaultDetector(t), trickyDetector(t), gitleaksDetector(t)} {
		for _, r := range d.rules {
			if r.PathOnly {
				continue
			}
			forms := []*syntax.Regexp{r.tree}
			if core, ok := matchCore(r.tree); ok {
				forms = append(forms, core)
			}
			for _, re := range forms {
				trees++
				var b strings.Builder
				writeRegex(&b, re, false, false)
				if again, err := syntax.Parse(b.String(), syntax.Perl); err == nil && again.Equal(re) {
					own++
				} else if r.ID == "generic-api-key" {
					t.Errorf("generic-api-key: regexText falls back to String")
				}
				for v := range 4 {
					mine := regexp.MustCompile(regexText(re, v&1 != 0, v&2 != 0))
					theirs := regexp.MustCompile(withoutTextAnchors(re, v&1 != 0, v&2 != 0).String())
					for _, text := range samples {
						if got, want := mine.FindAllStringIndex(text, -1), theirs.FindAllStringIndex(text, -1); !reflect.DeepEqual(got, want) {
							t.Errorf("rule %s, form %d, text %q: %v, want %v", r.ID, v, text, got, want)
						}
					}
				}
			}
		}
	}
	if own < trees*95/100 {
		t.Errorf("regexText's own text for %d of %d trees, want 95%%", own, trees)
	}
}
