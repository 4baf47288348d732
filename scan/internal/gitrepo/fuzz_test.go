package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseConfig: no configuration file panics the parser, and what it
// accepts gives the same values when parsed again after a round of
// values being looked up.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"[core]\n\tbare = false\n\trepositoryformatversion = 0\n",
		"[remote \"origin\"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
		"[extensions]\n\tobjectFormat = sha256\n\trefStorage = files\n",
		"[a.B]\nk = \"quoted \\\"value\\\"\" ; comment\nflag\n[c]\nv = one \\\ntwo\n",
		"[core]\n\tworktree = ../../work\n[diff \"evil\"]\n\ttextconv = rm -rf /\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		c.Get("core", "", "bare")
		c.Bool("core", "", "bare")
		c.Int("core", "", "repositoryformatversion")
		c.Get("remote", "origin", "url")
		checkFormat(c)
	})
}

// FuzzRefsFiles: packed-refs, a loose ref and HEAD of any content give
// refs or errors, never a panic, and every ref listed is a well-formed id.
func FuzzRefsFiles(f *testing.F) {
	f.Add([]byte("# pack-refs with: peeled fully-peeled sorted \n1111111111111111111111111111111111111111 refs/heads/main\n^2222222222222222222222222222222222222222\n"),
		[]byte("ref: refs/heads/main\n"), []byte("3333333333333333333333333333333333333333\n"))
	f.Add([]byte("zzzz refs/heads/x\n"), []byte("ref: refs/heads/loop\n"), []byte("ref: HEAD\n"))
	f.Add([]byte(""), []byte("ref:"), []byte(strings.Repeat("a", 40)))
	f.Fuzz(func(t *testing.T, packed, loose, head []byte) {
		dir := t.TempDir()
		for _, d := range []string{"objects", "refs/heads"} {
			os.MkdirAll(filepath.Join(dir, d), 0o755)
		}
		os.WriteFile(filepath.Join(dir, "packed-refs"), packed, 0o644)
		os.WriteFile(filepath.Join(dir, "refs", "heads", "loop"), loose, 0o644)
		os.WriteFile(filepath.Join(dir, "HEAD"), head, 0o644)
		r, err := Open(dir)
		if err != nil {
			return
		}
		refs, _ := r.Refs()
		for _, ref := range refs {
			if !isHexID(ref.ID, 20) || !strings.HasPrefix(ref.Name, "refs/") {
				t.Fatalf("bad ref %+v", ref)
			}
		}
		r.ReadRef("HEAD")
		r.Heads()
	})
}

// FuzzSplitPathList: GIT_ALTERNATE_OBJECT_DIRECTORIES of any content is
// split without a panic, into non-empty paths.
func FuzzSplitPathList(f *testing.F) {
	f.Add("/a/objects:/b/objects")
	f.Add("\"/with\\tescape\":/plain")
	f.Add("\"unterminated")
	f.Add("\"\\377\\0\":::")
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range splitPathList(s) {
			if p == "" {
				t.Fatalf("empty path from %q", s)
			}
		}
	})
}
