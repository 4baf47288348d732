package odb

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

// requireGit skips the test when git is not installed.
func requireGit(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git not installed")
	}
}

// gitEnv makes test commits reproducible and independent of the user's
// configuration.
var gitEnv = []string{
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent",
	"GIT_AUTHOR_NAME=A U Thor", "GIT_AUTHOR_EMAIL=author@example.com",
	"GIT_COMMITTER_NAME=C O Mitter", "GIT_COMMITTER_EMAIL=committer@example.com",
	"GIT_AUTHOR_DATE=1700000000 +0100", "GIT_COMMITTER_DATE=1700000000 +0100",
}

// git runs git in dir and returns its standard output.
func git(tb testing.TB, dir string, stdin []byte, args ...string) []byte {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// newRepo creates an empty repository in a temporary directory; bare
// repositories have no work tree.
func newRepo(tb testing.TB, bare bool) string {
	tb.Helper()
	requireGit(tb)
	dir := tb.TempDir()
	args := []string{"init", "-q", "-b", "main"}
	if bare {
		args = append(args, "--bare")
	}
	git(tb, dir, nil, append(args, ".")...)
	return dir
}

// object is what git cat-file says an object is.
type object struct {
	typ  string
	data []byte
}

// catFileAll returns every object of the repository at dir (packed,
// loose, in alternates) as git reads it.
func catFileAll(tb testing.TB, dir string) map[ID]object {
	tb.Helper()
	out := git(tb, dir, nil, "cat-file", "--batch-all-objects", "--batch")
	objs := map[ID]object{}
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			return objs
		}
		if err != nil {
			tb.Fatal(err)
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			tb.Fatalf("cat-file: %q", line)
		}
		id, err := ParseID(f[0])
		if err != nil {
			tb.Fatal(err)
		}
		n, _ := strconv.Atoi(f[2])
		data := make([]byte, n+1)
		if _, err := io.ReadFull(r, data); err != nil {
			tb.Fatal(err)
		}
		objs[id] = object{f[1], data[:n]}
	}
}

// checkAll reads every object git knows with Read, Header and Reader, and
// fails on the first difference.
func checkAll(tb testing.TB, db *DB, want map[ID]object) {
	tb.Helper()
	if len(want) == 0 {
		tb.Fatal("no objects to compare")
	}
	for id, o := range want {
		typ, data, err := db.Read(id, nil)
		if err != nil {
			tb.Fatalf("Read %s: %v", id, err)
		}
		if typ.String() != o.typ || !bytes.Equal(data, o.data) {
			tb.Fatalf("Read %s: %s of %d bytes, git says %s of %d", id, typ, len(data), o.typ, len(o.data))
		}
		ht, hs, err := db.Header(id)
		if err != nil || ht != typ || hs != int64(len(o.data)) {
			tb.Fatalf("Header %s: %s %d %v, git says %s %d", id, ht, hs, err, o.typ, len(o.data))
		}
	}
}

// writeFiles writes files (path → content) under dir.
func writeFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// fastImport builds history in the repository at dir with git
// fast-import: commits commits on main (continuing main if it exists),
// each editing one to three of files files of about lines lines, with
// lines changed, added and removed, so that git makes delta chains of
// each file's versions. The content is the same for the same arguments.
func fastImport(tb testing.TB, dir string, commits, files, lines int) {
	tb.Helper()
	parent := ""
	if out, err := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", "refs/heads/main").Output(); err == nil {
		parent = strings.TrimSpace(string(out))
	}
	var b bytes.Buffer
	rng := uint64(0x9e3779b97f4a7c15)
	for _, c := range parent { // a continued history gets new content
		rng = rng*31 + uint64(c)
	}
	next := func(n int) int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}
	content := make([][]string, files)
	for i := range content {
		for j := range lines {
			content[i] = append(content[i], fmt.Sprintf("line %d of file %d: %x", j, i, next(1<<30)))
		}
	}
	for c := range commits {
		fmt.Fprintf(&b, "commit refs/heads/main\nmark :%d\n", c+1)
		fmt.Fprintf(&b, "author A U Thor <author@example.com> %d +0000\n", 1600000000+c*60)
		fmt.Fprintf(&b, "committer C O Mitter <committer@example.com> %d +0000\n", 1600000000+c*60)
		msg := fmt.Sprintf("commit %d\n\nbody of commit %d\n", c, c)
		fmt.Fprintf(&b, "data %d\n%s", len(msg), msg)
		if c > 0 {
			fmt.Fprintf(&b, "from :%d\n", c)
		} else if parent != "" {
			fmt.Fprintf(&b, "from %s\n", parent)
		}
		for range 1 + next(3) {
			f := next(files)
			lines := content[f]
			switch k := next(len(lines) + 1); next(3) {
			case 0:
				if k < len(lines) {
					lines[k] = fmt.Sprintf("edited in %d: %x", c, next(1<<30))
				}
			case 1:
				lines = append(lines[:k], append([]string{fmt.Sprintf("added in %d", c)}, lines[k:]...)...)
			default:
				if k < len(lines) && len(lines) > 1 {
					lines = append(lines[:k], lines[k+1:]...)
				}
			}
			content[f] = lines
			data := strings.Join(lines, "\n") + "\n"
			fmt.Fprintf(&b, "M 100644 inline dir%d/file%d.txt\ndata %d\n%s\n", f%7, f, len(data), data)
		}
	}
	git(tb, dir, b.Bytes(), "fast-import", "--quiet")
}

// chainImport builds history in which each of commits commits rewrites
// one line of a file of n lines, in turn: each version is nearest to the
// one before and after it, so a repack with a large --depth makes one
// delta chain about half as deep as the history. (git accepts a deeper
// base only for a smaller delta; the longer the file, the deeper chains
// get before that stops them.)
func chainImport(tb testing.TB, dir string, commits, n int) {
	tb.Helper()
	var b bytes.Buffer
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %04d: %08x\n", i, 0)
	}
	for c := range commits {
		lines[c%len(lines)] = fmt.Sprintf("line %04d: %08x\n", c%len(lines), c+1)
		content := strings.Join(lines, "")
		fmt.Fprintf(&b, "commit refs/heads/main\nmark :%d\n", c+1)
		fmt.Fprintf(&b, "committer C O Mitter <committer@example.com> %d +0000\ndata 0\n", 1600000000+c)
		if c > 0 {
			fmt.Fprintf(&b, "from :%d\n", c)
		}
		fmt.Fprintf(&b, "M 100644 inline chain.txt\ndata %d\n%s\n", len(content), content)
	}
	git(tb, dir, b.Bytes(), "fast-import", "--quiet")
}

// openRepo opens the object database of the repository at dir: a work
// tree's .git/objects, else dir/objects (a bare repository or a git
// directory).
func openRepo(dir string, opt Options) (*DB, error) {
	objects := filepath.Join(dir, ".git", "objects")
	if _, err := os.Stat(objects); err != nil {
		objects = filepath.Join(dir, "objects")
	}
	return Open(objects, opt)
}
