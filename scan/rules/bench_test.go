package rules

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	bobu "github.com/BobuSumisu/aho-corasick"
	petar "github.com/petar-dambovaliev/aho-corasick"
)

// The benchmarks scan real source text: the .go files of the Go
// distribution ($GOROOT/src), cut into 256 KiB chunks at line ends as the
// scan engine does, 16 MiB in all.

const (
	benchCorpusBytes = 16 << 20
	benchChunkBytes  = 256 << 10
)

var (
	corpusOnce   sync.Once
	corpusChunks [][]byte
)

func goSourceChunks(b *testing.B) [][]byte { return goSource(b) }

// goSource is goSourceChunks for any test.
func goSource(b testing.TB) [][]byte {
	corpusOnce.Do(func() {
		var all []byte
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return
		}
		root := filepath.Join(strings.TrimSpace(string(out)), "src")
		filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() || len(all) >= benchCorpusBytes || !strings.HasSuffix(p, ".go") {
				return nil
			}
			if data, err := os.ReadFile(p); err == nil {
				all = append(all, data...)
			}
			return nil
		})
		for len(all) > 0 {
			n := min(benchChunkBytes, len(all))
			if i := bytes.LastIndexByte(all[:n], '\n'); i > 0 && n < len(all) {
				n = i + 1
			}
			corpusChunks = append(corpusChunks, all[:n])
			all = all[n:]
		}
	})
	if len(corpusChunks) == 0 {
		b.Skip("no Go source under GOROOT")
	}
	return corpusChunks
}

func totalBytes(chunks [][]byte) int64 {
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	return int64(n)
}

func benchScan(b *testing.B, d *Detector) {
	chunks := goSourceChunks(b)
	s := d.NewScratch()
	findings := 0
	b.SetBytes(totalBytes(chunks))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range chunks {
			d.Scan(s, "src/file.go", c, func(Match) { findings++ })
		}
	}
	b.ReportMetric(float64(findings)/float64(b.N), "findings/op")
}

// BenchmarkScan measures Scan with five simple rules, the built-in rules
// and gitleaks' default config, on one goroutine.
func BenchmarkScan(b *testing.B) {
	b.Run("rules=five", func(b *testing.B) { benchScan(b, fiveDetector(b)) })
	b.Run("rules=default", func(b *testing.B) { benchScan(b, defaultDetector(b)) })
	b.Run("rules=gitleaks", func(b *testing.B) { benchScan(b, gitleaksDetector(b)) })
}

// BenchmarkScanEngine compares the regex engines: the per-rule choice Scan
// uses (auto), the standard library for every rule, and go-re2 for every
// rule.
func BenchmarkScanEngine(b *testing.B) {
	for _, e := range []struct {
		name string
		e    engine
	}{{"auto", engineAuto}, {"stdlib", engineStdlib}, {"re2", engineRE2}} {
		for _, cfg := range []struct {
			name string
			mk   func(testing.TB) *Detector
		}{{"default", defaultDetector}, {"gitleaks", gitleaksDetector}} {
			b.Run("engine="+e.name+"/rules="+cfg.name, func(b *testing.B) {
				saved := ruleEngine
				ruleEngine = e.e
				d := cfg.mk(b)
				ruleEngine = saved
				benchScan(b, d)
			})
		}
	}
}

// BenchmarkWholeBuffer is the matching strategy gitleaks uses, for
// comparison: for each rule whose keyword occurs in the lower-cased chunk,
// the rule's regex over the whole chunk (standard library).
func BenchmarkWholeBuffer(b *testing.B) {
	saved := ruleEngine
	ruleEngine = engineStdlib
	d := gitleaksDetector(b)
	ruleEngine = saved
	chunks := goSourceChunks(b)
	b.SetBytes(totalBytes(chunks))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range chunks {
			lower := strings.ToLower(string(c))
			for _, r := range d.rules {
				if r.PathOnly {
					continue
				}
				open := len(r.Keywords) == 0
				for _, k := range r.Keywords {
					open = open || strings.Contains(lower, k)
				}
				if open {
					r.reference().FindAllIndex(c, -1)
				}
			}
		}
	}
}

// BenchmarkKeywords compares implementations of the keyword pass on three
// keyword sets (the five simple rules, the built-in rules, gitleaks'
// rules): find, the pass Scan uses (pair filter, handing dense text to
// the automaton); the automaton alone; and the two Aho-Corasick libraries
// in go.mod, which need a lower-cased copy of the chunk.
func BenchmarkKeywords(b *testing.B) {
	chunks := goSourceChunks(b)
	var lower []byte
	fold := func(c []byte) []byte {
		lower = append(lower[:0], c...)
		for i, x := range lower {
			lower[i] = foldByte(x)
		}
		return lower
	}
	run := func(b *testing.B, scan func(c []byte) int) {
		b.SetBytes(totalBytes(chunks))
		b.ReportAllocs()
		hits := 0
		for b.Loop() {
			for _, c := range chunks {
				hits += scan(c)
			}
		}
		b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
	}
	for _, set := range []struct {
		name string
		mk   func(testing.TB) *Detector
	}{{"five", fiveDetector}, {"default", defaultDetector}, {"gitleaks", gitleaksDetector}} {
		patterns := set.mk(b).keywordsOnly()
		b.Run("keywords="+set.name+"/impl=find", func(b *testing.B) {
			dfa := newKeywordDFA(patterns)
			var hits []hit
			var st keywordScan
			run(b, func(c []byte) int {
				hits = dfa.find(c, hits[:0], &st)
				return len(hits)
			})
		})
		b.Run("keywords="+set.name+"/impl=dfa", func(b *testing.B) {
			dfa := newKeywordDFA(patterns)
			var hits []hit
			var spare lateHits
			run(b, func(c []byte) int {
				hits = dfa.scanDFA(c, 0, hits[:0], &spare)
				return len(hits)
			})
		})
		b.Run("keywords="+set.name+"/impl=BobuSumisu", func(b *testing.B) {
			trie := bobu.NewTrieBuilder().AddStrings(patterns).Build()
			run(b, func(c []byte) int {
				n := 0
				trie.Walk(fold(c), func(end, n2, pattern int64) bool { n++; return true })
				return n
			})
		})
		b.Run("keywords="+set.name+"/impl=petar-dambovaliev", func(b *testing.B) {
			builder := petar.NewAhoCorasickBuilder(petar.Opts{MatchKind: petar.StandardMatch, DFA: true})
			ac := builder.Build(patterns)
			run(b, func(c []byte) int {
				n := 0
				it := ac.IterOverlappingByte(fold(c))
				for m := it.Next(); m != nil; m = it.Next() {
					n++
				}
				return n
			})
		})
	}
}

// fiveRulesTOML holds five simple rules, the workload the scan engine's
// benchmarks compare with ripgrep running the same five patterns.
const fiveRulesTOML = `
[[rules]]
id = "aws-access-key"
regex = '''AKIA[0-9A-Z]{16}'''
keywords = ["akia"]

[[rules]]
id = "github-pat"
regex = '''ghp_[0-9a-zA-Z]{36}'''
keywords = ["ghp_"]

[[rules]]
id = "slack-token"
regex = '''xox[baprs]-[0-9a-zA-Z-]{10,48}'''
keywords = ["xox"]

[[rules]]
id = "private-key"
regex = '''-----BEGIN [A-Z ]*PRIVATE KEY-----'''
keywords = ["private key"]

[[rules]]
id = "stripe-key"
regex = '''sk_live_[0-9a-zA-Z]{24}'''
keywords = ["sk_live_"]
`

func fiveDetector(t testing.TB) *Detector {
	return cachedDetector(t, "five", func(t testing.TB) *Detector { return mustDetector(t, fiveRulesTOML) })
}

// keywordsOnly returns the distinct folded keywords of the rules.
func (d *Detector) keywordsOnly() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range d.rules {
		for _, k := range r.keyText {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// BenchmarkScanParallel runs Scan on every core, one Scratch per
// goroutine, as the scan engine's workers do.
func BenchmarkScanParallel(b *testing.B) {
	for _, cfg := range []struct {
		name string
		mk   func(testing.TB) *Detector
	}{{"default", defaultDetector}, {"gitleaks", gitleaksDetector}} {
		b.Run("rules="+cfg.name, func(b *testing.B) {
			d := cfg.mk(b)
			chunks := goSourceChunks(b)
			b.SetBytes(totalBytes(chunks) / int64(len(chunks)))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				s := d.NewScratch()
				i := 0
				for pb.Next() {
					d.Scan(s, "src/file.go", chunks[i%len(chunks)], func(Match) {})
					i++
				}
			})
		})
	}
}

// BenchmarkCompile measures Compile on the built-in rules and on gitleaks'
// config, with the per-rule engine choice (auto) and with the standard
// library only. Under -race it shows what other packages' tests pay for
// each detector they compile.
func BenchmarkCompile(b *testing.B) {
	gl := gitleaksTOML()
	glCfg, err := Parse(gl, "gitleaks.toml")
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range []struct {
		name string
		e    engine
	}{{"auto", engineAuto}, {"stdlib", engineStdlib}} {
		for _, cfg := range []struct {
			name string
			cfg  *Config
		}{{"default", Default()}, {"gitleaks", glCfg}} {
			b.Run("engine="+e.name+"/rules="+cfg.name, func(b *testing.B) {
				saved := ruleEngine
				ruleEngine = e.e
				defer func() { ruleEngine = saved }()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Compile(cfg.cfg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkParse measures Parse of gitleaks' config: decoding the TOML
// and checking every rule (each regex parsed, its size bounded), what a
// command pays at start-up before Compile.
func BenchmarkParse(b *testing.B) {
	gl := gitleaksTOML()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(gl, "gitleaks.toml"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSkipPath measures the global path allowlist check on the paths
// of the Go source tree, with gitleaks' config: the prefiltered split
// regex Detector.SkipPath uses, and the standard library's regex as
// written (what gitleaks runs).
func BenchmarkSkipPath(b *testing.B) {
	d := gitleaksDetector(b)
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip(err)
	}
	var paths []string
	filepath.WalkDir(filepath.Join(strings.TrimSpace(string(out)), "src"), func(p string, _ fs.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, p)
		}
		return nil
	})
	run := func(b *testing.B, skip func(string) bool) {
		b.ReportAllocs()
		skipped := 0
		for b.Loop() {
			for _, p := range paths {
				if skip(p) {
					skipped++
				}
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(paths)), "ns/path")
		b.ReportMetric(float64(skipped)/float64(b.N), "skipped/op")
	}
	b.Run("impl=prefilter", func(b *testing.B) { run(b, d.SkipPath) })
	b.Run("impl=stdlib", func(b *testing.B) {
		run(b, func(p string) bool {
			for _, a := range d.global {
				if a.paths != nil && a.paths.full.MatchString(p) {
					return true
				}
			}
			return false
		})
	})
}
