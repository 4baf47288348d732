package gitrepo

import (
	"crypto/sha1"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// graphRepo makes a history with merges (an octopus among them) and
// returns its top.
func graphRepo(t *testing.T) string {
	top := gitRepo(t)
	run(t, top, "commit", "-qm", "root")
	for i := range 3 {
		run(t, top, "checkout", "-q", "-b", fmt.Sprintf("b%d", i), "master")
		os.WriteFile(filepath.Join(top, fmt.Sprintf("f%d", i)), []byte("x"), 0o644)
		run(t, top, "add", "-A")
		run(t, top, "commit", "-qm", fmt.Sprintf("side %d", i))
	}
	run(t, top, "checkout", "-q", "master")
	run(t, top, "merge", "-q", "--no-edit", "b0", "b1", "b2")
	return top
}

// checkGraph compares every commit the graph holds with the commit
// object itself.
func checkGraph(t *testing.T, top string) int {
	t.Helper()
	r, err := FindEnv(top, Env{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := r.OpenCommitGraph(false)
	if err != nil || g == nil {
		t.Fatalf("OpenCommitGraph: %v %v", g, err)
	}
	objs, _, err := r.OpenObjects(odb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer objs.Close()
	n := 0
	for _, h := range strings.Fields(run(t, top, "rev-list", "--all")) {
		id, _ := odb.ParseID(h)
		tree, parents, when, ok := g.Lookup(id, nil)
		if !ok {
			continue
		}
		n++
		_, data, err := objs.Read(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := odb.ParseCommitLimit(data, -1)
		if err != nil {
			t.Fatal(err)
		}
		if tree != c.Tree || !slices.Equal(parents, c.Parents) || when != c.Committer.When.Unix() {
			t.Errorf("%s: graph says %s %v %d; the commit %s %v %d", id, tree, parents, when, c.Tree, c.Parents, c.Committer.When.Unix())
		}
	}
	return n
}

// TestCommitGraphAgreesWithCommits: a commit-graph written by git, whole
// or split into a chain, gives each commit's tree, parents (an octopus's
// included) and date as the commit object does.
func TestCommitGraphAgreesWithCommits(t *testing.T) {
	top := graphRepo(t)
	run(t, top, "commit-graph", "write", "--reachable")
	if n := checkGraph(t, top); n != 5 {
		t.Errorf("the graph held %d commits, want 5", n)
	}
	split := graphRepo(t)
	run(t, split, "commit-graph", "write", "--reachable", "--split")
	for i := range 3 {
		os.WriteFile(filepath.Join(split, "more"+strconv.Itoa(i)), []byte("y"), 0o644)
		run(t, split, "add", "-A")
		run(t, split, "commit", "-qm", "more")
		run(t, split, "commit-graph", "write", "--reachable", "--split=no-merge")
	}
	if n := checkGraph(t, split); n != 8 {
		t.Errorf("the chain held %d commits, want 8", n)
	}
	chain, _ := os.ReadFile(filepath.Join(split, ".git", "objects", "info", "commit-graphs", "commit-graph-chain"))
	if len(strings.Fields(string(chain))) < 2 {
		t.Errorf("no chain was written: %q", chain)
	}
}

// TestCommitGraphDamageIsRefused: a graph cut short or with a fanout out
// of order is an error, not a misread; a graph git would not use (shallow
// clone, replace refs, core.commitGraph=false) is not opened.
func TestCommitGraphDamageIsRefused(t *testing.T) {
	top := graphRepo(t)
	run(t, top, "commit-graph", "write", "--reachable")
	path := filepath.Join(top, ".git", "objects", "info", "commit-graph")
	good, _ := os.ReadFile(path)
	r, _ := FindEnv(top, Env{})
	if g, _ := r.OpenCommitGraph(true); g != nil {
		t.Error("opened with replace refs in effect")
	}
	for name, bad := range map[string][]byte{
		"truncated": good[:len(good)/2],
		"fanout":    append(append([]byte{}, good[:60]...), append([]byte{0xff, 0xff, 0xff, 0xff}, good[64:]...)...),
		"header":    append([]byte("XGPH"), good[4:]...),
		// One bit of a commit's data flipped (its tree id, its parents or
		// its date, at the end of the file): only the checksum shows it.
		"commit data": func() []byte {
			b := append([]byte{}, good...)
			b[len(b)-odb.SHA1Size-5] ^= 0x40
			return b
		}(),
	} {
		os.Chmod(path, 0o644)
		os.WriteFile(path, bad, 0o644)
		if g, err := r.OpenCommitGraph(false); err == nil {
			// Damage the checks cannot see must still not panic a lookup.
			for _, h := range strings.Fields(run(t, top, "rev-list", "--all")) {
				id, _ := odb.ParseID(h)
				g.Lookup(id, nil)
			}
			t.Errorf("%s: accepted", name)
		}
	}
	os.WriteFile(path, good, 0o644)
	run(t, top, "config", "core.commitGraph", "false")
	r, _ = FindEnv(top, Env{})
	if g, _ := r.OpenCommitGraph(false); g != nil {
		t.Error("opened with core.commitGraph=false")
	}
}

// FuzzCommitGraph: a commit-graph file of any content is refused or read
// without a panic, and lookups in what is accepted stay in bounds.
func FuzzCommitGraph(f *testing.F) {
	f.Add([]byte("CGPH\x01\x01\x03\x00"))
	f.Add(append([]byte("CGPH\x01\x01\x00\x00"), make([]byte, 12)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The data with its checksum appended, so that the fuzzer reaches
		// the parsing behind the check, for both kinds of id.
		for _, hs := range []int{odb.SHA1Size, odb.SHA256Size} {
			var sum []byte
			if hs == odb.SHA1Size {
				h := sha1.Sum(data)
				sum = h[:]
			} else {
				h := sha256.Sum256(data)
				sum = h[:]
			}
			l, err := parseGraphLayer(append(data[:len(data):len(data)], sum...), 0, hs)
			if err != nil {
				continue
			}
			g := &CommitGraph{layers: []*graphLayer{l}}
			for i := uint32(0); i < min(l.n, 64); i++ {
				var id odb.ID
				copy(id[:hs], l.oids[uint64(i)*uint64(hs):])
				g.Lookup(id, nil)
			}
			g.Lookup(odb.ID{}, nil)
		}
	})
}

// BenchmarkCommitGraphOpen opens a repository's commit-graph, checksum
// included: that of $SPINDLE_GRAPH_REPO (a repository with a
// commit-graph written), else graphRepo's. Prometheus' (46,000 commits,
// 2.8 MB) is the size to think of; Checksum is the share of the check.
//
//	SPINDLE_GRAPH_REPO=path go test -run '^$' -bench CommitGraphOpen ./scan/internal/gitrepo
func BenchmarkCommitGraphOpen(b *testing.B) {
	dir := os.Getenv("SPINDLE_GRAPH_REPO")
	if dir == "" {
		b.Skip("SPINDLE_GRAPH_REPO not set")
	}
	r, err := Find(dir)
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(r.ObjectsDir, "info", "commit-graph"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Open", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			if g, err := r.OpenCommitGraph(false); err != nil || g == nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Checksum", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			if !checksumOK(data, r.HashSize) {
				b.Fatal("checksum")
			}
		}
	})
}
