package scan

import (
	"archive/tar"
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// TestLargeFilePeakRSS scans one 2 GiB file with 2 workers in a child
// process and checks its peak resident set stays under 80 MiB: memory is
// bounded by the buffers, not by the file. The file is sparse (holes read
// as zeros, so the test needs no 2 GiB of disk and no disk I/O), with
// secrets written near the start, the middle and the end, which must all
// be found at the right columns (the offsets exceed 2^31).
func TestLargeFilePeakRSS(t *testing.T) {
	if os.Getenv("SCAN_RSS_CHILD") != "" {
		rssChild(t)
		return
	}
	if testing.Short() {
		t.Skip("writes a 2 GiB sparse file and reads it all")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads VmHWM from /proc")
	}
	path := filepath.Join(t.TempDir(), "big.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, off := range rssOffsets {
		if _, err := f.WriteAt([]byte(secret(i)), off); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(rssSize); err != nil {
		t.Fatal(err)
	}
	f.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestLargeFilePeakRSS$", "-test.v")
	cmd.Env = append(os.Environ(), "SCAN_RSS_CHILD="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var hwm, found int
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if _, err := fmt.Sscanf(strings.TrimSpace(sc.Text()), "rss-child: VmHWM %d kB, %d findings", &hwm, &found); err == nil {
			break
		}
	}
	if hwm == 0 {
		t.Fatalf("no report from the child:\n%s", out)
	}
	t.Logf("2 GiB, 2 workers: peak RSS %.1f MiB, %d findings", float64(hwm)/1024, found)
	if found != len(rssOffsets) {
		t.Errorf("%d findings, want %d", found, len(rssOffsets))
	}
	if hwm > 80<<10 {
		t.Errorf("peak RSS %d kB, want under 80 MiB", hwm)
	}
}

const rssSize = 2 << 30

// rssOffsets are where the secrets go: the first chunk, a later one, across
// the 1 GiB mark, and the last chunk.
var rssOffsets = []int64{0, 1 << 20, rssSize/2 - 10, rssSize - 200}

func rssChild(t *testing.T) {
	path := os.Getenv("SCAN_RSS_CHILD")
	found, _, st, err := collect(t, Options{Detector: newFake(), Workers: 2, ScanBinary: true}, path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != rssSize {
		t.Errorf("scanned %d bytes", st.Bytes)
	}
	for i, k := range found { // sorted by column; no newlines, so all on line 1
		if i < len(rssOffsets) && (k.Line != 1 || int64(k.Column) != rssOffsets[i]+1 || k.Secret != secret(i)[7:]) {
			t.Errorf("finding %d at %d:%d %q, want 1:%d", i, k.Line, k.Column, k.Secret, rssOffsets[i]+1)
		}
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.Fields(rest)[0])
			fmt.Printf("rss-child: VmHWM %d kB, %d findings\n", kb, len(found))
		}
	}
}

// TestArchivePeakRSS scans a 100 MiB tar.gz (72 members of 1 MiB and one
// of 28 MiB, each ending with a secret) with 2 workers in a child
// process and checks its peak resident set stays under 80 MiB, as for a
// plain file: a member is streamed through the chunk buffers, never held
// whole, and an archive adds only its walk's readers.
func TestArchivePeakRSS(t *testing.T) {
	if os.Getenv("SCAN_RSS_ARCHIVE") != "" {
		archiveRSSChild(t)
		return
	}
	if testing.Short() {
		t.Skip("writes and scans a 100 MiB tar.gz")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads VmHWM from /proc")
	}
	path := filepath.Join(t.TempDir(), "big.tar.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
	must(t, err)
	tw := tar.NewWriter(gz)
	// One MiB of varied lines, written again and again: deflate's 32 KiB
	// window does not see the repeats, so the ratio stays that of text.
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau")
	var block strings.Builder
	for block.Len() < 1<<20 {
		fmt.Fprintf(&block, "%d %s %s %x\n", block.Len(), words[rng.IntN(len(words))], words[rng.IntN(len(words))], rng.Uint64())
	}
	for i := range archiveRSSMembers {
		n := 1
		if i == archiveRSSMembers-1 {
			n = 28
		}
		tail := secret(i) + "\n"
		must(t, tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("m%03d.txt", i), Mode: 0o644, Size: int64(n*block.Len() + len(tail))}))
		for range n {
			_, err := io.WriteString(tw, block.String())
			must(t, err)
		}
		_, err := io.WriteString(tw, tail)
		must(t, err)
	}
	must(t, tw.Close())
	must(t, gz.Close())
	must(t, f.Close())

	cmd := exec.Command(os.Args[0], "-test.run=^TestArchivePeakRSS$", "-test.v")
	cmd.Env = append(os.Environ(), "SCAN_RSS_ARCHIVE="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var hwm, found int
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if _, err := fmt.Sscanf(strings.TrimSpace(sc.Text()), "rss-child: VmHWM %d kB, %d findings", &hwm, &found); err == nil {
			break
		}
	}
	if hwm == 0 {
		t.Fatalf("no report from the child:\n%s", out)
	}
	t.Logf("100 MiB tar.gz, 2 workers: peak RSS %.1f MiB, %d findings", float64(hwm)/1024, found)
	if found != archiveRSSMembers {
		t.Errorf("%d findings, want %d", found, archiveRSSMembers)
	}
	if hwm > 80<<10 {
		t.Errorf("peak RSS %d kB, want under 80 MiB", hwm)
	}
}

const archiveRSSMembers = 73 // 72 of 1 MiB and one of 28: 100 MiB

func archiveRSSChild(t *testing.T) {
	found, warns, st, err := collect(t, Options{Detector: newFake(), Workers: 2, ArchiveDepth: DefaultArchiveDepth}, os.Getenv("SCAN_RSS_ARCHIVE"))
	if err != nil || len(warns) > 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	if st.Members != archiveRSSMembers {
		t.Errorf("%d members", st.Members)
	}
	fmt.Printf("rss-child: VmHWM %d kB, %d findings\n", peakRSS()>>10, len(found))
}
