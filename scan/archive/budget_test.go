package archive

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestEachBudgetIsHitOnceAndSkipsTheRestOfItsArchive(t *testing.T) {
	hundred := strings.Repeat("x", 100)
	ten := make([]file, 10)
	for i := range ten {
		ten[i] = file{"m" + itoa(i) + ".txt", "m"}
	}
	innerZip := zipOf(t, zipDeflate, ten...)
	zeros := gzipOf(t, make([]byte, 4<<20))
	tests := []struct {
		name    string
		data    []byte
		stream  bool // hide ReadAt, so that a zip is spooled
		lim     func(*Limits)
		visit   func(Member, io.Reader) // after the member is read; nil: nothing
		want    map[string]string       // members visited, with the bytes read
		budget  Budget
		archive string
		limit   int64
	}{
		{name: "x.zip", data: zipOf(t, zipDeflate, ten...), lim: func(l *Limits) { l.MaxEntries = 3 },
			want:   map[string]string{"x.zip!m0.txt": "m", "x.zip!m1.txt": "m", "x.zip!m2.txt": "m"},
			budget: BudgetEntries, archive: "x.zip", limit: 3},
		{name: "x.tar", data: tarOf(t, file{"big.txt", strings.Repeat("b", 1000)}, file{"after.txt", "a"}),
			lim:    func(l *Limits) { l.MaxMemberBytes = 100 },
			want:   map[string]string{"x.tar!big.txt": strings.Repeat("b", 100)},
			budget: BudgetMemberBytes, archive: "x.tar", limit: 100},
		{name: "x.tar", data: tarOf(t, file{"a", hundred}, file{"b", hundred}, file{"c", hundred}, file{"d", hundred}),
			lim:    func(l *Limits) { l.MaxArchiveBytes = 250 },
			want:   map[string]string{"x.tar!a": hundred, "x.tar!b": hundred, "x.tar!c": hundred[:50]},
			budget: BudgetArchiveBytes, archive: "x.tar", limit: 250},
		{name: "x.zip", data: zipOf(t, zipDeflate, file{"a", hundred}), stream: true,
			lim:    func(l *Limits) { l.MaxArchiveBytes = 50 },
			want:   map[string]string{},
			budget: BudgetArchiveBytes, archive: "x.zip", limit: 50},
		{name: "x.tar", data: tarOf(t, file{"a", hundred}, file{"b", hundred}, file{"c", hundred}),
			lim:    func(l *Limits) { l.MaxRootBytes = 150 },
			want:   map[string]string{"x.tar!a": hundred, "x.tar!b": hundred},
			budget: BudgetRootBytes, archive: "x.tar", limit: 150},
		{name: "zeros.gz", data: zeros,
			budget: BudgetRatio, archive: "zeros.gz", limit: 128},
		{name: "x.tar.gz", data: gzipOf(t, tarOf(t, file{"a", "a"}, file{"b", "b"})),
			lim:    func(l *Limits) { l.MaxDuration = 5 * time.Millisecond },
			visit:  func(Member, io.Reader) { time.Sleep(20 * time.Millisecond) },
			want:   map[string]string{"x.tar.gz!a": "a"},
			budget: BudgetDuration, archive: "x.tar.gz", limit: int64(5 * time.Millisecond)},
		// A budget hit inside a nested archive skips the rest of that
		// archive only: the outer one goes on with after.txt.
		{name: "outer.tar", data: tarOf(t, file{"inner.zip", string(innerZip)}, file{"after.txt", "a"}),
			lim: func(l *Limits) { l.MaxEntries = 3 },
			want: map[string]string{"outer.tar!inner.zip!m0.txt": "m", "outer.tar!inner.zip!m1.txt": "m",
				"outer.tar!inner.zip!m2.txt": "m", "outer.tar!after.txt": "a"},
			budget: BudgetEntries, archive: "outer.tar!inner.zip", limit: 3},
	}
	for _, tt := range tests {
		t.Run(tt.budget.String(), func(t *testing.T) {
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
			err := Walk(context.Background(), tt.name, r, int64(len(tt.data)), lim, func(m Member, r io.Reader) error {
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
			be := onlyBudget(t, warnings, tt.budget)
			if be.Archive != tt.archive || be.Limit != tt.limit {
				t.Errorf("budget error %+v, want archive %q limit %d", be, tt.archive, tt.limit)
			}
			if tt.want == nil { // the ratio bomb: some output, far less than all
				n := len(got[tt.name])
				if n < ratioGrace || n > ratioGrace+2*bufSize {
					t.Errorf("read %d bytes of the bomb, want just over %d", n, ratioGrace)
				}
				return
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("visited %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestBudgetErrorTextNamesArchiveBudgetAndLimit(t *testing.T) {
	tests := []struct {
		err  BudgetError
		want string
	}{
		{BudgetError{"a.tar.gz!inner.zip", BudgetEntries, 65536}, "archive: a.tar.gz!inner.zip: entries budget exceeded (limit 65536)"},
		{BudgetError{"x.zip", BudgetMemberBytes, 64 << 20}, "archive: x.zip: member-bytes budget exceeded (limit 64 MiB)"},
		{BudgetError{"x.zip", BudgetRootBytes, 1000}, "archive: x.zip: root-bytes budget exceeded (limit 1000 B)"},
		{BudgetError{"x.gz", BudgetRatio, 128}, "archive: x.gz: inflation-ratio budget exceeded (limit 128:1)"},
		{BudgetError{"x.gz", BudgetDuration, int64(30 * time.Second)}, "archive: x.gz: duration budget exceeded (limit 30s)"},
		{BudgetError{"a!b.zip", BudgetDepth, 3}, "archive: a!b.zip: depth budget exceeded (limit 3)"},
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
	if !errors.As(res.err, &be) || be.Budget != BudgetEntries || be.Archive != "x.zip" {
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
	lim.MaxRootBytes = walks * member // room for half of what the walks hold
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
		z.MaxDuration != d.MaxDuration || z.MaxWindow != d.MaxWindow || z.SpoolMemory != d.SpoolMemory || z.TempDir == "" {
		t.Errorf("zero fields: got %+v", z)
	}
	n := Limits{MaxDepth: -1, MaxEntries: -1, MaxMemberBytes: -1, MaxArchiveBytes: -1, MaxRootBytes: -1,
		MaxRatio: -1, MaxDuration: -1, MaxWindow: -1, SpoolMemory: -1}.normalize()
	if n.MaxDepth != 0 || n.MaxEntries < 1<<40 || n.MaxMemberBytes < 1<<60 || n.MaxArchiveBytes < 1<<60 ||
		n.MaxRootBytes < 1<<60 || n.MaxRatio < 1e300 || n.MaxDuration < 1<<60 || n.MaxWindow < 1<<60 || n.SpoolMemory != 0 {
		t.Errorf("negative fields: got %+v", n)
	}
}
