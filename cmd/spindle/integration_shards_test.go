package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spindle-go/spindle/scan/report"
)

// The deploy files run, here: each pod of the Kubernetes Indexed Job and
// each job of the Actions matrix is run as its platform would run it (the
// emulations say how), on a generated history, and the shard reports
// together must hold exactly the findings of one unsharded spindle git. The
// merge step runs too once spindle merge exists; until then it is skipped
// with a message.

// shardHistory makes a repository whose history spreads findings over many
// blobs: files added, edited, copied (the same blob at two paths) and
// deleted over a dozen commits on two branches.
func shardHistory(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	commit := func(msg string, files map[string]string) {
		writeTree(t, dir, files)
		gitIn(t, dir, "add", "-A")
		gitIn(t, dir, "commit", "-q", "-m", msg)
	}
	commit("rules", map[string]string{".gitleaks.toml": testRules})
	for i := range 10 {
		commit(fmt.Sprintf("file %d", i), map[string]string{
			fmt.Sprintf("src/f%d.env", i): strings.Repeat("x = 1\n", i) + "TOKEN=" + token(200+i) + "\n",
		})
	}
	commit("copy", map[string]string{"copy/f3.env": strings.Repeat("x = 1\n", 3) + "TOKEN=" + token(203) + "\n"})
	gitIn(t, dir, "rm", "-q", "src/f1.env")
	commit("edit", map[string]string{"src/f2.env": "TOKEN=" + token(300) + "\nTOKEN=" + token(301) + "\n"})
	gitIn(t, dir, "checkout", "-q", "-b", "side", "HEAD~3")
	commit("side", map[string]string{"side.env": "TOKEN=" + token(400) + "\n"})
	gitIn(t, dir, "checkout", "-q", "main")
	return dir
}

// historyKey identifies a history finding across reports.
func historyKey(f report.Finding) string {
	return fmt.Sprintf("%s %s:%d:%d %s %s", f.Commit, f.File, f.Line, f.Column, f.RuleID, f.Secret)
}

// unshardedKeys is what one spindle git finds in repo: the reference the
// shards must add up to.
func unshardedKeys(t *testing.T, repo string) []string {
	t.Helper()
	r := invoke(t, repo, "git", "-r", "-", "-f", "json", "--no-progress", ".")
	if r.code != 1 {
		t.Fatalf("unsharded spindle git: exit %d, want 1 (findings)\n%s", r.code, r.stderr)
	}
	var keys []string
	for _, f := range parseJSON(t, r.stdout) {
		keys = append(keys, historyKey(f))
	}
	slices.Sort(keys)
	if len(keys) < 10 {
		t.Fatalf("the generated history has %d findings; it was made to have more", len(keys))
	}
	return keys
}

// shardUnion reads the json reports in files and returns their findings,
// de-duplicated by fingerprint as spindle merge does, and how many reports
// had at least one.
func shardUnion(t *testing.T, files []string) (keys []string, nonEmpty int) {
	t.Helper()
	seen := map[string]bool{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		fs := parseJSON(t, string(data))
		if len(fs) > 0 {
			nonEmpty++
		}
		for _, f := range fs {
			if !seen[f.Fingerprint+" "+f.Secret] {
				seen[f.Fingerprint+" "+f.Secret] = true
				keys = append(keys, historyKey(f))
			}
		}
	}
	slices.Sort(keys)
	return keys, nonEmpty
}

// --- Kubernetes pods ---

// podRun runs the containers of one pod of job, in order (init containers
// first), as the kubelet would: $(VAR) in command and args expanded from
// the container's env, JOB_COMPLETION_INDEX from the pod's index, each
// volume a directory here (emptyDir: new for the pod; a claim: claims[name])
// with mount paths in the arguments mapped onto it, and env overrides
// replacing values of the manifest (the repository URL). spindle is the
// binary under test; other commands come from PATH.
func podRun(t *testing.T, job k8sJob, index int, claims, overrides map[string]string) {
	t.Helper()
	pod := job.Spec.Template.Spec
	volumes := map[string]string{}
	for _, v := range pod.Volumes {
		if v.PersistentVolumeClaim != nil {
			volumes[v.Name] = claims[v.PersistentVolumeClaim.ClaimName]
		} else {
			volumes[v.Name] = t.TempDir()
		}
	}
	for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
		env := map[string]string{}
		for _, e := range c.Env {
			switch {
			case overrides[e.Name] != "":
				env[e.Name] = overrides[e.Name]
			case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == jobIndexPath:
				env[e.Name] = strconv.Itoa(index)
			case e.ValueFrom != nil:
				t.Fatalf("container %s: env %s: only the completion index is emulated", c.Name, e.Name)
			default:
				env[e.Name] = e.Value
			}
		}
		argv := slices.Concat(c.Command, c.Args)
		for i, a := range argv {
			// Mount paths are mapped in the manifest's text only: the
			// values of variables (a repository path here) are not inside
			// the pod.
			a = mapMounts(a, c, volumes)
			argv[i] = varRefRE.ReplaceAllStringFunc(a, func(ref string) string {
				if v, ok := env[ref[2:len(ref)-1]]; ok {
					return v
				}
				return ref // Kubernetes leaves an unknown reference as it is
			})
		}
		if argv[0] == "spindle" {
			argv[0] = binary
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = t.TempDir()
		cmd.Env = append(gitEnv(), "HOME="+t.TempDir(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%s pod %d, container %s: %v\n%s", job.Name, index, c.Name, err, out)
		}
	}
}

// mapMounts replaces, in one pass, each of the container's mount paths
// that stands as a path in s (not preceded or followed by more of a file
// name) with the directory of its volume here.
func mapMounts(s string, c k8sContainer, volumes map[string]string) string {
	host := map[string]string{}
	var alts []string
	for _, vm := range c.VolumeMounts {
		host[vm.MountPath] = volumes[vm.Name]
		alts = append(alts, regexp.QuoteMeta(vm.MountPath))
	}
	if len(alts) == 0 {
		return s
	}
	// Longest first, so /a/b is not taken for /a.
	slices.SortFunc(alts, func(a, b string) int { return len(b) - len(a) })
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_./-])(` + strings.Join(alts, "|") + `)(/|$|[^A-Za-z0-9_.-])`)
	// The trailing context is not consumed, so that "/a /a" maps both.
	var b strings.Builder
	for {
		m := re.FindStringSubmatchIndex(s)
		if m == nil {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:m[4]])
		b.WriteString(host[s[m[4]:m[5]]])
		s = s[m[5]:]
	}
}

func TestKubernetesJobShardsFindWhatOneScanFinds(t *testing.T) {
	t.Parallel()
	scan := readK8s(t, "scan-job.yaml")
	job := scan.jobs[0]
	n := *job.Spec.Completions
	repo := shardHistory(t)
	want := unshardedKeys(t, repo)

	claims := map[string]string{}
	for name := range scan.pvcs {
		claims[name] = t.TempDir()
	}
	// The pods run one after the other here; in the cluster, parallelism
	// of them at once, which the shards do not depend on.
	for i := range n {
		podRun(t, job, i, claims, map[string]string{"REPO_URL": repo})
	}
	var reports []string
	for _, dir := range claims {
		m, _ := filepath.Glob(filepath.Join(dir, "shard-*.json"))
		reports = append(reports, m...)
	}
	if len(reports) != n {
		t.Fatalf("%d shard reports, want %d: %v", len(reports), n, reports)
	}
	got, nonEmpty := shardUnion(t, reports)
	if !slices.Equal(got, want) {
		t.Errorf("the %d shards found\n%s\nwant what one scan finds\n%s", n, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if nonEmpty < 2 {
		t.Errorf("only %d of %d shards found anything: the work was not split", nonEmpty, n)
	}

	t.Run("merge job", func(t *testing.T) {
		merge := readK8s(t, "merge-job.yaml").jobs[0]
		podRun(t, merge, 0, claims, nil)
		for _, dir := range claims {
			data, err := os.ReadFile(filepath.Join(dir, "spindle.sarif"))
			if err != nil {
				continue
			}
			var sl sarifLog
			if err := json.Unmarshal(data, &sl); err != nil || len(sl.Runs) != 1 || len(sl.Runs[0].Results) != len(want) {
				t.Errorf("the merged SARIF: %v; want one run with %d results", err, len(want))
			}
			return
		}
		t.Error("the merge job wrote no spindle.sarif on the claim")
	})
}

// --- GitHub Actions matrix ---

// artifactStore emulates upload-artifact and download-artifact for the
// inputs the workflow uses: an artifact is a directory named after it.
type artifactStore struct{ dir string }

func (s artifactStore) uses(workspace string) func(usedAction) error {
	return func(u usedAction) error {
		name, _, _ := strings.Cut(u.uses, "@")
		switch name {
		case "actions/checkout":
			return nil // the workspace is a full clone already
		case "spindle-go/spindle":
			if u.with["scan"] != "false" {
				return fmt.Errorf("the action is used to scan; the matrix jobs only install it")
			}
			return nil // the binary under test is on PATH
		case "actions/upload-artifact":
			src := filepath.Join(workspace, u.with["path"])
			if _, err := os.Stat(src); err != nil {
				if u.with["if-no-files-found"] == "error" {
					return fmt.Errorf("upload-artifact: %w", err)
				}
				return nil
			}
			dst := filepath.Join(s.dir, u.with["name"])
			if _, err := os.Stat(dst); err == nil {
				return fmt.Errorf("upload-artifact: an artifact named %s exists already", u.with["name"])
			}
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
			return copyFile(src, filepath.Join(dst, filepath.Base(src)))
		case "actions/download-artifact":
			if u.with["merge-multiple"] != "true" {
				return fmt.Errorf("download-artifact: only merge-multiple: true is emulated")
			}
			dst := filepath.Join(workspace, u.with["path"])
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
			arts, _ := os.ReadDir(s.dir)
			for _, a := range arts {
				if ok, _ := path.Match(u.with["pattern"], a.Name()); !ok {
					continue
				}
				files, _ := os.ReadDir(filepath.Join(s.dir, a.Name()))
				for _, f := range files {
					if err := copyFile(filepath.Join(s.dir, a.Name(), f.Name()), filepath.Join(dst, f.Name())); err != nil {
						return err
					}
				}
			}
			return nil
		case "github/codeql-action/upload-sarif":
			if _, err := os.Stat(filepath.Join(workspace, u.with["sarif_file"])); err != nil {
				return fmt.Errorf("upload-sarif: %w", err)
			}
			return nil
		}
		return fmt.Errorf("%s is not emulated", u.uses)
	}
}

// workflowJobEnv is the process environment of a job: this process's,
// the workflow's and the job's env, spindle on PATH.
func workflowJobEnv(w *ghWorkflow, j *ghJob) []string {
	env := append(gitEnv(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	for k, v := range w.Env {
		env = append(env, k+"="+v)
	}
	for k, v := range j.Env {
		env = append(env, k+"="+v)
	}
	return env
}

func TestShardedWorkflowRunsHereAndFindsWhatOneScanFinds(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	t.Parallel()
	w := readWorkflow(t, "deploy/github-actions/spindle-sharded.yml")
	if errs := validateShardedWorkflow(w); len(errs) > 0 {
		t.Fatalf("the workflow fails its checks: %v", errs)
	}
	repo := shardHistory(t)
	want := unshardedKeys(t, repo)
	n, _ := strconv.Atoi(w.Env["SHARDS"])
	store := artifactStore{dir: t.TempDir()}
	workflowCtx := func(extra map[string]any) ghContext {
		ctx := ghContext{
			"github": map[string]any{"event_name": "workflow_dispatch", "ref": "refs/heads/main", "sha": gitIn(t, repo, "rev-parse", "HEAD")},
			"env":    map[string]any{},
			"runner": map[string]any{"temp": t.TempDir(), "os": "Linux"},
		}
		for k, v := range w.Env {
			ctx["env"].(map[string]any)[k] = v
		}
		for k, v := range extra {
			ctx[k] = v
		}
		return ctx
	}

	// Each matrix job: its own workspace, a full clone.
	shard := w.Jobs["shard"]
	for i := range n {
		ws := filepath.Join(t.TempDir(), "ws")
		gitIn(t, filepath.Dir(ws), "clone", "-q", repo, ws)
		ctx := workflowCtx(map[string]any{
			"matrix":   map[string]any{"shard": i},
			"strategy": map[string]any{"job-index": i, "job-total": n},
		})
		r := runSteps(t, shard.Steps, ctx, workflowJobEnv(w, shard), ws, store.uses(ws))
		if r.failed {
			t.Fatalf("shard %d failed:\n%s", i, r.log.String())
		}
	}
	reports, _ := filepath.Glob(filepath.Join(store.dir, "*", "*.json"))
	if len(reports) != n {
		t.Fatalf("%d shard artifacts, want %d", len(reports), n)
	}
	got, nonEmpty := shardUnion(t, reports)
	if !slices.Equal(got, want) {
		t.Errorf("the %d matrix jobs found\n%s\nwant what one scan finds\n%s", n, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if nonEmpty < 2 {
		t.Errorf("only %d of %d shards found anything: the work was not split", nonEmpty, n)
	}

	t.Run("merge job", func(t *testing.T) {
		runMergeJob(t, w, store, repo, len(want), workflowCtx(nil))
	})
}

// runMergeJob runs the workflow's merge job on the shard artifacts in
// store and checks that it merges them into want findings, uploads the
// SARIF report and fails on the findings.
func runMergeJob(t *testing.T, w *ghWorkflow, store artifactStore, repo string, want int, ctx ghContext) {
	merge := w.Jobs["merge"]
	ws := filepath.Join(t.TempDir(), "ws")
	gitIn(t, filepath.Dir(ws), "clone", "-q", repo, ws)
	r := runSteps(t, merge.Steps, ctx, workflowJobEnv(w, merge), ws, store.uses(ws))
	// The history has findings: the job reports them, uploads the SARIF
	// and fails at its last step.
	if !r.failed || !strings.Contains(r.log.String(), "finding(s)") {
		t.Errorf("the merge job did not fail on the findings:\n%s", r.log.String())
	}
	if findings, _ := ctx.lookup("steps.merge.outputs.findings"); findings != strconv.Itoa(want) {
		t.Errorf("merge found %s, want %d\n%s", findings, want, r.log.String())
	}
	uploaded := slices.ContainsFunc(r.used, func(u usedAction) bool { return strings.HasPrefix(u.uses, "github/codeql-action/upload-sarif@") })
	if !uploaded {
		t.Error("the merged report was not uploaded")
	}
}
