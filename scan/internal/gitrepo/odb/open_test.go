package odb

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
	db, err := openRepo(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if len(db.Dirs()) != 3 {
		t.Fatalf("objects dirs %v, want c, b and a", db.Dirs())
	}
	if len(db.Warnings()) != 1 || !strings.Contains(db.Warnings()[0].Error(), "/does/not/exist") {
		t.Fatalf("warnings %v, want one for the missing alternate", db.Warnings())
	}
	checkAll(t, db, catFileAll(t, a))
}

// TestOpenSurvivesAMissingPackFile: an index whose pack was deleted leaves
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
	db, err := openRepo(dir, Options{})
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

// TestOpenRefusesWhatIsNotAnObjectsDirectory: a missing path or a file.
func TestOpenRefusesWhatIsNotAnObjectsDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	writeFiles(t, dir, map[string]string{"file": "x"})
	for _, p := range []string{filepath.Join(dir, "missing"), file} {
		if db, err := Open(p, Options{}); !errors.Is(err, ErrNotRepository) {
			if db != nil {
				db.Close()
			}
			t.Errorf("Open(%s): %v, want ErrNotRepository", p, err)
		}
	}
}

// TestExtraAlternatesAreRead: the objects of Options.Alternates (a push's
// quarantine names the repository's own objects this way) are readable,
// and their own alternates are followed.
func TestExtraAlternatesAreRead(t *testing.T) {
	a := newRepo(t, true)
	fastImport(t, a, 5, 3, 5)
	empty := newRepo(t, true)
	db, err := Open(filepath.Join(empty, "objects"), Options{Alternates: []string{filepath.Join(a, "objects")}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkAll(t, db, catFileAll(t, a))
}

// TestAlternatesChainIsBounded: a chain deeper than git's limit stops
// with a warning; a loop ends.
func TestAlternatesChainIsBounded(t *testing.T) {
	requireGit(t)
	var dirs []string
	for range maxAlternateDepth + 3 {
		dirs = append(dirs, filepath.Join(newRepo(t, true), "objects"))
	}
	for i := 0; i+1 < len(dirs); i++ {
		writeFiles(t, filepath.Dir(dirs[i]), map[string]string{"objects/info/alternates": dirs[i+1] + "\n"})
	}
	// The last one points back at the first: a loop.
	writeFiles(t, filepath.Dir(dirs[len(dirs)-1]), map[string]string{"objects/info/alternates": dirs[0] + "\n"})
	db, err := Open(dirs[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if len(db.Dirs()) != maxAlternateDepth+1 {
		t.Errorf("%d directories read, want %d", len(db.Dirs()), maxAlternateDepth+1)
	}
	if len(db.Warnings()) == 0 || !strings.Contains(db.Warnings()[0].Error(), "deeper") {
		t.Errorf("warnings %v, want one about depth", db.Warnings())
	}
}
