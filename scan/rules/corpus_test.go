package rules

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The corpus of the built-in rules is written as formats, not tokens:
// testdata/corpus/formats.txt describes, for every rule, texts that must be
// reported (+) and decoys that must not (-), with the random parts of each
// token left to generators. The test draws each format three times (fixed
// seeds), so the corpus holds real-format tokens with random bodies while
// the repository holds no string that could be a live credential.
//
// Syntax, one entry per line:
//
//	[rule-id]            the rule the entries below are for
//	+ TEXT               a positive: the rule must report it
//	- TEXT               a decoy: no rule may report it (the generic rule
//	                     may report a decoy with random parts)
//	# ...                a comment
//
// In TEXT, \n \r \t and \\ are escapes; a leading "@PATH " names the file
// the text is in (default example.txt); «...» marks the secret the rule
// must report; %{gen} is replaced by generated text:
//
//	%{alnum:N} %{hex:N} %{HEX:N} %{lower:N} %{upper:N} %{digits:N}
//	%{lowernum:N} %{uppernum:N} %{letters:N} %{b64:N} %{b64url:N}
//	%{base32:N} %{chars:SET:N}     N random characters of that alphabet
//	%{uuid} %{UUID}                a random UUID, lower or upper case
//	%{crc32}                       the base62 CRC-32 of the text since the last '_'
//	%{agekey}                      an age secret key with a valid Bech32 checksum
//	%{jwt}                         a JSON Web Token with random claims
//	%{b64jwt}                      base64 of such a token
//	%{password}                    a random password of letters, digits and symbols
//	%{urlpassword}                 the same, of characters a URL may hold unescaped
//	%{basic:USER}                  base64 of USER:<random password>

var corpusOut = flag.String("corpus-out", "", "also write every drawn case of the corpus under this directory, one file per case, for scanning with other tools")

var updateExamples = flag.Bool("update-examples", false, "rewrite the examples and negatives of spindle.toml from testdata/corpus/formats.txt")

const corpusFormats = "testdata/corpus/formats.txt"

// corpusEntry is one format line.
type corpusEntry struct {
	rule     string
	positive bool
	format   string
	line     int
}

// corpusCase is one drawing of a format: the file's path and text, and
// the secrets («...») the rule must report in it.
type corpusCase struct {
	path, text string
	secrets    []string
}

func readCorpusFormats(t testing.TB) []corpusEntry {
	t.Helper()
	f, err := os.Open(corpusFormats)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusEntry
	rule := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			rule = line[1 : len(line)-1]
		case strings.HasPrefix(line, "+ ") || strings.HasPrefix(line, "- "):
			if rule == "" {
				t.Fatalf("%s:%d: entry before any [rule]", corpusFormats, n)
			}
			out = append(out, corpusEntry{rule: rule, positive: line[0] == '+', format: line[2:], line: n})
		default:
			t.Fatalf("%s:%d: cannot parse %q", corpusFormats, n, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// draw expands one format with rng.
func (e corpusEntry) draw(rng *rand.Rand) (corpusCase, error) {
	var c corpusCase
	s := e.format
	if strings.HasPrefix(s, "@") {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			c.path, s = s[1:], ""
		} else {
			c.path, s = s[1:i], s[i+1:]
		}
	}
	var out, secret strings.Builder
	inSecret := false
	write := func(x string) {
		out.WriteString(x)
		if inSecret {
			secret.WriteString(x)
		}
	}
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "«"):
			inSecret = true
			i += len("«")
		case strings.HasPrefix(s[i:], "»"):
			inSecret = false
			c.secrets = append(c.secrets, secret.String())
			secret.Reset()
			i += len("»")
		case s[i] == '\\' && i+1 < len(s):
			switch s[i+1] {
			case 'n':
				write("\n")
			case 'r':
				write("\r")
			case 't':
				write("\t")
			case '\\':
				write("\\")
			default:
				write(s[i : i+2])
			}
			i += 2
		case strings.HasPrefix(s[i:], "%{"):
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				return c, fmt.Errorf("unclosed %%{ in %q", s)
			}
			g, err := generate(s[i+2:i+j], out.String(), rng)
			if err != nil {
				return c, err
			}
			write(g)
			i += j + 1
		default:
			write(s[i : i+1])
			i++
		}
	}
	c.text = out.String()
	return c, nil
}

var corpusAlphabets = map[string]string{
	"alnum":    alnum,
	"hex":      hexLow,
	"HEX":      "0123456789ABCDEF",
	"lower":    lowerA,
	"upper":    upperA,
	"digits":   digits,
	"lowernum": lowerA + digits,
	"uppernum": upperA + digits,
	"letters":  lowerA + upperA,
	"b64":      b64,
	"b64url":   b64url,
	"base32":   upperA + "234567",
}

// generate returns the text of generator spec; before is the text the
// case has so far (for checksums over it).
func generate(spec, before string, rng *rand.Rand) (string, error) {
	name, arg, _ := strings.Cut(spec, ":")
	if alphabet, ok := corpusAlphabets[name]; ok {
		n, err := strconv.Atoi(arg)
		if err != nil {
			return "", fmt.Errorf("%%{%s}: bad length", spec)
		}
		return randomString(rng, alphabet, n), nil
	}
	switch name {
	case "chars":
		i := strings.LastIndexByte(arg, ':')
		n, err := strconv.Atoi(arg[i+1:])
		if i <= 0 || err != nil {
			return "", fmt.Errorf("%%{%s}: want chars:SET:N", spec)
		}
		return randomString(rng, arg[:i], n), nil
	case "uuid", "UUID":
		u := randomString(rng, hexLow, 8) + "-" + randomString(rng, hexLow, 4) + "-4" + randomString(rng, hexLow, 3) + "-a" +
			randomString(rng, hexLow, 3) + "-" + randomString(rng, hexLow, 12)
		if name == "UUID" {
			u = strings.ToUpper(u)
		}
		return u, nil
	case "crc32":
		body := before[strings.LastIndexByte(before, '_')+1:]
		return base62CRC32Token("", body)[len(body):], nil
	case "agekey":
		data := make([]byte, 52)
		for i := range data {
			data[i] = byte(rng.IntN(32))
		}
		return strings.ToUpper(bech32Encode("age-secret-key-", data)), nil
	case "jwt":
		enc := base64.RawURLEncoding.EncodeToString
		header := enc([]byte(`{"alg":"HS256","typ":"JWT"}`))
		payload := enc([]byte(fmt.Sprintf(`{"sub":"%s","name":"%s","iat":%d}`,
			randomString(rng, digits, 10), randomString(rng, lowerA, 8), 1600000000+rng.IntN(200000000))))
		return header + "." + payload + "." + randomString(rng, b64url, 43), nil
	case "b64jwt":
		jwt, _ := generate("jwt", before, rng)
		return base64.StdEncoding.EncodeToString([]byte(jwt)), nil
	case "password":
		return randomPassword(rng), nil
	case "urlpassword":
		return randomString(rng, lowerA, 1) + randomString(rng, alnum+"-._~!*+", 8+rng.IntN(12)) + randomString(rng, digits, 1), nil
	case "basic":
		return base64.StdEncoding.EncodeToString([]byte(arg + ":" + randomPassword(rng))), nil
	}
	return "", fmt.Errorf("unknown generator %%{%s}", spec)
}

// randomPassword makes a password of 12 to 20 characters with at least one
// letter, digit and symbol.
func randomPassword(rng *rand.Rand) string {
	const symbols = "!#%&*+-.=?@^_~"
	n := 12 + rng.IntN(9)
	p := []byte(randomString(rng, alnum+symbols, n))
	p[rng.IntN(n)] = symbols[rng.IntN(len(symbols))]
	p[0] = lowerA[rng.IntN(26)]
	p[n-1] = digits[rng.IntN(10)]
	return string(p)
}

// seedFor makes a case's random source from its rule, line and drawing.
func seedFor(rule string, line, drawing int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(rule))
	return rand.New(rand.NewPCG(h.Sum64(), uint64(line)<<8|uint64(drawing)))
}

// drawings is how many times each format with generators is drawn;
// -corpus-drawings draws more, to shake out formats that fail only now
// and then.
var drawings = 3

func init() {
	flag.IntVar(&drawings, "corpus-drawings", drawings, "draw each corpus format this many times")
}

// TestBuiltinRulesFindTheirCorpus is the acceptance test of spindle's own
// rules: every one of them has positives and decoys in the corpus; the
// built-in rules find every positive's marked secret (the rule itself,
// or a rule of gitleaks' that found the same secret, to which spindle's
// rules give way); and no rule of spindle's reports a decoy unless its
// check tags it implausible. What gitleaks' rules report on a decoy is
// gitleaks' behaviour, which the built-in rules keep.
func TestBuiltinRulesFindTheirCorpus(t *testing.T) {
	entries := readCorpusFormats(t)
	d := defaultDetector(t)
	s := d.NewScratch()
	pos, neg := map[string]int{}, map[string]int{}
	for _, e := range entries {
		i, ok := d.byID[e.rule]
		if !ok || d.rules[i].From != FromSpindle {
			t.Errorf("%s:%d: %q is not one of spindle's rules", corpusFormats, e.line, e.rule)
			continue
		}
		n := 1
		if strings.Contains(e.format, "%{") {
			n = drawings
		}
		for k := range n {
			c, err := e.draw(seedFor(e.rule, e.line, k))
			if err != nil {
				t.Fatalf("%s:%d: %v", corpusFormats, e.line, err)
			}
			findings := corpusFindings(d, s, c)
			if *corpusOut != "" {
				writeCorpusCase(t, *corpusOut, e, k, c)
			}
			if e.positive {
				pos[e.rule]++
				want := c.secrets
				if len(want) == 0 {
					want = []string{""}
				}
				for _, secret := range want {
					if !hasFinding(findings, e.rule, secret) && !foundByGitleaks(d, findings, secret) {
						t.Errorf("%s:%d: %s does not find %q in %q (path %q); found %v", corpusFormats, e.line, e.rule, secret, c.text, c.path, findings)
					}
				}
				continue
			}
			neg[e.rule]++
			for _, f := range findings {
				if d.rules[d.byID[f.RuleID]].From == FromSpindle && !implausibleTags(f.Tags) {
					t.Errorf("%s:%d: decoy for %s reported: %q (path %q): %v", corpusFormats, e.line, e.rule, c.text, c.path, f)
				}
			}
		}
	}
	for _, r := range d.rules {
		if r.skipReport || r.From != FromSpindle {
			continue
		}
		if pos[r.ID] == 0 || neg[r.ID] == 0 {
			t.Errorf("rule %s: %d positives and %d decoys in the corpus; every rule needs both", r.ID, pos[r.ID], neg[r.ID])
		}
	}
}

// foundByGitleaks reports whether a rule of gitleaks' found secret, or a
// secret holding it.
func foundByGitleaks(d *Detector, ms []Match, secret string) bool {
	for _, m := range ms {
		if d.rules[d.byID[m.RuleID]].From == FromGitleaks && secret != "" && strings.Contains(m.Secret, secret) {
			return true
		}
	}
	return false
}

// writeCorpusCase writes one case as a file: DIR/{pos,neg}/RULE/LINE-K/PATH.
func writeCorpusCase(t *testing.T, dir string, e corpusEntry, k int, c corpusCase) {
	kind := "neg"
	if e.positive {
		kind = "pos"
	}
	path := c.path
	if path == "" {
		path = examplePath
	}
	p := filepath.Join(dir, kind, e.rule, fmt.Sprintf("%d-%d", e.line, k), filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// corpusFindings scans a case as the engine scans a file.
func corpusFindings(d *Detector, s *Scratch, c corpusCase) []Match {
	path := c.path
	if path == "" {
		path = examplePath
	}
	var out []Match
	if s.SkipPath(path) {
		return nil
	}
	emit := func(m Match) { out = append(out, m) }
	s.ScanPath(path, emit)
	d.Scan(s, path, []byte(c.text), emit)
	return out
}

func hasFinding(ms []Match, rule, secret string) bool {
	for _, m := range ms {
		if m.RuleID == rule && (secret == "" || m.Secret == secret) {
			return true
		}
	}
	return false
}

// TestUpdateExamples rewrites the examples and negatives lines of
// spindle.toml from the corpus formats when run with -update-examples:
// go test ./scan/rules -run TestUpdateExamples -update-examples
func TestUpdateExamples(t *testing.T) {
	if !*updateExamples {
		t.Skip("run with -update-examples to rewrite spindle.toml's examples")
	}
	entries := readCorpusFormats(t)
	type lists struct{ pos, neg []string }
	byRule := map[string]*lists{}
	for _, e := range entries {
		l := byRule[e.rule]
		if l == nil {
			l = &lists{}
			byRule[e.rule] = l
		}
		if (e.positive && len(l.pos) >= 1) || (!e.positive && len(l.neg) >= 2) {
			continue
		}
		c, err := e.draw(seedFor(e.rule, e.line, drawings))
		if err != nil {
			t.Fatal(err)
		}
		v := tomlExample(c)
		if e.positive {
			l.pos = append(l.pos, v)
		} else {
			l.neg = append(l.neg, v)
		}
	}
	path := filepath.Join("spindle.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	id := ""
	for _, line := range strings.SplitAfter(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "id = "):
			id, _ = strconv.Unquote(strings.TrimSpace(strings.TrimPrefix(line, "id = ")))
		case strings.HasPrefix(line, "examples = ") && byRule[id] != nil:
			line = "examples = [" + strings.Join(byRule[id].pos, ", ") + "]" + exampleLineAllow + "\n"
		case strings.HasPrefix(line, "negatives = ") && byRule[id] != nil:
			line = "negatives = [" + strings.Join(byRule[id].neg, ", ") + "]" + exampleLineAllow + "\n"
		}
		out.WriteString(line)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exampleLineAllow ends every examples and negatives line of spindle.toml:
// the inline allow that gitleaks and spindle honour keeps a scan of this
// repository (or of any tree holding a copy of the file) from reporting
// the examples, which are real-format tokens on purpose.
const exampleLineAllow = "  # gitleaks:allow"

// tomlExample writes a case as a TOML value: a basic string, or an inline
// table when the case has a path. JSON's string syntax is valid TOML.
func tomlExample(c corpusCase) string {
	str := func(s string) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		return strings.TrimSpace(b.String())
	}
	if c.path == "" {
		return str(c.text)
	}
	return "{path = " + str(c.path) + ", text = " + str(c.text) + "}"
}
