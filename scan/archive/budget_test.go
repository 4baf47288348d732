package archive

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// be is a short way to write the budget warning a test expects.
func be(archive, member string, b Budget, limit int64) BudgetError {
	return BudgetError{Archive: archive, Member: member, Budget: b, Limit: limit}
}

func TestEachBudgetSkipsWhatItCoversAndTheWalkGoesOn(t *testing.T) {
	hundred := strings.Repeat("x", 100)
	ten := make([]file, 10)
	for i := range ten {
		ten[i] = file{"m" + itoa(i) + ".txt", "m"}
	}
	innerZip := zipOf(t, zipDeflate, ten...)
	zeros := gzipOf(t, make([]byte, 4<<20))
	rootTar := tarOf(t, file{"a", hundred}, file{"b", hundred}, file{"c", hundred})
	entriesPast := func(archive string, from int) []BudgetError {
		var w []BudgetError
		for i := from; i < 10; i++ {
			w = append(w, be(archive, archive+"!m"+itoa(i)+".txt", BudgetEntries, 3))
		}
		return w
	}
	tests := []struct {
		name   string
		file   string
		data   []byte
		stream bool // hide ReadAt, so that a zip is spooled
		lim    func(*Limits)
		visit  func(Member, io.Reader) // after the member is read; nil: nothing
		want   map[string]string       // members visited, with the bytes read
		warns  []BudgetError
	}{
		{name: "entries are counted and named past the budget", file: "x.zip", data: zipOf(t, zipDeflate, ten...),
			lim:   func(l *Limits) { l.MaxEntries = 3 },
			want:  map[string]string{"x.zip!m0.txt": "m", "x.zip!m1.txt": "m", "x.zip!m2.txt": "m"},
			warns: entriesPast("x.zip", 3)},
		{name: "a tar member over the member budget is cut and the next one read", file: "x.tar",
			data:  tarOf(t, file{"big.txt", strings.Repeat("b", 1000)}, file{"after.txt", "a"}),
			lim:   func(l *Limits) { l.MaxMemberBytes = 100 },
			want:  map[string]string{"x.tar!big.txt": strings.Repeat("b", 100), "x.tar!after.txt": "a"},
			warns: []BudgetError{be("x.tar", "x.tar!big.txt", BudgetMemberBytes, 100)}},
		{name: "a zip member over the member budget is cut and the next one read", file: "x.zip",
			data:  zipOf(t, zipDeflate, file{"big.txt", strings.Repeat("b", 1000)}, file{"after.txt", "a"}),
			lim:   func(l *Limits) { l.MaxMemberBytes = 100 },
			want:  map[string]string{"x.zip!big.txt": strings.Repeat("b", 100), "x.zip!after.txt": "a"},
			warns: []BudgetError{be("x.zip", "x.zip!big.txt", BudgetMemberBytes, 100)}},
		{name: "archive bytes end a tar", file: "x.tar",
			data:  tarOf(t, file{"a", hundred}, file{"b", hundred}, file{"c", hundred}, file{"d", hundred}),
			lim:   func(l *Limits) { l.MaxArchiveBytes = 250 },
			want:  map[string]string{"x.tar!a": hundred, "x.tar!b": hundred, "x.tar!c": hundred[:50]},
			warns: []BudgetError{be("x.tar", "", BudgetArchiveBytes, 250)}},
		{name: "archive bytes end a zip, every member left named", file: "x.zip",
			data:  zipOf(t, zipDeflate, file{"a", hundred}, file{"b", hundred}, file{"c", hundred}, file{"d", hundred}),
			lim:   func(l *Limits) { l.MaxArchiveBytes = 250 },
			want:  map[string]string{"x.zip!a": hundred, "x.zip!b": hundred, "x.zip!c": hundred[:50]},
			warns: []BudgetError{be("x.zip", "x.zip!c", BudgetArchiveBytes, 250), be("x.zip", "x.zip!d", BudgetArchiveBytes, 250)}},
		{name: "a zip too big to spool", file: "x.zip", data: zipOf(t, zipDeflate, file{"a", hundred}), stream: true,
			lim:   func(l *Limits) { l.MaxArchiveBytes = 50 },
			want:  map[string]string{},
			warns: []BudgetError{be("x.zip", "", BudgetArchiveBytes, 50)}},
		{name: "the root budget ends the walk once past its floor and its ratio", file: "x.tar",
			data: rootTar,
			lim: func(l *Limits) { // past 150 bytes, and past 150 bytes per len(rootTar) compressed bytes
				l.MaxRootBytes, l.MaxRatio = 150, 150/float64(len(rootTar))
			},
			want:  map[string]string{"x.tar!a": hundred, "x.tar!b": hundred},
			warns: []BudgetError{be("x.tar", "", BudgetRootBytes, 150)}},
		{name: "a ratio past the floor ends a stream", file: "zeros.gz", data: zeros,
			lim:   func(l *Limits) { l.MaxRatio, l.RatioFloor = 128, 1<<20 },
			warns: []BudgetError{be("zeros.gz", "", BudgetRatio, 128)}},
		{name: "the clock ends an archive", file: "x.tar.gz", data: gzipOf(t, tarOf(t, file{"a", "a"}, file{"b", "b"})),
			lim:   func(l *Limits) { l.MaxDuration = 5 * time.Millisecond },
			visit: func(Member, io.Reader) { time.Sleep(20 * time.Millisecond) },
			want:  map[string]string{"x.tar.gz!a": "a"},
			warns: []BudgetError{be("x.tar.gz", "", BudgetDuration, int64(5*time.Millisecond))}},
		// A budget hit inside a nested archive skips what it covers there
		// only: the outer archive goes on with after.txt.
		{name: "a nested archive's budget stays inside it", file: "outer.tar",
			data: tarOf(t, file{"inner.zip", string(innerZip)}, file{"after.txt", "a"}),
			lim:  func(l *Limits) { l.MaxEntries = 3 },
			want: map[string]string{"outer.tar!inner.zip!m0.txt": "m", "outer.tar!inner.zip!m1.txt": "m",
				"outer.tar!inner.zip!m2.txt": "m", "outer.tar!after.txt": "a"},
			warns: entriesPast("outer.tar!inner.zip", 3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := DefaultLimits()
			if tt.lim != nil {
				tt.lim(&lim)
			}
			got := map[string]string{}
			var warnings []error
			var r io.Reader = bytes.NewReader(tt.data)
			if tt.stream {
				r = plainReader{r}
			}
			err := Walk(context.Background(), tt.file, r, int64(len(tt.data)), lim, func(m Member, r io.Reader) error {
				b, err := io.ReadAll(r)
				got[m.Name] = string(b)
				if tt.visit != nil {
					tt.visit(m, r)
				}
				return err
			}, func(err error) { warnings = append(warnings, err) })
			if err != nil {
				t.Fatal(err)
			}
			assertBudgets(t, warnings, tt.warns)
			if tt.want == nil { // the ratio bomb: some output, far less than all
				n := len(got[tt.file])
				if n < int(lim.RatioFloor) || n > int(lim.RatioFloor)+2*bufSize {
					t.Errorf("read %d bytes of the bomb, want just over %d", n, lim.RatioFloor)
				}
				return
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("visited %q\nwant %q", got, tt.want)
			}
		})
	}
}

// assertBudgets checks that warnings are exactly the budget errors want,
// in order, and that each one's text names what it is about.
func assertBudgets(t *testing.T, warnings []error, want []BudgetError) {
	t.Helper()
	var got []BudgetError
	for _, w := range warnings {
		var e *BudgetError
		if !errors.As(w, &e) {
			t.Errorf("unexpected warning %v", w)
			continue
		}
		if msg := e.Error(); !strings.Contains(msg, e.Name()) || !strings.Contains(msg, e.Budget.String()+" budget") {
			t.Errorf("warning %q does not name %q and budget %q", msg, e.Name(), e.Budget)
		}
		got = append(got, *e)
	}
	if !slices.Equal(got, want) {
		t.Errorf("budget warnings\n got %+v\nwant %+v", got, want)
	}
}

func TestBudgetErrorTextNamesWhatWasSkippedTheBudgetAndLimit(t *testing.T) {
	tests := []struct {
		err  BudgetError
		want string
	}{
		{be("a.tar.gz!inner.zip", "a.tar.gz!inner.zip!x", BudgetEntries, 65536), "archive: a.tar.gz!inner.zip!x: entries budget exceeded (limit 65536)"},
		{be("x.zip", "x.zip!big.sql", BudgetMemberBytes, 64<<20), "archive: x.zip!big.sql: member-bytes budget exceeded (limit 64 MiB)"},
		{be("x.zip", "", BudgetRootBytes, 1000), "archive: x.zip: root-bytes budget exceeded (limit 1000 B)"},
		{be("x.gz", "", BudgetRatio, 128), "archive: x.gz: inflation-ratio budget exceeded (limit 128:1)"},
		{be("x.gz", "", BudgetDuration, int64(30*time.Second)), "archive: x.gz: duration budget exceeded (limit 30s)"},
		{be("a!b.zip", "", BudgetDepth, 3), "archive: a!b.zip: depth budget exceeded (limit 3)"},
		{be("a.7z", "", BudgetHeader, 16<<20), "archive: a.7z: header-bytes budget exceeded (limit 16 MiB)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestFailOnBudgetEndsTheWalkWithTheBudgetError(t *testing.T) {
	data := zipOf(t, zipDeflate, file{"a", "a"}, file{"b", "b"}, file{"c", "c"})
	lim := DefaultLimits()
	lim.MaxEntries, lim.FailOnBudget = 1, true
	res := walkAll(t, "x.zip", data, lim)
	var be *BudgetError
	if !errors.As(res.err, &be) || be.Budget != BudgetEntries || be.Archive != "x.zip" || be.Member != "x.zip!b" {
		t.Fatalf("err %v, want the entries budget error", res.err)
	}
	if len(res.warnings) != 0 || len(res.members) != 1 {
		t.Errorf("warnings %v, members %v; want none and one", res.warnings, res.members)
	}
	// Depth is a budget too, though it skips one member rather than an archive.
	lim = DefaultLimits()
	lim.MaxDepth, lim.FailOnBudget = 1, true
	nested := zipOf(t, zipDeflate, file{"in.zip", string(data)}, file{"later.txt", "l"})
	if res := walkAll(t, "x.zip", nested, lim); !errors.As(res.err, &be) || be.Budget != BudgetDepth || len(res.members) != 0 {
		t.Fatalf("depth: err %v, members %v", res.err, res.members)
	}
}

func TestRootBudgetIsSharedByConcurrentWalks(t *testing.T) {
	const walks, member = 8, 1000
	data := gzipOf(t, tarOf(t, file{"a", strings.Repeat("a", member)}, file{"b", strings.Repeat("b", member)}))
	lim := DefaultLimits()
	// Room for half of what the walks hold, and a ratio that the text,
	// 2000 bytes a walk from some 60 compressed, soon passes.
	lim.MaxRootBytes, lim.MaxRatio = walks*member, 4
	root := NewRoot(lim)
	var mu sync.Mutex
	var read int64
	var warnings []error
	var wg sync.WaitGroup
	for i := range walks {
		wg.Go(func() {
			err := root.Walk(context.Background(), "w"+itoa(i)+".tar.gz", bytes.NewReader(data), int64(len(data)),
				func(m Member, r io.Reader) error {
					n, err := io.Copy(io.Discard, r)
					mu.Lock()
					read += n
					mu.Unlock()
					return err
				}, func(err error) {
					mu.Lock()
					warnings = append(warnings, err)
					mu.Unlock()
				})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if root.Used() < read {
		t.Errorf("Used %d < bytes read %d", root.Used(), read)
	}
	// Each walk may overshoot by what one read brings before it sees the
	// shared counter; members here fit in one read.
	if read > lim.MaxRootBytes+walks*member || read < lim.MaxRootBytes {
		t.Errorf("read %d bytes under a root budget of %d", read, lim.MaxRootBytes)
	}
	if len(warnings) == 0 {
		t.Fatal("no root budget warning")
	}
	for _, w := range warnings {
		var be *BudgetError
		if !errors.As(w, &be) || be.Budget != BudgetRootBytes {
			t.Errorf("unexpected warning %v", w)
		}
	}
	// Once spent, the root opens no more archives, but plain files pass.
	res := walkReaderRoot(t, root, "late.tar.gz", data)
	if len(res.members) != 0 || len(res.warnings) != 1 {
		t.Errorf("after the budget: members %v, warnings %v", res.members, res.warnings)
	}
	if res := walkReaderRoot(t, root, "plain.txt", []byte("p")); res.members["plain.txt"] != "p" {
		t.Errorf("plain file after the budget: %v", res.members)
	}
}

// TestRootBudgetReadsOrdinaryTreesAndBoundsTreesOfBombs: past its floor, a
// root decodes no more than MaxRatio times the compressed bytes it opened,
// so sixty archives of text at a few to one are read whole however much
// they decode, while sixty small bombs cost the floor and what their own
// size buys at that ratio, not what they hold.
func TestRootBudgetReadsOrdinaryTreesAndBoundsTreesOfBombs(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxRootBytes, lim.MaxRatio = 1<<20, 100
	text := []byte(benchText()[:256<<10]) // about 4:1
	bomb := gzipOf(t, make([]byte, 256<<10))
	for _, tt := range []struct {
		name  string
		data  []byte
		whole bool
	}{{"text.gz", gzipOf(t, text), true}, {"zeros.gz", bomb, false}} {
		root := NewRoot(lim)
		hits := 0
		for i := range 60 {
			hits += len(walkReaderRoot(t, root, itoa(i)+tt.name, tt.data).warnings)
		}
		in := int64(60 * len(tt.data))
		if tt.whole {
			if hits != 0 || root.Used() != 60*256<<10 {
				t.Errorf("%s: %d warnings, %d bytes decoded: an ordinary tree is read whole", tt.name, hits, root.Used())
			}
			continue
		}
		bound := max(lim.MaxRootBytes, int64(lim.MaxRatio)*in) + 60*bufSize // one read of overshoot per walk
		if hits == 0 || root.Used() > bound {
			t.Errorf("%s: %d warnings, %d bytes decoded, want at most %d", tt.name, hits, root.Used(), bound)
		}
	}
}

func walkReaderRoot(t *testing.T, root *Root, name string, data []byte) result {
	res := result{members: map[string]string{}}
	res.err = root.Walk(context.Background(), name, bytes.NewReader(data), int64(len(data)), func(m Member, r io.Reader) error {
		b, err := io.ReadAll(r)
		res.members[m.Name] = string(b)
		return err
	}, func(err error) { res.warnings = append(res.warnings, err) })
	if res.err != nil {
		t.Fatal(res.err)
	}
	return res
}

func TestLimitsNormalizeZeroToDefaultAndNegativeToUnlimited(t *testing.T) {
	d := DefaultLimits()
	z := Limits{MaxDepth: 3}.normalize()
	if z.MaxEntries != d.MaxEntries || z.MaxMemberBytes != d.MaxMemberBytes || z.MaxRatio != d.MaxRatio ||
		z.RatioFloor != d.RatioFloor || z.MaxHeaderBytes != d.MaxHeaderBytes ||
		z.MaxDuration != d.MaxDuration || z.MaxWindow != d.MaxWindow || z.SpoolMemory != d.SpoolMemory || z.TempDir == "" {
		t.Errorf("zero fields: got %+v", z)
	}
	n := Limits{MaxDepth: -1, MaxEntries: -1, MaxMemberBytes: -1, MaxArchiveBytes: -1, MaxRootBytes: -1,
		MaxRatio: -1, RatioFloor: -1, MaxDuration: -1, MaxWindow: -1, MaxHeaderBytes: -1, SpoolMemory: -1}.normalize()
	if n.MaxDepth != 0 || n.MaxEntries < 1<<40 || n.MaxMemberBytes < 1<<60 || n.MaxArchiveBytes < 1<<60 ||
		n.MaxRootBytes < 1<<60 || n.MaxRatio < 1e300 || n.RatioFloor < 1<<60 || n.MaxDuration < 1<<60 ||
		n.MaxWindow < 1<<60 || n.MaxHeaderBytes < 1<<60 || n.SpoolMemory != 0 {
		t.Errorf("negative fields: got %+v", n)
	}
}
