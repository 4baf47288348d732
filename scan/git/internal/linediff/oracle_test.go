package linediff

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// This file asks the git on PATH for its hunks: the oracle the tests hold
// Diff to. Pairs are diffed in bulk, one fast-import and one diff-tree per
// batch, so thousands of pairs cost a second or two.

// pair is one diff to check: old and new content, and a name for failures.
type pair struct {
	name string
	a, b []byte
}

// needGit skips t when git is not on PATH.
func needGit(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not on PATH")
	}
	return path
}

// gitEnv is an environment that keeps the user's and system's git
// configuration out of the comparison.
func gitEnv(home string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"LC_ALL=C",
	)
}

// gitCmd runs git in dir with a clean environment and returns its stdout.
func gitCmd(t testing.TB, dir string, stdin io.Reader, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(t.TempDir())
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// gitDiffFlags are the options that pin git's diff to the defaults Diff
// implements, whatever a configuration says.
var gitDiffFlags = []string{"--no-ext-diff", "--no-textconv",
	"--diff-algorithm=myers", "--indent-heuristic", "-U0"}

// gitHunks returns git's hunks for each pair (nil where the contents are
// equal), and whether git called each pair binary.
func gitHunks(t testing.TB, pairs []pair) ([][]Hunk, []bool) {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	gitCmd(t, dir, nil, "init", "-q", "--bare", ".")

	var stream bytes.Buffer
	for side := range 2 {
		fmt.Fprintf(&stream, "commit refs/heads/side%d\ncommitter t <t@t> 0 +0000\ndata 0\n", side)
		for i, p := range pairs {
			data := p.a
			if side == 1 {
				data = p.b
			}
			fmt.Fprintf(&stream, "M 100644 inline f/%06d\ndata %d\n", i, len(data))
			stream.Write(data)
			stream.WriteByte('\n')
		}
	}
	gitCmd(t, dir, &stream, "fast-import", "--quiet")
	args := append([]string{"diff-tree", "-r", "-p", "--no-renames"}, gitDiffFlags...)
	out := gitCmd(t, dir, nil, append(args, "side0", "side1")...)

	hunks := make([][]Hunk, len(pairs))
	binary := make([]bool, len(pairs))
	cur := -1
	for line := range bytes.Lines(out) {
		switch {
		case bytes.HasPrefix(line, []byte("diff --git a/f/")):
			n, err := strconv.Atoi(string(line[len("diff --git a/f/") : len("diff --git a/f/")+6]))
			if err != nil {
				t.Fatalf("diff-tree: bad header %q", line)
			}
			cur = n
			hunks[cur] = []Hunk{}
		case bytes.HasPrefix(line, []byte("@@ -")):
			h, err := parseHunkHeader(line)
			if err != nil || cur < 0 {
				t.Fatalf("diff-tree: %v in %q", err, line)
			}
			hunks[cur] = append(hunks[cur], h)
		case bytes.HasPrefix(line, []byte("Binary files ")):
			binary[cur] = true
		}
	}
	return hunks, binary
}

// parseHunkHeader reads `@@ -s[,c] +t[,d] @@...` into a Hunk.
func parseHunkHeader(line []byte) (Hunk, error) {
	f := strings.Fields(string(line))
	if len(f) < 4 || f[0] != "@@" || f[3] != "@@" {
		return Hunk{}, fmt.Errorf("not a hunk header")
	}
	os, oc, err1 := parseRange(f[1], '-')
	ns, nc, err2 := parseRange(f[2], '+')
	if err1 != nil || err2 != nil {
		return Hunk{}, fmt.Errorf("bad range")
	}
	return Hunk{os, oc, ns, nc}, nil
}

// parseRange reads git's `-s,c` (or `-s`, count 1) into a 0-based start
// and a count; an empty range names the line before the gap.
func parseRange(s string, sign byte) (int, int, error) {
	if len(s) < 2 || s[0] != sign {
		return 0, 0, fmt.Errorf("bad range %q", s)
	}
	s = s[1:]
	count := 1
	if i := strings.IndexByte(s, ','); i >= 0 {
		c, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return 0, 0, err
		}
		count = c
		s = s[:i]
	}
	start, err := strconv.Atoi(s)
	if err != nil {
		return 0, 0, err
	}
	if count > 0 {
		start--
	}
	return start, count, nil
}

// formatHunks writes hunks as git's headers, one a line.
func formatHunks(hunks []Hunk) string {
	var b strings.Builder
	for _, h := range hunks {
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", formatRange(h.OldStart, h.OldLines), formatRange(h.NewStart, h.NewLines))
	}
	return b.String()
}

func formatRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if count == 1 {
		return strconv.Itoa(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

// compareWithGit diffs every pair with Diff and with git and reports each
// difference; it returns how many pairs differed.
func compareWithGit(t *testing.T, pairs []pair) int {
	t.Helper()
	want, binary := gitHunks(t, pairs)
	var d Differ
	bad := 0
	for i, p := range pairs {
		if binary[i] {
			if !IsBinary(p.a) && !IsBinary(p.b) {
				t.Errorf("%s: git says binary, IsBinary does not", p.name)
			}
			continue
		}
		got := d.Diff(p.a, p.b, nil)
		if formatHunks(got) != formatHunks(want[i]) {
			bad++
			if bad <= 5 {
				t.Errorf("%s: hunks differ from git's\n got: %s\nwant: %s", p.name, formatHunks(got), formatHunks(want[i]))
				dumpPair(t, p)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d pairs differ from git", bad, len(pairs))
	}
	return bad
}

// dumpPair writes a failing pair where LINEDIFF_DUMP points, for a case
// file or a closer look.
func dumpPair(t *testing.T, p pair) {
	dir := os.Getenv("LINEDIFF_DUMP")
	if dir == "" {
		return
	}
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' {
			return '_'
		}
		return r
	}, p.name)
	os.WriteFile(filepath.Join(dir, name+".a"), p.a, 0o644)
	os.WriteFile(filepath.Join(dir, name+".b"), p.b, 0o644)
}

// readBlobs reads the named blobs of repo with one cat-file process.
func readBlobs(t testing.TB, repo string, ids []string) map[string][]byte {
	t.Helper()
	cmd := exec.Command("git", "-C", repo, "cat-file", "--batch")
	cmd.Env = gitEnv(t.TempDir())
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	blobs := make(map[string][]byte, len(ids))
	r := bufio.NewReaderSize(out, 1<<20)
	for range ids {
		hdr, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("cat-file: %v", err)
		}
		f := strings.Fields(hdr)
		if len(f) != 3 {
			t.Fatalf("cat-file: %q", hdr)
		}
		size, _ := strconv.Atoi(f[2])
		data := make([]byte, size+1)
		if _, err := io.ReadFull(r, data); err != nil {
			t.Fatalf("cat-file: %v", err)
		}
		blobs[f[0]] = data[:size]
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("cat-file: %v", err)
	}
	return blobs
}

// historyPairs returns the (old, new) blob pairs of every file change of
// repo's history (at most maxCommits commits, all when 0; merges against
// each parent; renamed files with their sources), each with git's hunks and whether git called it binary, from one
// `git log -p` and one cat-file.
func historyPairs(t testing.TB, repo string, maxCommits int) ([]pair, [][]Hunk, []bool) {
	t.Helper()
	args := append([]string{"log", "--all", "-p", "--full-index", "--format=format:commit %H"}, gitDiffFlags...)
	// Renames pair a file's versions across a move; -m diffs merges
	// against each parent.
	args = append(args, "-M", "-m")
	if maxCommits > 0 {
		args = append(args, "--max-count="+strconv.Itoa(maxCommits))
	}
	out := gitCmd(t, repo, nil, args...)

	type section struct {
		commit, path, old, new string
		hunks                  []Hunk
		binary, skip           bool
	}
	var secs []*section
	var cur *section
	commit := ""
	for line := range bytes.Lines(out) {
		s := string(bytes.TrimSuffix(line, []byte("\n")))
		switch {
		case strings.HasPrefix(s, "commit "):
			commit = s[len("commit "):]
			cur = nil
		case strings.HasPrefix(s, "diff --git "):
			cur = &section{commit: commit, path: s[len("diff --git "):], hunks: []Hunk{}}
			secs = append(secs, cur)
		case cur == nil:
		case strings.HasPrefix(s, "@@ -"):
			h, err := parseHunkHeader(line)
			if err != nil {
				t.Fatalf("git log: %v in %q", err, s)
			}
			cur.hunks = append(cur.hunks, h)
		case len(cur.hunks) > 0:
			// A line of a hunk's text.
		case strings.HasPrefix(s, "index "):
			f := strings.Fields(s)
			ids := strings.SplitN(f[1], "..", 2)
			if len(ids) != 2 {
				t.Fatalf("git log: %q", s)
			}
			cur.old, cur.new = ids[0], ids[1]
			if len(f) > 2 && f[2] == "160000" {
				cur.skip = true
			}
		case strings.HasSuffix(s, " mode 160000"):
			cur.skip = true // a submodule: no blobs
		case strings.HasPrefix(s, "Binary files "):
			cur.binary = true
		}
	}

	var ids []string
	for _, sec := range secs {
		for _, id := range []string{sec.old, sec.new} {
			if id != "" && strings.Trim(id, "0") != "" {
				ids = append(ids, id)
			}
		}
	}
	blobs := readBlobs(t, repo, ids)
	var pairs []pair
	var hunks [][]Hunk
	var binary []bool
	for _, sec := range secs {
		if sec.skip || sec.old == "" {
			continue // a mode change or a pure rename: no content diff
		}
		pairs = append(pairs, pair{sec.commit[:12] + " " + sec.path, blobs[sec.old], blobs[sec.new]})
		hunks = append(hunks, sec.hunks)
		binary = append(binary, sec.binary)
	}
	return pairs, hunks, binary
}

// compareHistory diffs every file change of repo's history with Diff and
// checks the hunks against git's.
func compareHistory(t *testing.T, repo string, maxCommits int) {
	pairs, want, binary := historyPairs(t, repo, maxCommits)
	var d Differ
	bad, hunks, bins := 0, 0, 0
	for i, p := range pairs {
		if binary[i] {
			bins++
			if !IsBinary(p.a) && !IsBinary(p.b) {
				t.Errorf("%s: git says binary, IsBinary does not", p.name)
			}
			continue
		}
		if IsBinary(p.a) || IsBinary(p.b) {
			t.Errorf("%s: IsBinary says binary, git does not", p.name)
		}
		got := d.Diff(p.a, p.b, nil)
		hunks += len(got)
		if formatHunks(got) != formatHunks(want[i]) {
			bad++
			if bad <= 5 {
				t.Errorf("%s: hunks differ from git's\n got: %s\nwant: %s", p.name, formatHunks(got), formatHunks(want[i]))
				dumpPair(t, p)
			}
		}
	}
	t.Logf("%s: %d file changes (%d binary), %d hunks, %d differ from git", repo, len(pairs), bins, hunks, bad)
	if len(pairs) == 0 {
		t.Errorf("%s: no file changes read", repo)
	}
}
