package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spindle-go/spindle/scan/git"
)

// historyRepo makes a repository of n commits on main and a side branch
// merged into it, a secret in one commit in four, written with one git
// fast-import so that it takes no time; rules.toml (testRules) sits in a
// directory of its own.
func historyRepo(t *testing.T, n int) (dir, config string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir = t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	var s strings.Builder
	for i := range n {
		body := fmt.Sprintf("line %d\n", i)
		if i%4 == 1 {
			body += "key = " + token(i) + "\n"
		}
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter T <t@example.com> %d +0000\ndata 4\nc%03d\n", i+1, 1700000000+i, i)
		if i > 0 {
			fmt.Fprintf(&s, "from :%d\n", i)
		}
		fmt.Fprintf(&s, "M 644 inline f%d.txt\ndata %d\n%s\n", i%7, len(body), body)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env = dir, gitEnv()
	cmd.Stdin = strings.NewReader(s.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	gitIn(t, dir, "reset", "-q", "--hard")
	config = filepath.Join(t.TempDir(), "rules.toml")
	os.WriteFile(config, []byte(testRules), 0o644)
	return dir, config
}

// commitFile commits one file in the work tree dir.
func commitFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	writeTree(t, dir, map[string]string{name: body})
	gitIn(t, dir, "add", name)
	gitIn(t, dir, "commit", "-qm", "change "+name)
	return gitIn(t, dir, "rev-parse", "HEAD")
}

// reportOf runs spindle with args and a report in format, and returns the
// report's bytes and the run.
func reportOf(t *testing.T, dir, format string, args ...string) ([]byte, result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report")
	r := invoke(t, dir, append([]string{"git", "--no-banner", "-l", "debug", "-f", format, "-r", out}, args...)...)
	if r.code != 0 && r.code != 1 {
		t.Fatalf("spindle %v: exit %d\n%s", args, r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b, r
}

// storeCounts reads "history store: C of N commits from the store, S
// scanned" from a run's log.
func storeCounts(t *testing.T, r result) (cached, total int) {
	t.Helper()
	i := strings.Index(r.stderr, "history store: ")
	if i < 0 {
		t.Fatalf("no store line in:\n%s", r.stderr)
	}
	if _, err := fmt.Sscanf(r.stderr[i:], "history store: %d of %d", &cached, &total); err != nil {
		t.Fatalf("store line: %v\n%s", err, r.stderr[i:])
	}
	return cached, total
}

// TestGitCacheWritesTheFullScansReport: in every format, a scan that
// takes commits from the store writes the report of a scan without one,
// byte for byte: on the first scan, with nothing new, with a new commit,
// after a force push and with a --log-opts range; and the log says how
// many commits came from the store.
func TestGitCacheWritesTheFullScansReport(t *testing.T) {
	dir, config := historyRepo(t, 40)
	cache := t.TempDir()
	formats := []string{"json", "sarif", "csv", "junit", "spindle-sarif"}
	check := func(what string, wantScanned int, extra ...string) {
		t.Helper()
		for i, f := range formats {
			want, _ := reportOf(t, dir, f, append([]string{"-c", config, "--no-cache"}, extra...)...)
			got, r := reportOf(t, dir, f, append([]string{"-c", config, "--cache", cache}, extra...)...)
			if !bytes.Equal(got, want) {
				t.Errorf("%s, -f %s: the report differs from the scan without a store:\n%s\nwant\n%s", what, f, got, want)
			}
			cached, total := storeCounts(t, r)
			if i == 0 && wantScanned >= 0 && total-cached != wantScanned {
				t.Errorf("%s: %d of %d commits scanned, want %d", what, total-cached, total, wantScanned)
			}
			if i > 0 && cached != total {
				t.Errorf("%s, -f %s: %d of %d commits from the store", what, f, cached, total)
			}
		}
	}
	check("the first scan", 40)
	check("nothing new", 0)
	commitFile(t, dir, "new.env", "token "+token(99)+"\n")
	check("one new commit", 1)
	gitIn(t, dir, "reset", "-q", "--hard", "HEAD~3")
	commitFile(t, dir, "forced.env", "token "+token(98)+"\n")
	check("after a force push", 1)
	check("a range", -1, "--log-opts", "HEAD~5..HEAD")
	check("a range again", 0, "--log-opts", "HEAD~5..HEAD")
}

// TestDropInsUseTheStoreUnchanged: gitleaks' commands, run as gitleaks
// users run them (no new flag), use the store in the user's cache
// directory and write gitleaks' report unchanged.
func TestDropInsUseTheStoreUnchanged(t *testing.T) {
	dir, config := historyRepo(t, 24)
	home := t.TempDir()
	for _, cmd := range [][]string{
		{"detect", "--source", ".", "--no-banner", "-c", config, "--report-format", "json"},
		{"git", ".", "--no-banner", "-c", config, "--report-format", "sarif"},
	} {
		var reports [3][]byte
		for i := range reports {
			out := filepath.Join(t.TempDir(), "report")
			args := append(append([]string(nil), cmd...), "--report-path", out, "-l", "debug")
			if i == 2 {
				args = append(args, "--no-cache")
			}
			c := exec.Command(binary, args...)
			c.Dir = dir
			c.Env = append(os.Environ(), "XDG_CACHE_HOME="+home, "NO_COLOR=")
			var stderr bytes.Buffer
			c.Stderr = &stderr
			if err := c.Run(); err != nil {
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
					t.Fatalf("%v: %v\n%s", args, err, stderr.String())
				}
			}
			if i == 1 && !strings.Contains(stderr.String(), "history store: 24 of 24 commits from the store") {
				t.Errorf("%v: the second run did not use the store:\n%s", cmd, stderr.String())
			}
			reports[i], _ = os.ReadFile(out)
		}
		if !bytes.Equal(reports[0], reports[2]) || !bytes.Equal(reports[1], reports[2]) {
			t.Errorf("%v: the reports differ", cmd)
		}
	}
	// One store: both commands scan with the same rules and settings.
	if stores, err := git.ListStores(filepath.Join(home, "spindle", "history")); err != nil || len(stores) != 1 || stores[0].Clean+stores[0].Found != 24 {
		t.Errorf("stores in the user's cache: %v %v", stores, err)
	}
}

// TestGitCacheShards: each shard stores its commits, and reads them back
// into the report it writes without a store.
func TestGitCacheShards(t *testing.T) {
	dir, config := historyRepo(t, 30)
	cache := t.TempDir()
	for round := range 2 {
		for i := range 3 {
			shard := fmt.Sprintf("%d/3", i)
			want, _ := reportOf(t, dir, "json", "-c", config, "--no-cache", "--shard", shard)
			got, r := reportOf(t, dir, "json", "-c", config, "--cache", cache, "--shard", shard)
			if !bytes.Equal(got, want) {
				t.Errorf("shard %s, round %d: the report differs", shard, round)
			}
			if cached, total := storeCounts(t, r); round == 1 && cached != total {
				t.Errorf("shard %s again: %d of %d from the store", shard, cached, total)
			}
		}
	}
	want, _ := reportOf(t, dir, "json", "-c", config, "--no-cache")
	got, r := reportOf(t, dir, "json", "-c", config, "--cache", cache)
	if cached, total := storeCounts(t, r); !bytes.Equal(got, want) || cached != total || total != 30 {
		t.Errorf("the whole scan after its shards: %d of %d from the store, same report %t", cached, total, bytes.Equal(got, want))
	}
}

// TestGitCacheSurvivesKillsAndConcurrentScans: scans killed at random
// points, and scans run two at a time, leave a store from which a scan
// writes the full scan's report.
func TestGitCacheSurvivesKillsAndConcurrentScans(t *testing.T) {
	dir, config := historyRepo(t, 120)
	cache := t.TempDir()
	want, _ := reportOf(t, dir, "json", "-c", config, "--no-cache")
	rng := rand.New(rand.NewPCG(3, 4))
	rounds := 6
	if testing.Short() {
		rounds = 3
	}
	for round := range rounds {
		c := exec.Command(binary, "git", "--no-banner", "-c", config, "--cache", cache, "-r", filepath.Join(t.TempDir(), "r.json"), ".")
		c.Dir = dir
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.IntN(400)) * time.Millisecond)
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()
		var wg sync.WaitGroup
		reports := make([][]byte, 2)
		for i := range reports {
			wg.Go(func() {
				out := filepath.Join(t.TempDir(), "r.json")
				c := exec.Command(binary, "git", "--no-banner", "-c", config, "--cache", cache, "-f", "json", "-r", out, ".")
				c.Dir = dir
				c.Run()
				reports[i], _ = os.ReadFile(out)
			})
		}
		wg.Wait()
		for i, r := range reports {
			if !bytes.Equal(r, want) {
				t.Errorf("round %d: concurrent scan %d wrote another report", round, i)
			}
		}
		got, r := reportOf(t, dir, "json", "-c", config, "--cache", cache)
		if !bytes.Equal(got, want) {
			t.Errorf("round %d: the report differs", round)
		}
		for line := range strings.Lines(r.stderr) {
			if strings.Contains(line, " WRN ") && !strings.Contains(line, "leaks found") {
				t.Errorf("round %d: a warning: %s", round, line)
			}
		}
	}
}

// TestGitOpensTheRepositoryOnce: spindle git finds and opens its
// repository once per scan, for its config, its remote and its history.
func TestGitOpensTheRepositoryOnce(t *testing.T) {
	dir, config := historyRepo(t, 5)
	writeTree(t, dir, map[string]string{"staged.txt": token(7) + "\n"})
	gitIn(t, dir, "add", "staged.txt")
	var opens int
	orig := openRepository
	openRepository = func(p string) (*git.Repository, error) { opens++; return orig(p) }
	defer func() { openRepository = orig }()
	for _, args := range [][]string{
		{"git", "--no-banner", "-c", config, "--cache", t.TempDir(), dir},
		{"git", "--no-banner", "-c", config, "--no-cache", dir},
		{"git", "--no-banner", "-c", config, "--staged", dir},
		{"git", "--no-banner", "-c", config, "--pre-commit", dir},
	} {
		opens = 0
		var out, errOut strings.Builder
		e := env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: os.Getenv}
		if code := run(context.Background(), e, args); code != 1 && code != 0 {
			t.Errorf("%v: exit %d\n%s", args, code, errOut.String())
		}
		if opens != 1 {
			t.Errorf("%v: the repository was opened %d times", args, opens)
		}
	}
}

// TestCacheCommandShowsAndPrunes: spindle cache lists the stores, prune
// removes the unused ones (none younger than --unused), --all every one,
// and nothing else in the directory.
func TestCacheCommandShowsAndPrunes(t *testing.T) {
	dir, config := historyRepo(t, 10)
	cache := t.TempDir()
	reportOf(t, dir, "json", "-c", config, "--cache", cache)
	os.WriteFile(filepath.Join(cache, "mine.txt"), []byte("not a store\n"), 0o644)
	r := invoke(t, dir, "cache", "--cache", cache)
	if r.code != 0 || !strings.Contains(r.stdout, "ROOT COMMIT") || !strings.Contains(r.stdout, dir) || !strings.Contains(r.stderr, "1 store") {
		t.Errorf("cache: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := invoke(t, dir, "cache", "prune", "--cache", cache); r.code != 0 || !strings.Contains(r.stderr, "0 stores removed") {
		t.Errorf("prune: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := invoke(t, dir, "cache", "prune", "--all", "--cache", cache); r.code != 0 || !strings.Contains(r.stderr, "1 store removed") {
		t.Errorf("prune --all: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	left, _ := os.ReadDir(cache)
	if len(left) != 1 || left[0].Name() != "mine.txt" {
		t.Errorf("left in the cache directory: %v", left)
	}
}

// TestActionScansTheHistoryFromTheStore: the Action with its default
// cache: "true" scans the history of the event's commit with the store
// its runner keeps (restored and saved by actions/cache, emulated here by
// one runner.temp for every run): the first run scans it all, the next
// ones take it from the store and write the same report; the store is
// not saved from pull_request_target runs.
func TestActionScansTheHistoryFromTheStore(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	a := readAction(t)
	_, ws, c := actionRepos(t)
	temp := t.TempDir()
	push := map[string]any{"event_name": "push", "ref": "refs/heads/feature", "sha": c[5], "event": map[string]any{"before": c[4], "after": c[5]}}
	pr := map[string]any{"event_name": "pull_request_target", "ref": "refs/heads/main", "sha": c[3],
		"event": map[string]any{"pull_request": map[string]any{"base": map[string]any{"sha": c[3]}, "head": map[string]any{"sha": c[5]}}}}
	var first []byte
	for i, gh := range []map[string]any{push, push, pr} {
		inputs := map[string]any{}
		for name, in := range a.Inputs {
			if in.Default != nil {
				inputs[name] = *in.Default
			}
		}
		inputs["args"] = "-l debug"
		gh = maps.Clone(gh)
		gh["action_path"], gh["action_ref"] = repoRoot(t), ""
		ctx := ghContext{"github": gh, "inputs": inputs, "runner": map[string]any{"temp": temp, "os": "Linux"},
			"steps": map[string]any{"install": map[string]any{"outputs": map[string]any{"spindle": binary}}}}
		var steps []ghStep
		for _, st := range a.Runs.Steps {
			if st.ID != "install" {
				steps = append(steps, st)
			}
		}
		env := append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
		r := runSteps(t, steps, ctx, env, ws, nil)
		log := r.log.String()
		sarif, _ := ctx.lookup("steps.scan.outputs.sarif-file")
		report, err := os.ReadFile(sarif)
		if err != nil {
			t.Fatalf("run %d: no report: %v\n%s", i, err, log)
		}
		for _, f := range []string{"old.env", "feat.env", "more.env"} {
			if !strings.Contains(string(report), f) {
				t.Errorf("run %d: no finding in %s (the history of the event's commit)", i, f)
			}
		}
		want := "history store: 0 of 5 commits from the store, 5 scanned"
		if i > 0 {
			want = "history store: 5 of 5 commits from the store, 0 scanned"
		}
		if !strings.Contains(log, want) {
			t.Errorf("run %d: the log does not say %q:\n%s", i, want, log)
		}
		if i == 0 {
			first = report
		} else if !bytes.Equal(report, first) {
			t.Errorf("run %d: the report differs from the first run's", i)
		}
		var restored, saved bool
		for _, u := range r.used {
			restored = restored || strings.HasPrefix(u.uses, "actions/cache/restore@") && u.with["path"] == filepath.Join(temp, "spindle-cache")
			saved = saved || strings.HasPrefix(u.uses, "actions/cache/save@") && u.with["path"] == filepath.Join(temp, "spindle-cache")
		}
		if !restored || saved != (gh["event_name"] == "push") {
			t.Errorf("run %d (%s): restored %t, saved %t", i, gh["event_name"], restored, saved)
		}
	}
}

// The README's commands about the history store, run as it shows them.
func init() {
	readmeCommands["spindle git --cache .spindle-cache -r spindle.sarif . HEAD"] = func(t *testing.T) {
		dir, config := historyRepo(t, 12)
		os.Rename(config, filepath.Join(dir, ".gitleaks.toml"))
		line := "spindle git --cache .spindle-cache -r spindle.sarif . HEAD"
		var reports [2]string
		for i := range reports {
			r := runLine(t, dir, line+" -l debug")
			data, err := os.ReadFile(filepath.Join(dir, "spindle.sarif"))
			if r.code != 1 || err != nil {
				t.Fatalf("run %d: exit %d, report %v\n%s", i, r.code, err, r.stderr)
			}
			reports[i] = string(data)
			if want := fmt.Sprintf("history store: %d of 12 commits from the store", 12*i); !strings.Contains(r.stderr, want) {
				t.Errorf("run %d: the log does not say %q:\n%s", i, want, r.stderr)
			}
		}
		if reports[0] != reports[1] || strings.Count(reports[0], `"ruleId"`) != 3 {
			t.Errorf("the reports differ or miss findings:\n%s\n%s", reports[0], reports[1])
		}
	}
	readmeCommands["spindle cache"] = func(t *testing.T) {
		dir, config := historyRepo(t, 3)
		home := t.TempDir()
		xdg := "XDG_CACHE_HOME=" + home
		runLine(t, dir, "spindle git -c "+config+" .", xdg)
		r := runLine(t, dir, "spindle cache", xdg)
		if r.code != 0 || !strings.Contains(r.stdout, dir) || !strings.Contains(r.stderr, filepath.Join(home, "spindle", "history")) {
			t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	}
	readmeCommands["spindle cache prune --all"] = func(t *testing.T) {
		dir, config := historyRepo(t, 3)
		xdg := "XDG_CACHE_HOME=" + t.TempDir()
		runLine(t, dir, "spindle git -c "+config+" .", xdg)
		if r := runLine(t, dir, "spindle cache prune --all", xdg); r.code != 0 || !strings.Contains(r.stderr, "1 store removed") {
			t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if r := runLine(t, dir, "spindle cache", xdg); r.stdout != "" {
			t.Errorf("stores left:\n%s", r.stdout)
		}
	}
}
