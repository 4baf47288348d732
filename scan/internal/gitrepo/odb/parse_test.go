package odb

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestParseCommitMatchesGit parses the commits of a history with merges,
// odd zones, encodings and signature headers, and compares each field
// with what git log prints.
func TestParseCommitMatchesGit(t *testing.T) {
	dir := newRepo(t, false)
	commit := func(msg string, env ...string) {
		t.Helper()
		writeFiles(t, dir, map[string]string{"f.txt": msg})
		git(t, dir, nil, "add", "-A")
		cmd := []string{"-c", "core.hooksPath=/dev/null"}
		for _, e := range env {
			cmd = append(cmd, "-c", e)
		}
		git(t, dir, nil, append(cmd, "commit", "-q", "--allow-empty", "-m", msg)...)
	}
	commit("root commit")
	commit("second\n\nwith a body\nof two lines")
	git(t, dir, nil, "checkout", "-qb", "side")
	commit("on the side")
	git(t, dir, nil, "checkout", "-q", "main")
	commit("on main")
	git(t, dir, nil, "merge", "-q", "--no-ff", "-m", "merge side", "side", "-X", "ours")
	commit("latin-1 commit", "i18n.commitEncoding=ISO-8859-1")
	// Commits git's porcelain would not write, made with hash-object.
	tree := strings.TrimSpace(string(git(t, dir, nil, "rev-parse", "HEAD^{tree}")))
	head := strings.TrimSpace(string(git(t, dir, nil, "rev-parse", "HEAD")))
	raws := []string{
		"tree " + tree + "\nparent " + head + "\nauthor Zoë Ünïcode <zoe@example.com> 1234567890 +0530\ncommitter Back <back@example.com> 1234567899 -0800\n\nno trailing newline",
		"tree " + tree + "\nauthor A <a@example.com> 1700000000 +1400\ncommitter C <c@example.com> 1700000001 -1200\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n line two\n -----END PGP SIGNATURE-----\n\nsigned\n",
		"tree " + tree + "\nauthor  Spaced   Name  <s@example.com> 0 +0000\ncommitter <nobody@example.com> 1 +0000\n\n\nmessage after an empty line\n",
	}
	var ids []string
	for _, raw := range raws {
		out := git(t, dir, []byte(raw), "hash-object", "-t", "commit", "-w", "--stdin")
		ids = append(ids, strings.TrimSpace(string(out)))
	}
	all := strings.Fields(string(git(t, dir, nil, "rev-list", "--all")))
	ids = append(ids, all...)

	db, err := openRepo(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, hex := range ids {
		id, _ := ParseID(hex)
		typ, data, err := db.Read(id, nil)
		if err != nil || typ != TypeCommit {
			t.Fatalf("%s: %v %v", hex, typ, err)
		}
		c, err := ParseCommit(data)
		if err != nil {
			t.Fatalf("%s: %v", hex, err)
		}
		f := strings.Split(string(git(t, dir, nil, "log", "-1", "--no-mailmap",
			"--format=%T%x00%P%x00%an%x00%ae%x00%at%x00%ai%x00%cn%x00%ce%x00%ct%x00%ci%x00%e", hex)), "\x00")
		var parents []string
		for _, p := range c.Parents {
			parents = append(parents, p.String())
		}
		when := func(s Signature) (string, string) {
			return strconv.FormatInt(s.When.Unix(), 10), s.When.Format("2006-01-02 15:04:05 -0700")
		}
		at, ai := when(c.Author)
		ct, ci := when(c.Committer)
		got := []string{c.Tree.String(), strings.Join(parents, " "), c.Author.Name, c.Author.Email, at, ai,
			c.Committer.Name, c.Committer.Email, ct, ci, c.Encoding}
		for i := range got {
			if want := strings.TrimSuffix(f[i], "\n"); got[i] != want {
				t.Errorf("%s: field %d is %q, git log says %q", hex, i, got[i], want)
			}
		}
		body := string(data[bytes.Index(data, []byte("\n\n"))+2:])
		if c.Message != body || c.Subject() != strings.SplitN(body, "\n", 2)[0] {
			t.Errorf("%s: message %q subject %q", hex, c.Message, c.Subject())
		}
	}
}

// TestParseSignatureTakesWhatItCan covers identities git does not write
// but reads.
func TestParseSignatureTakesWhatItCan(t *testing.T) {
	utc := func(sec int64) time.Time { return time.Unix(sec, 0).UTC() }
	for _, c := range []struct {
		in          string
		name, email string
		when        time.Time
		offset      int
	}{
		{"A U Thor <a@b.c> 1700000000 +0100", "A U Thor", "a@b.c", utc(1700000000), 3600},
		{"A <a@b.c> 1700000000 -0730", "A", "a@b.c", utc(1700000000), -(7*3600 + 30*60)},
		{"Name <email>", "Name", "email", time.Time{}, 0},
		{"<e> 5 +0000", "", "e", utc(5), 0},
		{"Name <> 5 +0000", "Name", "", utc(5), 0},
		{"Name without email 5", "Name without email 5", "", time.Time{}, 0},
		{"Name <e> soon +0100", "Name", "e", time.Time{}, 0},
		{"Name <e> 5 +01", "Name", "e", utc(5), 60},
		{"Name <e> 5", "Name", "e", time.Time{}, 0},
		{"Name <e> 5x +0100", "Name", "e", time.Time{}, 0},
		{"  Name  <e> 5 +0100", "  Name", "e", utc(5), 3600},
		{"Na<me <e> 5 +0000", "Na", "me <e", utc(5), 0},
		{"Name <unterminated", "Name", "unterminated", time.Time{}, 0},
	} {
		s := parseSignature([]byte(c.in), -1)
		_, off := s.When.Zone()
		if s.Name != c.name || s.Email != c.email || !s.When.Equal(c.when) || (!s.When.IsZero() && off != c.offset) {
			t.Errorf("%q: %q %q %v (offset %d)", c.in, s.Name, s.Email, s.When, off)
		}
	}
}

// TestParseCommitRejects lists what makes a commit unreadable.
func TestParseCommitRejects(t *testing.T) {
	tree := "tree " + strings.Repeat("ab", 20) + "\n"
	for _, in := range []string{
		"",
		"author A <a> 1 +0000\n\nno tree\n",
		"tree nothex\n\n",
		tree + tree + "\n",
		tree + "parent 1234\n\n",
	} {
		if _, err := ParseCommit([]byte(in)); err == nil {
			t.Errorf("%q parsed", in)
		}
	}
}

// TestParseTreeMatchesLsTree compares every tree of a repository holding
// each kind of entry with git ls-tree.
func TestParseTreeMatchesLsTree(t *testing.T) {
	dir := newRepo(t, false)
	writeFiles(t, dir, map[string]string{
		"plain.txt": "p\n", "dir/nested.txt": "n\n", "with space.txt": "s\n",
		"ünïcödé.txt": "u\n", "dir/deeper/x": "x\n", "a-b": "", "a.b": "", "a/b": "",
	})
	if err := os.Chmod(filepath.Join(dir, "plain.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain.txt", filepath.Join(dir, "link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	git(t, dir, nil, "add", "-A")
	git(t, dir, nil, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("12", 20)+",submodule")
	git(t, dir, nil, "commit", "-qm", "all kinds")
	// A tree with a mode git no longer writes (group-writable file).
	blob := strings.TrimSpace(string(git(t, dir, []byte("old\n"), "hash-object", "-w", "--stdin")))
	raw, _ := ParseID(blob)
	oldTree := append([]byte("100664 old.txt\x00"), raw[:raw.Size()]...)
	git(t, dir, oldTree, "hash-object", "-t", "tree", "-w", "--stdin", "--literally")

	db, err := openRepo(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	trees := 0
	for id, o := range catFileAll(t, dir) {
		if o.typ != "tree" {
			continue
		}
		trees++
		entries, err := ParseTree(o.data, SHA1Size)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		var got bytes.Buffer
		for _, e := range entries {
			fmt.Fprintf(&got, "%s %s %s\t%s\x00", e.Mode, e.Mode.Type(), e.ID, e.Name)
		}
		want := git(t, dir, nil, "ls-tree", "-z", id.String())
		if got.String() != string(want) {
			t.Errorf("%s:\n got %q\nwant %q", id, got.String(), want)
		}
	}
	if trees < 5 {
		t.Fatalf("%d trees", trees)
	}
	for _, c := range []struct {
		m                                Mode
		tree, file, link, gitlink, isExe bool
	}{
		{ModeFile, false, true, false, false, false},
		{ModeExecutable, false, true, false, false, true},
		{canonMode(0o100664), false, true, false, false, false},
		{canonMode(0o100744), false, true, false, false, true},
		{canonMode(0o000000), false, false, false, true, false},
		{ModeSymlink, false, false, true, false, false},
		{ModeTree, true, false, false, false, false},
		{ModeGitlink, false, false, false, true, false},
	} {
		if c.m.IsTree() != c.tree || c.m.IsFile() != c.file || c.m.IsSymlink() != c.link || c.m.IsGitlink() != c.gitlink ||
			(c.m == ModeExecutable) != c.isExe {
			t.Errorf("mode %s classified wrongly", c.m)
		}
	}
}

// TestParseTreeRejects lists malformed tree entries.
func TestParseTreeRejects(t *testing.T) {
	id := strings.Repeat("\x01", 20)
	for _, in := range []string{
		"100644 name" + id,          // no NUL
		"100644 name\x00" + id[:19], // short id
		"10064x name\x00" + id,      // not octal
		" name\x00" + id,            // no mode
		"100644 \x00" + id,          // empty name
		"1006440000 name\x00" + id,  // mode too long
		"100644name\x00" + id,       // no space
	} {
		if _, err := ParseTree([]byte(in), SHA1Size); err == nil {
			t.Errorf("%q parsed", in)
		}
	}
}

// TestParseCommitLinksAgrees: ParseCommitLinks gives the tree, parents and
// committer time ParseCommit gives, and the same errors.
func TestParseCommitLinksAgrees(t *testing.T) {
	for _, c := range []string{
		"tree " + strings.Repeat("a", 40) + "\nparent " + strings.Repeat("b", 40) + "\nparent " + strings.Repeat("c", 40) +
			"\nauthor A <a@x> 1700000000 +0100\ncommitter C <c@x> 1700000500 -0200\n\nmsg\n",
		"tree " + strings.Repeat("a", 40) + "\ncommitter no date\n\n",
		"parent " + strings.Repeat("b", 40) + "\n\nno tree\n",
		"tree " + strings.Repeat("a", 40) + "\ntree " + strings.Repeat("a", 40) + "\n\ntwo trees\n",
		"tree " + strings.Repeat("a", 40) + "\nparent nothex\n\n",
	} {
		full, ferr := ParseCommit([]byte(c))
		tree, parents, when, lerr := ParseCommitLinks([]byte(c), nil)
		if (ferr == nil) != (lerr == nil) {
			t.Fatalf("%q: ParseCommit %v, ParseCommitLinks %v", c, ferr, lerr)
		}
		if ferr != nil {
			continue
		}
		var want int64
		if !full.Committer.When.IsZero() {
			want = full.Committer.When.Unix()
		}
		if tree != full.Tree || !slices.Equal(parents, full.Parents) || when != want {
			t.Errorf("%q: links %v %v %d, commit %v %v %d", c, tree, parents, when, full.Tree, full.Parents, want)
		}
	}
}
