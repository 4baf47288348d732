package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShardsMergeToTheWholeScan runs a scan and a history scan whole, and
// split into n = 1, 2, 3 and 7 shards merged with spindle merge: the
// merged report must be byte for byte the whole one.
func TestShardsMergeToTheWholeScan(t *testing.T) {
	tree := t.TempDir()
	files := map[string]string{".gitleaks.toml": testRules}
	for i := range 60 {
		files[fmt.Sprintf("d%d/f%d.txt", i%7, i)] = strings.Repeat("line\n", i) + "key = " + token(i) + "\n"
	}
	writeTree(t, tree, files)

	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x",
			"GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := exec.LookPath("git"); err == nil {
		git("init", "-q")
		writeTree(t, repo, map[string]string{".gitleaks.toml": testRules})
		for i := range 12 {
			writeTree(t, repo, map[string]string{fmt.Sprintf("f%d.env", i%4): fmt.Sprintf("v%d\nk=%s\n", i, token(100+i))})
			git("add", ".")
			git("commit", "-qm", fmt.Sprint("commit ", i))
		}
	}
	for _, tc := range []struct {
		name string
		dir  string
		args []string
	}{
		{"tree", tree, []string{"scan", "-f", "jsonl", "."}},
		{"history", repo, []string{"git", "-f", "jsonl", "."}},
	} {
		if tc.name == "history" && !fileExists(filepath.Join(repo, ".git")) {
			continue
		}
		out := t.TempDir()
		whole := filepath.Join(out, "whole.json")
		if r := invoke(t, tc.dir, append(slices.Clone(tc.args), "-o", filepath.Join(out, "whole.jsonl"))...); r.code != 1 {
			t.Fatalf("%s: whole scan exit %d\n%s", tc.name, r.code, r.stderr)
		}
		invoke(t, tc.dir, "merge", "-q", "-o", whole, filepath.Join(out, "whole.jsonl"))
		want, _ := os.ReadFile(whole)
		for _, n := range []int{1, 2, 3, 7} {
			var shards []string
			for i := range n {
				p := filepath.Join(out, fmt.Sprintf("%d-of-%d.jsonl", i, n))
				r := invoke(t, tc.dir, append(slices.Clone(tc.args), "--shard", fmt.Sprintf("%d/%d", i, n), "-o", p)...)
				if r.code != 0 && r.code != 1 {
					t.Fatalf("%s shard %d/%d: exit %d\n%s", tc.name, i, n, r.code, r.stderr)
				}
				shards = append(shards, p)
			}
			merged := filepath.Join(out, fmt.Sprintf("merged-%d.json", n))
			if r := invoke(t, tc.dir, append([]string{"merge", "-o", merged}, shards...)...); r.code != 1 {
				t.Fatalf("%s merge of %d: exit %d\n%s", tc.name, n, r.code, r.stderr)
			}
			got, _ := os.ReadFile(merged)
			if string(got) != string(want) || len(want) < 100 {
				t.Errorf("%s, %d shards: merged report (%d bytes) differs from the whole scan's (%d bytes)", tc.name, n, len(got), len(want))
			}
		}
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestMergeRefusesAnIncompleteOrMixedSetOfShards: spindle merge of shard
// reports fails, naming the reports, when a shard is missing, given twice
// or from another scan, and writes nothing; a whole set merges, in the
// schema the shards were written in.
func TestMergeRefusesAnIncompleteOrMixedSetOfShards(t *testing.T) {
	tree := t.TempDir()
	files := map[string]string{".gitleaks.toml": testRules, "other.toml": strings.Replace(testRules, `title = "e2e"`, `title = "other"`, 1) + "\n[[rules]]\nid = \"x\"\nregex = '''xq{30}'''\n"}
	for i := range 30 {
		files[fmt.Sprintf("d%d/f%d.txt", i%5, i)] = "key = " + token(i) + "\n"
	}
	writeTree(t, tree, files)
	reports := t.TempDir() // outside the tree: a report holds secrets
	shard := func(name string, args ...string) string {
		t.Helper()
		p := filepath.Join(reports, name)
		if r := invoke(t, tree, append(args, "-o", p)...); r.code != 0 && r.code != 1 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		return p
	}
	s0 := shard("s0.json", "scan", "-f", "json", "--shard", "0/3", ".")
	s1 := shard("s1.json", "scan", "-f", "json", "--shard", "1/3", ".")
	s2 := shard("s2.json", "scan", "-f", "json", "--shard", "2/3", ".")
	otherRules := shard("x2.json", "scan", "-f", "json", "-c", "other.toml", "--shard", "2/3", ".")
	otherTree := shard("y2.json", "scan", "-f", "json", "--shard", "2/3", "d1")
	whole := shard("whole.json", "scan", "-f", "json", ".")
	for _, c := range []struct {
		name  string
		paths []string
		want  []string
	}{
		{"a shard missing", []string{s0, s2}, []string{"shard 1/3 is missing"}},
		{"a shard twice", []string{s0, s1, s1, s2}, []string{"shard 1/3 is given twice", s1}},
		{"other rules", []string{s0, s1, otherRules}, []string{otherRules, "another scan", "config"}},
		{"another tree", []string{s0, s1, otherTree}, []string{otherTree, "another scan", "scan d1"}},
		{"a whole report among shards", []string{s0, s1, s2, whole}, []string{whole, "not a shard report"}},
	} {
		out := filepath.Join(t.TempDir(), "merged.json")
		r := invoke(t, tree, append([]string{"merge", "-o", out}, c.paths...)...)
		if r.code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", c.name, r.code, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: the error lacks %q:\n%s", c.name, w, r.stderr)
			}
		}
		if fileExists(out) {
			t.Errorf("%s: a refused merge wrote %s", c.name, out)
		}
	}
	// The whole set, in any order: gitleaks' json, as the shards were.
	r := invoke(t, tree, "merge", s2, s0, s1)
	if r.code != 1 || !strings.Contains(r.stdout, `"RuleID"`) {
		t.Fatalf("the three shards: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got, want := findingKeys(parseJSON(t, r.stdout)), findingKeys(parseJSON(t, string(mustRead(t, whole)))); !slices.Equal(got, want) || len(want) != 30 {
		t.Errorf("merged %d findings, the whole scan %d", len(got), len(want))
	}
}
