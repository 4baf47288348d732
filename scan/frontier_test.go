package scan

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/scan/report"
)

func TestFrontierTryAcquireNeverExceedsCapacity(t *testing.T) {
	f := newFrontier(3)
	for range 3 {
		if !f.tryAcquire() {
			t.Fatal("tryAcquire failed below capacity")
		}
	}
	if f.tryAcquire() {
		t.Fatal("tryAcquire succeeded at capacity")
	}
	a, b, c, d := &enumJob{src: &dirSource{path: "a"}}, &enumJob{src: &dirSource{path: "b"}}, &enumJob{src: &dirSource{path: "c"}}, &enumJob{src: &dirSource{path: "d"}}
	for _, j := range []*enumJob{a, b, c} {
		if !f.park(j) {
			t.Fatalf("park(%s) refused while full", j.src.(*dirSource).path)
		}
	}
	// Releases go to the waiters, oldest first, permit in hand.
	for _, want := range []*enumJob{a, b} {
		if got := f.release(); got != want || !got.permit {
			t.Fatalf("release handed back %v, want %s holding a permit", got, want.src.(*dirSource).path)
		}
		if f.inFlight.Load() != 3 || f.tryAcquire() {
			t.Fatal("a permit handed to a waiter was taken by another task")
		}
	}
	if !f.park(d) {
		t.Fatal("park(d) refused while full")
	}
	if got := f.release(); got != c {
		t.Fatalf("release handed back %v, want c", got)
	}
	if got := f.release(); got != d {
		t.Fatalf("release handed back %v, want d", got)
	}
	for range 3 {
		if got := f.release(); got != nil {
			t.Fatalf("release handed back %v with nobody parked", got)
		}
	}
	if f.inFlight.Load() != 0 {
		t.Fatalf("inFlight = %d after every permit came back", f.inFlight.Load())
	}
	if f.park(a) {
		t.Fatal("park queued a task while permits are free")
	}
	if len(f.drain()) != 0 {
		t.Fatal("waiters left")
	}
}

func TestFrontierReleaseWithoutPermitPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("release of a permit never granted did not panic")
		}
	}()
	newFrontier(1).release()
}

// TestFrontierParkNeverLosesAWakeup races goroutines that take permits with
// tryAcquire or, when the frontier is full, park and wait to be handed one,
// then release. A lost wake-up leaves a goroutine waiting forever (the test
// times out); a permit granted beyond capacity shows in the count of
// holders.
func TestFrontierParkNeverLosesAWakeup(t *testing.T) {
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	const capacity, goroutines = 2, 8
	f := newFrontier(capacity)
	var (
		wg     sync.WaitGroup
		held   atomic.Int64
		over   atomic.Int64
		parked atomic.Int64
	)
	wake := make([]chan struct{}, goroutines)
	jobs := make([]*enumJob, goroutines)
	for g := range goroutines {
		wake[g] = make(chan struct{}, 1)
		jobs[g] = &enumJob{src: &dirSource{path: itoa(g)}}
	}
	signal := func(j *enumJob) {
		if j != nil {
			k, _ := strconv.Atoi(j.src.(*dirSource).path)
			wake[k] <- struct{}{}
		}
	}
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				for !f.tryAcquire() {
					if f.park(jobs[g]) {
						parked.Add(1)
						<-wake[g] // woken holding a permit
						if !jobs[g].permit {
							t.Error("woken without a permit")
						}
						jobs[g].permit = false
						break
					}
				}
				if held.Add(1) > capacity {
					over.Add(1)
				}
				runtime.Gosched() // hold the permit a while: others must park
				held.Add(-1)
				signal(f.release())
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("a parked goroutine was never woken: lost wake-up")
	}
	if over.Load() > 0 {
		t.Errorf("more than %d permits held at once, %d times", capacity, over.Load())
	}
	if f.inFlight.Load() != 0 || len(f.drain()) != 0 {
		t.Errorf("after the race: inFlight %d, waiters left", f.inFlight.Load())
	}
	t.Logf("%d parks", parked.Load())
}

// TestPermitsReleasedExactlyOnce runs whole scans with a tiny frontier and
// pool over many files of one to several chunks, on 1 to 4 workers. A
// permit released twice panics in frontier.release (and Scan returns a
// PanicError), an object released twice panics in object.release, and a
// permit never released leaves inFlight above zero: all three are checked,
// along with every file being scanned exactly once.
func TestPermitsReleasedExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	const n = 300
	for i := range n {
		body := strings.Repeat("line\n", (i%7)*100) + secret(i) + "\n"
		files["d"+itoa(i%13)+"/e"+itoa(i%5)+"/f"+itoa(i)+".txt"] = body
	}
	writeTree(t, dir, files)
	iters := 10
	if testing.Short() {
		iters = 3
	}
	for it := range iters {
		for _, workers := range []int{1, 2, 4} {
			for _, inflight := range []int{1, 2, 7} {
				opts := Options{Detector: newFake(), Workers: workers, MaxInFlight: inflight, Buffers: 1 + it%3, ChunkSize: 512}
				var mu sync.Mutex
				seen := map[string]int{}
				opts.OnFinding = func(f report.Finding) { mu.Lock(); seen[f.File]++; mu.Unlock() }
				e := newEngine(opts.withDefaults())
				st, err := e.scanPaths(context.Background(), dir)
				if err != nil {
					t.Fatalf("workers %d inflight %d: %v", workers, inflight, err)
				}
				if got := e.front.inFlight.Load(); got != 0 {
					t.Fatalf("workers %d inflight %d: %d permits never released", workers, inflight, got)
				}
				if st.Files != n || len(seen) != n {
					t.Fatalf("workers %d inflight %d: %d files scanned, %d with findings, want %d", workers, inflight, st.Files, len(seen), n)
				}
				for f, k := range seen {
					if k != 1 {
						t.Fatalf("%s reported %d times", f, k)
					}
				}
				if inflight == 1 && st.Phases.Backpressure == 0 {
					t.Errorf("workers %d: a frontier of 1 never parked an Enumerate", workers)
				}
			}
		}
	}
}

// TestLargeDirectoryIsListedAsItIsScanned: with a full frontier, a
// directory is read a batch at a time as its entries are admitted, so the
// entries listed but not yet admitted stay within one batch per directory
// being listed, however large the directory.
func TestLargeDirectoryIsListedAsItIsScanned(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	const n = 16 * dirBatch
	for i := range n {
		files["f"+itoa(i)] = "x"
	}
	writeTree(t, dir, files)
	const inflight = 2
	for _, workers := range []int{1, 2} {
		opts := Options{Detector: newFake(), Workers: workers, MaxInFlight: inflight}
		e := newEngine(opts.withDefaults())
		st, err := e.scanPaths(context.Background(), dir)
		if err != nil || st.Files != n {
			t.Fatalf("%d files, err %v", st.Files, err)
		}
		if bound := 1; e.front.peak > bound {
			t.Errorf("%d workers: %d Enumerate tasks parked at once (%d entries listed ahead), want at most %d",
				workers, e.front.peak, e.front.peak*dirBatch, bound)
		}
	}
}

func TestLargeFileIsSharedBetweenWorkers(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 4000 {
		b.WriteString(strings.Repeat("z", 200) + "\n")
		if i%40 == 0 {
			b.WriteString(secret(i) + "\n")
		}
	}
	writeTree(t, dir, map[string]string{"big.txt": b.String()})
	found, _, st, err := collect(t, Options{Detector: newFake(), Workers: 2, ChunkSize: 4096}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 100 {
		t.Errorf("%d findings, want 100", len(found))
	}
	if st.Phases.Scan.Tasks == 0 {
		t.Errorf("no Scan tasks: the chunks of a large file were never handed over (%+v)", st.Phases)
	}
	if st.Phases.BytesRead != st.Bytes {
		t.Errorf("read %d bytes, scanned %d: the overlap must be copied, not re-read", st.Phases.BytesRead, st.Bytes)
	}
}

func TestContextCancelStopsTheScan(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 600 {
		files["d"+itoa(i%30)+"/f"+itoa(i)] = secret(i)
	}
	writeTree(t, dir, files)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	det := newFake()
	var scans atomic.Int32
	det.onScan = func(string) {
		if scans.Add(1) == 10 {
			cancel()
		}
	}
	st, err := Scan(ctx, Options{Detector: det, Workers: 2}, dir)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if st.Files >= 600 {
		t.Errorf("cancelled scan still scanned all %d files", st.Files)
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a": secret(1)})
	if _, err := Scan(ctx, Options{Detector: newFake()}, dir); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestPanicsAreReturnedAndLeakNothing: a panic in the detector or in a
// callback ends the scan with a *spindle.PanicError, releases the callback
// lock (later callbacks would deadlock otherwise) and closes every file.
func TestPanicsAreReturnedAndLeakNothing(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 300 {
		files["d"+itoa(i%5)+"/f"+itoa(i)] = strings.Repeat("x", i*20) + secret(i)
	}
	writeTree(t, dir, files)
	tests := []struct {
		name  string
		setup func(*fakeDetector, *Options)
	}{
		{"Scan", func(d *fakeDetector, _ *Options) {
			var n atomic.Int32
			d.onScan = func(string) {
				if n.Add(1) == 20 {
					panic("detector bug")
				}
			}
		}},
		{"SkipPath", func(d *fakeDetector, _ *Options) {
			d.skip = func(p string) bool {
				if strings.HasSuffix(p, "f42") {
					panic("allowlist bug")
				}
				return false
			}
		}},
		{"OnFinding", func(_ *fakeDetector, o *Options) {
			var n atomic.Int32
			o.OnFinding = func(report.Finding) {
				if n.Add(1) == 10 {
					panic("callback bug")
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := openFDs(t)
			det := newFake()
			opts := Options{Detector: det, Workers: 2, MaxInFlight: 8, ChunkSize: 500}
			tt.setup(det, &opts)
			_, err := Scan(context.Background(), opts, dir)
			var pe *spindle.PanicError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *spindle.PanicError", err)
			}
			if after := openFDs(t); after > before {
				t.Errorf("open files: %d before, %d after", before, after)
			}
		})
	}
}

// TestNoFileDescriptorLeak scans a tree repeatedly, aborting some runs,
// and checks the process holds no more open files than before.
func TestNoFileDescriptorLeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 400 {
		files["d"+itoa(i%9)+"/f"+itoa(i)] = strings.Repeat("q", i*10) + secret(i)
	}
	writeTree(t, dir, files)
	before := openFDs(t)
	for i := range 6 {
		ctx, cancel := context.WithCancel(context.Background())
		det := newFake()
		var k atomic.Int32
		det.onScan = func(string) {
			if i%2 == 1 && k.Add(1) == 5 {
				cancel()
			}
		}
		Scan(ctx, Options{Detector: det, Workers: 2, MaxInFlight: 3, ChunkSize: 300}, dir)
		cancel()
	}
	// Give the runtime a moment: nothing here is asynchronous, but be fair
	// to descriptors opened by the test framework itself.
	time.Sleep(10 * time.Millisecond)
	if after := openFDs(t); after > before {
		t.Errorf("open files: %d before, %d after", before, after)
	}
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	return len(ents)
}
