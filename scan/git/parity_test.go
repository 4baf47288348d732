package git

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

// The parity tests build histories that hold every way a line comes and
// goes, and check the in-process scan against git's own patches (always,
// when git is installed: referenceFindings) and against gitleaks (when it
// is installed too).

// Secrets gitleaks' default rules find, distinct so that each finding
// names its line. Each is written in two pieces, so that no literal in
// this file looks like a secret to a scanner of the source.
var paritySecrets = []string{
	"aws_access_key_id = AKIA" + "QYLPMN5HHHFPZAM2",
	"token: ghp_" + "R8PjZSQ6Lm3V0sKWb9xYfTu2cNgH1Ae4JdBq",
	"slack = xoxb-" + "263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1",
	"stripe_key = sk_live_" + "51HbT6cKq0ewCwkzdRVeJbA7Xs4S2EHdyIn",
	"password = \"Zm9vYmFy" + "YmF6cXV4MTIzNDU2Nzg5\"",
	"api_key = 'a8f5f167f44f" + "4964e6c998dee827110c'",
	"gitlab: glpat-" + "Tx9pL2vQ8mN4kR7sW1yZ",
	"npm = npm_" + "Vq3ZkWp8Lx2NmR5tYb7Hc9Jd4Fg6Ks1Ae0Tu",
}

func secretLine(i int) string { return paritySecrets[i%len(paritySecrets)] }

// scenario builds one history in r.
type scenario struct {
	name  string
	build func(r *repo)
}

func filler(n int, seed string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d of %s: the quick brown fox\n", i, seed)
	}
	return b.String()
}

var scenarios = []scenario{
	{"moved and re-indented lines", func(r *repo) {
		body := filler(20, "a")
		r.write("conf/app.ini", "[main]\n"+secretLine(0)+"\n"+body+secretLine(1)+"\n")
		r.commit("add config")
		// Move the first secret to the end, re-indent the second.
		r.write("conf/app.ini", "[main]\n"+body+"    "+secretLine(1)+"\n"+secretLine(0)+"\n")
		r.commit("move lines")
		// Move a block of lines holding a secret up, unchanged.
		r.write("conf/app.ini", "    "+secretLine(1)+"\n"+secretLine(0)+"\n[main]\n"+body)
		r.commit("move block")
	}},
	{"renames with and without edits", func(r *repo) {
		body := filler(30, "b")
		r.write("old/name.txt", body+secretLine(2)+"\n")
		r.write("keep.txt", secretLine(3)+"\n"+body)
		r.commit("files")
		os.MkdirAll(filepath.Join(r.dir, "new"), 0o755)
		r.git("mv", "old/name.txt", "new/name.txt")
		r.commit("pure rename")
		r.git("mv", "new/name.txt", "new/other.txt")
		r.write("new/other.txt", body+secretLine(2)+"\n"+secretLine(4)+"\n")
		r.commit("rename with edit")
		r.git("mv", "keep.txt", "elsewhere.txt")
		r.write("elsewhere.txt", secretLine(5)+"\n"+filler(3, "c"))
		r.commit("rename below the threshold: a delete and an add")
	}},
	{"cherry-picks on two branches", func(r *repo) {
		r.write("a.txt", filler(10, "d"))
		r.commit("base")
		r.git("branch", "side")
		r.write("a.txt", filler(10, "d")+secretLine(6)+"\n")
		r.commit("secret on main")
		pick := r.ids["secret on main"]
		r.git("checkout", "-q", "side")
		r.write("b.txt", "other\n")
		r.commit("side work")
		r.git("cherry-pick", pick)
		r.ids["picked"] = r.git("rev-parse", "HEAD")
		r.git("checkout", "-q", "main")
	}},
	{"reverts and re-added secrets", func(r *repo) {
		r.write("x.env", "A=1\n"+secretLine(7)+"\nB=2\n")
		r.commit("add")
		r.write("x.env", "A=1\nB=2\n")
		r.commit("remove")
		r.write("x.env", "A=1\n"+secretLine(7)+"\nB=2\n")
		r.commit("re-add")
		r.git("rm", "-q", "x.env")
		r.commit("delete file")
		r.write("x.env", secretLine(7)+"\n")
		r.commit("file back")
	}},
	{"binary files and archives", func(r *repo) {
		r.write("blob.bin", "\x00\x01"+secretLine(0)+"\n")
		r.write("text-then-binary.txt", secretLine(1)+"\n")
		r.commit("binary")
		r.write("text-then-binary.txt", "\x00"+secretLine(1)+"\n"+secretLine(2)+"\n")
		r.write("blob.bin", "now text\n"+secretLine(3)+"\n")
		r.commit("flip")
	}},
	{"merges with conflict resolutions and octopus", func(r *repo) {
		r.write("m.txt", "one\ntwo\nthree\n")
		r.commit("base")
		r.git("checkout", "-q", "-b", "left")
		r.write("m.txt", "one\nleft "+secretLine(4)+"\nthree\n")
		r.commit("left")
		r.git("checkout", "-q", "main")
		r.git("checkout", "-q", "-b", "right")
		r.write("m.txt", "one\nright\nthree\n")
		r.commit("right")
		r.git("checkout", "-q", "main")
		r.git("merge", "-q", "--no-edit", "left")
		if _, err := r.try("merge", "-q", "--no-edit", "right"); err == nil {
			r.t.Fatal("expected a conflict")
		}
		r.write("m.txt", "one\nresolved "+secretLine(5)+"\nthree\n")
		r.commit("resolve")
		// An octopus merge of three branches, each adding a file; the
		// merge adds a line of its own (an "evil merge").
		for i, b := range []string{"o1", "o2", "o3"} {
			r.git("checkout", "-q", "-b", b, "main")
			r.write(b+".txt", secretLine(i)+"\n")
			r.commit(b)
		}
		r.git("checkout", "-q", "main")
		r.git("merge", "-q", "--no-commit", "o1", "o2", "o3")
		r.write("evil.txt", secretLine(6)+"\n")
		r.commit("octopus")
	}},
	{"a root commit per branch", func(r *repo) {
		r.write("main.txt", secretLine(0)+"\n")
		r.commit("main root")
		r.git("checkout", "-q", "--orphan", "pages")
		r.git("rm", "-q", "-rf", ".")
		r.write("index.html", "<p>"+secretLine(1)+"</p>\n")
		r.commit("pages root")
		r.git("checkout", "-q", "main")
	}},
	{"repeated lines and slides", func(r *repo) {
		rep := strings.Repeat(secretLine(2)+"\n", 5)
		r.write("rep.txt", "head\n"+rep+"tail\n")
		r.commit("repeated")
		r.write("rep.txt", "head\n"+rep+secretLine(2)+"\n"+rep+"tail\n")
		r.commit("more repeats")
		r.write("braces.go", "func a() {\n\tx := 1\n}\n\nfunc b() {\n\ty := 2\n}\n")
		r.commit("braces")
		r.write("braces.go", "func a() {\n\tx := 1\n}\n\nfunc n() {\n\t"+secretLine(3)+"\n}\n\nfunc b() {\n\ty := 2\n}\n")
		r.commit("insert a function")
	}},
	{"names, modes, links, line ends", func(r *repo) {
		r.write("My Documents/creds.txt", secretLine(4)+"\n")
		r.write("tab\tname.txt", secretLine(5)+"\n")
		r.write("quote\"d.txt", secretLine(6)+"\n")
		r.write("ünïcödé.txt", secretLine(7)+"\n")
		r.write("crlf.txt", "a\r\n"+secretLine(0)+"\r\n")
		r.write("noeol.txt", "a\n"+secretLine(1))
		r.commit("odd names")
		r.write("noeol.txt", "a\n"+secretLine(1)+"\n"+secretLine(2))
		r.write("crlf.txt", "a\r\n"+secretLine(0)+"\n")
		if err := os.Symlink("My Documents/creds.txt", filepath.Join(r.dir, "link")); err == nil {
			r.git("add", "link")
		}
		r.git("update-index", "--chmod=+x", "tab\tname.txt")
		r.commit("edits, a link, a mode")
		if err := os.Remove(filepath.Join(r.dir, "link")); err == nil {
			r.write("link", secretLine(3)+"\n")
			r.commit("link becomes a file")
		}
	}},
	{"large files with common tails", func(r *repo) {
		head, tail := filler(400, "head"), filler(900, "tail")
		r.write("big.txt", head+tail)
		r.commit("big")
		r.write("big.txt", head+secretLine(4)+"\n"+tail)
		r.commit("middle insert")
		r.write("big.txt", strings.Replace(head, "line 7 of", secretLine(5)+" line 7 of", 1)+secretLine(4)+"\n"+tail)
		r.commit("edit near the top")
	}},
	{"copies and submodules", func(r *repo) {
		r.write("orig.txt", filler(8, "e")+secretLine(6)+"\n")
		r.commit("orig")
		r.write("copy.txt", filler(8, "e")+secretLine(6)+"\n")
		r.commit("copy")
		r.git("update-index", "--add", "--cacheinfo", "160000,1234567890123456789012345678901234567890,vendor/lib")
		r.commit("submodule")
	}},
}

// repoFor builds scenario s in a fresh repository.
func repoFor(t *testing.T, s scenario) *repo {
	r := newRepo(t)
	s.build(r)
	return r
}

// parityDetector is gitleaks' default config compiled by spindle, from
// the module cache; the tests that use it skip when it is absent.
func parityDetector(t testing.TB) (scan.Detector, string) {
	t.Helper()
	modcache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	config := filepath.Join(strings.TrimSpace(string(modcache)), "github.com/zricethezav/gitleaks/v8@"+gitleaksVersion, "config", "gitleaks.toml")
	cfg, err := rules.LoadFile(config)
	if err != nil {
		t.Skipf("gitleaks' default config: %v", err)
	}
	// Decoding as gitleaks decodes (its kinds only), as the drop-in
	// spindle git does.
	det, err := rules.CompileWith(cfg, rules.Settings{GitleaksDecoding: true})
	if err != nil {
		t.Fatal(err)
	}
	return scan.Rules(det), config
}

// TestHistoryMatchesGitsPatches: on every scenario, the findings are
// those of scanning the fragments of git's own `git log -p -U0` (the
// patches gitleaks reads), finding for finding; and those of gitleaks
// itself when it is installed. The merges' own lines are the one
// difference, tagged.
func TestHistoryMatchesGitsPatches(t *testing.T) {
	det, config := parityDetector(t)
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			r := repoFor(t, s)
			got, merges := historyKeys(t, det, r.dir, Options{})
			want := referenceFindings(t, det, r.dir)
			if a, b := diffKeys(got, want); len(a) > 0 || len(b) > 0 {
				t.Errorf("in-process scan only: %v\ngit's patches only: %v", a, b)
			}
			if len(want) == 0 {
				t.Errorf("the scenario plants no finding")
			}
			// The same with a commit-graph, which the walk then reads
			// parents, trees and dates from.
			r.git("commit-graph", "write", "--reachable")
			withGraph, _ := historyKeys(t, det, r.dir, Options{})
			if a, b := diffKeys(withGraph, want); len(a) > 0 || len(b) > 0 {
				t.Errorf("with a commit-graph: in-process scan only: %v\ngit's patches only: %v", a, b)
			}
			if bin, _ := gitleaksBinary(); bin != "" {
				gl := gitleaksFindings(t, bin, config, r.dir)
				if a, b := diffKeys(got, gl); len(a) > 0 || len(b) > 0 {
					t.Errorf("spindle only: %v\ngitleaks only: %v", a, b)
				}
			}
			t.Logf("%d findings, %d more in merges", len(got), len(merges))
		})
	}
}

// historyKeys runs Scan and returns its findings, those tagged as made by
// a merge apart.
func historyKeys(t *testing.T, det scan.Detector, dir string, opts Options) (found, merges []key) {
	t.Helper()
	var mu sync.Mutex
	_, err := Scan(context.Background(), dir, opts, scan.Options{
		Detector: det, ArchiveDepth: scan.NoArchives, Workers: 2,
		OnFinding: func(f report.Finding) {
			merge := slices.Contains(f.Tags, report.TagMerge)
			k := key{f.Commit, f.File, f.Line, f.RuleID, f.Secret, tagsOf(slices.DeleteFunc(slices.Clone(f.Tags), func(t string) bool { return t == report.TagMerge }))}
			mu.Lock()
			defer mu.Unlock()
			if merge {
				merges = append(merges, k)
			} else {
				found = append(found, k)
			}
		},
		OnWarning: func(w scan.Warning) { t.Logf("warning: %v", w) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return sortKeys(found), sortKeys(merges)
}

// referenceFindings scans the fragments of `git log -p -U0 --full-history
// --all --diff-filter=tuxdb`, exactly the input gitleaks scans, with the
// same detector.
func referenceFindings(t *testing.T, det scan.Detector, dir string, logOpts ...string) []key {
	t.Helper()
	if logOpts == nil {
		logOpts = []string{"--full-history", "--all", "--diff-filter=tuxdb"}
	}
	args := append([]string{"-c", "core.quotePath=true", "log", "-p", "-U0", "--no-color", "--no-ext-diff",
		"--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", "--format=%x01%H"}, logOpts...)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git log -p: %v", err)
	}
	pr := newPatchReader(bytes.NewReader(out))
	src := &refSource{pr: pr}
	var (
		mu   sync.Mutex
		keys []key
	)
	_, err = scan.ScanSources(context.Background(), scan.Options{Detector: det, ArchiveDepth: scan.NoArchives,
		OnFinding: func(f report.Finding) {
			mu.Lock()
			keys = append(keys, key{f.Commit, f.File, f.Line, f.RuleID, f.Secret, tagsOf(f.Tags)})
			mu.Unlock()
		}}, src)
	if err != nil {
		t.Fatal(err)
	}
	return sortKeys(keys)
}

// refSource lists the fragments of git's patches as objects.
type refSource struct{ pr *patchReader }

func (s *refSource) Enumerate(_ context.Context, b *scan.Batch) (bool, error) {
	for range 64 {
		fp, err := s.pr.next()
		if err != nil {
			return false, err
		}
		if fp == nil {
			return false, nil
		}
		if fp.binary {
			continue
		}
		commit := string(fp.commit)
		for _, f := range fp.fragments {
			text := f.text
			b.Add(scan.Object{Name: fp.path, Size: int64(len(text)), Line: f.line,
				Expand: func(f report.Finding, emit func(report.Finding)) { f.Commit = commit; emit(f) },
				Open:   func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(text)), nil }})
		}
	}
	return true, nil
}

// TestPathRulesFireOncePerHunk: gitleaks reports a path-only rule once
// per fragment it scans, and in a history every hunk is a fragment, its
// added lines or none (a hunk that only removes lines): so a commit that
// changes such a file in three places is three findings, at line 0.
func TestPathRulesFireOncePerHunk(t *testing.T) {
	r := newRepo(t)
	r.write("x.cfg", "a\nb\nc\nd\ne\nf\n")
	r.commit("one")
	r.write("x.cfg", "a\nB\nc\nd\nf\nnew\n")
	r.commit("three hunks")
	r.write("x.cfg", "a\nB\nc\nnew\n")
	r.commit("a deletion only")
	const config = "[[rules]]\nid = \"cfg-file\"\ndescription = \"a cfg file\"\npath = '''\\.cfg$'''\n"
	cfg, err := rules.Parse([]byte(config), "path.toml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := rules.Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := historyKeys(t, scan.Rules(d), r.dir, Options{})
	count := map[string]int{}
	for _, k := range got {
		if k.Line != 0 || k.File != "x.cfg" {
			t.Errorf("finding %+v: want line 0 of x.cfg", k)
		}
		count[k.Commit]++
	}
	want := map[string]int{r.ids["one"]: 1, r.ids["three hunks"]: 3, r.ids["a deletion only"]: 1}
	if !maps.Equal(count, want) {
		t.Errorf("findings per commit %v, want %v", count, want)
	}
	if bin, err := gitleaksBinary(); err == nil {
		cfgPath := filepath.Join(t.TempDir(), "path.toml")
		os.WriteFile(cfgPath, []byte(config), 0o644)
		gl := gitleaksFindings(t, bin, cfgPath, r.dir)
		if a, b := diffKeys(got, gl); len(a) > 0 || len(b) > 0 || len(got) != len(gl) {
			t.Errorf("spindle only %v, gitleaks only %v (%d vs %d findings)", a, b, len(got), len(gl))
		}
	}
}

// TestLogOptsSelectWhatGitLogSelects: with --log-opts, the commits and
// the changes scanned are those of `git log -p -U0 <opts>` (gitleaks'
// command then), for ranges, exclusions, ref families, dates, merges,
// first parents, counts, identities, diff filters and paths.
func TestLogOptsSelectWhatGitLogSelects(t *testing.T) {
	det, _ := parityDetector(t)
	r := newRepo(t)
	scenarios[5].build(r) // merges, conflict resolutions, an octopus
	r.git("tag", "v1")
	r.write("later/one.txt", secretLine(1)+"\n")
	r.commit("later one")
	r.git("checkout", "-q", "-b", "topic", "v1")
	r.write("topic.txt", secretLine(2)+"\n")
	r.commit("topic")
	r.git("checkout", "-q", "main")
	r.write("later/two.txt", secretLine(3)+"\n"+secretLine(4)+"\n")
	r.commit("later two")
	for _, opts := range [][]string{
		{"--all"},
		{"v1..main"},
		{"main", "^v1"},
		{"main...topic"},
		{"--branches", "--not", "--tags"},
		{"--tags"},
		{"--since=2026-01-02T03:04:20Z", "--all"},
		{"--until=2026-01-02T03:04:15Z", "--all"},
		{"--no-merges", "--all"},
		{"--first-parent", "main"},
		{"--max-count=3", "--all"},
		{"-n", "2", "main"},
		{"--skip=2", "main"},
		{"--author=Ada", "--all"},
		{"--diff-filter=A", "--all"},
		{"--all", "--", "later"},
		{"--no-renames", "--all"},
	} {
		t.Run(strings.Join(opts, " "), func(t *testing.T) {
			got, _ := historyKeys(t, det, r.dir, Options{LogOpts: opts})
			want := referenceFindings(t, det, r.dir, opts...)
			t.Logf("%d findings", len(got))
			if a, b := diffKeys(got, want); len(a) > 0 || len(b) > 0 || len(got) != len(want) {
				t.Errorf("spindle only %v\ngit log -p only %v (%d vs %d)", a, b, len(got), len(want))
			}
		})
	}
}

// TestRandomHistoriesMatchGit: histories built at random from edits that
// stress git's diff and rename detection (files made of few distinct
// lines, secrets among them, renames and moves with and without edits,
// files of the same name in several directories, deletions, re-creations,
// branches and merges) give the findings of git's own patches.
func TestRandomHistoriesMatchGit(t *testing.T) {
	det, _ := parityDetector(t)
	n := 12
	if testing.Short() {
		n = 2
	}
	for seed := range n {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := newRepo(t)
			rng := rand.New(rand.NewPCG(uint64(seed), 99))
			lines := []string{"a\n", "b\n", "\n", "  x = 1\n", "}\n", "{\n", secretLine(seed) + "\n", secretLine(seed+3) + "\n", "config:\n"}
			files := map[string][]string{}
			dirs := []string{"", "src/", "lib/", "src/sub/"}
			names := []string{"conf.txt", "app.env", "main.go", "notes.md"}
			randomFile := func() []string {
				var f []string
				for range 3 + rng.IntN(25) {
					f = append(f, lines[rng.IntN(len(lines))])
				}
				return f
			}
			write := func(p string, content []string) {
				files[p] = content
				r.write(p, strings.Join(content, ""))
			}
			pick := func() string {
				keys := slices.Sorted(maps.Keys(files))
				if len(keys) == 0 {
					return ""
				}
				return keys[rng.IntN(len(keys))]
			}
			for c := range 15 {
				for range 1 + rng.IntN(3) {
					switch op := rng.IntN(6); {
					case op == 0 || len(files) == 0:
						write(dirs[rng.IntN(len(dirs))]+names[rng.IntN(len(names))], randomFile())
					case op <= 2:
						p := pick()
						f := slices.Clone(files[p])
						for range 1 + rng.IntN(3) {
							at := rng.IntN(len(f) + 1)
							switch rng.IntN(3) {
							case 0:
								f = slices.Insert(f, at, lines[rng.IntN(len(lines))])
							case 1:
								if at < len(f) {
									f = slices.Delete(f, at, at+1)
								}
							default:
								if at < len(f) {
									f[at] = lines[rng.IntN(len(lines))]
								}
							}
						}
						write(p, f)
					case op == 3:
						p := pick()
						to := dirs[rng.IntN(len(dirs))] + names[rng.IntN(len(names))]
						if _, ok := files[to]; ok || to == p {
							continue
						}
						os.MkdirAll(filepath.Dir(filepath.Join(r.dir, to)), 0o755)
						r.git("mv", p, to)
						f := files[p]
						delete(files, p)
						if rng.IntN(2) == 0 && len(f) > 0 {
							f = append(slices.Clone(f), lines[rng.IntN(len(lines))])
						}
						write(to, f)
					case op == 4:
						p := pick()
						r.git("rm", "-q", "-f", p)
						delete(files, p)
					default:
						if _, err := r.try("rev-parse", "--verify", "-q", fmt.Sprintf("b%d", c)); c%5 == 4 && err != nil {
							r.git("checkout", "-q", "-b", fmt.Sprintf("b%d", c))
							write("branch.txt", randomFile())
							r.commit(fmt.Sprintf("branch %d", c))
							r.git("checkout", "-q", "main")
							if _, err := r.try("merge", "-q", "--no-edit", fmt.Sprintf("b%d", c)); err != nil {
								r.git("merge", "--abort")
							}
						}
					}
				}
				r.commit(fmt.Sprintf("c%d", c))
			}
			got, _ := historyKeys(t, det, r.dir, Options{})
			want := referenceFindings(t, det, r.dir)
			if a, b := diffKeys(got, want); len(a) > 0 || len(b) > 0 || len(got) != len(want) {
				t.Errorf("spindle only %v\ngit's patches only %v (%d vs %d)", a, b, len(got), len(want))
			}
		})
	}
}

// TestReplaceRefsAsGitSeesThem: a commit replaced through refs/replace is
// read as its replacement, as every git command reads it (and with
// GIT_NO_REPLACE_OBJECTS set, as itself), the findings matching git's
// own patches either way.
func TestReplaceRefsAsGitSeesThem(t *testing.T) {
	det, _ := parityDetector(t)
	r := newRepo(t)
	r.write("a.txt", secretLine(0)+"\n")
	r.commit("one")
	r.write("b.txt", secretLine(1)+"\n")
	orig := r.commit("two")
	r.git("checkout", "-q", "--detach", "HEAD~1")
	r.write("c.txt", secretLine(2)+"\n")
	repl := r.commit("replacement")
	r.git("checkout", "-q", "main")
	r.git("replace", orig, repl)
	for _, noReplace := range []string{"", "1"} {
		if noReplace != "" {
			t.Setenv("GIT_NO_REPLACE_OBJECTS", noReplace)
		}
		got, _ := historyKeys(t, det, r.dir, Options{})
		want := referenceFindings(t, det, r.dir)
		if a, b := diffKeys(got, want); len(a) > 0 || len(b) > 0 || len(got) != len(want) {
			t.Errorf("GIT_NO_REPLACE_OBJECTS=%q: spindle only %v\ngit's patches only %v", noReplace, a, b)
		}
		var files []string
		for _, k := range got {
			files = append(files, k.File)
		}
		t.Logf("GIT_NO_REPLACE_OBJECTS=%q: %v", noReplace, files)
	}
}
