package git

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/report"
)

// BenchmarkStagedLargeRepo times what a pre-commit hook does on a
// repository of 100,000 tracked files with 5 staged: the index is read and
// compared with HEAD's tree, the cache-tree skipping the directories
// nothing was staged in, and only the staged blobs are read and scanned.
//
//	go test -run '^$' -bench StagedLargeRepo -benchtime 10x ./scan/git
func BenchmarkStagedLargeRepo(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	dir := b.TempDir()
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x",
			"GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
		if stdin != "" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("", "init", "-q")
	// One commit of 100,000 files through fast-import: seconds, where
	// writing and adding the files would take minutes.
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	in, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(in, 1<<20)
	const files = 100_000
	for i := range files {
		body := fmt.Sprintf("package p%d\n\nconst v = %d\n", i, i)
		fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(body), body)
	}
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter A <a@x> 1700000000 +0000\ndata 4\nbig\n")
	for i := range files {
		fmt.Fprintf(w, "M 100644 :%d src/d%03d/f%06d.go\n", i+1, i%1000, i)
	}
	w.Flush()
	in.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatal(err)
	}
	run("", "symbolic-ref", "HEAD", "refs/heads/main")
	run("", "reset", "-q") // the index, from HEAD, without writing the files
	run("", "write-tree")  // its cache-tree, as a commit leaves it
	for i := range 5 {
		id := run(fmt.Sprintf("token = ghp_%036d\n", i), "hash-object", "-w", "--stdin")
		run("", "update-index", "--add", "--cacheinfo", "100644,"+id+",staged/s"+fmt.Sprint(i)+".env")
	}
	det := detector(b)
	b.ResetTimer()
	for range b.N {
		n := 0
		_, err := Staged(context.Background(), dir, scan.Options{Detector: det, OnFinding: func(report.Finding) { n++ }})
		if err != nil {
			b.Fatal(err)
		}
	}
}
