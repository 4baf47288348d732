package scan

import (
	"archive/tar"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/spindle-go/spindle/scan/archive"
	"github.com/spindle-go/spindle/scan/rules"
)

// goSrc returns $(go env GOROOT)/src, the benchmark tree, or skips.
func goSrc(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("no go command to find GOROOT: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		b.Skipf("no GOROOT/src to scan: %v", err)
	}
	return dir
}

func benchScan(b *testing.B, det Detector, opts Options, root string) {
	opts.Detector = det
	b.ReportAllocs()
	var st Stats
	for b.Loop() {
		var err error
		st, err = Scan(context.Background(), opts, root)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(st.Bytes)
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(st.Files)/sec, "files/s")
	b.ReportMetric(float64(st.Bytes)/sec/1e6, "MB/s")
	b.ReportMetric(float64(st.Findings), "findings")
}

// BenchmarkScanGoSrc scans Go's own source tree with the built-in rules,
// the workload the speed claims against gitleaks are measured on.
func BenchmarkScanGoSrc(b *testing.B) {
	root := goSrc(b)
	det, err := rules.Compile(rules.Default())
	if err != nil {
		b.Fatal(err)
	}
	benchScan(b, Rules(det), Options{}, root)
}

// BenchmarkScanGoSrcFiveRules scans with five simple rules, the workload
// compared with ripgrep running the same five patterns.
func BenchmarkScanGoSrcFiveRules(b *testing.B) {
	root := goSrc(b)
	cfg, err := rules.Parse([]byte(fiveRules), "five.toml")
	if err != nil {
		b.Fatal(err)
	}
	det, err := rules.Compile(cfg)
	if err != nil {
		b.Fatal(err)
	}
	benchScan(b, Rules(det), Options{}, root)
}

// BenchmarkScanGoSrcEngine scans with a detector that finds nothing: the
// cost of the engine alone (walking, opening, reading, chunking, tasks).
func BenchmarkScanGoSrcEngine(b *testing.B) {
	benchScan(b, nullDetector{}, Options{}, goSrc(b))
}

// BenchmarkScanLargeFile scans one 64 MiB file, the path where one file's
// chunks are shared between workers; Gitleaks decodes as the drop-in
// commands do, whose larger window each chunk carries into the next.
func BenchmarkScanLargeFile(b *testing.B) {
	dir := b.TempDir()
	line := strings.Repeat("the quick brown fox jumps over the lazy dog ", 2) + "\n"
	body := strings.Repeat(line, (64<<20)/len(line))
	path := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		set  rules.Settings
	}{{"Spindle", rules.Settings{}}, {"Gitleaks", rules.Settings{GitleaksDecoding: true}}} {
		b.Run(c.name, func(b *testing.B) {
			det, err := rules.CompileWith(rules.Default(), c.set)
			if err != nil {
				b.Fatal(err)
			}
			benchScan(b, Rules(det), Options{}, path)
		})
	}
}

const fiveRules = `
[[rules]]
id = "aws-access-key"
regex = '''AKIA[0-9A-Z]{16}'''
keywords = ["akia"]

[[rules]]
id = "github-pat"
regex = '''ghp_[0-9a-zA-Z]{36}'''
keywords = ["ghp_"]

[[rules]]
id = "slack-token"
regex = '''xox[baprs]-[0-9a-zA-Z-]{10,48}'''
keywords = ["xox"]

[[rules]]
id = "private-key"
regex = '''-----BEGIN [A-Z ]*PRIVATE KEY-----'''
keywords = ["private key"]

[[rules]]
id = "stripe-key"
regex = '''sk_live_[0-9a-zA-Z]{24}'''
keywords = ["sk_live_"]
`

type nullDetector struct{}

func (nullDetector) MaxWindow() int                              { return 16 << 10 }
func (nullDetector) SkipPath(any, string) bool                   { return false }
func (nullDetector) NewScratch() any                             { return nil }
func (nullDetector) ScanPath(any, string, func(rules.Match))     {}
func (nullDetector) Scan(any, string, []byte, func(rules.Match)) {}

// goTarGz writes a tar.gz of GOROOT/src's files, repeated under new
// prefixes until it holds at least size bytes, to a file in dir, streaming
// (nothing is held whole). It returns the path and the bytes of content.
// The archives among the test data (bzip2 samples of several MB, which
// compress/bzip2 decodes at about 15 MB/s) are left out: the benchmark
// measures the members' path, not one decoder.
func goTarGz(b *testing.B, dir string, size int64) (string, int64) {
	src := goSrc(b)
	path := filepath.Join(dir, "src.tar.gz")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	gz := kgzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	var total int64
	for round := 0; total < size; round++ {
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() || total >= size {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil || archive.Detect(data[:min(len(data), archive.HeadLen)]) != archive.None {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			if err := tw.WriteHeader(&tar.Header{Name: itoa(round) + "/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data))}); err != nil {
				return err
			}
			_, err = tw.Write(data)
			total += int64(len(data))
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		b.Fatal(err)
	}
	return path, total
}

// BenchmarkScanTarGz scans a tar.gz of 100 MiB of Go source (GOROOT/src,
// repeated) with the built-in rules: the members are decoded by one
// worker and scanned by all. MB/s counts decoded bytes; peak-RSS-MiB is
// the process's high-water mark (VmHWM), rules and setup included.
func BenchmarkScanTarGz(b *testing.B) {
	det, err := rules.Compile(rules.Default())
	if err != nil {
		b.Fatal(err)
	}
	benchTarGz(b, Rules(det))
}

// BenchmarkScanTarGzEngine scans the same tar.gz with a detector that
// finds nothing: the cost of decoding and of the engine alone.
func BenchmarkScanTarGzEngine(b *testing.B) {
	benchTarGz(b, nullDetector{})
}

func benchTarGz(b *testing.B, det Detector) {
	path, _ := goTarGz(b, b.TempDir(), 100<<20)
	b.ResetTimer()
	benchScan(b, det, Options{ArchiveDepth: DefaultArchiveDepth}, path)
	if hwm := peakRSS(); hwm > 0 {
		b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MiB")
	}
}

// peakRSS returns the process's peak resident set in bytes, or 0 where
// /proc does not say.
func peakRSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}
