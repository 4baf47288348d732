package rules

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"hash/crc32"
)

// This file holds the checks a rule can name with spindle's `validate`
// key. gitleaks has no such key (and ignores it), so a config that uses it
// still loads in gitleaks, without the check.
//
// A check looks at a finding's secret and gives one of three verdicts. A
// token whose checksum holds is near-certain: it is reported whatever its
// entropy, since a random-looking body is then proven rather than guessed.
// A token whose checksum fails, or that a check recognises as a
// placeholder, is dropped. Anything else is left to the entropy threshold
// and the allowlists, as for a rule without a check.

// verdict is a check's opinion of a secret.
type verdict int8

const (
	unchecked verdict = iota // no opinion: entropy and allowlists decide
	proven                   // a checksum holds: reported without the entropy threshold
	rejected                 // a placeholder, or a checksum that fails: dropped
)

// validator is a named check of a secret.
type validator struct {
	name  string
	check func(secret []byte) verdict
}

// validators are the checks `validate` can name, in the order the README
// lists them.
var validators = []*validator{
	{"placeholder", checkPlaceholder},
	{"base62-crc32", checkBase62CRC32},
	{"bech32", checkBech32},
	{"jwt", checkJWT},
	{"base64-jwt", checkBase64JWT},
	{"base64-credentials", checkBase64Credentials},
}

// validatorNamed returns the check called name, or nil.
func validatorNamed(name string) *validator {
	for _, v := range validators {
		if v.name == name {
			return v
		}
	}
	return nil
}

// validatorNames lists the checks' names, for error messages.
func validatorNames() []string {
	names := make([]string, len(validators))
	for i, v := range validators {
		names[i] = v.name
	}
	return names
}

// judge applies v (which may be nil: no check) to secret.
func (v *validator) judge(secret []byte) verdict {
	if v == nil {
		return unchecked
	}
	return v.check(secret)
}

// checkPlaceholder rejects placeholders and has no other opinion.
func checkPlaceholder(secret []byte) verdict {
	if isPlaceholder(secret) {
		return rejected
	}
	return unchecked
}

const base62Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// checkBase62CRC32 checks the token format GitHub introduced in 2021 and
// npm adopted: a prefix ending in '_', then a random base62 body, then the
// CRC-32 (IEEE) of that body as six base62 digits, most significant first,
// padded with '0'. ghp_, gho_, ghu_, ghs_ and npm_ tokens are 30 random
// characters and the checksum.
func checkBase62CRC32(secret []byte) verdict {
	i := bytes.LastIndexByte(secret, '_')
	token := secret[i+1:]
	if len(token) < 7 {
		return rejected
	}
	body, sum := token[:len(token)-6], token[len(token)-6:]
	want, ok := decodeBase62(sum)
	if !ok || uint64(crc32.ChecksumIEEE(body)) != want {
		return rejected
	}
	return proven
}

// decodeBase62 reads s as a base62 number (digits, then upper, then lower
// case letters).
func decodeBase62(s []byte) (uint64, bool) {
	var n uint64
	for _, c := range s {
		d := bytes.IndexByte([]byte(base62Digits), c)
		if d < 0 {
			return 0, false
		}
		n = n*62 + uint64(d)
	}
	return n, true
}

// checkBech32 checks a Bech32 string (BIP 173), such as an age secret key
// (AGE-SECRET-KEY-1...): the human-readable part, the separator '1', data
// characters, and a six-character BCH checksum over both. Upper case is
// allowed only for the whole string, as the format requires.
func checkBech32(secret []byte) verdict {
	s := secret
	if bytes.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") && bytes.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return rejected
	}
	s = bytes.ToLower(s)
	sep := bytes.LastIndexByte(s, '1')
	if sep < 1 || len(s)-sep-1 < 6 {
		return rejected
	}
	hrp, data := s[:sep], s[sep+1:]
	values := make([]byte, 0, 2*len(hrp)+1+len(data))
	for _, c := range hrp {
		values = append(values, c>>5)
	}
	values = append(values, 0)
	for _, c := range hrp {
		values = append(values, c&31)
	}
	const charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	for _, c := range data {
		d := bytes.IndexByte([]byte(charset), c)
		if d < 0 {
			return rejected
		}
		values = append(values, byte(d))
	}
	if bech32Polymod(values) != 1 {
		return rejected
	}
	return proven
}

func bech32Polymod(values []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := range 5 {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

// checkJWT rejects a JSON Web Token whose header or payload is not a
// base64url-encoded JSON object, or whose header names no algorithm: text
// that merely starts with "eyJ" (which any base64 of `{"` does). A
// well-formed token is left to the entropy threshold: the structure proves
// it is a JWT, not that it is a live one, and placeholders are rejected
// first.
func checkJWT(secret []byte) verdict {
	if isPlaceholder(secret) {
		return rejected
	}
	parts := bytes.Split(secret, []byte("."))
	if len(parts) < 2 {
		return rejected
	}
	var header map[string]any
	if !decodeJSONSegment(parts[0], &header) || header["alg"] == nil {
		return rejected
	}
	var payload map[string]any
	if len(parts) == 3 && !decodeJSONSegment(parts[1], &payload) {
		return rejected
	}
	return unchecked
}

// checkBase64JWT decodes a base64-encoded JSON Web Token and checks the
// token as checkJWT does.
func checkBase64JWT(secret []byte) verdict {
	raw, ok := decodeBase64(secret)
	if !ok {
		return rejected
	}
	return checkJWT(bytes.TrimSpace(raw))
}

// checkBase64Credentials checks a base64-encoded user:password pair, the
// form HTTP Basic authentication, docker's config.json "auth" and npm's
// _auth use: it must decode to printable text with a colon, a user and a
// password that is not a placeholder or an obvious default.
func checkBase64Credentials(secret []byte) verdict {
	raw, ok := decodeBase64(secret)
	if !ok {
		return rejected
	}
	user, pass, found := bytes.Cut(raw, []byte(":"))
	if !found || len(user) == 0 || len(pass) == 0 || !printableText(raw) {
		return rejected
	}
	if isPlaceholder(pass) || isPlaceholder(user) && bytes.Equal(user, pass) {
		return rejected
	}
	return unchecked
}

// decodeBase64 decodes standard or URL-safe base64, padded or not.
func decodeBase64(s []byte) ([]byte, bool) {
	s = bytes.TrimRight(s, "=")
	enc := base64.RawStdEncoding
	if bytes.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	out := make([]byte, enc.DecodedLen(len(s)))
	n, err := enc.Decode(out, s)
	return out[:n], err == nil
}

// printableText reports whether b is printable ASCII (space to tilde).
func printableText(b []byte) bool {
	for _, c := range b {
		if c < ' ' || c > '~' {
			return false
		}
	}
	return true
}

// decodeJSONSegment decodes one base64url segment (padded or not) of a
// JWT as JSON into v.
func decodeJSONSegment(seg []byte, v any) bool {
	seg = bytes.TrimRight(seg, "=")
	raw := make([]byte, base64.RawURLEncoding.DecodedLen(len(seg)))
	n, err := base64.RawURLEncoding.Decode(raw, seg)
	if err != nil {
		return false
	}
	return json.Unmarshal(raw[:n], v) == nil
}
