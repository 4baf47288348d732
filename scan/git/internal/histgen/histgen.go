// Package histgen generates git histories for tests and benchmarks of
// history scans: many commits, files of every size edited often, branches
// and merges, and planted secrets that are added, moved, deleted, renamed
// and re-added, in formats real rule sets (gitleaks' defaults, Spindle's
// built-in rules) detect. A history is written with one `git fast-import`
// process, so tens of thousands of commits take seconds; the same Params
// (seed included) always give the same repository, commit ids included.
package histgen

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
)

// Params shape a history.
type Params struct {
	Seed    uint64
	Commits int // on the main line, merges included
	Files   int // text files at the start
	// LineBytes is the typical line length; FileLines the typical file
	// length in lines. BigFiles files are BigLines lines long, and one of
	// them is edited in BigEvery commits out of a hundred.
	LineBytes, FileLines  int
	BigFiles, BigLines    int
	BigEvery              int
	EditsPerCommit        int // files changed by a commit
	SecretEvery           int // one commit in SecretEvery plants a secret
	MergeEvery            int // one commit in MergeEvery merges a side branch (0: none)
	RenameEvery, DelEvery int // one commit in N renames / deletes a file (0: never)
	// KeywordEvery makes one line in N hold a rule's keyword (half of
	// them a secret too): the history of a repository full of
	// credentials and configuration. 0: only planted secrets.
	KeywordEvery int
}

// Small is a history for tests: a few hundred commits.
var Small = Params{Seed: 1, Commits: 300, Files: 40, LineBytes: 40, FileLines: 60,
	BigFiles: 1, BigLines: 2000, BigEvery: 30, EditsPerCommit: 3, SecretEvery: 7,
	MergeEvery: 25, RenameEvery: 20, DelEvery: 15}

// Dense is a secret-dense history: a third of its lines hold keywords or
// secrets, so that almost every change must be diffed and scanned.
var Dense = Params{Seed: 3, Commits: 3000, Files: 300, LineBytes: 40, FileLines: 60,
	BigFiles: 1, BigLines: 3000, BigEvery: 20, EditsPerCommit: 3, SecretEvery: 5,
	MergeEvery: 40, RenameEvery: 30, DelEvery: 25, KeywordEvery: 3}

// Large is the benchmark's history: tens of thousands of commits.
var Large = Params{Seed: 2, Commits: 20000, Files: 2000, LineBytes: 48, FileLines: 150,
	BigFiles: 4, BigLines: 12000, BigEvery: 20, EditsPerCommit: 4, SecretEvery: 9,
	MergeEvery: 50, RenameEvery: 40, DelEvery: 30}

type file struct {
	path  string
	lines []string
}

type gen struct {
	p     Params
	rnd   *rand.Rand
	w     *bufio.Writer
	mark  int
	files []*file
	dead  []*file // deleted files, re-added later with their content
	time  int64
	n     int
}

// Generate writes a history into a new bare repository at dir (which must
// not exist, or be empty) and returns the number of commits written.
func Generate(dir string, p Params) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", dir).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("git init: %v: %s", err, out)
	}
	cmd := exec.Command("git", "--git-dir="+dir, "fast-import", "--quiet", "--done")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	g := &gen{p: p, rnd: rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15)), w: bufio.NewWriterSize(in, 1<<20), time: 1700000000}
	werr := g.run()
	if err := g.w.Flush(); werr == nil {
		werr = err
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return 0, fmt.Errorf("git fast-import: %v: %s", err, stderr.String())
	}
	if werr != nil {
		return 0, werr
	}
	// A gc packs the history as a clone would have it: deltas and all.
	if out, err := exec.Command("git", "--git-dir="+dir, "gc", "-q").CombinedOutput(); err != nil {
		return 0, fmt.Errorf("git gc: %v: %s", err, out)
	}
	return g.n, nil
}

func (g *gen) run() error {
	for i := range g.p.Files {
		g.files = append(g.files, &file{path: g.path(i), lines: g.text(g.p.FileLines/2 + g.rnd.IntN(g.p.FileLines+1))})
	}
	for i := range g.p.BigFiles {
		g.files = append(g.files, &file{path: fmt.Sprintf("data/big%d.log", i), lines: g.text(g.p.BigLines)})
	}
	// The first commit adds every file.
	g.commit("refs/heads/main", "initial import", 0, g.files, nil)
	main := g.mark
	for g.n < g.p.Commits {
		if g.p.MergeEvery > 0 && g.n%g.p.MergeEvery == g.p.MergeEvery-1 {
			main = g.branchAndMerge(main)
			continue
		}
		g.commit("refs/heads/main", g.message(), main, g.edit(), nil)
		main = g.mark
	}
	fmt.Fprintf(g.w, "reset refs/tags/v1\nfrom :%d\n\ndone\n", main)
	return nil
}

// branchAndMerge commits twice on a side branch and merges it back; the
// merge itself changes a file (as a conflict resolution would).
func (g *gen) branchAndMerge(main int) int {
	ref := fmt.Sprintf("refs/heads/side%d", g.n)
	g.commit(ref, "side: "+g.message(), main, g.edit(), nil)
	side := g.mark
	g.commit(ref, "side: "+g.message(), side, g.edit(), nil)
	side = g.mark
	g.commit("refs/heads/main", g.message(), main, g.edit(), nil)
	main = g.mark
	f := g.files[g.rnd.IntN(len(g.files))]
	f.lines = append(f.lines, "resolved = "+g.secret())
	g.commit("refs/heads/main", "Merge branch side", main, []*file{f}, []int{side})
	return g.mark
}

// edit changes a few files (and sometimes renames, deletes or re-adds
// one), and returns what to write.
func (g *gen) edit() []*file {
	var touched []*file
	for range g.p.EditsPerCommit {
		f := g.files[g.rnd.IntN(g.p.Files)]
		g.editLines(f, 1+g.rnd.IntN(4))
		touched = append(touched, f)
	}
	if g.p.BigFiles > 0 && g.rnd.IntN(100) < g.p.BigEvery {
		f := g.files[g.p.Files+g.rnd.IntN(g.p.BigFiles)]
		g.editLines(f, 1+g.rnd.IntN(8))
		touched = append(touched, f)
	}
	if g.p.SecretEvery > 0 && g.rnd.IntN(g.p.SecretEvery) == 0 {
		f := g.files[g.rnd.IntN(len(g.files))]
		at := g.rnd.IntN(len(f.lines) + 1)
		f.lines = append(f.lines[:at], append([]string{g.secretLine()}, f.lines[at:]...)...)
		touched = append(touched, f)
	}
	return touched
}

func (g *gen) editLines(f *file, n int) {
	for range n {
		switch k := g.rnd.IntN(3); {
		case k == 0 || len(f.lines) < 4:
			at := g.rnd.IntN(len(f.lines) + 1)
			f.lines = append(f.lines[:at], append([]string{g.line()}, f.lines[at:]...)...)
		case k == 1:
			at := g.rnd.IntN(len(f.lines))
			f.lines = append(f.lines[:at], f.lines[at+1:]...)
		default:
			f.lines[g.rnd.IntN(len(f.lines))] = g.line()
		}
	}
}

func (g *gen) commit(ref, msg string, parent int, files []*file, merges []int) {
	marks := make(map[*file]int, len(files))
	for _, f := range files {
		if _, ok := marks[f]; ok {
			continue
		}
		g.mark++
		content := strings.Join(f.lines, "\n") + "\n"
		fmt.Fprintf(g.w, "blob\nmark :%d\ndata %d\n%s\n", g.mark, len(content), content)
		marks[f] = g.mark
	}
	var ops []string
	if g.p.RenameEvery > 0 && parent != 0 && g.rnd.IntN(g.p.RenameEvery) == 0 {
		f := g.files[g.rnd.IntN(g.p.Files)]
		old := f.path
		f.path = fmt.Sprintf("moved/%d/%s", g.n, old[strings.LastIndexByte(old, '/')+1:])
		ops = append(ops, fmt.Sprintf("R %s %s", old, f.path))
	}
	if g.p.DelEvery > 0 && parent != 0 && g.rnd.IntN(g.p.DelEvery) == 0 {
		if len(g.dead) > 0 && g.rnd.IntN(2) == 0 {
			// Re-add a deleted file, secrets and all.
			f := g.dead[len(g.dead)-1]
			g.dead = g.dead[:len(g.dead)-1]
			g.mark++
			content := strings.Join(f.lines, "\n") + "\n"
			fmt.Fprintf(g.w, "blob\nmark :%d\ndata %d\n%s\n", g.mark, len(content), content)
			ops = append(ops, fmt.Sprintf("M 100644 :%d %s", g.mark, f.path))
		} else {
			i := g.rnd.IntN(g.p.Files)
			f := *g.files[i]
			if _, edited := marks[g.files[i]]; !edited {
				g.dead = append(g.dead, &f)
				ops = append(ops, "D "+f.path)
				// The slot gets a new file, so the set keeps its size.
				g.files[i] = &file{path: g.path(g.p.Files + g.n), lines: g.text(g.p.FileLines)}
				g.mark++
				content := strings.Join(g.files[i].lines, "\n") + "\n"
				fmt.Fprintf(g.w, "blob\nmark :%d\ndata %d\n%s\n", g.mark, len(content), content)
				ops = append(ops, fmt.Sprintf("M 100644 :%d %s", g.mark, g.files[i].path))
			}
		}
	}
	g.mark++
	g.time += 60 + int64(g.rnd.IntN(3600))
	fmt.Fprintf(g.w, "commit %s\nmark :%d\nauthor Dev %d <dev%d@example.com> %d +0000\ncommitter Dev <dev@example.com> %d +0000\ndata %d\n%s\n",
		ref, g.mark, g.n%7, g.n%7, g.time, g.time, len(msg), msg)
	if parent != 0 {
		fmt.Fprintf(g.w, "from :%d\n", parent)
	}
	for _, m := range merges {
		fmt.Fprintf(g.w, "merge :%d\n", m)
	}
	// Renames and deletions first: an edit of a renamed file writes its
	// new path.
	for _, op := range ops {
		fmt.Fprintln(g.w, op)
	}
	for f, m := range marks {
		fmt.Fprintf(g.w, "M 100644 :%d %s\n", m, f.path)
	}
	fmt.Fprintln(g.w)
	g.n++
}

var words = strings.Fields("the quick brown fox jumps over lazy dog request handler config server client value result error context buffer index token parse write read close open listen route module import return func var const struct")

func (g *gen) path(i int) string {
	dirs := []string{"cmd", "internal/app", "internal/store", "pkg/api", "docs", "web/static", "config"}
	exts := []string{".go", ".md", ".yaml", ".js", ".py", ".txt", ".json"}
	return fmt.Sprintf("%s/f%05d%s", dirs[i%len(dirs)], i, exts[(i/7)%len(exts)])
}

func (g *gen) line() string {
	if g.p.KeywordEvery > 0 && g.rnd.IntN(g.p.KeywordEvery) == 0 {
		if g.rnd.IntN(2) == 0 {
			return g.secretLine()
		}
		keys := []string{"password", "api_key", "secret", "token", "auth", "credentials", "access_key"}
		return keys[g.rnd.IntN(len(keys))] + " = " + words[g.rnd.IntN(len(words))]
	}
	var b strings.Builder
	for b.Len() < g.p.LineBytes/2+g.rnd.IntN(g.p.LineBytes+1) {
		b.WriteString(words[g.rnd.IntN(len(words))])
		b.WriteByte(' ')
	}
	return strings.TrimSpace(b.String())
}

func (g *gen) text(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = g.line()
	}
	return lines
}

func (g *gen) message() string {
	return "change " + g.line()
}

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	hexdig = "0123456789abcdef"
)

func (g *gen) pick(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.rnd.IntN(len(alphabet))]
	}
	return string(b)
}

// secret is a token in a format both gitleaks' default rules and
// Spindle's built-in rules report, with a random body.
func (g *gen) secret() string {
	switch g.rnd.IntN(3) {
	case 0:
		return "AKIA" + g.pick(upper, 16)
	case 1:
		return "glpat-" + g.pick(alnum, 20)
	default:
		return "sk_live_" + g.pick(alnum, 24)
	}
}

func (g *gen) secretLine() string {
	switch g.rnd.IntN(3) {
	case 0:
		return "aws_access_key_id = " + g.secret()
	case 1:
		return `token: "` + g.secret() + `"`
	default:
		return "export API_TOKEN=" + g.secret()
	}
}
