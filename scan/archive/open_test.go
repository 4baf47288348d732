package archive

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// parallelResult is what reading an Archive's parts on several goroutines
// produced, gathered under a lock.
type parallelResult struct {
	mu       sync.Mutex
	members  map[string]string
	warnings []error
	errs     []error
}

// walkParallel opens data with Open, lists every part with Next, and walks
// the parts from workers goroutines in a shuffled order, all of them
// started while the listing is still going on.
func walkParallel(t *testing.T, root *Root, name string, data []byte, workers int, seed uint64) *parallelResult {
	t.Helper()
	res := &parallelResult{members: map[string]string{}}
	a, err := root.Open(context.Background(), name, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer a.Close()
	warn := func(err error) {
		res.mu.Lock()
		res.warnings = append(res.warnings, err)
		res.mu.Unlock()
	}
	visit := func(m Member, r io.Reader) error {
		b, err := io.ReadAll(r)
		res.mu.Lock()
		if _, dup := res.members[m.Name]; dup {
			t.Errorf("member %s visited twice", m.Name)
		}
		res.members[m.Name] = string(b)
		res.mu.Unlock()
		return err
	}
	parts := make(chan Part, 4)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for p := range parts {
				if err := a.Walk(context.Background(), p, visit, warn); err != nil {
					res.mu.Lock()
					res.errs = append(res.errs, err)
					res.mu.Unlock()
				}
			}
		})
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	var held []Part
	for {
		p, err := a.Next(context.Background(), warn)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		held = append(held, p)
		if rng.IntN(3) == 0 { // hand some out at once, keep others for later, shuffled
			i := rng.IntN(len(held))
			parts <- held[i]
			held = slices.Delete(held, i, i+1)
		}
	}
	rng.Shuffle(len(held), func(i, j int) { held[i], held[j] = held[j], held[i] })
	for _, p := range held {
		parts <- p
	}
	close(parts)
	wg.Wait()
	return res
}

// parallelSamples are archives whose parts are worth reading at once: many
// members, every method, nested archives inside members.
func parallelSamples(t *testing.T) map[string][]byte {
	var files []file
	for i := range 40 {
		files = append(files, file{"src/f" + itoa(i) + ".txt", strings.Repeat("line "+itoa(i)+" of text\n", 50*i)})
	}
	files = append(files, file{"in.zip", string(zipOf(t, zipDeflate, file{"x.env", secret}))},
		file{"in.tar.gz", string(gzipOf(t, tarOf(t, file{"y.env", secret})))})
	samples := map[string][]byte{
		"deflate.zip": zipOf(t, zipDeflate, files...),
		"zstd.zip":    zipOf(t, zipZstd, files[:10]...),
		"xz.zip":      zipOf(t, zipXz, files[:10]...),
		"stored.zip":  zipOf(t, zipStore, files...),
	}
	if _, err := os.Stat("/usr/bin/7z"); err == nil {
		dir := t.TempDir()
		for _, f := range files {
			writeTree(t, dir, map[string]string{filepath.Join("d", f.name): f.data})
		}
		run(t, dir, "7z", "a", "-bd", "solid.7z", "d")
		run(t, dir, "7z", "a", "-bd", "-ms=off", "nonsolid.7z", "d")
		run(t, dir, "7z", "a", "-bd", "-ms=4f", "blocks.7z", "d") // solid blocks of 4 files
		for _, n := range []string{"solid.7z", "nonsolid.7z", "blocks.7z"} {
			samples[n], _ = os.ReadFile(filepath.Join(dir, n))
		}
	}
	return samples
}

func TestArchivePartsReadInParallelGiveWhatWalkGives(t *testing.T) {
	for name, data := range parallelSamples(t) {
		t.Run(name, func(t *testing.T) {
			want := walkAll(t, name, data, DefaultLimits())
			if want.err != nil || len(want.warnings) != 0 || len(want.members) < 10 {
				t.Fatalf("Walk: err %v, warnings %v, %d members", want.err, want.warnings, len(want.members))
			}
			for seed := range uint64(3) {
				got := walkParallel(t, NewRoot(DefaultLimits()), name, data, 4, seed)
				if len(got.errs) != 0 || len(got.warnings) != 0 {
					t.Fatalf("errors %v, warnings %v", got.errs, got.warnings)
				}
				if !maps.Equal(got.members, want.members) {
					t.Fatalf("parallel members differ from Walk's:\n got %v\nwant %v",
						slices.Sorted(maps.Keys(got.members)), slices.Sorted(maps.Keys(want.members)))
				}
			}
		})
	}
}

// TestArchiveBudgetsAreExactAcrossParallelParts runs many workers against
// one small archive budget: the bytes visited add up to the budget exactly,
// however the reads interleave, and every member not read whole is named
// in exactly one warning.
func TestArchiveBudgetsAreExactAcrossParallelParts(t *testing.T) {
	const members, size = 64, 1000
	var files []file
	for i := range members {
		files = append(files, file{"m" + itoa(i), strings.Repeat(string(rune('a'+i%26)), size)})
	}
	data := zipOf(t, zipDeflate, files...)
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	for round := range rounds {
		lim := DefaultLimits()
		lim.MaxArchiveBytes = 10*size + 123
		res := walkParallel(t, NewRoot(lim), "x.zip", data, 8, uint64(round))
		if len(res.errs) != 0 {
			t.Fatal(res.errs)
		}
		var total int64
		whole := 0
		for _, b := range res.members {
			total += int64(len(b))
			if len(b) == size {
				whole++
			}
		}
		if total != lim.MaxArchiveBytes {
			t.Fatalf("round %d: visited %d bytes under an archive budget of %d", round, total, lim.MaxArchiveBytes)
		}
		named := map[string]bool{}
		for _, w := range res.warnings {
			var e *BudgetError
			if !errors.As(w, &e) || e.Budget != BudgetArchiveBytes || e.Member == "" || named[e.Member] {
				t.Fatalf("round %d: warning %v: want one archive-bytes warning per member", round, w)
			}
			named[e.Member] = true
		}
		if whole+len(named) != members {
			t.Fatalf("round %d: %d members whole and %d named, want %d in all", round, whole, len(named), members)
		}
	}
}

func TestArchiveNextNamesEntriesPastTheBudget(t *testing.T) {
	var files []file
	for i := range 10 {
		files = append(files, file{"m" + itoa(i), "x"})
	}
	data := zipOf(t, zipDeflate, files...)
	lim := DefaultLimits()
	lim.MaxEntries = 4
	res := walkParallel(t, NewRoot(lim), "x.zip", data, 2, 1)
	var want []BudgetError
	for i := 4; i < 10; i++ {
		want = append(want, be("x.zip", "x.zip!m"+itoa(i), BudgetEntries, 4))
	}
	assertBudgets(t, res.warnings, want)
	if len(res.members) != 4 {
		t.Errorf("members %v", res.members)
	}
}

func TestArchiveWalkStopsWithItsContextAndFailOnBudget(t *testing.T) {
	data := zipOf(t, zipDeflate, file{"a", strings.Repeat("a", 100000)}, file{"b", "b"})
	root := NewRoot(DefaultLimits())
	a, err := root.Open(context.Background(), "x.zip", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p, err := a.Next(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = a.Walk(ctx, p, func(m Member, r io.Reader) error {
		cancel()
		_, err := io.Copy(io.Discard, r)
		return err
	}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Walk after cancel: %v", err)
	}
	if _, err := a.Next(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Next after cancel: %v", err)
	}

	lim := DefaultLimits()
	lim.MaxMemberBytes, lim.FailOnBudget = 10, true
	a2, _ := NewRoot(lim).Open(context.Background(), "x.zip", bytes.NewReader(data), int64(len(data)))
	defer a2.Close()
	p, _ = a2.Next(context.Background(), nil)
	err = a2.Walk(context.Background(), p, func(m Member, r io.Reader) error { _, err := io.Copy(io.Discard, r); return err }, nil)
	var e *BudgetError
	if !errors.As(err, &e) || e.Budget != BudgetMemberBytes || e.Member != "x.zip!a" {
		t.Errorf("FailOnBudget: %v", err)
	}
}

func TestOpenServesZipAnd7zOnlyAndReportsBrokenArchivesThroughNext(t *testing.T) {
	root := NewRoot(DefaultLimits())
	for name, data := range map[string][]byte{
		"x.tar": tarOf(t, file{"a", "b"}), "x.gz": gzipOf(t, []byte("x")), "plain.txt": []byte("text"),
	} {
		if _, err := root.Open(context.Background(), name, bytes.NewReader(data), int64(len(data))); err != ErrNotRandomAccess {
			t.Errorf("%s: Open returned %v, want ErrNotRandomAccess", name, err)
		}
	}
	broken := zipOf(t, zipDeflate, file{"a.txt", secret})
	broken = broken[:len(broken)-10] // the end record is cut
	a, err := root.Open(context.Background(), "cut.zip", bytes.NewReader(broken), int64(len(broken)))
	if err != nil {
		t.Fatal(err)
	}
	var warnings []error
	if _, err := a.Next(context.Background(), func(err error) { warnings = append(warnings, err) }); err != io.EOF {
		t.Fatalf("Next: %v, want io.EOF", err)
	}
	var fe *FormatError
	if len(warnings) != 1 || !errors.As(warnings[0], &fe) || fe.Name != "cut.zip" || !fe.Lost {
		t.Errorf("warnings %v: want one lost-data format warning for cut.zip (its first member is named)", warnings)
	}
}

// TestArchiveStressUnderRace reads the parts of the same archives from
// many goroutines, over and over, under budgets that stop some of them
// part-way, so that -race sees every shared counter and pool at work.
func TestArchiveStressUnderRace(t *testing.T) {
	samples := parallelSamples(t)
	rounds := 10
	if testing.Short() {
		rounds = 3
	}
	for round := range rounds {
		for name, data := range samples {
			lim := DefaultLimits()
			if round%2 == 1 {
				lim.MaxArchiveBytes = 20000
				lim.MaxMemberBytes = 3000
			}
			res := walkParallel(t, NewRoot(lim), name, data, 6, uint64(round))
			if len(res.errs) != 0 {
				t.Fatalf("%s: %v", name, res.errs)
			}
			for _, w := range res.warnings {
				var e *BudgetError
				if !errors.As(w, &e) || e.Member == "" && !strings.HasSuffix(e.Archive, ".7z") {
					t.Fatalf("%s: warning %v", name, w)
				}
			}
		}
	}
}

// TestArchiveClockCountsWorkNotWaiting: MaxDuration bounds the time spent
// reading an Archive's parts, summed, so parts that wait to be read cost
// nothing, and slow parts use the time up.
func TestArchiveClockCountsWorkNotWaiting(t *testing.T) {
	var files []file
	for i := range 8 {
		files = append(files, file{"m" + itoa(i), "x"})
	}
	data := zipOf(t, zipDeflate, files...)
	lim := DefaultLimits()
	lim.MaxDuration = 100 * time.Millisecond
	for _, tt := range []struct {
		name        string
		wait, spend time.Duration
		read        int
	}{
		{"waiting", 20 * time.Millisecond, 0, 8}, // 160 ms of waiting: every part read
		{"working", 0, 70 * time.Millisecond, 2}, // 70 ms a part: the second passes 100 ms
	} {
		a, err := NewRoot(lim).Open(context.Background(), "x.zip", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		read, named := 0, 0
		warn := func(err error) {
			var e *BudgetError
			if errors.As(err, &e) && e.Budget == BudgetDuration && e.Member != "" {
				named++
			} else {
				t.Errorf("%s: warning %v", tt.name, err)
			}
		}
		for {
			p, err := a.Next(context.Background(), warn)
			if err != nil {
				break
			}
			time.Sleep(tt.wait)
			a.Walk(context.Background(), p, func(Member, io.Reader) error {
				read++
				time.Sleep(tt.spend)
				return nil
			}, warn)
		}
		if read != tt.read || read+named != 8 {
			t.Errorf("%s: %d read, %d named, want %d read and the rest named", tt.name, read, named, tt.read)
		}
	}
}
