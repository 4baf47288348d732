package rules

import (
	"io/fs"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// trickyPaths are path regexes that stress the split and the prefilter:
// flags leaking from one joined regex into the next, alternations the
// parser factors, branches without literals, empty matches, anchors, and
// case folding with the runes ASCII folding misses.
var trickyPaths = []string{
	joinAlternatives([]string{`\.png$`, `(?i)\.JPE?G$`, `\.gif$`, `vendor/`}),
	joinAlternatives([]string{`(?i)(?:^|/)node_modules(?:/.*)?$`, `(?:^|/)node_mod$`, `x+`}),
	joinAlternatives([]string{`abc`, `abd`, `abe`}), // factored into ab(?:c|d|e)
	joinAlternatives([]string{`^[a-z]+$`, `\.kts$`}),
	joinAlternatives([]string{`(?i)k\.conf$`, `(?i)\bsecrets?\b`}),
	joinAlternatives([]string{`a*`, `\.bin$`}),
	`(?i)(?:^|\/)[^\/]+\.p(?:12|fx)$`,
	`(?m)^tmp/|\.sw[op]$`,
	`Database.refactorlog|(?U)ab+c`,
	`\Aroot/.*\z`,
	`\.(?:é|ü)$|(?i)straße`,
}

// pathRegexSources returns every path regex of the built-in rules,
// gitleaks' config (if present) and trickyPaths.
func pathRegexSources(t *testing.T) []string {
	out := append([]string(nil), trickyPaths...)
	add := func(cfg *Config) {
		for _, a := range cfg.Allowlists {
			if len(a.Paths) > 0 {
				out = append(out, joinAlternatives(a.Paths))
			}
		}
		for _, r := range cfg.Rules {
			if r.Path != "" {
				out = append(out, r.Path)
			}
			for _, a := range r.Allowlists {
				if len(a.Paths) > 0 {
					out = append(out, joinAlternatives(a.Paths))
				}
			}
		}
	}
	add(Default())
	cfg, err := Parse(gitleaksTOML(), "gitleaks.toml")
	if err != nil {
		t.Fatal(err)
	}
	add(cfg)
	return out
}

// pathCorpus returns paths to test against: some of the Go source tree's
// and, per regex, paths built from text its branches match, placed in
// random directories, in random case, with non-ASCII bytes sometimes.
func pathCorpus(t *testing.T, exprs []string, perExpr int) []string {
	var paths []string
	treePaths := 3000
	if testing.Short() {
		treePaths = 500
	}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		root := filepath.Join(strings.TrimSpace(string(out)), "src")
		filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err == nil && len(paths) < treePaths {
				paths = append(paths, p)
			}
			return nil
		})
	}
	g := gen{rand.New(rand.NewPCG(7, 11))}
	dirs := []string{"", "src/", "/home/u/", "a/vendor/", "node_modules/", "lib/python3.11/", "Ünï/", "x/K/", "K/"}
	for _, expr := range exprs {
		tree, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		for range perExpr {
			var b strings.Builder
			b.WriteString(dirs[g.rng.IntN(len(dirs))])
			g.regex(&b, tree, 0)
			if g.rng.IntN(3) == 0 {
				b.WriteString([]string{".go", "/", "/main.c", "ſ", "\xff"}[g.rng.IntN(5)])
			}
			p := b.String()
			switch g.rng.IntN(6) {
			case 0:
				p = strings.ToUpper(p)
			case 1:
				p = p[g.rng.IntN(len(p)+1):]
			}
			paths = append(paths, p)
		}
	}
	return append(paths, "", "/", ".", "K", "\u212a.conf", "a/\u0130")
}

func TestPathRegexMatchesLikeTheStandardLibrary(t *testing.T) {
	exprs := pathRegexSources(t)
	perExpr := 300
	if testing.Short() {
		perExpr = 40
	}
	paths := pathCorpus(t, exprs, perExpr)
	for _, expr := range exprs {
		want := regexp.MustCompile(expr)
		got, err := compilePathRegex(expr)
		if err != nil {
			t.Fatalf("compilePathRegex(%q): %v", expr, err)
		}
		matched := 0
		for _, p := range paths {
			w := want.MatchString(p)
			if got.MatchString(p) != w {
				t.Errorf("regex %q, path %q: MatchString = %v, want %v", expr, p, !w, w)
			}
			if w {
				matched++
			}
		}
		if matched == 0 {
			t.Errorf("regex %q matched none of %d paths: the corpus does not exercise it", expr, len(paths))
		}
	}
}

// TestPathRegexPrefiltersGitleaksAllowlist checks that the prefilter
// covers gitleaks' global path allowlist: every branch split off and
// guarded by a literal, so most paths never reach a regex.
func TestPathRegexPrefiltersGitleaksAllowlist(t *testing.T) {
	data := gitleaksTOML()
	cfg, err := Parse(data, "gitleaks.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range append(cfg.Allowlists, Default().Allowlists...) {
		if len(a.Paths) == 0 {
			continue
		}
		p, err := compilePathRegex(joinAlternatives(a.Paths))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.branches) < 2 || len(p.always) > 0 {
			t.Errorf("%d path regexes: %d branches, %d without a literal; want them split, each with literals",
				len(a.Paths), len(p.branches), len(p.always))
		}
	}
}

func FuzzPathRegex(f *testing.F) {
	f.Add(0, "src/image/png/testdata/x.png")
	f.Add(1, "a/node_modules")
	f.Add(4, "\u212a.conf")
	f.Add(5, "b.BIN")
	exprs := trickyPaths
	compiled := make([]*pathRegex, len(exprs))
	for i, e := range exprs {
		var err error
		if compiled[i], err = compilePathRegex(e); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, i int, path string) {
		i = int(uint(i) % uint(len(exprs)))
		want := regexp.MustCompile(exprs[i]).MatchString(path)
		if got := compiled[i].MatchString(path); got != want {
			t.Fatalf("regex %q, path %q: MatchString = %v, want %v", exprs[i], path, got, want)
		}
	})
}
