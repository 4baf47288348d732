package report

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// redactedMark replaces a fully redacted secret, as gitleaks prints it.
const redactedMark = "REDACTED"

// partialMark follows the kept prefix of a partly redacted secret.
const partialMark = "..."

// Redact returns f with its secret hidden. pct is the share of the secret
// hidden, in percent: 0 (or less) returns f unchanged; 100 (or more) replaces
// the secret with "REDACTED"; in between, the secret's first
// round-half-even(n×(100−pct)/100) characters are kept, followed by "...", as
// gitleaks' --redact=PCT does. Two departures from gitleaks: characters are
// runes, never a split UTF-8 sequence, and any pct ≥ 1 hides at least one
// character, where gitleaks' rounding prints a short secret whole.
//
// The secret is replaced wherever it occurs: in Secret, in Match, and in every
// other string field but RuleID (a file name or a description can quote it).
// When Secret is empty the whole Match is treated as the secret. f's Tags
// slice is not modified; the result gets its own copy when a tag changes.
//
// Redact is for output only: a Baseline matches unredacted findings, so the
// command calls Baseline.Contains before redacting.
func Redact(f Finding, pct int) Finding {
	if pct <= 0 {
		return f
	}
	secret := f.Secret
	if secret == "" {
		secret = f.Match
	}
	if secret == "" {
		return f
	}
	masked := maskSecret(secret, pct)
	hide := func(s string) string { return strings.ReplaceAll(s, secret, masked) }

	if f.Secret != "" {
		f.Secret = masked
	}
	f.Match = hide(f.Match)
	f.Description = hide(f.Description)
	f.File = hide(f.File)
	f.Fingerprint = hide(f.Fingerprint)
	if slices.ContainsFunc(f.Tags, func(t string) bool { return strings.Contains(t, secret) }) {
		tags := make([]string, len(f.Tags))
		for i, t := range f.Tags {
			tags[i] = hide(t)
		}
		f.Tags = tags
	}
	return f
}

// maskSecret is the replacement for secret at pct (1..), see Redact.
func maskSecret(secret string, pct int) string {
	if pct >= 100 {
		return redactedMark
	}
	n := utf8.RuneCountInString(secret)
	keep := int(math.RoundToEven(float64(n) * float64(100-pct) / 100))
	if keep >= n {
		keep = n - 1
	}
	// Walk keep runes to find the byte offset; invalid bytes count as one
	// rune each, as utf8.RuneCountInString counts them, and are kept as they
	// are rather than turned into U+FFFD.
	end := 0
	for range keep {
		_, size := utf8.DecodeRuneInString(secret[end:])
		end += size
	}
	return secret[:end] + partialMark
}

// redactIn hides f's secret in s the way Redact hides it in f's own fields:
// for text a writer derives from the unredacted finding (SARIF's cleaned
// artifact path).
func redactIn(s string, f Finding, pct int) string {
	secret := secretOf(f)
	if pct <= 0 || secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, maskSecret(secret, pct))
}
