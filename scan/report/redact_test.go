package report

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRedactFollowsGitleaksPercentages(t *testing.T) {
	tests := []struct {
		secret string
		pct    int
		want   string
	}{
		{"abcdefghij", 0, "abcdefghij"},
		{"abcdefghij", -5, "abcdefghij"},
		{"abcdefghij", 100, "REDACTED"},
		{"abcdefghij", 250, "REDACTED"},
		{"abcdefghij", 50, "abcde..."},
		{"abcdefghij", 75, "ab..."},   // 2.5 rounds to even: 2
		{"abcdefghij", 65, "abcd..."}, // 3.5 rounds to even: 4
		{"abcdefghij", 10, "abcdefghi..."},
		{"abcdefghij", 1, "abcdefghi..."}, // gitleaks would keep all 10
		{"ab", 20, "a..."},
		{"a", 50, "..."},            // 0.5 rounds to even: 0
		{"clé-秘密-x", 50, "clé-..."}, // 8 runes, 4 kept
		{"秘密秘密", 25, "秘密秘..."},
		{"\xff\xfeab", 50, "\xff\xfe..."}, // invalid bytes kept as they are, one rune each
	}
	for _, tt := range tests {
		f := Redact(Finding{Secret: tt.secret, Match: "k=" + tt.secret}, tt.pct)
		if f.Secret != tt.want {
			t.Errorf("Redact(%q, %d).Secret = %q, want %q", tt.secret, tt.pct, f.Secret, tt.want)
		}
		if f.Match != "k="+tt.want {
			t.Errorf("Redact(%q, %d).Match = %q, want %q", tt.secret, tt.pct, f.Match, "k="+tt.want)
		}
	}
}

func TestRedactKeepsAPrefixAndHidesAtLeastOneRune(t *testing.T) {
	secrets := []string{"x", "ab", "abcdefghijklmnop", "日本語テキスト", "mixé秘a\x80z"}
	for _, s := range secrets {
		n := utf8.RuneCountInString(s)
		for pct := 1; pct < 100; pct++ {
			got := maskSecret(s, pct)
			kept, ok := strings.CutSuffix(got, partialMark)
			if !ok || !strings.HasPrefix(s, kept) {
				t.Fatalf("maskSecret(%q, %d) = %q: not a prefix plus %q", s, pct, got, partialMark)
			}
			if k := utf8.RuneCountInString(kept); k >= n {
				t.Fatalf("maskSecret(%q, %d) keeps %d of %d runes", s, pct, k, n)
			}
			if utf8.ValidString(s) && !utf8.ValidString(kept) {
				t.Fatalf("maskSecret(%q, %d) splits a rune: %q", s, pct, kept)
			}
			if pct > 1 && len(maskSecret(s, pct)) > len(maskSecret(s, pct-1)) {
				t.Fatalf("maskSecret(%q) keeps more at %d%% than at %d%%", s, pct, pct-1)
			}
		}
	}
}

func TestRedactHidesTheSecretInEveryFieldButRuleID(t *testing.T) {
	const s = "sk_live_9f8e7d6c5b4a"
	f := Finding{
		RuleID:      "stripe-" + s,
		Description: "Stripe key " + s,
		File:        "keys/" + s + ".txt",
		Secret:      s,
		Match:       s + " and again " + s,
		Fingerprint: "keys/" + s + ".txt:stripe:1",
		Tags:        []string{"stripe", s},
	}
	tags := slices.Clone(f.Tags)
	got := Redact(f, 100)
	for name, v := range map[string]string{
		"Description": got.Description, "File": got.File, "Secret": got.Secret,
		"Match": got.Match, "Fingerprint": got.Fingerprint, "Tags": strings.Join(got.Tags, " "),
	} {
		if strings.Contains(v, s) || !strings.Contains(v, redactedMark) {
			t.Errorf("%s = %q: secret not replaced", name, v)
		}
	}
	if got.Match != "REDACTED and again REDACTED" {
		t.Errorf("Match = %q, want every occurrence replaced", got.Match)
	}
	if got.RuleID != f.RuleID {
		t.Errorf("RuleID changed to %q", got.RuleID)
	}
	if !slices.Equal(f.Tags, tags) {
		t.Errorf("caller's Tags modified: %q", f.Tags)
	}
}

func TestRedactTreatsMatchAsTheSecretWhenSecretIsEmpty(t *testing.T) {
	got := Redact(Finding{Match: "token-abcdef", File: "f"}, 100)
	if got.Match != redactedMark || got.Secret != "" {
		t.Fatalf("got Secret %q Match %q; want \"\" and %q", got.Secret, got.Match, redactedMark)
	}
	empty := Finding{File: "f", Line: 2}
	if got := Redact(empty, 100); !sameFinding(got, empty) {
		t.Fatalf("a finding with no secret and no match changed: %+v", got)
	}
}
