package scan

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
// chunks are shared between workers.
func BenchmarkScanLargeFile(b *testing.B) {
	dir := b.TempDir()
	line := strings.Repeat("the quick brown fox jumps over the lazy dog ", 2) + "\n"
	body := strings.Repeat(line, (64<<20)/len(line))
	path := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		b.Fatal(err)
	}
	det, err := rules.Compile(rules.Default())
	if err != nil {
		b.Fatal(err)
	}
	benchScan(b, Rules(det), Options{}, path)
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

func (nullDetector) MaxWindow() int                            { return 16 << 10 }
func (nullDetector) SkipPath(string) bool                      { return false }
func (nullDetector) NewScratch() Scratch                       { return nil }
func (nullDetector) ScanPath(string, func(Match))              {}
func (nullDetector) Scan(Scratch, string, []byte, func(Match)) {}
