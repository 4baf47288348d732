package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/git/internal/histgen"
	"github.com/spindle-go/spindle/scan/report"
)

// BenchmarkHistory scans whole histories with gitleaks' default config:
// histgen's small history always, caddy's when the bundle is there
// (../shared/repos/caddy.bundle from the repository's parent), and, with
// SPINDLE_BENCH_HISTGEN=1, the secret-dense and the 20,003-commit ones
// (generated first, which takes a minute). It reports the time per commit
// and the share of each step.
//
//	go test -run '^$' -bench History -benchtime 5x ./scan/git
func BenchmarkHistory(b *testing.B) {
	det, _ := parityDetector(b)
	repos := []struct {
		name string
		dir  func(b *testing.B) string
	}{
		{"small", func(b *testing.B) string { return generated(b, histgen.Small) }},
		{"caddy", func(b *testing.B) string { return bundle(b, "../../../shared/repos/caddy.bundle") }},
	}
	if os.Getenv("SPINDLE_BENCH_HISTGEN") != "" {
		repos = append(repos, struct {
			name string
			dir  func(b *testing.B) string
		}{"dense", func(b *testing.B) string { return generated(b, histgen.Dense) }},
			struct {
				name string
				dir  func(b *testing.B) string
			}{"large", func(b *testing.B) string { return generated(b, histgen.Large) }})
	}
	for _, r := range repos {
		b.Run(r.name, func(b *testing.B) {
			dir := r.dir(b)
			b.ReportAllocs()
			b.ResetTimer()
			var st Stats
			for range b.N {
				var err error
				st, err = Scan(context.Background(), dir, Options{}, scan.Options{Detector: det,
					ArchiveDepth: scan.NoArchives, OnFinding: func(report.Finding) {}})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(st.Commits), "ns/commit")
			b.ReportMetric(float64(st.Bytes)/1e6, "MB-scanned")
			b.ReportMetric(float64(st.Diffed), "pairs-diffed")
			b.ReportMetric(float64(st.Findings), "findings")
		})
	}
}

// generated writes a histgen history for the benchmark (once per
// process and preset).
func generated(b *testing.B, p histgen.Params) string {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	dir := filepath.Join(b.TempDir(), "gen.git")
	if _, err := histgen.Generate(dir, p); err != nil {
		b.Fatal(err)
	}
	return dir
}

// bundle clones a git bundle for the benchmark, or skips.
func bundle(b *testing.B, path string) string {
	b.Helper()
	if _, err := os.Stat(path); err != nil {
		b.Skip(path, "not found")
	}
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	dir := filepath.Join(b.TempDir(), filepath.Base(path)+".git")
	if out, err := exec.Command("git", "clone", "-q", "--mirror", path, dir).CombinedOutput(); err != nil {
		b.Fatalf("clone %s: %v\n%s", path, err, out)
	}
	return dir
}
