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
// A check looks at a finding's secret and says whether it can be what
// the rule looks for. It never decides whether the finding is reported:
// the regex, the entropy threshold and the allowlists do, as in gitleaks,
// so a rule keeps gitleaks' findings whatever its check says. A check
// that finds the secret implausible tags the finding instead: a token
// whose checksum fails (GitHub's and npm's CRC-32, Bech32) is tagged
// checksum:invalid, a value that stands in for a secret (xxxx, ${VAR},
// changeme) placeholder, and a token that lacks its format's structure
// (a JWT whose header is not JSON) malformed. Settings.SkipImplausible
// drops the tagged findings, for those who want fewer findings.

// verdict is a check's opinion of a secret.
type verdict int8

const (
	unchecked   verdict = iota // no opinion: nothing to check, or nothing wrong
	proven                     // a checksum holds
	placeholder                // a stand-in for a secret, or an obvious default
	badChecksum                // the token's checksum fails
	malformed                  // the token lacks its format's structure
)

// The tags of implausible findings.
const (
	// TagPlaceholder marks a finding whose secret looks like a stand-in
	// (xxxx, ${VAR}, <token>, your_api_key_here, changeme) or an obvious
	// default password.
	TagPlaceholder = "placeholder"
	// TagChecksumInvalid marks a token whose checksum fails: it cannot
	// have been issued by the provider.
	TagChecksumInvalid = "checksum:invalid"
	// TagMalformed marks a token without its format's structure, such as
	// a JSON Web Token whose header is not a JSON object.
	TagMalformed = "malformed"
)

// tag returns the tag of an implausible verdict, or "".
func (v verdict) tag() string {
	switch v {
	case placeholder:
		return TagPlaceholder
	case badChecksum:
		return TagChecksumInvalid
	case malformed:
		return TagMalformed
	}
	return ""
}

// implausible reports whether the verdict tags the finding.
func (v verdict) implausible() bool { return v.tag() != "" }

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

// checkPlaceholder finds placeholders and has no other opinion.
func checkPlaceholder(secret []byte) verdict {
	if isPlaceholder(secret) {
		return placeholder
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
		return badChecksum
	}
	body, sum := token[:len(token)-6], token[len(token)-6:]
	want, ok := decodeBase62(sum)
	if !ok || uint64(crc32.ChecksumIEEE(body)) != want {
		return badChecksum
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
		return badChecksum
	}
	s = bytes.ToLower(s)
	sep := bytes.LastIndexByte(s, '1')
	if sep < 1 || len(s)-sep-1 < 6 {
		return badChecksum
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
			return badChecksum
		}
		values = append(values, byte(d))
	}
	if bech32Polymod(values) != 1 {
		return badChecksum
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

// checkJWT finds a JSON Web Token malformed when its header or payload is
// not a base64url-encoded JSON object, or its header names no algorithm:
// text that merely starts with "eyJ" (which any base64 of `{"` does). A
// well-formed token gets no verdict: the structure proves it is a JWT,
// not that it is a live one. Placeholders are found first.
func checkJWT(secret []byte) verdict {
	if isPlaceholder(secret) {
		return placeholder
	}
	parts := bytes.Split(secret, []byte("."))
	if len(parts) < 2 {
		return malformed
	}
	var header map[string]any
	if !decodeJSONSegment(parts[0], &header) || header["alg"] == nil {
		return malformed
	}
	var payload map[string]any
	if len(parts) == 3 && !decodeJSONSegment(parts[1], &payload) {
		return malformed
	}
	return unchecked
}

// checkBase64JWT decodes a base64-encoded JSON Web Token and checks the
// token as checkJWT does.
func checkBase64JWT(secret []byte) verdict {
	raw, ok := decodeBase64(secret)
	if !ok {
		return malformed
	}
	return checkJWT(bytes.TrimSpace(raw))
}

// checkBase64Credentials checks a base64-encoded user:password pair, the
// form HTTP Basic authentication, docker's config.json "auth" and npm's
// _auth use: it must decode to printable text with a colon, a user and a
// password; a placeholder or obvious default password is a placeholder.
func checkBase64Credentials(secret []byte) verdict {
	raw, ok := decodeBase64(secret)
	if !ok {
		return malformed
	}
	user, pass, found := bytes.Cut(raw, []byte(":"))
	if !found || len(user) == 0 || len(pass) == 0 || !printableText(raw) {
		return malformed
	}
	if isPlaceholder(pass) || isPlaceholder(user) && bytes.Equal(user, pass) {
		return placeholder
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
