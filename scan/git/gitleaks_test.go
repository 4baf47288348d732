package git

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/git/internal/histgen"
	"github.com/spindle-go/spindle/scan/rules"
)

// gitleaksVersion is the release the history scan is compared with.
const gitleaksVersion = "v8.30.1"

// gitleaksTools finds the gitleaks binary and its default config (from
// the module cache, where `go install …gitleaks/v8@v8.30.1` leaves it),
// or skips the test.
func gitleaksTools(t *testing.T) (bin, config string) {
	t.Helper()
	bin, err := gitleaksBinary()
	if err != nil {
		t.Skip("gitleaks not installed (go install -tags gore2regex github.com/zricethezav/gitleaks/v8@" + gitleaksVersion + ")")
	}
	modcache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	config = filepath.Join(strings.TrimSpace(string(modcache)), "github.com/zricethezav/gitleaks/v8@"+gitleaksVersion, "config", "gitleaks.toml")
	if _, err := os.Stat(config); err != nil {
		t.Skip("gitleaks' default config not in the module cache")
	}
	return bin, config
}

// gitleaksBinary finds gitleaks on PATH or in GOPATH/bin.
func gitleaksBinary() (string, error) {
	if bin, err := exec.LookPath("gitleaks"); err == nil {
		return bin, nil
	}
	gopath, _ := exec.Command("go", "env", "GOPATH").Output()
	bin := filepath.Join(strings.TrimSpace(string(gopath)), "bin", "gitleaks")
	if _, err := os.Stat(bin); err != nil {
		return "", err
	}
	return bin, nil
}

// key identifies a history finding the way the comparison counts it.
type key struct {
	Commit, File string
	Line         int
	Rule, Secret string
	Tags         string // sorted, joined: decoding's tags tell repeats apart
}

// tagsOf is a finding's tags as a key holds them, without spindle's own
// merge tag (compared separately).
func tagsOf(tags []string) string {
	t := slices.Clone(tags)
	slices.Sort(t)
	return strings.Join(t, ",")
}

func gitleaksFindings(t *testing.T, bin, config, repo string) []key {
	t.Helper()
	out := filepath.Join(t.TempDir(), "gl.json")
	cmd := exec.Command(bin, "git", repo, "-c", config, "-f", "json", "-r", out, "--no-banner", "-l", "error", "--exit-code", "0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gitleaks: %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var fs []struct {
		Commit, File, RuleID, Secret string
		StartLine                    int
		Tags                         []string
	}
	if err := json.Unmarshal(data, &fs); err != nil {
		t.Fatal(err)
	}
	keys := make([]key, len(fs))
	for i, f := range fs {
		keys[i] = key{f.Commit, f.File, f.StartLine, f.RuleID, f.Secret, tagsOf(f.Tags)}
	}
	return sortKeys(keys)
}

func sortKeys(k []key) []key {
	slices.SortFunc(k, func(a, b key) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return k
}

func spindleFindings(t *testing.T, config, repo string) (found, merges []key) {
	t.Helper()
	cfg, err := rules.LoadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	det, err := rules.CompileWith(cfg, rules.Settings{GitleaksDecoding: true})
	if err != nil {
		t.Fatal(err)
	}
	return historyKeys(t, scan.Rules(det), repo, Options{})
}

func diffKeys(a, b []key) (onlyA, onlyB []key) {
	// As multisets: a finding reported twice (gitleaks repeats a decoded
	// one at depth 2) must be reported twice.
	count := map[key]int{}
	for _, k := range a {
		count[k]++
	}
	for _, k := range b {
		count[k]--
	}
	for k, n := range count {
		for ; n > 0; n-- {
			onlyA = append(onlyA, k)
		}
		for ; n < 0; n++ {
			onlyB = append(onlyB, k)
		}
	}
	return sortKeys(onlyA), sortKeys(onlyB)
}

// TestSameFindingsAsGitleaks compares `spindle git` with `gitleaks git`,
// both with gitleaks' default config, finding for finding (commit, file,
// line, rule, secret), on a generated history and on the repositories
// named in SPINDLE_GITLEAKS_REPOS (paths, or git bundles, separated by
// the list separator), and on ../shared/repos/caddy.bundle when it is
// there. Findings spindle tags as introduced by a merge are the known
// difference: gitleaks does not see them.
func TestSameFindingsAsGitleaks(t *testing.T) {
	bin, config := gitleaksTools(t)
	repos := map[string]string{}
	gen := filepath.Join(t.TempDir(), "gen.git")
	if _, err := histgen.Generate(gen, histgen.Small); err != nil {
		t.Fatal(err)
	}
	repos["generated"] = gen
	var names []string
	if env := os.Getenv("SPINDLE_GITLEAKS_REPOS"); env != "" {
		names = filepath.SplitList(env)
	}
	if !testing.Short() {
		names = append(names, "../../../shared/repos/caddy.bundle")
	}
	for _, n := range names {
		if _, err := os.Stat(n); err != nil {
			continue
		}
		p := n
		if strings.HasSuffix(n, ".bundle") {
			p = filepath.Join(t.TempDir(), filepath.Base(n)+".git")
			if out, err := exec.Command("git", "clone", "-q", "--mirror", n, p).CombinedOutput(); err != nil {
				t.Fatalf("clone %s: %v\n%s", n, err, out)
			}
		}
		repos[filepath.Base(n)] = p
	}
	for name, repo := range repos {
		t.Run(name, func(t *testing.T) {
			want := gitleaksFindings(t, bin, config, repo)
			got, merges := spindleFindings(t, config, repo)
			onlyS, onlyG := diffKeys(got, want)
			if len(onlyS) > 0 || len(onlyG) > 0 {
				t.Errorf("%d findings, gitleaks %d; spindle only %v; gitleaks only %v", len(got), len(want), onlyS, onlyG)
			}
			t.Logf("%d findings, the same as gitleaks; %d more introduced by merges", len(got), len(merges))
			if name == "generated" && (len(want) == 0 || len(merges) == 0) {
				t.Errorf("the generated history should plant findings (%d) and merge-made ones (%d)", len(want), len(merges))
			}
		})
	}
}
