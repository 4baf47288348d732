package rules

import "bytes"

// This file recognises placeholders: the values people write where a
// secret will go (xxxx, 0000, EXAMPLE, your_api_key_here, <token>, ${VAR},
// changeme) and the obvious defaults that protect nothing (password,
// postgres, 123456). A rule opts in with `validate = "placeholder"` (the
// built-in catalog does for every rule without a checksum check); its
// findings with such a secret are tagged placeholder, not dropped.
//
// Every test is built so that a random token essentially never fails it:
// runs and dominant characters need eight or more equal bytes, repeating
// patterns and sequences need twelve and eight bytes, and the words are
// five letters or more (TestRandomTokensAreNotPlaceholders measures the
// rate on a million generated tokens).

// isPlaceholder reports whether secret is a stand-in rather than a
// credential.
func isPlaceholder(secret []byte) bool {
	if len(secret) == 0 || isTemplateReference(secret) {
		return true
	}
	var buf [128]byte
	lower := appendLowerASCII(buf[:0], secret)
	if isObviousDefault(lower) {
		return true
	}
	for _, w := range placeholderWords {
		if bytes.Contains(lower, []byte(w)) {
			return true
		}
	}
	if len(secret) >= 16 && distinctBytes(secret) <= 3 {
		return true
	}
	if isScreamingSnake(secret) {
		return true // an environment variable's name, not its value
	}
	if i := bytes.IndexByte(secret, ':'); i > 0 && i < 64 && isPlaceholder(secret[i+1:]) {
		return true // user:password with a placeholder password
	}
	if hasFillerText(secret) {
		return true
	}
	// A placeholder encoded in base64 (dXNlcjpwYXNzd29yZA== is
	// user:password): random bytes never decode to printable text.
	if len(secret) >= 8 && len(secret)%4 == 0 && bytes.IndexByte(secret, ':') < 0 {
		if raw, ok := decodeBase64(secret); ok && len(raw) >= 4 && printableText(raw) {
			if user, pass, found := bytes.Cut(raw, []byte(":")); found && len(user) < 64 {
				return isPlaceholder(pass)
			}
			return isObviousDefault(appendLowerASCII(buf[:0], raw))
		}
	}
	return false
}

// placeholderWords occur in placeholders and, at five letters or more,
// almost never by chance in a random token (lower case; matched without
// regard to case).
var placeholderWords = []string{
	"example", "placeholder", "changeme", "change_me", "change-me", "changeit",
	"your_", "your-", "yourapi", "yourkey", "yoursecret", "yourtoken", "yourpass", "youraccess",
	"insert_", "insert-", "insertyour", "replace_", "replace-", "replaceme", "replacewith",
	"redacted", "dummy", "sample", "notreal", "not_real", "not-real", "not_a_real",
	"fakekey", "fake_", "fake-", "faketoken", "fakesecret", "fakepass",
	"testkey", "testtoken", "testsecret", "testpass",
	"_here", "-here", "xxxxx", "*****", ".....", "qwerty", "asdfgh", "lorem", "ipsum",
	"secret_key_", "api_key_", "access_token_",
}

// obviousDefaults are whole values that protect nothing: default and
// documentation passwords.
var obviousDefaults = map[string]bool{}

func init() {
	for _, s := range []string{
		"password", "passwd", "pass", "pwd", "secret", "secrets", "token", "apikey", "api_key", "key",
		"admin", "administrator", "root", "toor", "guest", "user", "username", "login", "default",
		"changeme", "letmein", "welcome", "qwerty", "abc123", "foobar", "foo", "bar", "baz", "test",
		"testing", "test123", "tester", "demo", "example", "sample", "password1", "password123",
		"passw0rd", "p@ssw0rd", "p@ssword", "pa$$word", "mypassword", "mysecret", "secretpassword",
		"supersecret", "s3cr3t", "secret123", "admin123", "root123", "123456", "1234567", "12345678",
		"123456789", "1234567890", "none", "null", "nil", "true", "false", "undefined", "empty",
		"postgres", "postgresql", "mysql", "mariadb", "sa", "oracle", "tiger", "scott", "redis",
		"rabbitmq", "guest123", "docker", "vagrant", "tomcat", "s3cret", "manager", "foobared", "ubuntu", "centos", "raspberry", "alpine",
		"password!", "secret!", "opensesame", "todo", "tbd", "n/a", "na", "xxx", "***", "...", "-", "?",
	} {
		obviousDefaults[s] = true
	}
}

// isObviousDefault reports whether lower (a lower-cased secret) is an
// obvious default: one of obviousDefaults, or one of them with digits
// appended (password1, pwd3, secret2024), written with percent escapes
// (p%40ssword), or in the usual substitutions and separators (p@ss-w0rd).
func isObviousDefault(lower []byte) bool {
	if obviousDefaults[string(lower)] {
		return true
	}
	var buf [128]byte
	norm := buf[:0]
	for i := 0; i < len(lower); i++ {
		c := lower[i]
		if c == '%' && i+2 < len(lower) && isHex(lower[i+1]) && isHex(lower[i+2]) {
			c = unhex(lower[i+1])<<4 | unhex(lower[i+2])
			i += 2
		}
		switch c {
		case '0':
			c = 'o'
		case '1':
			c = 'i'
		case '3':
			c = 'e'
		case '4', '@':
			c = 'a'
		case '5', '$':
			c = 's'
		}
		if c >= 'a' && c <= 'z' || isDigit(c) {
			norm = append(norm, c)
		}
	}
	trimmed := bytes.TrimRight(lower, "0123456789")
	return obviousDefaults[string(norm)] || len(trimmed) >= 3 && len(trimmed) < len(lower) && obviousDefaults[string(trimmed)]
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' }

func unhex(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c - 'a' + 10
}

// templateDelimiters open and close a template expression or a variable
// reference: ${VAR}, {{ .Values.x }}, $(cat file), #{x}, <%= x %>, %(x)s.
// Both must occur, so that a random secret holding "$(" is not taken for
// a reference.
var templateDelimiters = []struct{ open, close []byte }{
	{[]byte("${"), []byte("}")},
	{[]byte("{{"), []byte("}}")},
	{[]byte("$("), []byte(")")},
	{[]byte("#{"), []byte("}")},
	{[]byte("<%"), []byte("%>")},
	{[]byte("%("), []byte(")")},
}

// isReferenceText reports whether the text between template delimiters
// looks like an expression (a name, a path, a command) rather than random
// symbols that happen to sit between a "$(" and a ")".
func isReferenceText(s []byte) bool {
	s = bytes.TrimSpace(s)
	if len(s) == 0 || isDigit(s[0]) || !isAlnum(s[0]) && s[0] != '_' && s[0] != '.' && s[0] != '$' {
		return false
	}
	for _, c := range s {
		if !isAlnum(c) && !bytes.ContainsRune([]byte("_ ./:-|'\"[]$"), rune(c)) {
			return false
		}
	}
	return true
}

// isTemplateReference reports whether s refers to a value kept elsewhere
// (a variable, a template expression, an encrypted value) instead of
// being one.
func isTemplateReference(s []byte) bool {
	for _, d := range templateDelimiters {
		if i := bytes.Index(s, d.open); i >= 0 {
			inner, _, closed := bytes.Cut(s[i+len(d.open):], d.close)
			if closed && isReferenceText(inner) {
				return true
			}
		}
	}
	n := len(s)
	switch {
	case n >= 2 && s[0] == '<' && (s[n-1] == '>' || isAlnum(s[1]) || s[1] == '_'),
		n >= 2 && s[0] == '{' && s[n-1] == '}',
		n >= 2 && s[0] == '%' && s[n-1] == '%',
		n >= 2 && s[0] == '@' && s[n-1] == '@',
		n >= 2 && s[0] == '[' && s[n-1] == ']':
		return true
	case n >= 2 && s[0] == '$' && isIdentifier(s[1:]):
		return true // $VAR
	case bytes.HasPrefix(s, []byte("ENC(")) && s[n-1] == ')',
		bytes.HasPrefix(s, []byte("{cipher}")):
		return true // Jasypt and Spring Cloud Config encrypted values
	}
	return false
}

func isIdentifier(s []byte) bool {
	if len(s) == 0 || isDigit(s[0]) {
		return false
	}
	for _, c := range s {
		if !isAlnum(c) && c != '_' {
			return false
		}
	}
	return true
}

// isScreamingSnake reports whether s looks like an environment variable's
// name: upper-case words joined by underscores (DB_PASSWORD).
func isScreamingSnake(s []byte) bool {
	if len(s) < 3 || s[0] < 'A' || s[0] > 'Z' || bytes.IndexByte(s, '_') < 0 {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'A' && c <= 'Z', isDigit(c):
		case c == '_' && i > 0 && s[i-1] != '_':
		default:
			return false
		}
	}
	return s[len(s)-1] != '_'
}

// hasFillerText looks inside each run of letters and digits for what
// people type to fill space: eight or more equal bytes in a row; one byte
// making up most of a run of ten or more; a short pattern repeated over
// twelve or more bytes (abcabcabcabc); eight or more consecutive letters
// or digits in order (12345678, abcdefgh, in either direction).
func hasFillerText(s []byte) bool {
	for i := 0; i < len(s); {
		if !isAlnum(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isAlnum(s[j]) {
			j++
		}
		if isFiller(s[i:j]) {
			return true
		}
		i = j
	}
	return false
}

func isFiller(run []byte) bool {
	n := len(run)
	if n < 8 {
		return false
	}
	var counts [256]int
	top, same, up, down := 0, 1, 1, 1
	for i, c := range run {
		counts[c]++
		top = max(top, counts[c])
		if i == 0 {
			continue
		}
		prev := run[i-1]
		same = streak(same, c == prev)
		up = streak(up, c == prev+1 && sameClass(c, prev))
		down = streak(down, c+1 == prev && sameClass(c, prev))
		if same >= 8 || up >= 8 || down >= 8 {
			return true
		}
	}
	if n >= 12 && top >= (7*n+9)/10 {
		return true
	}
	maxPeriod := 2
	if n >= 12 {
		maxPeriod = 4
	}
	for p := 1; p <= maxPeriod; p++ {
		if isPeriodic(run, p) {
			return true
		}
	}
	return false
}

// streak extends a run when ok holds and restarts it otherwise.
func streak(n int, ok bool) int {
	if ok {
		return n + 1
	}
	return 1
}

func isPeriodic(s []byte, p int) bool {
	for i := p; i < len(s); i++ {
		if s[i] != s[i-p] {
			return false
		}
	}
	return true
}

func sameClass(a, b byte) bool {
	return charClass(a) == charClass(b)
}

func charClass(c byte) int {
	switch {
	case isDigit(c):
		return 1
	case c >= 'a' && c <= 'z':
		return 2
	case c >= 'A' && c <= 'Z':
		return 3
	}
	return 0
}

func distinctBytes(s []byte) int {
	var seen [256]bool
	n := 0
	for _, c := range s {
		if !seen[c] {
			seen[c] = true
			n++
		}
	}
	return n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// appendLowerASCII appends s to dst with ASCII letters in lower case.
func appendLowerASCII(dst, s []byte) []byte {
	for _, c := range s {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
