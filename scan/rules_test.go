package scan

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/rules"
)

// realisticSecrets returns lines that the built-in rules report, each with
// random characters so that no two are alike and entropy checks pass.
func realisticSecrets(rng *rand.Rand, n int) []string {
	const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	pick := func(alphabet string, k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	var out []string
	for i := range n {
		switch i % 4 {
		case 0:
			out = append(out, fmt.Sprintf(`aws_access_key_id = "AKIA%s"`, pick(upper, 16)))
		case 1:
			out = append(out, fmt.Sprintf(`GITHUB_TOKEN=ghp_%s`, pick(alnum, 36)))
		case 2:
			out = append(out, fmt.Sprintf(`slack: xoxb-%s-%s-%s`, pick("0123456789", 12), pick("0123456789", 12), pick(alnum, 24)))
		case 3:
			out = append(out, fmt.Sprintf(`stripe_key = "sk_live_%s"`, pick(alnum, 24)))
		}
	}
	return out
}

// TestChunkingWithDefaultRules checks the engine's chunking against the
// built-in rules, not only the fake detector: a buffer of code-like lines
// with realistic secrets, some straddling every chunk boundary, gives the
// same findings (file, line, column, rule, secret), encoded ones among
// them, through the Fetch chain
// and through the archive member path at several chunk sizes as one
// detector call over the whole buffer.
func TestChunkingWithDefaultRules(t *testing.T) {
	if testing.Short() {
		// Compiling the built-in rules takes tens of seconds under -race;
		// FuzzChunkedEqualsWhole covers the geometry in short runs.
		t.Skip("compiles the built-in rules")
	}
	det, err := rules.Compile(rules.Default())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("func return if else for range var const type struct map chan go defer select case x y z 0 1 42")
	var b strings.Builder
	secrets := realisticSecrets(rng, 300)
	for i := 0; b.Len() < 1<<20; i++ {
		for range 1 + rng.IntN(12) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		if i%61 == 0 {
			b.WriteString(secrets[(i/61)%len(secrets)])
		}
		if i%61 == 30 {
			// Encoded secrets too: decoded findings must be found once,
			// at the encoded text, whichever chunk boundary they straddle.
			enc := base64.StdEncoding.EncodeToString([]byte(secrets[(i/61+7)%len(secrets)]))
			if i%122 == 30 {
				enc = hex.EncodeToString([]byte(enc))
			}
			b.WriteString("data: " + enc)
		}
		b.WriteByte('\n')
	}
	data := []byte(b.String())

	var want []key
	d := Rules(det)
	d.Scan(d.NewScratch(), "app.cfg", data, func(m rules.Match) {
		l, c := naivePosition(data, m.Start)
		want = append(want, key{"app.cfg", m.RuleID, l, c, 0, 0, m.Secret})
	})
	slices.SortFunc(want, compareKeys)
	if len(want) < 200 {
		t.Fatalf("the whole-buffer scan found only %d secrets", len(want))
	}
	decoded := 0
	d.Scan(d.NewScratch(), "app.cfg", data, func(m rules.Match) {
		if slices.ContainsFunc(m.Tags, func(t string) bool { return strings.HasPrefix(t, "decode-depth:") }) {
			decoded++
		}
	})
	if decoded < 200 {
		t.Fatalf("the whole-buffer scan decoded only %d secrets", decoded)
	}
	// The same bytes as a file (the Fetch chain) and as the member of a
	// gzip stream (the archive path), at each chunk size.
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"app.cfg": b.String(), "z/app.cfg": string(gzipOf(t, data))})
	sizes := []int{2 * det.MaxWindow(), 100_000, DefaultChunkSize}
	for _, cs := range sizes {
		for _, name := range []string{"app.cfg", "z/app.cfg"} {
			found, warns, _, err := collect(t, Options{Detector: d, ChunkSize: cs, Workers: 2, ArchiveDepth: 1}, filepath.Join(dir, name))
			if err != nil || len(warns) > 0 {
				t.Fatalf("%s: err %v, warnings %v", name, err, warns)
			}
			got := make([]key, len(found))
			for i, k := range found {
				got[i] = key{"app.cfg", k.Rule, k.Line, k.Column, 0, 0, k.Secret}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s, chunk size %d: %d findings, whole buffer %d\n%s", name, cs, len(got), len(want), diffKeys(got, want))
			}
		}
	}
}
