package rules

import (
	"encoding/base64"
	"hash/crc32"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// base62CRC32Token builds a token the way GitHub's and npm's generators
// do, with math/big for the base62 digits (an implementation independent
// of decodeBase62).
func base62CRC32Token(prefix, body string) string {
	n := new(big.Int).SetUint64(uint64(crc32.ChecksumIEEE([]byte(body))))
	sum := ""
	base := big.NewInt(62)
	for range 6 {
		var d big.Int
		n.DivMod(n, base, &d)
		sum = string(base62Digits[d.Int64()]) + sum
	}
	return prefix + body + sum
}

func TestBase62CRC32MatchesGitHubsPublishedExample(t *testing.T) {
	// The body and checksum of a token GitHub's format announcement era
	// material shows (split so that this file holds no token).
	body := "zQWBuTSOoRi4A9spHcVY5ncnsDkxkJ"
	if got := base62CRC32Token("", body)[len(body):]; got != "0mLq17" {
		t.Fatalf("checksum of the published body = %q, want 0mLq17", got)
	}
	if v := checkBase62CRC32([]byte("gh" + "p_" + body + "0mLq17")); v != proven {
		t.Fatalf("published token: verdict %v, want proven", v)
	}
}

func TestBase62CRC32ProvesGeneratedTokensAndRejectsAlteredOnes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 2000 {
		body := randomString(rng, alnum, 30)
		prefix := []string{"ghp_", "gho_", "ghu_", "ghs_", "npm_"}[i%5]
		tok := base62CRC32Token(prefix, body)
		if v := checkBase62CRC32([]byte(tok)); v != proven {
			t.Fatalf("%s: verdict %v, want proven", tok, v)
		}
		// Change one character of the body: CRC-32 detects every
		// single-character change.
		b := []byte(tok)
		j := len(prefix) + rng.IntN(30)
		b[j] = alnum[(strings.IndexByte(alnum, b[j])+1+rng.IntN(len(alnum)-1))%len(alnum)]
		if v := checkBase62CRC32(b); v != badChecksum {
			t.Fatalf("%s altered to %s: verdict %v, want badChecksum", tok, b, v)
		}
	}
	for _, s := range []string{
		"ghp_" + strings.Repeat("x", 36),
		"ghp_" + strings.Repeat("0", 36),
		"npm_abcdefghijklmnopqrstuvwxyz0123456789",
		"ghp_", "ghp_abc",
		"ghp_" + strings.Repeat("a", 30) + "!!!!!!",
	} {
		if v := checkBase62CRC32([]byte(s)); v != badChecksum {
			t.Errorf("%q: verdict %v, want badChecksum", s, v)
		}
	}
}

// bech32Encode is the BIP 173 encoder, for the tests.
func bech32Encode(hrp string, data []byte) string {
	const charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	values := []byte{}
	for _, c := range []byte(hrp) {
		values = append(values, c>>5)
	}
	values = append(values, 0)
	for _, c := range []byte(hrp) {
		values = append(values, c&31)
	}
	values = append(values, data...)
	values = append(values, 0, 0, 0, 0, 0, 0)
	mod := bech32Polymod(values) ^ 1
	out := hrp + "1"
	for _, d := range data {
		out += string(charset[d])
	}
	for i := range 6 {
		out += string(charset[(mod>>(5*(5-i)))&31])
	}
	return out
}

func TestBech32(t *testing.T) {
	for _, s := range []string{
		// BIP 173's valid test vectors.
		"A12UEL5L", "a12uel5l",
		"an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
		"abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
		"split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w",
	} {
		if v := checkBech32([]byte(s)); v != proven {
			t.Errorf("%q: verdict %v, want proven", s, v)
		}
	}
	for _, s := range []string{
		"a12uel5m", "A12uEL5L", "1nwldj5", "a1", "abc", "pzry9x0s0muk",
		"AGE-SECRET-KEY-1" + strings.Repeat("Q", 58),
	} {
		if v := checkBech32([]byte(s)); v != badChecksum {
			t.Errorf("%q: verdict %v, want badChecksum", s, v)
		}
	}
	rng := rand.New(rand.NewPCG(1, 9))
	data := make([]byte, 52) // 32 bytes of key in 5-bit groups
	for i := range data {
		data[i] = byte(rng.IntN(32))
	}
	key := strings.ToUpper(bech32Encode("age-secret-key-", data))
	if v := checkBech32([]byte(key)); v != proven || len(key) != 74 {
		t.Errorf("age key %q (%d chars): verdict %v, want proven", key, len(key), v)
	}
}

func TestJWTStructure(t *testing.T) {
	enc := base64.RawURLEncoding.EncodeToString
	sig := enc([]byte("0123456789abcdef0123456789abcdef"))
	good := enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(`{"sub":"4711","iat":1700000000}`)) + "." + sig
	if v := checkJWT([]byte(good)); v != unchecked {
		t.Errorf("well-formed JWT: verdict %v, want unchecked", v)
	}
	for name, c := range map[string]struct {
		text string
		want verdict
	}{
		"header without alg":  {enc([]byte(`{"typ":"JWT"}`)) + "." + enc([]byte(`{"sub":"1"}`)) + "." + sig, malformed},
		"header not JSON":     {"eyJub3QganNvbg." + enc([]byte(`{"sub":"1"}`)) + "." + sig, malformed},
		"payload not JSON":    {enc([]byte(`{"alg":"none"}`)) + ".eyJhYmM." + sig, malformed},
		"one segment":         {enc([]byte(`{"alg":"none"}`)), malformed},
		"invalid base64":      {"eyJ!!!.eyJ.abc", malformed},
		"placeholder payload": {enc([]byte(`{"alg":"HS256"}`)) + "." + enc([]byte(`{"sub":"1"}`)) + ".xxxxxxxxxxxxxxxxxxxx", placeholder},
	} {
		if v := checkJWT([]byte(c.text)); v != c.want {
			t.Errorf("%s %q: verdict %v, want %v", name, c.text, v, c.want)
		}
	}
}

func TestValidateKeyIsCheckedByTheLoader(t *testing.T) {
	_, err := Parse([]byte(`
[[rules]]
id = "x"
regex = '''tok_[a-z]{8}'''
validate = "luhn"
`), "v.toml")
	if err == nil || !strings.Contains(err.Error(), `unknown check "luhn"`) {
		t.Fatalf("Parse: %v, want an unknown check error", err)
	}
	cfg, err := Parse([]byte(`
[[rules]]
id = "x"
regex = '''\b(ghp_[A-Za-z0-9]{36})\b'''
keywords = ["ghp_"]
validate = "base62-crc32"
`), "v.toml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Rules[0].Validate != "base62-crc32" {
		t.Fatalf("Validate = %q", cfg.Rules[0].Validate)
	}
}

func randomString(rng *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

func TestBase64Credentials(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString
	for _, c := range []struct {
		text string
		want verdict
	}{
		{enc([]byte("deploy:Qw8#nV2pLk")), unchecked},
		{base64.RawURLEncoding.EncodeToString([]byte("ci-bot:j5-H?x_9Lq")), unchecked},
		{enc([]byte("admin:admin")), placeholder},
		{enc([]byte("user:changeme")), placeholder},
		{enc([]byte("user:${PASSWORD}")), placeholder},
		{enc([]byte("no-colon-here")), malformed},
		{enc([]byte(":nouser")), malformed},
		{enc([]byte("user:")), malformed},
		{enc([]byte("bin\x00ary:x\x01y")), malformed},
		{"not base64!", malformed},
	} {
		if got := checkBase64Credentials([]byte(c.text)); got != c.want {
			t.Errorf("%q: verdict %v, want %v", c.text, got, c.want)
		}
	}
}

func TestBase64JWT(t *testing.T) {
	enc := base64.RawURLEncoding.EncodeToString
	jwt := enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(`{"iss":"x"}`)) + "." + enc([]byte("signature-bytes-0123456789"))
	if v := checkBase64JWT([]byte(base64.StdEncoding.EncodeToString([]byte(jwt)))); v != unchecked {
		t.Errorf("base64 of a JWT: verdict %v", v)
	}
	if v := checkBase64JWT([]byte(base64.StdEncoding.EncodeToString([]byte("eyJhbGciOi.not.a.jwt")))); v != malformed {
		t.Errorf("base64 of text: verdict %v", v)
	}
}

// FuzzSecretChecks runs every check on arbitrary secrets: none may panic,
// a placeholder never passes a checksum, and a base62-crc32 token built
// from any printable body is proven.
func FuzzSecretChecks(f *testing.F) {
	for _, s := range []string{"", "ghp_" + strings.Repeat("x", 36), "AGE-SECRET-KEY-1QQQ", "eyJhbGciOiJub25lIn0.eyJ9.", "dXNlcjpwYXNzd29yZA==",
		"${TOKEN}", "%(name)s", "abc:", "\xff\xfe", "xoxb-12345678901-abc"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, secret []byte) {
		for _, v := range validators {
			got := v.judge(secret)
			if got == proven && isPlaceholder(secret) && v.name != "bech32" {
				// A checksum can hold on filler only by a 1 in 2^32 chance;
				// bech32's own alphabet makes runs of q legitimate.
				t.Errorf("%s proves placeholder %q", v.name, secret)
			}
		}
		isPlaceholder(secret)
		if len(secret) > 0 && len(secret) <= 64 && printableText(secret) && !strings.ContainsAny(string(secret), "_") {
			body := base62CRC32Token("", string(secret))
			if checkBase62CRC32([]byte("tok_"+body)) != proven {
				t.Errorf("checksum of %q not proven", secret)
			}
		}
	})
}

// TestChecksTagAndSkipImplausibleDrops checks what a check does to a
// finding: by default it is reported, tagged (and gitleaks' generic
// finding of the same secret is dropped, as gitleaks drops it); with
// SkipImplausible neither is reported. Spindle's own rules tag the same
// way (a placeholder password in a .env file).
func TestChecksTagAndSkipImplausibleDrops(t *testing.T) {
	// A token of GitHub's format whose CRC-32 fails, and one whose
	// CRC-32 holds (split so that this file holds no token).
	bad := "gh" + "p_r0y4v0qn46j606ytslghtv1cr7nqn6jotzrw"
	good := base62CRC32Token("gh"+"p_", "zQWBuTSOoRi4A9spHcVY5ncnsDkxkJ")
	data := []byte("GITHUB_TOKEN=" + bad + "\nGITHUB_TOKEN=" + good + "\nDB_PASSWORD=changeme-please-123\n")
	for _, skip := range []bool{false, true} {
		d, err := CompileWith(Default(), Settings{SkipImplausible: skip})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		d.Scan(d.NewScratch(), "app.env", data, func(m Match) {
			got = append(got, m.RuleID+" "+m.Secret+" "+strings.Join(m.Tags, ","))
		})
		want := []string{"github-pat " + bad + " " + TagChecksumInvalid, "github-pat " + good + " ",
			"generic-dotenv-secret changeme-please-123 dotenv,password," + TagPlaceholder}
		if skip {
			want = want[1:2]
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("SkipImplausible %v: findings\n%s\nwant\n%s", skip, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
