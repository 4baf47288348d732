package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPlaceholdersAreRecognised(t *testing.T) {
	for _, s := range []string{
		"", "ghp_" + strings.Repeat("x", 36), "glpat-XXXXXXXXXXXXXXXXXXXX", "hvs." + strings.Repeat("x", 90),
		"sk_live_" + strings.Repeat("0", 24), "AKIA" + "IOSFODNN7" + "EXAMPLE", "your_api_key_here",
		"YOUR-API-KEY", "<token>", "<your token>", "${GITHUB_TOKEN}", "$(cat /run/secrets/x)", "{{ .Values.token }}",
		"#{secret}", "%API_KEY%", "$API_KEY", "@token@", "[TOKEN]", "changeme", "ChangeMe123", "password",
		"P@ssw0rd", "postgres", "12345678", "abcdefghij", "zyxwvuts", "0123456789abcdef", "abcabcabcabc",
		"ababababab", "xoxb-" + strings.Repeat("0", 12) + "-xxxxxxxxxxxxxxxxxxxxxxxx", "DB_PASSWORD",
		"ENC(AbC123xyz==)", "{cipher}a8f2c9", "insert-your-token", "REPLACE_WITH_KEY", "redacted", "********",
		"dummy-secret-value", "my_sample_token", "sk-" + strings.Repeat("a", 48), "qwertyuiop", "password123", "pwd3", "p%40ssword", "P@ss-w0rd", "opensesame",
		"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		"fake_token_for_tests", "lorem-ipsum-dolor", "1111111122222222", "1212121212121212",
	} {
		if !isPlaceholder([]byte(s)) {
			t.Errorf("%q is not recognised as a placeholder", s)
		}
	}
}

func TestRealisticSecretsAreNotPlaceholders(t *testing.T) {
	for _, s := range []string{
		"hunter2x", "Tr0ub4dor&3", "correct-horse-battery-staple", "9f3k2LmQ",
		"gh" + "p_zQWBuTSOoRi4A9spHcVY5ncnsDkxkJ0mLq17", "xoxb-" + "4815162342108-9072653318046-aB3dE5fG7hJ9kL1mN3pQ5rS7", "d41d8cd98f00b204e9800998ecf8427e", "AKIAZ7QKXW3VUMPLR2TD",
		"3f2504e0-4f89-11d3-9a0c-0305e82c3301", "S3cure!Pa55-2024", "wK9#mP2$vL5",
		// Tokens with fixed runs of their own that are not filler.
		"GR1348941abcDEF123ghiJKL456", "eyJhbGciOiJIUzI1NiJ9",
	} {
		if isPlaceholder([]byte(s)) {
			t.Errorf("%q is taken for a placeholder", s)
		}
	}
}

// TestRandomTokensAreNotPlaceholders measures how often a random token of
// a common shape is taken for a placeholder: it must be (almost) never,
// or the checks would drop real secrets.
func TestRandomTokensAreNotPlaceholders(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	rng := rand.New(rand.NewPCG(3, 3))
	shapes := []struct {
		name     string
		alphabet string
		length   int
	}{
		{"base62x36", alnum, 36},
		{"hex32", hexLow, 32},
		{"hex64", hexLow, 64},
		{"digits12", digits, 12},
		{"digits18", digits, 18},
		{"upper20", upperA + digits, 20},
		{"base64url43", b64url, 43},
		{"lower43", lowerA + digits, 43},
	}
	for _, sh := range shapes {
		bad := 0
		var example string
		for range n {
			s := randomString(rng, sh.alphabet, sh.length)
			if isPlaceholder([]byte(s)) {
				bad++
				example = s
			}
		}
		// At most one in ten thousand (digit-only strings have the
		// fewest symbols and come closest).
		if bad*10_000 > n {
			t.Errorf("%s: %d of %d random tokens taken for placeholders, e.g. %q", sh.name, bad, n, example)
		}
	}
}
