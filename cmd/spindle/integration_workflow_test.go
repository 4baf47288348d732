package main

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The GitHub Actions workflows: deploy/github-actions/spindle-sharded.yml
// (a matrix of shards and a merge job) and docs/examples/github-workflow.yml
// (the Action on pushes and pull requests), decoded strictly and held to
// what GitHub and the sharding need.

// ghNeeds is a job's needs: one job id or a list of them.
type ghNeeds []string

func (n *ghNeeds) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind == yaml.ScalarNode {
		*n = ghNeeds{node.Value}
		return nil
	}
	var list []string
	if err := node.Decode(&list); err != nil {
		return err
	}
	*n = list
	return nil
}

type ghJob struct {
	Name        string            `yaml:"name"`
	RunsOn      string            `yaml:"runs-on"`
	Needs       ghNeeds           `yaml:"needs"`
	If          string            `yaml:"if"`
	Permissions map[string]string `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Strategy    *struct {
		FailFast    *bool                `yaml:"fail-fast"`
		MaxParallel *int                 `yaml:"max-parallel"`
		Matrix      map[string]yaml.Node `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []ghStep `yaml:"steps"`
}

type ghWorkflow struct {
	Name        string            `yaml:"name"`
	On          yaml.Node         `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Jobs        map[string]*ghJob `yaml:"jobs"`
}

func parseWorkflow(data []byte) (*ghWorkflow, error) {
	var w ghWorkflow
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&w); err != nil {
		return nil, err
	}
	return &w, nil
}

func readWorkflow(t *testing.T, name string) *ghWorkflow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	w, err := parseWorkflow(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return w
}

// triggers returns the workflow's events.
func (w *ghWorkflow) triggers() []string {
	switch w.On.Kind {
	case yaml.ScalarNode:
		return []string{w.On.Value}
	case yaml.SequenceNode:
		var out []string
		w.On.Decode(&out)
		return out
	case yaml.MappingNode:
		var out []string
		for i := 0; i < len(w.On.Content); i += 2 {
			out = append(out, w.On.Content[i].Value)
		}
		return out
	}
	return nil
}

// usesAction returns the job's steps that use the action named prefix
// (owner/repo[/path]), in order.
func (j *ghJob) usesAction(prefix string) []ghStep {
	var out []ghStep
	for _, st := range j.Steps {
		if strings.HasPrefix(st.Uses, prefix+"@") {
			out = append(out, st)
		}
	}
	return out
}

// validateWorkflow checks what any workflow here must be.
func validateWorkflow(w *ghWorkflow) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if len(w.triggers()) == 0 {
		bad("no on: triggers")
	}
	if len(w.Jobs) == 0 {
		bad("no jobs")
	}
	for id, j := range w.Jobs {
		if j.RunsOn == "" || len(j.Steps) == 0 {
			bad("job %s: runs-on and steps are required", id)
		}
		for _, need := range j.Needs {
			if _, ok := w.Jobs[need]; !ok || need == id {
				bad("job %s needs %s, which is not another job", id, need)
			}
		}
		for _, st := range j.Steps {
			if (st.Run == "") == (st.Uses == "") {
				bad("job %s: a step must run a script or use an action", id)
			}
			if st.Uses != "" && !usesRE.MatchString(st.Uses) && !strings.HasPrefix(st.Uses, "./") {
				bad("job %s: uses %q is not pinned to a ref", id, st.Uses)
			}
			if st.Run != "" && exprRE.MatchString(st.Run) {
				bad("job %s: a script splices in a ${{ }} expression; pass it through env:", id)
			}
		}
	}
	return errs
}

// fetchesHistory reports whether the job checks out the whole history
// before its first step that runs spindle.
func fetchesHistory(j *ghJob) bool {
	for _, st := range j.Steps {
		if strings.HasPrefix(st.Uses, "actions/checkout@") {
			return st.With["fetch-depth"] == "0"
		}
	}
	return false
}

// validateShardedWorkflow checks the matrix of shards against the merge:
// the matrix lists exactly the shards 0..SHARDS-1, each job scans its
// shard of SHARDS and uploads a report of its own, and the merge job waits
// for all of them, downloads every report and counts them.
func validateShardedWorkflow(w *ghWorkflow) []error {
	errs := validateWorkflow(w)
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	n, err := strconv.Atoi(w.Env["SHARDS"])
	if err != nil || n < 1 {
		bad("env SHARDS %q: want the number of shards", w.Env["SHARDS"])
		return errs
	}
	var shardID string
	for id, j := range w.Jobs {
		if j.Strategy != nil {
			shardID = id
		}
	}
	if shardID == "" {
		bad("no job has a matrix")
		return errs
	}
	shard := w.Jobs[shardID]
	matrix := shard.Strategy.Matrix
	node, ok := matrix["shard"]
	var values []int
	if ok {
		if err := node.Decode(&values); err != nil {
			bad("matrix.shard: %v", err)
		}
	}
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	if len(matrix) != 1 || !slices.Equal(values, want) {
		bad("the matrix is %d dimension(s) with shard %v; want shard alone, %v (SHARDS=%d)", len(matrix), values, want, n)
	}
	if ff := shard.Strategy.FailFast; ff == nil || *ff {
		bad("fail-fast is not false: one failed shard would cancel the rest")
	}
	if !fetchesHistory(shard) {
		bad("job %s: checkout without fetch-depth: 0; a shard of history needs the whole history", shardID)
	}
	var scanStep *ghStep
	for i, st := range shard.Steps {
		if strings.Contains(st.Run, "--shard") {
			scanStep = &shard.Steps[i]
		}
	}
	if scanStep == nil {
		bad("job %s runs no spindle --shard", shardID)
		return errs
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(scanStep.Env)), func(v string) bool { return strings.Contains(v, "matrix.shard") }) {
		bad("the scan step does not take its shard from matrix.shard")
	}
	if !strings.Contains(scanStep.Run, "--exit-code 0") {
		bad("the scan step fails on findings: the merge would not run (want --exit-code 0)")
	}
	uploads := shard.usesAction("actions/upload-artifact")
	if len(uploads) != 1 || !strings.Contains(uploads[0].With["name"], "${{ matrix.shard }}") || uploads[0].With["if-no-files-found"] != "error" {
		bad("job %s: want one upload-artifact, named by matrix.shard, with if-no-files-found: error", shardID)
		return errs
	}

	var merge *ghJob
	for _, j := range w.Jobs {
		if slices.Contains(j.Needs, shardID) {
			merge = j
		}
	}
	if merge == nil {
		bad("no job needs %s: nothing merges the shards", shardID)
		return errs
	}
	if strings.Contains(merge.If, "always()") || strings.Contains(merge.If, "failure()") {
		bad("the merge job runs when a shard failed (if: %s): its findings would be missing", merge.If)
	}
	if merge.Permissions["security-events"] != "write" {
		bad("the merge job lacks permissions: security-events: write for upload-sarif")
	}
	downloads := merge.usesAction("actions/download-artifact")
	name0 := strings.ReplaceAll(uploads[0].With["name"], "${{ matrix.shard }}", "0")
	if len(downloads) != 1 || downloads[0].With["merge-multiple"] != "true" {
		bad("the merge job does not download the shard artifacts into one directory (merge-multiple: true)")
	} else if ok, _ := path.Match(downloads[0].With["pattern"], name0); !ok {
		bad("download pattern %q does not match the artifact %q", downloads[0].With["pattern"], name0)
	}
	merged := false
	for _, st := range merge.Steps {
		if strings.Contains(st.Run, "spindle merge") {
			merged = strings.Contains(st.Run, "$SHARDS")
		}
	}
	if !merged {
		bad("the merge job does not run spindle merge after checking it has $SHARDS reports")
	}
	if len(merge.usesAction("github/codeql-action/upload-sarif")) != 1 {
		bad("the merge job does not upload the SARIF report")
	}
	return errs
}

func TestShardedWorkflowPassesItsChecks(t *testing.T) {
	for _, err := range validateShardedWorkflow(readWorkflow(t, "deploy/github-actions/spindle-sharded.yml")) {
		t.Error(err)
	}
}

func TestShardedWorkflowChecksCatchBrokenWorkflows(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(w *ghWorkflow)
		want   string
	}{
		{"a shard missing from the matrix", func(w *ghWorkflow) { setMatrix(w, "[0, 1, 2]") }, "want shard alone"},
		{"a shard listed twice", func(w *ghWorkflow) { setMatrix(w, "[0, 1, 1, 3]") }, "want shard alone"},
		{"SHARDS disagrees", func(w *ghWorkflow) { w.Env["SHARDS"] = "5" }, "SHARDS=5"},
		{"a second dimension", func(w *ghWorkflow) {
			var node yaml.Node
			yaml.Unmarshal([]byte("[a, b]"), &node)
			w.Jobs["shard"].Strategy.Matrix["os"] = *node.Content[0]
		}, "2 dimension"},
		{"fail-fast", func(w *ghWorkflow) { ff := true; w.Jobs["shard"].Strategy.FailFast = &ff }, "fail-fast"},
		{"shallow checkout", func(w *ghWorkflow) { w.Jobs["shard"].Steps[0].With = map[string]string{} }, "fetch-depth"},
		{"findings fail a shard", func(w *ghWorkflow) {
			st := &w.Jobs["shard"].Steps[2]
			st.Run = strings.ReplaceAll(st.Run, "--exit-code 0", "")
		}, "--exit-code 0"},
		{"one artifact name for all", func(w *ghWorkflow) { w.Jobs["shard"].Steps[3].With["name"] = "spindle-shards" }, "named by matrix.shard"},
		{"merge does not wait", func(w *ghWorkflow) { w.Jobs["merge"].Needs = nil }, "nothing merges"},
		{"merge despite failures", func(w *ghWorkflow) { w.Jobs["merge"].If = "always()" }, "shard failed"},
		{"download pattern misses", func(w *ghWorkflow) { w.Jobs["merge"].Steps[2].With["pattern"] = "report-*" }, "does not match"},
		{"shard count not checked", func(w *ghWorkflow) {
			st := &w.Jobs["merge"].Steps[3]
			st.Run = "spindle merge -f sarif -o spindle.sarif shards/shard-*.json"
		}, "$SHARDS reports"},
		{"needs a job that does not exist", func(w *ghWorkflow) { w.Jobs["merge"].Needs = ghNeeds{"shard", "lint"} }, "not another job"},
		{"unpinned action", func(w *ghWorkflow) { w.Jobs["merge"].Steps[0].Uses = "actions/checkout" }, "not pinned"},
		{"expression in a script", func(w *ghWorkflow) {
			w.Jobs["shard"].Steps[2].Run = "spindle git --shard ${{ matrix.shard }}/4 --exit-code 0 ."
		}, "splices"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := readWorkflow(t, "deploy/github-actions/spindle-sharded.yml")
			tt.mutate(w)
			errs := validateShardedWorkflow(w)
			if !slices.ContainsFunc(errs, func(err error) bool { return strings.Contains(err.Error(), tt.want) }) {
				t.Errorf("no error mentions %q; got %v", tt.want, errs)
			}
		})
	}
	if _, err := parseWorkflow([]byte("on: push\njobs:\n  a:\n    runs_on: ubuntu-latest\n")); err == nil {
		t.Error("a misspelt key (runs_on) was accepted")
	}
}

// setMatrix replaces the shard job's matrix.shard with a YAML list.
func setMatrix(w *ghWorkflow, list string) {
	var node yaml.Node
	yaml.Unmarshal([]byte(list), &node)
	w.Jobs["shard"].Strategy.Matrix["shard"] = *node.Content[0]
}

func TestExampleWorkflowUsesTheActionWithHistory(t *testing.T) {
	w := readWorkflow(t, "docs/examples/github-workflow.yml")
	for _, err := range validateWorkflow(w) {
		t.Error(err)
	}
	triggers := w.triggers()
	if !slices.Contains(triggers, "push") || !slices.Contains(triggers, "pull_request") {
		t.Errorf("triggers %v, want push and pull_request (the ranges the action scans)", triggers)
	}
	a := readAction(t)
	found := false
	for id, j := range w.Jobs {
		for i, st := range j.Steps {
			if !strings.HasPrefix(st.Uses, "spindle-go/spindle@") && st.Uses != "./" {
				continue
			}
			found = true
			if !fetchesHistory(&ghJob{Steps: j.Steps[:i]}) {
				t.Errorf("job %s: no checkout with fetch-depth: 0 before the action", id)
			}
			for k := range st.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("job %s: with: %s is not an input of action.yml", id, k)
				}
			}
			if j.Permissions["security-events"] != "write" {
				t.Errorf("job %s: upload-sarif needs permissions: security-events: write", id)
			}
		}
		for _, st := range j.Steps {
			for _, m := range stepOutputRE.FindAllStringSubmatch(st.If+" "+strings.Join(slices.Collect(maps.Values(st.Env)), " "), -1) {
				if _, ok := a.Outputs[m[2]]; !ok {
					t.Errorf("job %s reads output %s, which action.yml does not have", id, m[2])
				}
			}
		}
	}
	if !found {
		t.Error("no step uses the spindle action")
	}
}

// TestScriptsPassShellcheck lints every script the integration files run:
// the Action's and the workflows' run steps (bash, as GitHub runs them)
// and the merge Job's sh -c script (sh: Alpine's busybox).
func TestScriptsPassShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Skip("shellcheck is not installed (Debian: apt-get install shellcheck)")
	}
	type script struct{ where, shell, text string }
	var scripts []script
	for i, st := range readAction(t).Runs.Steps {
		if st.Run != "" {
			scripts = append(scripts, script{fmt.Sprintf("action.yml step %d (%s)", i+1, st.Name), "bash", st.Run})
		}
	}
	for _, name := range []string{"deploy/github-actions/spindle-sharded.yml", "docs/examples/github-workflow.yml"} {
		for id, j := range readWorkflow(t, name).Jobs {
			for i, st := range j.Steps {
				if st.Run != "" {
					scripts = append(scripts, script{fmt.Sprintf("%s job %s step %d", name, id, i+1), "bash", st.Run})
				}
			}
		}
	}
	for _, c := range readK8s(t, "merge-job.yaml").jobs[0].Spec.Template.Spec.Containers {
		if len(c.Command) == 3 && c.Command[1] == "-c" {
			scripts = append(scripts, script{"merge-job.yaml container " + c.Name, "sh", c.Command[2]})
		}
	}
	if len(scripts) < 5 {
		t.Fatalf("found %d scripts; the files have more", len(scripts))
	}
	for _, s := range scripts {
		cmd := exec.Command("shellcheck", "--shell="+s.shell, "-")
		cmd.Stdin = strings.NewReader(s.text)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: shellcheck: %v\n%s", s.where, err, out)
		}
	}
}
