package odb

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenFindsTheObjectDatabase opens a repository through every kind of
// path that leads to one and reads HEAD's commit through it.
func TestOpenFindsTheObjectDatabase(t *testing.T) {
	work := newRepo(t, false)
	writeFiles(t, work, map[string]string{"a.txt": "a\n"})
	git(t, work, nil, "add", "-A")
	git(t, work, nil, "commit", "-qm", "one")
	head, err := ParseID(strings.TrimSpace(string(git(t, work, nil, "rev-parse", "HEAD"))))
	if err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(t.TempDir(), "bare.git")
	git(t, work, nil, "clone", "-q", "--bare", work, bare)
	linked := filepath.Join(t.TempDir(), "linked")
	git(t, work, nil, "worktree", "add", "-q", linked)
	// A submodule-style .git file with a relative path.
	sub := t.TempDir()
	rel, err := filepath.Rel(sub, bare)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, sub, map[string]string{".git": "gitdir: " + rel + "\n"})

	for _, c := range []struct{ name, path, gitDir string }{
		{"work tree", work, filepath.Join(work, ".git")},
		{".git directory", filepath.Join(work, ".git"), filepath.Join(work, ".git")},
		{"bare repository", bare, bare},
		{"linked work tree", linked, filepath.Join(work, ".git", "worktrees", "linked")},
		{"gitdir file", filepath.Join(sub, ".git"), bare},
		{"directory with a gitdir file", sub, bare},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, err := Open(c.path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if want, _ := filepath.EvalSymlinks(c.gitDir); evalOr(db.GitDir()) != want {
				t.Errorf("GitDir %s, want %s", db.GitDir(), want)
			}
			typ, data, err := db.Read(head, nil)
			if err != nil || typ != TypeCommit {
				t.Fatalf("Read HEAD: %v %v", typ, err)
			}
			if _, err := ParseCommit(data); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func evalOr(p string) string {
	if e, err := filepath.EvalSymlinks(p); err == nil {
		return e
	}
	return p
}

// TestOpenRefuses checks the errors for what is not a repository this
// package can read.
func TestOpenRefuses(t *testing.T) {
	requireGit(t)
	empty := t.TempDir()
	badFile := t.TempDir()
	writeFiles(t, badFile, map[string]string{".git": "not a gitdir line\n"})
	sha256 := t.TempDir()
	cmd := []string{"init", "-q", "--bare", "--object-format=sha256", "."}
	git(t, sha256, nil, cmd...)
	future := newRepo(t, true)
	writeFiles(t, future, map[string]string{"config": "[core]\n\trepositoryformatversion = 2\n"})

	for _, c := range []struct {
		name, path string
		want       error
	}{
		{"empty directory", empty, ErrNotRepository},
		{"missing path", filepath.Join(empty, "nothing"), ErrNotRepository},
		{"bad .git file", badFile, ErrNotRepository},
		{"SHA-256 repository", sha256, ErrUnsupported},
		{"unknown format version", future, ErrUnsupported},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, err := Open(c.path, Options{})
			if err == nil {
				db.Close()
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Open: %v, want %v", err, c.want)
			}
		})
	}
}

// TestAlternatesAreFollowed checks relative and nested alternates, and
// that an alternate that does not exist is a warning, not a failure.
func TestAlternatesAreFollowed(t *testing.T) {
	a := newRepo(t, true)
	fastImport(t, a, 5, 3, 5)
	b := newRepo(t, true)
	c := newRepo(t, true)
	// b borrows from a by a relative path, c from b (and so from a) and
	// from a directory that does not exist.
	rel, err := filepath.Rel(filepath.Join(b, "objects"), filepath.Join(a, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, b, map[string]string{"objects/info/alternates": "# comment\n" + rel + "\n"})
	writeFiles(t, c, map[string]string{"objects/info/alternates": filepath.Join(b, "objects") + "\n/does/not/exist\n"})
	db, err := Open(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if len(db.layout.objDirs) != 3 {
		t.Fatalf("objects dirs %v, want c, b and a", db.layout.objDirs)
	}
	if len(db.Warnings()) != 1 || !strings.Contains(db.Warnings()[0].Error(), "/does/not/exist") {
		t.Fatalf("warnings %v, want one for the missing alternate", db.Warnings())
	}
	checkAll(t, db, catFileAll(t, a))
}

// TestOpenSurvivesAMissingPackFile: an index whose pack is gone leaves
// its objects reporting the damage.
func TestOpenSurvivesAMissingPackFile(t *testing.T) {
	dir := newRepo(t, true)
	fastImport(t, dir, 5, 3, 5)
	git(t, dir, nil, "repack", "-adq")
	want := catFileAll(t, dir)
	for _, p := range packsOf(t, filepath.Join(dir, "objects")) {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if len(db.Warnings()) != 1 {
		t.Fatalf("warnings %v, want one", db.Warnings())
	}
	for id := range want {
		_, _, err := db.Read(id, nil)
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.ID != id {
			t.Fatalf("Read %s: %v, want a CorruptError naming it", id, err)
		}
	}
}
