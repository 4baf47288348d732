package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// TestReftableMatchesGit reads the reftable repositories git 2.47 made
// (testdata/reftable/gen.sh: a compacted table of 400 tags, branches, an
// annotated and a light tag, a symbolic ref, and newer tables over it
// that update, delete and add refs) and lists the refs and HEAD that git
// for-each-ref and rev-parse listed, in SHA-1 and in SHA-256; the
// objects they name read.
func TestReftableMatchesGit(t *testing.T) {
	for _, name := range []string{"sha1", "sha256"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "reftable", name+".expected"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Open(filepath.Join("testdata", "reftable", name+".git"))
			if err != nil {
				t.Fatal(err)
			}
			refs, warnings := r.Refs()
			if len(warnings) > 0 {
				t.Fatal(warnings)
			}
			var got strings.Builder
			for _, ref := range refs {
				got.WriteString(ref.Name + " " + ref.ID + "\n")
			}
			head, err := r.ReadRef("HEAD")
			if err != nil {
				t.Fatal(err)
			}
			got.WriteString("HEAD " + head + "\n")
			if got.String() != string(want) {
				t.Errorf("refs:\n%s\nwant (git 2.47)\n%s", got.String(), want)
			}
			if !strings.Contains(got.String(), "refs/heads/late ") || strings.Contains(got.String(), "refs/heads/b3 ") {
				t.Error("the newer tables' addition or deletion is not seen")
			}
			if tags, _ := r.RefsUnder("refs/tags/many/"); len(tags) != 400 {
				t.Errorf("%d tags under refs/tags/many/, want 400", len(tags))
			}
			if id, err := r.ReadRef("refs/heads/alias"); err != nil || id == "" {
				t.Errorf("symbolic ref: %q %v", id, err)
			}
			if _, err := r.ReadRef("refs/heads/b3"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("deleted ref: %v", err)
			}
			objs, _, err := r.OpenObjects(odb.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer objs.Close()
			id, _ := odb.ParseID(head)
			if typ, _, err := objs.Read(id, nil); err != nil || typ != odb.TypeCommit {
				t.Errorf("HEAD %s: %v %v", head, typ, err)
			}
		})
	}
}

// TestReftableDamageIsAnError: a table cut short, with a flipped byte in
// a record or the footer, or another table's hash function, and a
// tables.list naming a missing table, are errors naming the table, never
// a list with refs missing.
func TestReftableDamageIsAnError(t *testing.T) {
	src := filepath.Join("testdata", "reftable", "sha1.git")
	list, _ := os.ReadFile(filepath.Join(src, "reftable", "tables.list"))
	first := strings.Fields(string(list))[0]
	good, _ := os.ReadFile(filepath.Join(src, "reftable", first))
	for name, bad := range map[string][]byte{
		"truncated":       good[:len(good)/2],
		"footer":          flip(good, len(good)-10),
		"record length":   flip(good, 29),
		"block length":    flip(good, 26),
		"no header":       good[10:],
		"missing table":   nil,
		"hash of another": append(append([]byte{}, good[:4]...), append([]byte{2}, good[5:]...)...),
	} {
		dir := copyRepo(t, src)
		p := filepath.Join(dir, "reftable", first)
		if bad == nil {
			os.Remove(p)
		} else {
			os.WriteFile(p, bad, 0o644)
		}
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		refs, warnings := r.Refs()
		if len(warnings) == 0 || len(refs) != 0 {
			t.Errorf("%s: %d refs, warnings %v", name, len(refs), warnings)
		}
		if _, err := r.ReadRef("HEAD"); err == nil || errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: HEAD: %v", name, err)
		}
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 0x5a
	return c
}

// copyRepo copies a directory tree into a temporary directory.
func copyRepo(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestReftableWithTheLocalGit makes a reftable repository with the git
// installed (or $SPINDLE_REFTABLE_GIT), when it writes reftables (2.45
// and later; CI's 2.39 does not), with a linked work tree whose HEAD is
// its own, and checks the refs and heads against git's.
func TestReftableWithTheLocalGit(t *testing.T) {
	g := os.Getenv("SPINDLE_REFTABLE_GIT")
	if g == "" {
		g = "git"
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command(g, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if out, err := exec.Command(g, "init", "-q", "--ref-format=reftable", filepath.Join(dir, "w")).CombinedOutput(); err != nil {
		first, _, _ := strings.Cut(string(out), "\n")
		t.Skipf("%s does not write reftables: %s", g, first)
	}
	dir = filepath.Join(dir, "w")
	git("commit", "-q", "--allow-empty", "-m", "one")
	git("branch", "side")
	git("commit", "-q", "--allow-empty", "-m", "two")
	linked := filepath.Join(t.TempDir(), "linked")
	git("worktree", "add", "-q", linked, "side")
	r, err := Find(linked)
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.ReadRef("HEAD")
	if err != nil || head != git("rev-parse", "side") {
		t.Errorf("linked work tree's HEAD = %q %v, want side's", head, err)
	}
	heads, warnings := r.Heads()
	if len(heads) != 2 || len(warnings) > 0 {
		t.Errorf("heads %v %v", heads, warnings)
	}
	refs, warnings := r.Refs()
	var got strings.Builder
	for _, ref := range refs {
		got.WriteString(ref.Name + " " + ref.ID + "\n")
	}
	if want := git("for-each-ref", "--format=%(refname) %(objectname)") + "\n"; got.String() != want || len(warnings) > 0 {
		t.Errorf("refs\n%s\nwant\n%s%v", got.String(), want, warnings)
	}
}

// FuzzReftable: a table of any content, read as SHA-1 and as SHA-256,
// gives an error or records whose names are sorted and whose values are
// well formed. The seeds are tables git 2.47 wrote.
func FuzzReftable(f *testing.F) {
	f.Add([]byte("REFT\x01\x00\x10\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, hs := range []int{20, 32} {
			refs, err := parseReftable(data, hs)
			if err != nil {
				continue
			}
			for i, r := range refs {
				if i > 0 && refs[i-1].name >= r.name {
					t.Fatalf("not sorted: %q after %q", r.name, refs[i-1].name)
				}
				if !r.deleted && r.target == "" && !isHexID(r.id, hs) {
					t.Fatalf("record %+v", r)
				}
			}
		}
	})
}

// TestReftableLinear reads tables of n and 8n refs (one compacted table
// each, as git pack-refs writes them) built from the ref block of git's
// own table, and checks that 8n costs about 8 times the memory of n.
func TestReftableLinear(t *testing.T) {
	cost := func(n int) uint64 {
		data := syntheticTable(n)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		refs, err := parseReftable(data, 20)
		runtime.ReadMemStats(&m1)
		if err != nil || len(refs) != n {
			t.Fatalf("n=%d: %d refs, %v", n, len(refs), err)
		}
		return m1.TotalAlloc - m0.TotalAlloc
	}
	a1, a8 := cost(20_000), cost(160_000)
	if a8 > 10*a1 {
		t.Errorf("8n allocates %d bytes, n %d: not linear", a8, a1)
	}
}

// syntheticTable writes an unaligned version 1 table of n refs
// refs/tags/t<i>, sixteen to a block, each record a restart point, and a
// valid footer.
func syntheticTable(n int) []byte {
	hdr := []byte("REFT\x01\x00\x00\x00")
	hdr = binary.BigEndian.AppendUint64(hdr, 1)
	hdr = binary.BigEndian.AppendUint64(hdr, 1)
	data := append([]byte{}, hdr...)
	for start := 0; start < n; start += 16 {
		blockAt := len(data)
		if blockAt == len(hdr) {
			blockAt = 0 // the first block holds the header
		}
		lenAt := len(data) + 1
		data = append(data, 'r', 0, 0, 0)
		var restarts []int
		for i := start; i < min(n, start+16); i++ {
			name := fmt.Sprintf("refs/tags/t%08d", i)
			restarts = append(restarts, len(data)-blockAt)
			data = append(data, 0)
			data = appendVarint(data, uint64(len(name)<<3|1))
			data = append(data, name...)
			data = append(data, 0)
			data = append(data, make([]byte, 20)...)
			data[len(data)-1] = 1
		}
		for _, r := range restarts {
			data = append(data, byte(r>>16), byte(r>>8), byte(r))
		}
		data = binary.BigEndian.AppendUint16(data, uint16(len(restarts)))
		l := len(data) - blockAt
		data[lenAt], data[lenAt+1], data[lenAt+2] = byte(l>>16), byte(l>>8), byte(l)
	}
	footer := append([]byte{}, hdr...)
	footer = append(footer, make([]byte, 40)...)
	footer = binary.BigEndian.AppendUint32(footer, crc32.ChecksumIEEE(footer))
	return append(data, footer...)
}

// appendVarint appends v in git's varint encoding.
func appendVarint(b []byte, v uint64) []byte {
	var tmp [16]byte
	i := len(tmp) - 1
	tmp[i] = byte(v & 127)
	for v >>= 7; v > 0; v >>= 7 {
		v--
		i--
		tmp[i] = 128 | byte(v&127)
	}
	return append(b, tmp[i:]...)
}

// TestReftableManyTablesLinear reads stacks of n and 8n one-ref tables
// (a stack git never compacted): the work is a sort of the records, not
// a merge per table.
func TestReftableManyTablesLinear(t *testing.T) {
	stack := func(n int) string {
		dir := copyRepo(t, filepath.Join("testdata", "reftable", "sha1.git"))
		rt := filepath.Join(dir, "reftable")
		one := syntheticTable(1)
		var list strings.Builder
		for i := range n {
			name := fmt.Sprintf("0x%012x-0x%012x-00000000.ref", i+1, i+1)
			// The one ref of each table differs: change its name's digits.
			tb := bytes.Replace(one, []byte("t00000000"), []byte(fmt.Sprintf("t%08d", i)), 1)
			tb = fixFooter(tb)
			if err := os.WriteFile(filepath.Join(rt, name), tb, 0o644); err != nil {
				t.Fatal(err)
			}
			list.WriteString(name + "\n")
		}
		os.WriteFile(filepath.Join(rt, "tables.list"), []byte(list.String()), 0o644)
		return dir
	}
	alloc := func(dir string, n int) uint64 {
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		refs, warnings := r.Refs()
		runtime.ReadMemStats(&m1)
		if len(refs) != n || len(warnings) > 0 {
			t.Fatalf("%d refs of %d, %v", len(refs), n, warnings)
		}
		return m1.TotalAlloc - m0.TotalAlloc
	}
	a1, a8 := alloc(stack(250), 250), alloc(stack(2000), 2000)
	if a8 > 12*a1 {
		t.Errorf("8n tables allocate %d bytes, n %d: not linear", a8, a1)
	}
}

// fixFooter recomputes a synthetic table's footer checksum.
func fixFooter(b []byte) []byte {
	f := b[len(b)-68:]
	binary.BigEndian.PutUint32(f[64:], crc32.ChecksumIEEE(f[:64]))
	return b
}
