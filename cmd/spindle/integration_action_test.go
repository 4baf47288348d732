package main

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// action.yml, the GitHub Action: its structure checked against what GitHub
// requires of a composite action, and its steps run by the emulation in
// integration_runner_test.go on repositories made here, for each kind of
// event it handles.

// actionFile is action.yml.
type actionFile struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description string  `yaml:"description"`
		Required    bool    `yaml:"required"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string   `yaml:"using"`
		Steps []ghStep `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) actionFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true) // a misspelt key is an error, as GitHub makes it
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// usesRE is a pinned action reference: owner/repo[/path]@ref.
var usesRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[A-Za-z0-9_./-]+)?@[A-Za-z0-9_.-]+$`)

// stepOutputRE finds steps.ID.outputs.NAME in an expression.
var stepOutputRE = regexp.MustCompile(`steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)`)

func TestActionIsAWellFormedCompositeAction(t *testing.T) {
	a := readAction(t)
	steps := a.Runs.Steps
	ids := map[string]int{} // step id -> index
	for i, st := range steps {
		if st.ID != "" {
			ids[st.ID] = i
		}
	}
	// writes reports whether step id's script writes output name.
	writes := func(id, name string) bool {
		i, ok := ids[id]
		return ok && strings.Contains(steps[i].Run, name+"=") && strings.Contains(steps[i].Run, "$GITHUB_OUTPUT")
	}
	checks := []struct {
		name string
		ok   func() bool
	}{
		{"has a name and a description", func() bool { return a.Name != "" && a.Description != "" }},
		{"runs.using is composite", func() bool { return a.Runs.Using == "composite" }},
		{"every step runs a script or uses an action, not both", func() bool {
			for _, st := range steps {
				if (st.Run == "") == (st.Uses == "") {
					return false
				}
			}
			return len(steps) > 0
		}},
		{"every run step names its shell (composite actions require it)", func() bool {
			for _, st := range steps {
				if st.Run != "" && st.Shell == "" {
					return false
				}
			}
			return true
		}},
		{"every used action is pinned to a version", func() bool {
			for _, st := range steps {
				if st.Uses != "" && !usesRE.MatchString(st.Uses) {
					return false
				}
			}
			return true
		}},
		{"no script splices in a ${{ }} expression", func() bool {
			for _, st := range steps {
				if exprRE.MatchString(st.Run) {
					return false
				}
			}
			return true
		}},
		{"every input has a description and a string default", func() bool {
			for _, in := range a.Inputs {
				if in.Description == "" || in.Default == nil && !in.Required {
					return false
				}
			}
			return true
		}},
		{"the inputs the brief names exist", func() bool {
			for _, name := range []string{"args", "config", "fail-on-findings", "upload-sarif", "version"} {
				if _, ok := a.Inputs[name]; !ok {
					return false
				}
			}
			return true
		}},
		{"switches default to 'true' or 'false'", func() bool {
			for _, name := range []string{"fail-on-findings", "upload-sarif", "setup-go", "scan"} {
				if d := a.Inputs[name].Default; d == nil || (*d != "true" && *d != "false") {
					return false
				}
			}
			return true
		}},
		{"every output is written by the step it names", func() bool {
			for _, out := range a.Outputs {
				m := stepOutputRE.FindStringSubmatch(out.Value)
				if m == nil || !writes(m[1], m[2]) {
					return false
				}
			}
			return len(a.Outputs) > 0
		}},
		{"exit-code and findings are outputs", func() bool {
			_, code := a.Outputs["exit-code"]
			_, n := a.Outputs["findings"]
			return code && n
		}},
		{"a step reads only inputs that exist and outputs of earlier steps", func() bool {
			for i, st := range steps {
				text := st.If + " " + strings.Join(slices.Collect(maps.Values(st.Env)), " ") + " " + strings.Join(slices.Collect(maps.Values(st.With)), " ")
				for _, m := range regexp.MustCompile(`inputs\.([A-Za-z0-9_-]+)`).FindAllStringSubmatch(text, -1) {
					if _, ok := a.Inputs[m[1]]; !ok {
						return false
					}
				}
				for _, m := range stepOutputRE.FindAllStringSubmatch(text, -1) {
					if j, ok := ids[m[1]]; !ok || j >= i || !writes(m[1], m[2]) {
						return false
					}
				}
			}
			return true
		}},
		{"the findings go to code scanning with upload-sarif", func() bool {
			for _, st := range steps {
				if strings.HasPrefix(st.Uses, "github/codeql-action/upload-sarif@") && st.With["sarif_file"] != "" {
					return true
				}
			}
			return false
		}},
	}
	for _, c := range checks {
		if !c.ok() {
			t.Errorf("action.yml: not so: %s", c.name)
		}
	}
}

// actionRepos makes the repositories the action's scenarios scan: an
// upstream with main (c1 rules, c2 a secret in old.env, c3 clean), feature
// from c3 (c4 a secret in feat.env, c5 a secret in more.env) and copy at
// c3; ws, a full clone of it on feature, as actions/checkout with
// fetch-depth 0 leaves one; and the commits.
func actionRepos(t *testing.T) (upstream, ws string, c []string) {
	t.Helper()
	dev := t.TempDir()
	gitIn(t, dev, "init", "-q", "-b", "main")
	commit := func(file, body string) string {
		writeTree(t, dev, map[string]string{file: body})
		gitIn(t, dev, "add", "-A")
		gitIn(t, dev, "commit", "-q", "-m", "add "+file)
		return gitIn(t, dev, "rev-parse", "HEAD")
	}
	c = []string{"",
		commit(".gitleaks.toml", testRules),
		commit("old.env", "TOKEN="+token(100)+"\n"),
		commit("README.md", "# project\n"),
	}
	gitIn(t, dev, "branch", "copy")
	gitIn(t, dev, "checkout", "-q", "-b", "feature")
	c = append(c, commit("feat.env", "TOKEN="+token(101)+"\n"), commit("more.env", "TOKEN="+token(102)+"\n"))
	upstream = filepath.Join(t.TempDir(), "upstream.git")
	gitIn(t, dev, "clone", "-q", "--bare", dev, upstream)
	ws = filepath.Join(t.TempDir(), "ws")
	gitIn(t, filepath.Dir(ws), "clone", "-q", "--branch", "feature", upstream, ws)
	return upstream, ws, c
}

// actionScenario is one run of the action: the event, the inputs given
// with with:, and what must come of it.
type actionScenario struct {
	name      string
	workspace string // "" the full clone; "shallow"; "single" (only main fetched); "damaged" (a blob gone)
	github    map[string]any
	with      map[string]string
	// Expected: whether the action fails, spindle's exit code (output), and
	// the files with findings in the SARIF report.
	wantFail  bool
	wantCode  string
	wantFiles []string
	wantLog   string // in the log, if not ""
	// scanError: spindle fails (exit 1, as gitleaks, like a finding) and
	// writes no report; the scan step fails on it.
	scanError bool
}

func TestActionScansWhatEachEventAdded(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	t.Parallel()
	a := readAction(t)
	upstream, ws, c := actionRepos(t)
	zero := strings.Repeat("0", 40)
	push := func(ref, before, after string) map[string]any {
		return map[string]any{"event_name": "push", "ref": ref, "sha": after, "event": map[string]any{"before": before, "after": after}}
	}
	scenarios := []actionScenario{
		{name: "push adds one commit", github: push("refs/heads/feature", c[4], c[5]),
			wantFail: true, wantCode: "1", wantFiles: []string{"more.env"}},
		{name: "push with fail-on-findings false passes", github: push("refs/heads/feature", c[4], c[5]),
			with: map[string]string{"fail-on-findings": "false"}, wantCode: "1", wantFiles: []string{"more.env"}},
		{name: "push of a new branch scans what no other branch has", github: push("refs/heads/feature", zero, c[5]),
			wantFail: true, wantCode: "1", wantFiles: []string{"feat.env", "more.env"}},
		{name: "force push whose old tip is gone", github: push("refs/heads/feature", strings.Repeat("1234", 10), c[5]),
			wantFail: true, wantCode: "1", wantFiles: []string{"feat.env", "more.env"}},
		{name: "new branch at a commit other branches have adds nothing", github: push("refs/heads/copy", zero, c[3]),
			wantCode: "0"},
		{name: "first push of a repository scans its history", workspace: "single", github: push("refs/heads/main", zero, c[3]),
			wantFail: true, wantCode: "1", wantFiles: []string{"old.env"}},
		{name: "pull request scans base..head",
			github: map[string]any{"event_name": "pull_request", "ref": "refs/pull/7/merge", "sha": c[5],
				"event": map[string]any{"pull_request": map[string]any{"base": map[string]any{"sha": c[3]}, "head": map[string]any{"sha": c[5]}}}},
			wantFail: true, wantCode: "1", wantFiles: []string{"feat.env", "more.env"}},
		{name: "a scheduled run scans every ref",
			github:   map[string]any{"event_name": "schedule", "ref": "refs/heads/main", "sha": c[3]},
			wantFail: true, wantCode: "1", wantFiles: []string{"feat.env", "more.env", "old.env"}},
		{name: "revisions input overrides the event", github: push("refs/heads/feature", c[4], c[5]),
			with:     map[string]string{"revisions": c[3] + ".." + c[4]},
			wantFail: true, wantCode: "1", wantFiles: []string{"feat.env"}},
		{name: "args reach spindle", github: push("refs/heads/feature", c[4], c[5]),
			with:     map[string]string{"args": "--redact --exit-code 1", "fail-on-findings": "false"},
			wantCode: "1", wantFiles: []string{"more.env"}},
		{name: "a shallow clone fails and says how to fix it", workspace: "shallow", github: push("refs/heads/feature", c[4], c[5]),
			wantFail: true, wantLog: "fetch-depth: 0"},
		{name: "a bad config fails with spindle's error", github: push("refs/heads/feature", c[4], c[5]),
			with: map[string]string{"config": "missing.toml"}, wantFail: true, wantCode: "1", wantLog: "missing.toml", scanError: true},
		{name: "a scan that lost data fails whatever fail-on-findings says", workspace: "damaged", github: push("refs/heads/feature", c[4], c[5]),
			with:     map[string]string{"fail-on-findings": "false", "revisions": c[3] + ".." + c[5]},
			wantFail: true, wantCode: "1", wantLog: "the scan lost data (see the log above)", scanError: true},
		{name: "scan false only installs", github: push("refs/heads/feature", c[4], c[5]),
			with: map[string]string{"scan": "false"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			dir := ws
			switch sc.workspace {
			case "shallow":
				dir = filepath.Join(t.TempDir(), "ws")
				gitIn(t, filepath.Dir(dir), "clone", "-q", "--depth", "1", "--branch", "feature", "file://"+upstream, dir)
			case "damaged":
				// Every object loose, then the blob of more.env at c[5]
				// gone: a scan of c[3]..c[5] reads feat.env and loses it.
				dir = filepath.Join(t.TempDir(), "ws")
				gitIn(t, filepath.Dir(dir), "clone", "-q", "--no-local", upstream, dir)
				packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
				for _, p := range packs {
					moved := filepath.Join(t.TempDir(), "p.pack")
					if err := os.Rename(p, moved); err != nil {
						t.Fatal(err)
					}
					os.Remove(strings.TrimSuffix(p, ".pack") + ".idx")
					in, err := os.Open(moved)
					if err != nil {
						t.Fatal(err)
					}
					cmd := exec.Command("git", "unpack-objects", "-q")
					cmd.Dir, cmd.Stdin = dir, in
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("unpack-objects: %v\n%s", err, out)
					}
					in.Close()
				}
				blob := strings.TrimSpace(gitIn(t, dir, "rev-parse", c[5]+":more.env"))
				if err := os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
					t.Fatal(err)
				}
			case "single":
				dir = filepath.Join(t.TempDir(), "ws")
				gitIn(t, filepath.Dir(dir), "clone", "-q", "--single-branch", "--branch", "main", upstream, dir)
			}
			runAction(t, a, sc, dir)
		})
	}
}

// runAction runs the action's steps for one scenario in workspace, with
// the install step's effect (spindle on PATH) given by the binary under
// test; TestActionInstallStepBuildsTheActionSource runs that step itself.
func runAction(t *testing.T, a actionFile, sc actionScenario, workspace string) {
	t.Helper()
	temp := t.TempDir()
	inputs := map[string]any{}
	for name, in := range a.Inputs {
		if in.Default != nil {
			inputs[name] = *in.Default
		}
	}
	// These scenarios check the ranges each event adds: without the
	// history store unless they say so (cache_e2e_test.go runs the Action
	// with it).
	if _, ok := sc.with["cache"]; !ok {
		inputs["cache"] = "false"
	}
	for k, v := range sc.with {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("with: %s is not an input of the action", k)
		}
		inputs[k] = v
	}
	gh := maps.Clone(sc.github)
	gh["action_path"], gh["action_ref"] = repoRoot(t), ""
	ctx := ghContext{"github": gh, "inputs": inputs, "runner": map[string]any{"temp": temp, "os": "Linux"}}
	var steps []ghStep
	for _, st := range a.Runs.Steps {
		if st.ID == "install" {
			ctx["steps"] = map[string]any{"install": map[string]any{"outputs": map[string]any{"spindle": binary}}}
			continue
		}
		steps = append(steps, st)
	}
	env := append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	r := runSteps(t, steps, ctx, env, workspace, nil)
	log := r.log.String()
	if r.failed != sc.wantFail {
		t.Fatalf("action failed = %v, want %v\n%s", r.failed, sc.wantFail, log)
	}
	if sc.wantLog != "" && !strings.Contains(log, sc.wantLog) {
		t.Errorf("the log does not say %q:\n%s", sc.wantLog, log)
	}
	code, _ := ctx.lookup("steps.scan.outputs.exit-code")
	if code != sc.wantCode {
		t.Errorf("exit-code output %q, want %q\n%s", code, sc.wantCode, log)
	}
	if sc.scanError || sc.wantCode != "0" && sc.wantCode != "1" {
		return
	}
	findings, _ := ctx.lookup("steps.scan.outputs.findings")
	if want := len(sc.wantFiles); findings != strconv.Itoa(want) {
		t.Errorf("findings output %q, want %d\n%s", findings, want, log)
	}
	sarifPath, _ := ctx.lookup("steps.scan.outputs.sarif-file")
	data, err := os.ReadFile(sarifPath)
	if err != nil {
		t.Fatalf("the SARIF report: %v\n%s", err, log)
	}
	var sl sarifLog
	if err := json.Unmarshal(data, &sl); err != nil || len(sl.Runs) != 1 {
		t.Fatalf("the SARIF report does not parse: %v", err)
	}
	var files []string
	for _, res := range sl.Runs[0].Results {
		for _, loc := range res.Locations {
			files = append(files, loc.PhysicalLocation.ArtifactLocation.URI)
		}
	}
	slices.Sort(files)
	if !slices.Equal(files, sc.wantFiles) {
		t.Errorf("findings in %v, want %v\n%s", files, sc.wantFiles, log)
	}
	if strings.Contains(sc.with["args"], "--redact") && strings.Contains(string(data), "e2ex_") {
		t.Error("--redact in args did not reach spindle: the report holds a secret")
	}
	// The upload runs on the report the scan wrote, unless turned off.
	uploaded := ""
	for _, u := range r.used {
		if strings.HasPrefix(u.uses, "github/codeql-action/upload-sarif@") {
			uploaded = u.with["sarif_file"]
		}
	}
	if uploaded != sarifPath {
		t.Errorf("upload-sarif got %q, want the scan's report %q", uploaded, sarifPath)
	}
	if !strings.Contains(r.summary, strconv.Itoa(len(sc.wantFiles))+" finding") {
		t.Errorf("the step summary does not give the count:\n%s", r.summary)
	}
}

func TestActionInstallStepBuildsTheActionSource(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	t.Parallel()
	a := readAction(t)
	var install []ghStep
	for _, st := range a.Runs.Steps {
		if st.ID == "install" {
			install = append(install, st)
		}
	}
	if len(install) != 1 {
		t.Fatal("action.yml has no step with id install")
	}
	tests := []struct {
		name    string
		withGit bool // the action's source is a git checkout (uses: ./)
		ref     string
	}{
		// uses: owner/spindle@ref: GitHub unpacks the source without .git.
		{"released source without .git names the ref", false, "v0.0.0-actiontest"},
		// uses: ./ in spindle's own repository: Go stamps the commit.
		{"a checkout names its commit", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, commit := snapshotRepo(t)
			if !tt.withGit {
				if err := os.RemoveAll(filepath.Join(src, ".git")); err != nil {
					t.Fatal(err)
				}
			}
			temp := t.TempDir()
			ctx := ghContext{
				"github": map[string]any{"action_path": src, "action_ref": tt.ref},
				"inputs": map[string]any{"version": ""},
				"runner": map[string]any{"temp": temp, "os": "Linux"},
			}
			// GITHUB_ACTION_PATH is set by the runner for an action's
			// steps; the environment is the shared build one, without this
			// machine's GOFLAGS, as on a runner.
			r := runSteps(t, install, ctx, sharedBuildEnv("GITHUB_ACTION_PATH="+src), t.TempDir(), nil)
			if r.failed {
				t.Fatalf("the install step failed:\n%s", r.log.String())
			}
			bin, _ := ctx.lookup("steps.install.outputs.spindle")
			if len(r.path) != 1 || filepath.Dir(bin) != r.path[0] {
				t.Errorf("GITHUB_PATH %v does not hold the installed %s", r.path, bin)
			}
			out, err := exec.Command(bin, "version").Output()
			if err != nil {
				t.Fatal(err)
			}
			v := string(out)
			if tt.withGit && !strings.Contains(v, "(commit "+commit[:12]) || !tt.withGit && !strings.HasPrefix(v, "spindle "+tt.ref+" ") {
				t.Errorf("spindle version = %q", v)
			}
			if !strings.Contains(r.log.String(), strings.TrimSpace(v)) {
				t.Errorf("the install step does not print the version:\n%s", r.log.String())
			}
		})
	}
}
