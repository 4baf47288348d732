package git

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan"
)

// partialCloneSource is a repository of ten secrets, one of them in a
// file of 200 KiB (over blob:limit=100k), served from a bare copy that
// allows filters, as a file:// URL.
func partialCloneSource(t *testing.T) (url string, want []string) {
	t.Helper()
	r := newRepo(t)
	for i := range 10 {
		content := "k=" + tok(i) + "\n"
		if i == 3 {
			content = strings.Repeat("filler line for a big file\n", 8000) + content
		}
		r.write(filepath.Join("dir", string(rune('a'+i%3)), "f"+string(rune('0'+i))+".env"), content)
		r.commit("add " + tok(i))
		want = append(want, tok(i))
	}
	server := filepath.Join(t.TempDir(), "server.git")
	r.git("clone", "-q", "--bare", r.dir, server)
	r.git("--git-dir="+server, "config", "uploadpack.allowFilter", "true")
	slices.Sort(want)
	return "file://" + server, want
}

// TestPartialClonesFetchTheirPromisedObjects: a clone made with
// --filter=blob:none, blob:limit=100k or tree:0 lacks objects its history
// needs; the scan fetches them from the promisor remote and finds every
// secret, with nothing lost, and nothing the clone's configuration names
// runs (an fsmonitor, an ssh command, a credential helper, an upload-pack
// and hooks, each of which would leave a mark).
func TestPartialClonesFetchTheirPromisedObjects(t *testing.T) {
	url, want := partialCloneSource(t)
	det := detector(t)
	for _, filter := range []string{"blob:none", "blob:limit=100k", "tree:0"} {
		t.Run(filter, func(t *testing.T) {
			r := newRepo(t)
			dir := filepath.Join(t.TempDir(), "clone")
			r.git("clone", "-q", "--bare", "--filter="+filter, url, dir)
			if out := r.git("--git-dir="+dir, "rev-list", "--objects", "--missing=print", "--all"); !strings.Contains(out, "?") {
				t.Fatalf("the %s clone lacks nothing:\n%s", filter, out)
			}
			marks := t.TempDir()
			mark := func(name string) string {
				return "sh -c 'touch " + filepath.Join(marks, name) + "'"
			}
			for k, v := range map[string]string{
				"core.fsmonitor":            mark("fsmonitor"),
				"core.sshCommand":           mark("ssh"),
				"credential.helper":         "!" + mark("credential"),
				"remote.origin.uploadpack":  mark("uploadpack"),
				"core.hooksPath":            marks,
				"core.alternateRefsCommand": mark("alternaterefs"),
			} {
				r.git("--git-dir="+dir, "config", k, v)
			}
			for _, hook := range []string{"reference-transaction", "post-checkout", "post-merge"} {
				os.WriteFile(filepath.Join(marks, hook), []byte("#!/bin/sh\ntouch "+filepath.Join(marks, "hook-"+hook)+"\n"), 0o755)
			}
			found, st, err := scanSecrets(det, dir)
			if err != nil || st.Lost != 0 || !slices.Equal(found, want) {
				t.Errorf("%s: %d of %d secrets, %d lost, %v", filter, len(found), len(want), st.Lost, err)
			}
			left, _ := os.ReadDir(marks)
			for _, e := range left {
				if !slices.Contains([]string{"reference-transaction", "post-checkout", "post-merge"}, e.Name()) {
					t.Errorf("%s: %s ran", filter, e.Name())
				}
			}
		})
	}
}

// TestPartialCloneWithoutGitFailsNamingTheMissing: with no git to fetch
// them, the missing objects are a warning of lost data saying so, and
// each blob the history needs is a warning naming it; never a clean scan.
func TestPartialCloneWithoutGitFailsNamingTheMissing(t *testing.T) {
	url, want := partialCloneSource(t)
	r := newRepo(t)
	dir := filepath.Join(t.TempDir(), "clone")
	r.git("clone", "-q", "--bare", "--filter=blob:none", url, dir)
	t.Setenv("PATH", t.TempDir())
	var warns []scan.Warning
	found, st, err := scanSecretsWarn(detector(t), dir, &warns)
	if err == nil && (st.Lost == 0 || slices.Equal(found, want)) {
		t.Fatalf("%d secrets, %d lost: want the loss said", len(found), st.Lost)
	}
	said := slices.ContainsFunc(warns, func(w scan.Warning) bool {
		return w.Lost && w.Op == "promisor" && strings.Contains(w.Err.Error(), "git is not installed")
	})
	named := slices.ContainsFunc(warns, func(w scan.Warning) bool { return w.Lost && strings.Contains(w.Error(), "object missing") })
	if !said || !named {
		t.Errorf("warnings %v: want one saying git is absent and the missing blobs named", warns)
	}
}
