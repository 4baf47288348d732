package git

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// BenchmarkManyRefs scans a three-commit history that 2,000,000 packed
// tags point into (gitleaks, through git, takes 0.7 s on it): what it
// measures is listing the refs and setting up the walk from them.
//
//	go test -run '^$' -bench ManyRefs -benchtime 3x ./scan/git
func BenchmarkManyRefs(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	det, _ := parityDetector(b)
	dir := b.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com",
			"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatal(err, string(out))
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	var ids []string
	for i := range 3 {
		os.WriteFile(filepath.Join(dir, "f"), []byte(fmt.Sprintf("v%d\n", i)), 0o644)
		git("add", "f")
		git("commit", "-qm", fmt.Sprint(i))
		ids = append(ids, git("rev-parse", "HEAD"))
	}
	git("gc", "-q")
	var sb strings.Builder
	sb.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
	for i := range 2_000_000 {
		fmt.Fprintf(&sb, "%s refs/tags/t%08d\n", ids[i%3], i)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "packed-refs"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		st, err := Scan(context.Background(), dir, Options{}, scan.Options{Detector: det,
			ArchiveDepth: scan.NoArchives, OnFinding: func(report.Finding) {}})
		if err != nil || st.Commits != 3 {
			b.Fatal(st.Commits, err)
		}
	}
}
