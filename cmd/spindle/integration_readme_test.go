package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The README's sections on installing spindle, CI, hooks and sharding: each
// command of their sh blocks is run here, as written, by bash (readme_test.go
// merges sectionCommands into readmeCommands, which TestReadmeCommandsAllRun
// holds to the README), and every yaml block is parsed and checked against
// the files it configures.

// runLine runs a README command line as written, with bash, in dir, with
// the binary under test first on PATH and env added, and returns what it
// did.
func runLine(t *testing.T, dir, line string, env ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(append(gitEnv(), "NO_COLOR=", "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", line, err)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// needDocker skips unless a container engine answers.
func needDocker(t *testing.T) {
	t.Helper()
	if err := exec.Command("docker", "info").Run(); err != nil {
		t.Skip("no container engine runs here (docker info fails): the Dockerfile is checked by the TestDockerfile tests instead")
	}
}

// historyWithRange returns the actionRepos workspace and BASE, HEAD for
// the commits c4 and c5, which add feat.env and more.env, each a secret.
func historyWithRange(t *testing.T) (ws string, env []string) {
	t.Helper()
	_, ws, c := actionRepos(t)
	return ws, []string{"BASE=" + c[3], "HEAD=" + c[5]}
}

// shardLine checks one shard command of the README on the shard history:
// it writes a json report of its part.
func shardLine(line, report string) func(t *testing.T) {
	return func(t *testing.T) {
		repo := shardHistory(t)
		r := runLine(t, repo, line)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		data, err := os.ReadFile(filepath.Join(repo, report))
		if err != nil {
			t.Fatal(err)
		}
		parseJSON(t, string(data))
	}
}

// sectionCommands runs each command of the sections, or says why it
// cannot run here.
var sectionCommands = map[string]func(t *testing.T){
	"go install ./cmd/spindle": func(t *testing.T) {
		bin, commit := goInstallFromClone(t)
		if out, err := exec.Command(bin, "version").Output(); err != nil || !strings.Contains(string(out), commit[:12]) {
			t.Errorf("spindle version = %q, %v; want commit %s", out, err, commit[:12])
		}
	},
	"go install github.com/spindle-go/spindle/cmd/spindle@v0.1.0": func(t *testing.T) {
		if testing.Short() {
			t.Skip("builds spindle from a module proxy made here: not with -short")
		}
		bin := goInstallTagged(t)
		if out, err := exec.Command(bin, "version").Output(); err != nil || !strings.HasPrefix(string(out), "spindle v0.1.0 ") {
			t.Errorf("spindle version = %q, %v; want spindle v0.1.0", out, err)
		}
	},
	`scripts/compare-gitleaks.sh git "$REPO"`: func(t *testing.T) {
		gl, _ := gitleaksBinary(t)
		repo := leakyHistory(t)
		r := runLine(t, repoRoot(t), `scripts/compare-gitleaks.sh git "$REPO"`, "REPO="+repo, "GITLEAKS="+gl)
		if r.code != 0 || !strings.Contains(r.stdout, "same findings") || !strings.Contains(r.stdout, "nothing new") {
			t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	},
	"scripts/release-check.sh": func(t *testing.T) {
		TestReleaseCheckBuildsEveryTarget(t)
	},
	"spindle version": func(t *testing.T) {
		if r := runLine(t, t.TempDir(), "spindle version"); r.code != 0 || !strings.HasPrefix(r.stdout, "spindle ") {
			t.Errorf("exit %d, %q", r.code, r.stdout)
		}
	},
	`go build -ldflags "-X main.version=v1.2.3" -o spindle ./cmd/spindle`: func(t *testing.T) {
		dir, _ := snapshotRepo(t)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "-c", `go build -ldflags "-X main.version=v1.2.3" -o spindle ./cmd/spindle`)
		cmd.Dir, cmd.Env = dir, sharedBuildEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		out, err := exec.Command(filepath.Join(dir, "spindle"), "version").Output()
		if err != nil || !strings.HasPrefix(string(out), "spindle v1.2.3 ") {
			t.Errorf("spindle version = %q, %v", out, err)
		}
	},
	`docker build -t spindle --build-arg VERSION="$(git describe --tags --always --dirty)" .`: func(t *testing.T) {
		needDocker(t)
		r := runLine(t, repoRoot(t), `docker build -t spindle --build-arg VERSION="$(git describe --tags --always --dirty)" .`)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
	},
	`docker run --rm -v "$PWD:/repo" spindle git -v`: func(t *testing.T) {
		needDocker(t)
		ws, _ := historyWithRange(t)
		if r := runLine(t, ws, `docker run --rm -v "$PWD:/repo" spindle git -v`); r.code != 1 || !strings.Contains(r.stdout, "old.env") {
			t.Errorf("exit %d, want 1 with old.env\n%s%s", r.code, r.stdout, r.stderr)
		}
	},
	`spindle git -v . "$BASE..$HEAD"`: func(t *testing.T) {
		ws, env := historyWithRange(t)
		r := runLine(t, ws, `spindle git -v . "$BASE..$HEAD"`, env...)
		if r.code != 1 || !strings.Contains(r.stdout, "feat.env") || !strings.Contains(r.stdout, "more.env") || strings.Contains(r.stdout, "old.env") {
			t.Errorf("exit %d, want 1 with feat.env and more.env only\n%s%s", r.code, r.stdout, r.stderr)
		}
	},
	`spindle git -r spindle.sarif . "$BASE..$HEAD"`: func(t *testing.T) {
		ws, env := historyWithRange(t)
		if r := runLine(t, ws, `spindle git -r spindle.sarif . "$BASE..$HEAD"`, env...); r.code != 1 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		data, err := os.ReadFile(filepath.Join(ws, "spindle.sarif"))
		if err != nil {
			t.Fatal(err)
		}
		var sl sarifLog
		if err := json.Unmarshal(data, &sl); err != nil || len(sl.Runs) != 1 || len(sl.Runs[0].Results) != 2 {
			t.Errorf("sarif: %v; want one run with 2 results", err)
		}
	},
	// The hook is spindle-system here, which runs the spindle under test;
	// the golang hook the README shows is built and run by
	// TestPreCommitGolangHookBuildsSpindleAndFailsOnAStagedSecret.
	"pre-commit install": func(t *testing.T) {
		needPreCommit(t)
		hookRepo, rev := snapshotRepo(t)
		repo := hookUserRepo(t, hookRepo, rev, "spindle-system")
		env := preCommitEnv(t, filepath.Dir(binary))
		if code, out := preCommit(t, repo, env, "bash", "-c", "pre-commit install"); code != 0 {
			t.Fatalf("exit %d\n%s", code, out)
		}
		writeTree(t, repo, map[string]string{"leak.env": "TOKEN=" + token(42) + "\n"})
		gitIn(t, repo, "add", "leak.env")
		if code, out := preCommit(t, repo, env, "git", "commit", "-q", "-m", "leak"); code == 0 || !strings.Contains(out, "leak.env") {
			t.Errorf("git commit of a secret: exit %d, want a failure naming leak.env\n%s", code, out)
		}
	},
	"spindle git --staged -v": func(t *testing.T) {
		_, ws, _ := actionRepos(t)
		if r := runLine(t, ws, "spindle git --staged -v"); r.code != 0 {
			t.Errorf("nothing staged: exit %d\n%s", r.code, r.stderr)
		}
		writeTree(t, ws, map[string]string{"staged.env": "TOKEN=" + token(43) + "\n"})
		gitIn(t, ws, "add", "staged.env")
		if r := runLine(t, ws, "spindle git --staged -v"); r.code != 1 || !strings.Contains(r.stdout, "staged.env") {
			t.Errorf("a staged secret: exit %d, want 1 naming staged.env\n%s%s", r.code, r.stdout, r.stderr)
		}
	},
	"spindle git --shard 0/3 -r shard-0.json .": shardLine("spindle git --shard 0/3 -r shard-0.json .", "shard-0.json"),
	"spindle git --shard 1/3 -r shard-1.json .": shardLine("spindle git --shard 1/3 -r shard-1.json .", "shard-1.json"),
	"spindle git --shard 2/3 -r shard-2.json .": shardLine("spindle git --shard 2/3 -r shard-2.json .", "shard-2.json"),
	"spindle merge -f sarif -o spindle.sarif shard-*.json": func(t *testing.T) {
		repo := shardHistory(t)
		want := unshardedKeys(t, repo)
		for _, line := range []string{
			"spindle git --shard 0/3 -r shard-0.json .",
			"spindle git --shard 1/3 -r shard-1.json .",
			"spindle git --shard 2/3 -r shard-2.json .",
		} {
			if r := runLine(t, repo, line); r.code != 0 && r.code != 1 {
				t.Fatalf("%s: exit %d\n%s", line, r.code, r.stderr)
			}
		}
		reports, _ := filepath.Glob(filepath.Join(repo, "shard-*.json"))
		if got, _ := shardUnion(t, reports); !slices.Equal(got, want) {
			t.Errorf("the three shards found %d findings, one scan %d", len(got), len(want))
		}
		if r := runLine(t, repo, "spindle merge -f sarif -o spindle.sarif shard-*.json"); r.code != 0 && r.code != 1 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		data, err := os.ReadFile(filepath.Join(repo, "spindle.sarif"))
		if err != nil {
			t.Fatal(err)
		}
		var sl sarifLog
		if err := json.Unmarshal(data, &sl); err != nil || len(sl.Runs) != 1 || len(sl.Runs[0].Results) != len(want) {
			t.Errorf("merged sarif: %v; want one run with %d results", err, len(want))
		}
	},
}

// TestReadmeSectionsYAMLIsValid checks the yaml blocks: the steps that use
// the Action give only its inputs, after a checkout of the whole history;
// the pre-commit configuration names hooks that .pre-commit-hooks.yaml
// defines.
func TestReadmeSectionsYAMLIsValid(t *testing.T) {
	name, text := "README.md", readme(t)
	action := readAction(t)
	hooksData, err := os.ReadFile(filepath.Join(repoRoot(t), ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID string `yaml:"id"`
	}
	if err := yaml.Unmarshal(hooksData, &hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	blocks := codeBlocks(text, "yaml")
	checked := map[string]bool{}
	for _, b := range blocks {
		var doc struct {
			Steps []ghStep `yaml:"steps"`
			Repos []struct {
				Repo  string `yaml:"repo"`
				Rev   string `yaml:"rev"`
				Hooks []struct {
					ID string `yaml:"id"`
				} `yaml:"hooks"`
			} `yaml:"repos"`
		}
		dec := yaml.NewDecoder(strings.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(&doc); err != nil {
			t.Errorf("%s: yaml block does not parse as workflow steps or a pre-commit config: %v\n%s", name, err, b)
			continue
		}
		for i, st := range doc.Steps {
			if !strings.HasPrefix(st.Uses, "spindle-go/spindle@") {
				continue
			}
			checked["action"] = true
			if !fetchesHistory(&ghJob{Steps: doc.Steps[:i]}) {
				t.Errorf("%s: the Action is used without a checkout of fetch-depth: 0 before it", name)
			}
			for k := range st.With {
				if _, ok := action.Inputs[k]; !ok {
					t.Errorf("%s: with: %s is not an input of action.yml", name, k)
				}
			}
		}
		for _, r := range doc.Repos {
			checked["pre-commit"] = true
			if r.Repo == "" || r.Rev == "" || len(r.Hooks) == 0 {
				t.Errorf("%s: a pre-commit repo needs repo, rev and hooks", name)
			}
			if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(r.Rev) {
				t.Errorf("%s: rev %q: pin a release tag (pre-commit warns of a mutable reference such as a branch)", name, r.Rev)
			}
			for _, h := range r.Hooks {
				if !slices.ContainsFunc(hooks, func(d struct {
					ID string `yaml:"id"`
				}) bool {
					return d.ID == h.ID
				}) {
					t.Errorf("%s: hook %s is not in .pre-commit-hooks.yaml", name, h.ID)
				}
			}
		}
	}
	for _, want := range []string{"action", "pre-commit"} {
		if !checked[want] {
			t.Errorf("%s has no yaml block configuring the %s", name, want)
		}
	}
}
