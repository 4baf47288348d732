package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// packedRepo makes a bare git directory whose packed-refs holds n tags
// named t<i> (in the order git sorts them when sorted is true, reversed
// otherwise), all pointing at one id.
func packedRepo(t testing.TB, n int, sorted bool) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"objects", "refs/heads"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("refs/tags/t%08d", i)
	}
	if !sorted {
		slices.Reverse(names)
	}
	var b strings.Builder
	b.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
	for _, name := range names {
		b.WriteString(strings.Repeat("a", 40) + " " + name + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "packed-refs"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPackedRefsSortedOnceEachName: a packed-refs file out of order (a
// hand-edited one) is sorted, a name given twice takes its last line, and
// lookups through ReadRef, RefsUnder and a loose symbolic ref find packed
// refs by binary search.
func TestPackedRefsSortedOnceEachName(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"objects", "refs/heads"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("C", 40)
	os.WriteFile(filepath.Join(dir, "packed-refs"), []byte(
		b+" refs/tags/z\n"+a+" refs/heads/main\n^"+b+"\n"+a+" refs/tags/z\n"+c+" refs/tags/a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "refs", "heads", "alias"), []byte("ref: refs/tags/a\n"), 0o644)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	refs, warnings := r.Refs()
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	want := []Ref{{"refs/heads/alias", strings.ToLower(c)}, {"refs/heads/main", a}, {"refs/tags/a", strings.ToLower(c)}, {"refs/tags/z", a}}
	if !slices.Equal(refs, want) {
		t.Errorf("Refs = %v\nwant %v", refs, want)
	}
	tags, _ := r.RefsUnder("refs/tags/")
	if !slices.Equal(tags, want[2:]) {
		t.Errorf("RefsUnder(refs/tags/) = %v", tags)
	}
	if id, err := r.ReadRef("HEAD"); err != nil || id != a {
		t.Errorf("HEAD = %q %v", id, err)
	}
	if _, err := r.ReadRef("refs/tags/b"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refs/tags/b: %v", err)
	}
}

// TestPackedRefsMalformedLineIsAWarning: a damaged line is a warning
// naming it, and the refs before it are listed.
func TestPackedRefsMalformedLineIsAWarning(t *testing.T) {
	dir := packedRepo(t, 3, true)
	f, _ := os.OpenFile(filepath.Join(dir, "packed-refs"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not-an-id refs/tags/x\n")
	f.Close()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	refs, warnings := r.Refs()
	if len(refs) != 3 || len(warnings) != 1 || !strings.Contains(warnings[0].Error(), "line 5") {
		t.Errorf("refs %v warnings %v", refs, warnings)
	}
}

// TestPackedRefsLinear lists n and 8n packed refs, in git's order and
// reversed (which must be sorted), and checks that 8n costs about 8
// times the memory allocated and at most 20 times the time of n (the
// best of three runs each: a sort's log factor and a loaded machine's
// noise fit in that; 2,000,000 refs took 49 s where 250,000 took 1.4 s
// before the listing was made linear).
func TestPackedRefsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1,600,000 refs")
	}
	const n = 200_000
	for _, sorted := range []bool{true, false} {
		cost := func(n int) (alloc uint64, ns float64) {
			dir := packedRepo(t, n, sorted)
			res := testing.Benchmark(func(b *testing.B) {
				for range b.N {
					r, err := Open(dir)
					if err != nil {
						b.Fatal(err)
					}
					if refs, w := r.Refs(); len(refs) != n || len(w) > 0 {
						b.Fatalf("%d refs, %v", len(refs), w)
					}
				}
			})
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			r, _ := Open(dir)
			r.Refs()
			runtime.ReadMemStats(&m1)
			return m1.TotalAlloc - m0.TotalAlloc, float64(res.NsPerOp())
		}
		a1, t1 := cost(n)
		a8, t8 := cost(8 * n)
		t.Logf("sorted=%v: n=%d %.0f ms %d MB; 8n %.0f ms %d MB", sorted, n, t1/1e6, a1>>20, t8/1e6, a8>>20)
		if a8 > 10*a1 {
			t.Errorf("sorted=%v: 8n allocates %d bytes, n %d: not linear", sorted, a8, a1)
		}
		if t8 > 20*t1 {
			t.Errorf("sorted=%v: 8n takes %.0f ms, n %.0f ms: not linear", sorted, t8/1e6, t1/1e6)
		}
	}
}

// BenchmarkPackedRefs lists 2,000,000 packed refs (git's own listing of
// them takes 0.7 s): opening the repository and reading packed-refs
// anew each time.
//
//	go test -run '^$' -bench PackedRefs -benchmem ./scan/internal/gitrepo
func BenchmarkPackedRefs(b *testing.B) {
	dir := packedRepo(b, 2_000_000, true)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if refs, w := r.Refs(); len(refs) != 2_000_000 || len(w) > 0 {
			b.Fatalf("%d refs, %v", len(refs), w)
		}
	}
}

// TestLooseRefsLinear lists n and 8n loose refs, half of them symbolic
// refs to the other half, beside as many packed ones of the same names:
// 8n costs about 8 times the memory of n.
func TestLooseRefsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 9,000 ref files")
	}
	cost := func(n int) uint64 {
		dir := packedRepo(t, n, true)
		for i := range n {
			p := filepath.Join(dir, "refs", "tags", fmt.Sprintf("t%08d", i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			content := strings.Repeat("b", 40)
			if i%2 == 1 {
				content = fmt.Sprintf("ref: refs/tags/t%08d", i-1)
			}
			if err := os.WriteFile(p, []byte(content+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		refs, w := r.Refs()
		runtime.ReadMemStats(&m1)
		if len(refs) != n || len(w) > 0 || refs[1].ID != strings.Repeat("b", 40) {
			t.Fatalf("%d refs of %d, %v", len(refs), n, w)
		}
		return m1.TotalAlloc - m0.TotalAlloc
	}
	a1, a8 := cost(1000), cost(8000)
	if a8 > 11*a1 {
		t.Errorf("8n loose refs allocate %d bytes, n %d: not linear", a8, a1)
	}
}
