package scan

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A .gitleaksignore at the top of a directory root applies however the
// root is spelled, since findings are named relative to it; and entries
// written with the root's spelling in front (by a scan run from the parent
// directory, as gitleaks names files) apply too.
func TestGitleaksIgnoreAppliesHoweverTheRootIsSpelled(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "repo")
	writeTree(t, dir, map[string]string{
		"a.txt":           secret(1) + "\n" + secret(2) + "\n" + secret(3) + "\n",
		".gitleaksignore": "a.txt:fake:1\nrepo/a.txt:fake:2\n",
	})
	t.Chdir(parent)
	for _, root := range []string{"repo", "./repo/", dir, "repo/../repo"} {
		found, _, st, err := collect(t, Options{Detector: newFake()}, root)
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 || found[0].Line != 3 || st.Ignored != 2 {
			t.Errorf("root %q: found %v, ignored %d; want only line 3", root, found, st.Ignored)
		}
	}
	t.Chdir(dir)
	found, _, _, _ := collect(t, Options{Detector: newFake()}, ".")
	if len(found) != 1 || found[0].Line != 3 {
		t.Errorf("from inside: found %v, want only line 3", found)
	}
	// With several roots, files are named as the roots were given, and
	// the file's entries still apply.
	writeTree(t, parent, map[string]string{"other/b.txt": secret(4)})
	t.Chdir(parent)
	found, _, _, _ = collect(t, Options{Detector: newFake()}, "repo", "other")
	if got := filesOf(found); len(found) != 2 || !slices.Equal(got, []string{"other/b.txt", "repo/a.txt"}) {
		t.Errorf("two roots: found %v, want repo/a.txt:3 and other/b.txt", found)
	}
	t.Chdir(dir)
	found, _, _, _ = collect(t, Options{Detector: newFake(), NoGitleaksIgnore: true}, ".")
	if len(found) != 3 {
		t.Errorf("NoGitleaksIgnore: found %v, want all three", found)
	}
}

// With Gitignore, a root inside a repository honours what git would:
// .gitignore files above it up to the repository's top, info/exclude,
// and tracked files, which no pattern hides. The expected set is git's
// own: tracked files and untracked files not ignored.
func TestGitignoreAboveTheRootAndTrackedFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	top := t.TempDir()
	writeTree(t, top, map[string]string{
		".gitignore":             "*.secret\nbuild/\n",
		"sub/.gitignore":         "!keep.secret\n",
		"sub/a.txt":              secret(1),
		"sub/x.secret":           secret(2),
		"sub/keep.secret":        secret(3),
		"sub/tracked.secret":     secret(4),
		"sub/local.txt":          secret(5),
		"sub/build/gen.txt":      secret(6),
		"sub/build/tracked.txt":  secret(7),
		"sub/deep/more/y.secret": secret(8),
		"sub/deep/more/z.txt":    secret(9),
	})
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = top
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	must(t, os.WriteFile(filepath.Join(top, ".git", "info", "exclude"), []byte("local.txt\n"), 0o644))
	git("add", "-f", "sub/tracked.secret", "sub/build/tracked.txt")

	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard", "--", ".")
	cmd.Dir = filepath.Join(top, "sub")
	out, err := cmd.Output()
	must(t, err)
	var want []string
	for _, l := range strings.Fields(string(out)) {
		if !strings.HasSuffix(l, ".gitignore") {
			want = append(want, l)
		}
	}
	slices.Sort(want)

	for _, root := range []string{filepath.Join(top, "sub"), "."} {
		if root == "." {
			t.Chdir(filepath.Join(top, "sub"))
		}
		found, warns, _, err := collect(t, Options{Detector: newFake(), Gitignore: true}, root)
		if err != nil || len(warns) > 0 {
			t.Fatalf("err %v, warnings %v", err, warns)
		}
		got := filesOf(found)
		// git lists an untracked file in an ignored directory as ignored
		// (build/gen.txt); the walk enters build/ for its tracked file and
		// scans what it finds there: more, never less, than git keeps.
		got = slices.DeleteFunc(got, func(f string) bool { return f == "build/gen.txt" })
		if !slices.Equal(got, want) {
			t.Errorf("root %q: scanned %v\ngit keeps %v", root, got, want)
		}
	}
}
