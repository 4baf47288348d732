package git

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/report"
)

// damageSecrets is how many secrets the damaged repository holds.
const damageSecrets = 100

// packedSecretRepo builds a bare repository whose history adds
// damageSecrets secrets, one a commit, to ten files that grow (so that
// the pack holds deltas), repacked into one pack with no loose objects.
func packedSecretRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := filepath.Join(t.TempDir(), "repo.git")
	var stream bytes.Buffer
	files := make([]strings.Builder, 10)
	for i := range files {
		for j := range 40 {
			fmt.Fprintf(&files[i], "filler line %d of file %d, the same from commit to commit\n", j, i)
		}
	}
	for i := range damageSecrets {
		f := &files[i%len(files)]
		fmt.Fprintf(f, "key%d = %s\n", i, tok(i))
		content := f.String()
		fmt.Fprintf(&stream, "commit refs/heads/main\nmark :%d\ncommitter Ada <ada@example.com> %d +0000\ndata %d\n%s\n",
			i+1, 1767000000+i, len(fmt.Sprint("add ", i)), fmt.Sprint("add ", i))
		if i > 0 {
			fmt.Fprintf(&stream, "from :%d\n", i)
		}
		fmt.Fprintf(&stream, "M 644 inline config/f%d.txt\ndata %d\n%s\n", i%len(files), len(content), content)
	}
	run := func(stdin []byte, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		cmd.Stdin = bytes.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run(nil, "init", "-q", "--bare", "-b", "main")
	run(stream.Bytes(), "fast-import", "--quiet")
	run(nil, "repack", "-a", "-d", "-f", "-q", "--depth=20")
	run(nil, "prune-packed")
	return dir
}

// packFiles returns the repository's one .pack and its .idx.
func packFiles(t *testing.T, repo string) (pack, idx string) {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(repo, "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("%d packs, want 1", len(packs))
	}
	return packs[0], strings.TrimSuffix(packs[0], ".pack") + ".idx"
}

// damage is one way to break a repository's pack or index.
type damage struct {
	name  string
	apply func(t *testing.T, r *rand.Rand, pack, idx string)
}

// flipBytes flips one to eight random bits of path.
func flipBytes(t *testing.T, r *rand.Rand, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for range 1 + r.IntN(8) {
		b[r.IntN(len(b))] ^= 1 << r.IntN(8)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// truncate cuts path at a random length.
func truncate(t *testing.T, r *rand.Rand, path string) {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, r.Int64N(fi.Size())); err != nil {
		t.Fatal(err)
	}
}

var damages = []damage{
	{"flip bytes of the pack", func(t *testing.T, r *rand.Rand, pack, _ string) { flipBytes(t, r, pack) }},
	{"flip bytes of the index", func(t *testing.T, r *rand.Rand, _, idx string) { flipBytes(t, r, idx) }},
	{"truncate the pack", func(t *testing.T, r *rand.Rand, pack, _ string) { truncate(t, r, pack) }},
	{"truncate the index", func(t *testing.T, r *rand.Rand, _, idx string) { truncate(t, r, idx) }},
	{"swap the pack and the index", func(t *testing.T, _ *rand.Rand, pack, idx string) {
		tmp := pack + ".tmp"
		if os.Rename(pack, tmp) != nil || os.Rename(idx, pack) != nil || os.Rename(tmp, idx) != nil {
			t.Fatal("swap")
		}
	}},
	{"flip bytes of both", func(t *testing.T, r *rand.Rand, pack, idx string) { flipBytes(t, r, pack); flipBytes(t, r, idx) }},
	{"zero a run of the pack", func(t *testing.T, r *rand.Rand, pack, _ string) {
		b, _ := os.ReadFile(pack)
		at := r.IntN(len(b))
		clear(b[at:min(len(b), at+1+r.IntN(4096))])
		os.WriteFile(pack, b, 0o644)
	}},
	{"the pack replaced by /dev/zero", func(t *testing.T, _ *rand.Rand, pack, _ string) {
		if runtime.GOOS == "windows" {
			t.Skip("no /dev/zero")
		}
		os.Remove(pack)
		if err := os.Symlink("/dev/zero", pack); err != nil {
			t.Skip(err)
		}
	}},
	{"the index replaced by /dev/zero", func(t *testing.T, _ *rand.Rand, _, idx string) {
		if runtime.GOOS == "windows" {
			t.Skip("no /dev/zero")
		}
		os.Remove(idx)
		if err := os.Symlink("/dev/zero", idx); err != nil {
			t.Skip(err)
		}
	}},
}

// TestDamagedPacksNeverScanAsClean applies seeded random damages to a
// packed repository holding damageSecrets secrets (byte flips, truncations,
// swapped files, zeroed runs, /dev/zero in place of a file; FIFOs in
// damage_unix_test.go): each scan either finds every secret or says that
// it lost data (a lost-data warning, or an error), which the command turns
// into a failed scan. 300 cases; 40 with -short.
func TestDamagedPacksNeverScanAsClean(t *testing.T) {
	src := packedSecretRepo(t)
	det := detector(t)
	want := make([]string, damageSecrets)
	for i := range want {
		want[i] = tok(i)
	}
	slices.Sort(want)
	// The undamaged repository: every secret, nothing lost.
	if found, st, err := scanSecrets(det, src); err != nil || st.Lost != 0 || !slices.Equal(found, want) {
		t.Fatalf("undamaged: %d secrets, %d lost, %v", len(found), st.Lost, err)
	}
	cases := 300
	if testing.Short() {
		cases = 40
	}
	var outcomes sync.Map // outcome -> count
	for c := range cases {
		d := damages[c%len(damages)]
		t.Run(fmt.Sprintf("%03d %s", c, d.name), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "repo.git")
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			pack, idx := packFiles(t, dir)
			d.apply(t, rand.New(rand.NewPCG(28, uint64(c))), pack, idx)
			checkDamaged(t, det, dir, want, &outcomes)
		})
	}
	var summary []string
	outcomes.Range(func(k, v any) bool { summary = append(summary, fmt.Sprintf("%s: %d", k, *v.(*int))); return true })
	slices.Sort(summary)
	t.Logf("outcomes: %s", strings.Join(summary, ", "))
}

// checkDamaged scans a damaged repository and fails unless it found every
// secret or said it lost data.
func checkDamaged(t *testing.T, det scan.Detector, dir string, want []string, outcomes *sync.Map) {
	t.Helper()
	type result struct {
		found []string
		st    Stats
		err   error
	}
	done := make(chan result, 1)
	go func() {
		found, st, err := scanSecrets(det, dir)
		done <- result{found, st, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the scan did not end")
	}
	outcome := "all secrets found"
	switch {
	case res.err != nil:
		outcome = "error"
	case res.st.Lost > 0:
		outcome = "lost data"
	case !slices.Equal(res.found, want):
		t.Errorf("a silent loss: %d of %d secrets, no warning of lost data, no error", len(res.found), len(want))
		outcome = "silent loss"
	}
	n, _ := outcomes.LoadOrStore(outcome, new(int))
	*n.(*int)++ // subtests run one at a time
}

// scanSecrets scans a repository's history and returns its distinct
// secrets, sorted.
func scanSecrets(det scan.Detector, dir string) ([]string, Stats, error) {
	return scanSecretsWarn(det, dir, nil)
}

// scanSecretsWarn is scanSecrets keeping the warnings in *warns.
func scanSecretsWarn(det scan.Detector, dir string, warns *[]scan.Warning) ([]string, Stats, error) {
	var mu sync.Mutex
	seen := map[string]bool{}
	st, err := Scan(context.Background(), dir, Options{}, scan.Options{Detector: det, Workers: 2,
		OnFinding: func(f report.Finding) { mu.Lock(); seen[f.Secret] = true; mu.Unlock() },
		OnWarning: func(w scan.Warning) {
			if warns != nil {
				mu.Lock()
				*warns = append(*warns, w)
				mu.Unlock()
			}
		},
	})
	found := make([]string, 0, len(seen))
	for s := range seen {
		found = append(found, s)
	}
	slices.Sort(found)
	return found, st, err
}
