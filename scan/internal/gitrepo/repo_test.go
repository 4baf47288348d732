package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

func realPath(p string) string {
	if q, err := filepath.EvalSymlinks(p); err == nil {
		return q
	}
	return p
}

// TestFindEveryLayout finds a repository from every kind of path that
// leads to one, as git does from there: a work tree's top and any
// directory under it, its .git directory and directories inside it, a
// bare repository, a linked work tree, and a .git file with a relative
// path (a submodule).
func TestFindEveryLayout(t *testing.T) {
	top := gitRepo(t)
	run(t, top, "commit", "-qm", "init")
	bare := filepath.Join(t.TempDir(), "bare.git")
	run(t, top, "clone", "-q", "--bare", top, bare)
	linked := filepath.Join(t.TempDir(), "linked")
	run(t, top, "worktree", "add", "-q", linked)
	sub := t.TempDir()
	rel, _ := filepath.Rel(sub, bare)
	os.WriteFile(filepath.Join(sub, ".git"), []byte("gitdir: "+rel+"\n"), 0o644)

	for _, c := range []struct {
		name, path, top, gitDir, commonDir string
	}{
		{"top", top, top, filepath.Join(top, ".git"), filepath.Join(top, ".git")},
		{"subdirectory", filepath.Join(top, "dir", "sub"), top, filepath.Join(top, ".git"), filepath.Join(top, ".git")},
		{".git", filepath.Join(top, ".git"), top, filepath.Join(top, ".git"), filepath.Join(top, ".git")},
		{"inside .git", filepath.Join(top, ".git", "refs", "heads"), top, filepath.Join(top, ".git"), filepath.Join(top, ".git")},
		{"bare", bare, "", bare, bare},
		{"inside bare", filepath.Join(bare, "objects"), "", bare, bare},
		{"linked work tree", linked, linked, filepath.Join(top, ".git", "worktrees", "linked"), filepath.Join(top, ".git")},
		{"gitdir file to a bare repository", sub, "", bare, bare},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := FindEnv(c.path, Env{})
			if err != nil {
				t.Fatal(err)
			}
			if realPath(r.Top) != realPath(c.top) || realPath(r.GitDir) != realPath(c.gitDir) || realPath(r.CommonDir) != realPath(c.commonDir) {
				t.Errorf("top %q git dir %q common %q; want %q %q %q", r.Top, r.GitDir, r.CommonDir, c.top, c.gitDir, c.commonDir)
			}
			if realPath(r.ObjectsDir) != realPath(filepath.Join(c.commonDir, "objects")) {
				t.Errorf("objects %q", r.ObjectsDir)
			}
			objs, warnings, err := r.OpenObjects(odb.Options{})
			if err != nil || len(warnings) > 0 {
				t.Fatalf("objects: %v %v", err, warnings)
			}
			defer objs.Close()
			head, err := r.ReadRef("HEAD")
			if err != nil || len(head) != 40 {
				t.Fatalf("HEAD: %q %v", head, err)
			}
		})
	}
	if _, err := FindEnv(t.TempDir(), Env{}); !errors.Is(err, ErrNotRepo) {
		t.Errorf("outside a repository: %v", err)
	}
}

// TestFindWithGitsEnvironment: GIT_DIR names the repository (and makes
// the current directory the work tree's top unless GIT_WORK_TREE says
// otherwise), GIT_OBJECT_DIRECTORY and GIT_ALTERNATE_OBJECT_DIRECTORIES
// say where objects are read, GIT_INDEX_FILE which index.
func TestFindWithGitsEnvironment(t *testing.T) {
	top := gitRepo(t)
	run(t, top, "commit", "-qm", "init")
	elsewhere := t.TempDir()
	objs := filepath.Join(t.TempDir(), "objects")
	os.MkdirAll(objs, 0o755)
	index := filepath.Join(t.TempDir(), "index")
	r, err := FindEnv(elsewhere, Env{GitDir: filepath.Join(top, ".git"), ObjectDirectory: objs,
		AlternateObjectDirectories: filepath.Join(top, ".git", "objects") + string(os.PathListSeparator) + "\"/quoted\\tdir\"",
		IndexFile:                  index})
	if err != nil {
		t.Fatal(err)
	}
	if realPath(r.Top) != realPath(elsewhere) || r.ObjectsDir != objs || r.IndexFile() != index {
		t.Errorf("top %q objects %q index %q", r.Top, r.ObjectsDir, r.IndexFile())
	}
	if want := []string{filepath.Join(top, ".git", "objects"), "/quoted\tdir"}; !slices.Equal(r.Alternates, want) {
		t.Errorf("alternates %q, want %q", r.Alternates, want)
	}
	r, err = FindEnv(elsewhere, Env{GitDir: filepath.Join(top, ".git"), WorkTree: top})
	if err != nil || realPath(r.Top) != realPath(top) {
		t.Errorf("GIT_WORK_TREE: %+v %v", r, err)
	}
	// A relative GIT_DIR is relative to the directory searched from.
	r, err = FindEnv(top, Env{GitDir: ".git"})
	if err != nil || realPath(r.GitDir) != realPath(filepath.Join(top, ".git")) {
		t.Errorf("relative GIT_DIR: %+v %v", r, err)
	}
	if _, err := FindEnv(top, Env{GitDir: elsewhere}); !errors.Is(err, ErrNotRepo) {
		t.Errorf("GIT_DIR not a repository: %v", err)
	}
}

// TestFindRefusesWhatItCannotRead: an unknown format version, ref
// storage or object format is ErrUnsupported, not misread.
func TestFindRefusesWhatItCannotRead(t *testing.T) {
	for _, cfg := range []string{"[core]\n\trepositoryformatversion = 2\n",
		"[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = lmdb\n",
		"[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha3\n"} {
		top := gitRepo(t)
		os.WriteFile(filepath.Join(top, ".git", "config"), []byte(cfg), 0o644)
		if _, err := FindEnv(top, Env{}); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%q: %v, want ErrUnsupported", cfg, err)
		}
	}
}

// TestRefs lists loose, packed and symbolic refs, loose winning, and
// resolves names through symbolic refs; per-work-tree refs come from the
// work tree's own directory.
func TestRefs(t *testing.T) {
	top := gitRepo(t)
	run(t, top, "commit", "-qm", "one")
	run(t, top, "tag", "v1")
	run(t, top, "branch", "packed")
	run(t, top, "pack-refs", "--all")
	run(t, top, "commit", "-qm", "two", "--allow-empty")
	run(t, top, "branch", "loose")
	run(t, top, "symbolic-ref", "refs/heads/alias", "refs/heads/loose")
	r, err := FindEnv(top, Env{})
	if err != nil {
		t.Fatal(err)
	}
	refs, warnings := r.Refs()
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	got := map[string]string{}
	for _, ref := range refs {
		got[ref.Name] = ref.ID
	}
	two := strings.TrimSpace(run(t, top, "rev-parse", "HEAD"))
	one := strings.TrimSpace(run(t, top, "rev-parse", "HEAD~1"))
	want := map[string]string{"refs/heads/master": two, "refs/heads/loose": two, "refs/heads/alias": two,
		"refs/heads/packed": one, "refs/tags/v1": one}
	for name, id := range want {
		if got[name] != id {
			t.Errorf("%s = %q, want %q", name, got[name], id)
		}
	}
	if id, err := r.ReadRef("refs/heads/alias"); err != nil || id != two {
		t.Errorf("ReadRef(alias) = %q %v", id, err)
	}
	if _, err := r.ReadRef("refs/heads/none"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing ref: %v", err)
	}
}

// TestConfig parses what git writes and what people write by hand.
func TestConfig(t *testing.T) {
	c, err := ParseConfig([]byte(`# comment
[core]
	bare = false ; trailing comment
	RepositoryFormatVersion = 1
	worktree = "../a dir/with \"quotes\""
	flag
[remote "origin"]
	url = https://example.com/x.git
[branch.Main]
	merge = refs/heads/main
[core]
	bare = true
[long]
	value = one \
two
`))
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := c.Bool("core", "", "bare"); !ok || !b {
		t.Errorf("core.bare = %v %v: the last value wins", b, ok)
	}
	if v, ok := c.Int("CORE", "", "repositoryformatversion"); !ok || v != 1 {
		t.Errorf("version %v %v", v, ok)
	}
	if v := c.Get("core", "", "worktree"); v != `../a dir/with "quotes"` {
		t.Errorf("worktree %q", v)
	}
	if b, ok := c.Bool("core", "", "flag"); !ok || !b {
		t.Errorf("a key alone is true: %v %v", b, ok)
	}
	if v := c.Get("remote", "origin", "url"); v != "https://example.com/x.git" {
		t.Errorf("url %q", v)
	}
	if v := c.Get("branch", "main", "merge"); v != "refs/heads/main" {
		t.Errorf("old-style subsection %q", v)
	}
	if v := c.Get("long", "", "value"); v != "one two" {
		t.Errorf("continuation %q", v)
	}
	for _, bad := range []string{"[core\nx=1\n", "key = 1\n", "[a]\nv = \"open\n", "[a]\nv = bad\\q\n"} {
		if _, err := ParseConfig([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
