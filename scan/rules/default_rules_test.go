package rules

import (
	"strings"
	"testing"
)

const (
	lowerA = "abcdefghijklmnopqrstuvwxyz"
	upperA = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digits = "0123456789"
	alnum  = lowerA + upperA + digits
	hexLow = "0123456789abcdef"
	b64    = alnum + "+/"
	b64url = alnum + "-_"
)

// example is one text a rule must report.
type example struct {
	text string
}

type ruleExamples struct {
	positive []example
	negative []string
}

// builtinExamples returns the examples and negatives spindle.toml gives
// each of spindle's own rules (texts only; their paths are in the Config).
func builtinExamples() map[string]ruleExamples {
	out := map[string]ruleExamples{}
	for _, r := range Default().Rules {
		if r.From != FromSpindle {
			continue
		}
		var ex ruleExamples
		for _, e := range r.Examples {
			ex.positive = append(ex.positive, example{text: e.Text})
		}
		for _, e := range r.Negatives {
			ex.negative = append(ex.negative, e.Text)
		}
		out[r.ID] = ex
	}
	return out
}

// TestBuiltinRulesPassTheirExamples runs the examples of every built-in
// rule, as `spindle rules --check` does: spindle's rules carry an example
// and a negative each; gitleaks' rules are checked on the true and false
// positives gitleaks' code gives them (all but the two it gives none).
func TestBuiltinRulesPassTheirExamples(t *testing.T) {
	cfg := Default()
	d := defaultDetector(t)
	without := 0
	for _, r := range cfg.Rules {
		if r.SkipReport {
			continue
		}
		examples, negatives := ExamplesOf(r)
		switch {
		case r.From == FromSpindle && (len(examples) == 0 || len(negatives) == 0):
			t.Errorf("rule %s: %d examples and %d negatives; every one of spindle's rules needs both", r.ID, len(examples), len(negatives))
		case len(examples) == 0:
			without++
		}
		for _, f := range d.CheckExamples(cfg, r.ID) {
			t.Error(f.Error())
		}
	}
	// gitleaks v8.30.1 gives dropbox-short-lived-api-token and
	// dropbox-long-lived-api-token no examples.
	if without > 2 {
		t.Errorf("%d of gitleaks' rules have no examples, want at most 2", without)
	}
}

// TestCheckExamplesReportsMisbehavingExamples checks CheckExamples itself
// on a config whose examples are wrong in each possible way.
func TestCheckExamplesReportsMisbehavingExamples(t *testing.T) {
	cfg, err := Parse([]byte(`
[[rules]]
id = "tok"
regex = '''\b(tok_[a-z0-9]{12})\b'''
keywords = ["tok_"]
validate = "placeholder"
examples = ["a = tok_k3j5h7g9f2d4", "a = tok_short", {path = "vendor/golang.org/x/a.go", text = "tok_k3j5h7g9f2d4"}]
negatives = ["tok_xxxxxxxxxxxx", "b = tok_a8s7d6f5g4h3"]

[[rules]]
id = "file"
path = '''\.p12$'''
examples = [{path = "certs/a.p12"}, {path = "certs/a.pem"}]
negatives = [{path = "certs/a.pem"}]
`), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range []string{"tok", "file"} {
		for _, f := range d.CheckExamples(cfg, id) {
			got = append(got, f.Error())
		}
	}
	want := []string{
		`rule "tok": example "a = tok_short" is not reported`,
		// No global allowlist here, so the vendor path is scanned; the
		// second failure is the decoy that is a real-format token.
		`rule "tok": negative "b = tok_a8s7d6f5g4h3" is reported: tok_a8s7d6f5g4h3`,
		`rule "file": example "" (path certs/a.pem) is not reported`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestExamplesKeysAreValidatedByTheLoader(t *testing.T) {
	for _, c := range []struct{ toml, want string }{
		{`examples = "x"`, "examples: expected an array"},
		{`examples = [1]`, "examples: entry 1: expected a string"},
		{`negatives = [""]`, "negatives: entry 1 is empty"},
		{`examples = [{path = "a", txt = "b"}]`, `unknown key "txt"`},
		{`examples = [{}]`, "neither path nor text"},
	} {
		_, err := Parse([]byte("[[rules]]\nid = 'r'\nregex = '''r_[a-z]{4}'''\n"+c.toml+"\n"), "x.toml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.toml, err, c.want)
		}
	}
}

// TestSpindleRulesAreWindowed checks the property spindle's own rules are
// written for: every match contains a keyword, so every rule runs in
// windows around keyword hits and never over a whole buffer. The exception
// is a rule confined by its path to one kind of file (.env, .pgpass,
// settings.py): it runs over those files only, and keywords such as
// "password" would put hits into the keyword pass of every other file.
func TestSpindleRulesAreWindowed(t *testing.T) {
	d := defaultDetector(t)
	own := 0
	for _, r := range d.rules {
		if r.From != FromSpindle {
			continue
		}
		own++
		if r.PathOnly || (r.path != nil && len(r.gate) == 0) {
			continue
		}
		if len(r.gate) == 0 {
			t.Errorf("%s: no keywords", r.ID)
		}
		if r.anchors == nil || len(r.anchors) != len(r.gate) {
			t.Errorf("%s: keywords are not proved to occur in every match", r.ID)
		}
	}
	if own < 30 {
		t.Errorf("%d of spindle's rules, want at least 30", own)
	}
}

// TestBuiltinGlobalAllowlistSkipsWhatGitleaksSkips checks the built-in
// global path allowlist against paths gitleaks' default config skips and
// paths it scans: archives (a .jar is a zip) are opened, not skipped, and
// vendor/ is skipped only for vendored Go modules and Ruby bundles; both
// detectors agree on every path.
func TestBuiltinGlobalAllowlistSkipsWhatGitleaksSkips(t *testing.T) {
	d, gl := defaultDetector(t), gitleaksDetector(t)
	skipped := []string{
		"node_modules/left-pad/index.js", "web/node_modules", "vendor/github.com/acme/x/y.go", "vendor/golang.org/x/net/a.go",
		"vendor/modules.txt", "go.sum", "go.mod", "go.work.sum", "img/logo.PNG", "fonts/a.woff2", "docs/spec.pdf", "bin/tool.exe",
		"yarn.lock", "package-lock.json", "poetry.lock", "Pipfile.lock", "deno.lock", "gradlew", "gradle.lockfile",
		"mvnw.cmd", ".mvn/wrapper/MavenWrapperDownloader.java", "static/jquery-3.7.1.min.js", "venv/lib/python3.11/site-packages/x.py",
		"lib/python3.11/site-packages/req.py", "requests-2.31.0.dist-info/METADATA", "vendor/bundle/ruby/3.2.0/gems/x.rb",
		"pkg/acme-1.0.gem", "gradle/verification-metadata.xml", "db/Database.refactorlog", "repo/.git", "config/gitleaks.toml",
		"bower_components/x/y.js",
	}
	scanned := []string{
		"lib/app.jar", "dist/app.war", "dist/app.ear", "build/app.apk", "pkg/acme.nupkg", "dist/acme-1.0-py3-none-any.whl",
		"backup.zip", "release.tar.gz", "vendor/acme/deploy.env", "vendor/config.yml", "src/main/resources/application.properties",
		"Cargo.lock", "composer.lock", "Gemfile.lock", ".env", "keys/id_rsa", "certs/server.p12",
		// gitleaks' pattern reads "\\.(?:...|.dll|...)$": a dot, any
		// character, then "dll", which no name ending in ".dll" has.
		"lib/native.dll",
	}
	for _, p := range skipped {
		if !d.SkipPath(p) || !gl.SkipPath(p) {
			t.Errorf("%s: skipped %v (gitleaks' config: %v); gitleaks skips it", p, d.SkipPath(p), gl.SkipPath(p))
		}
	}
	for _, p := range scanned {
		if d.SkipPath(p) || gl.SkipPath(p) {
			t.Errorf("%s: skipped %v (gitleaks' config: %v); gitleaks scans it", p, d.SkipPath(p), gl.SkipPath(p))
		}
	}
}
