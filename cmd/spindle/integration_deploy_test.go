package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// deploy/: the Kubernetes Indexed Job and the GitHub Actions matrix
// workflow that run spindle's shards on many machines, and the example
// workflow for the Action. No cluster and no GitHub here, so each file is
// checked twice: against the parts of the Kubernetes and GitHub schemas
// that matter (decoded strictly into types that mirror the real field
// names, so a misspelt key fails), by validators that the tests also feed
// broken copies to; and by running what it runs, pod by pod and job by
// job, on a generated repository, checking that the shards together find
// exactly what one scan finds.

// --- Kubernetes ---

type k8sMeta struct {
	Name        string            `yaml:"name"`
	Namespace   string            `yaml:"namespace"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

type k8sObject struct {
	APIVersion string    `yaml:"apiVersion"`
	Kind       string    `yaml:"kind"`
	Metadata   k8sMeta   `yaml:"metadata"`
	Spec       yaml.Node `yaml:"spec"`
}

type k8sPVCSpec struct {
	AccessModes      []string `yaml:"accessModes"`
	StorageClassName *string  `yaml:"storageClassName"`
	Resources        struct {
		Requests map[string]string `yaml:"requests"`
	} `yaml:"resources"`
}

type k8sJobSpec struct {
	CompletionMode          string `yaml:"completionMode"`
	Completions             *int   `yaml:"completions"`
	Parallelism             *int   `yaml:"parallelism"`
	BackoffLimit            *int   `yaml:"backoffLimit"`
	BackoffLimitPerIndex    *int   `yaml:"backoffLimitPerIndex"`
	MaxFailedIndexes        *int   `yaml:"maxFailedIndexes"`
	ActiveDeadlineSeconds   *int   `yaml:"activeDeadlineSeconds"`
	TTLSecondsAfterFinished *int   `yaml:"ttlSecondsAfterFinished"`
	Template                struct {
		Metadata k8sMeta    `yaml:"metadata"`
		Spec     k8sPodSpec `yaml:"spec"`
	} `yaml:"template"`
}

type k8sPodSpec struct {
	RestartPolicy                string `yaml:"restartPolicy"`
	AutomountServiceAccountToken *bool  `yaml:"automountServiceAccountToken"`
	ServiceAccountName           string `yaml:"serviceAccountName"`
	SecurityContext              struct {
		RunAsNonRoot   *bool  `yaml:"runAsNonRoot"`
		RunAsUser      *int64 `yaml:"runAsUser"`
		RunAsGroup     *int64 `yaml:"runAsGroup"`
		FSGroup        *int64 `yaml:"fsGroup"`
		SeccompProfile struct {
			Type string `yaml:"type"`
		} `yaml:"seccompProfile"`
	} `yaml:"securityContext"`
	InitContainers []k8sContainer `yaml:"initContainers"`
	Containers     []k8sContainer `yaml:"containers"`
	Volumes        []struct {
		Name                  string    `yaml:"name"`
		EmptyDir              *struct{} `yaml:"emptyDir"`
		PersistentVolumeClaim *struct {
			ClaimName string `yaml:"claimName"`
		} `yaml:"persistentVolumeClaim"`
	} `yaml:"volumes"`
}

type k8sContainer struct {
	Name    string   `yaml:"name"`
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			FieldRef *struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"volumeMounts"`
}

// k8sJob is a batch/v1 Job as the tests read it.
type k8sJob struct {
	k8sMeta
	Spec k8sJobSpec
}

// k8sManifests is what a manifest file holds, by kind.
type k8sManifests struct {
	jobs []k8sJob
	pvcs map[string]k8sPVCSpec
}

// strictDecode decodes node into v, refusing fields v does not have.
func strictDecode(node *yaml.Node, v any) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if err := enc.Encode(node); err != nil {
		return err
	}
	dec := yaml.NewDecoder(&buf)
	dec.KnownFields(true)
	return dec.Decode(v)
}

func parseK8s(data []byte) (k8sManifests, error) {
	m := k8sManifests{pvcs: map[string]k8sPVCSpec{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	for {
		var obj k8sObject
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return m, nil
		}
		if err != nil {
			return m, err
		}
		switch obj.APIVersion + " " + obj.Kind {
		case "batch/v1 Job":
			var spec k8sJobSpec
			if err := strictDecode(&obj.Spec, &spec); err != nil {
				return m, fmt.Errorf("Job %s: %w", obj.Metadata.Name, err)
			}
			m.jobs = append(m.jobs, k8sJob{obj.Metadata, spec})
		case "v1 PersistentVolumeClaim":
			var spec k8sPVCSpec
			if err := strictDecode(&obj.Spec, &spec); err != nil {
				return m, fmt.Errorf("PersistentVolumeClaim %s: %w", obj.Metadata.Name, err)
			}
			m.pvcs[obj.Metadata.Name] = spec
		default:
			return m, fmt.Errorf("%s %s: a kind these tests do not check", obj.APIVersion, obj.Kind)
		}
	}
}

func readK8s(t *testing.T, name string) k8sManifests {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "deploy", "kubernetes", name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseK8s(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// dns1123RE is a Kubernetes object name (a DNS-1123 label).
var dns1123RE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// quantity parses a Kubernetes resource quantity of the forms the files
// use: plain and decimal-suffixed ("2", "500m", "1G") and binary ("256Mi").
func quantity(s string) (float64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"m", 1e-3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(num, 64)
			return f * u.mult, err
		}
	}
	return strconv.ParseFloat(s, 64)
}

// varRefRE is a Kubernetes $(VAR) reference in command or args.
var varRefRE = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// jobIndexPath is where an Indexed Job's pod finds its index.
const jobIndexPath = "metadata.annotations['batch.kubernetes.io/job-completion-index']"

// validatePod checks what every pod of the deploy files must be: a Job's
// restart policy, non-root and locked down, resources bounded, volumes
// consistent, every $(VAR) defined.
func validatePod(job k8sJob) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(job.Name+": "+format, args...)) }
	pod := job.Spec.Template.Spec
	if !dns1123RE.MatchString(job.Name) {
		bad("name %q is not a DNS-1123 label", job.Name)
	}
	if pod.RestartPolicy != "Never" && pod.RestartPolicy != "OnFailure" {
		bad("restartPolicy %q: a Job's pods need Never or OnFailure", pod.RestartPolicy)
	}
	sc := pod.SecurityContext
	if sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		bad("the pod does not run as a non-root user (runAsNonRoot, runAsUser)")
	}
	if sc.SeccompProfile.Type != "RuntimeDefault" {
		bad("seccompProfile %q, want RuntimeDefault", sc.SeccompProfile.Type)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		bad("the pod mounts a service account token it does not need")
	}
	if len(pod.Containers) == 0 {
		bad("no containers")
	}
	volumes := map[string]bool{}
	for _, v := range pod.Volumes {
		if (v.EmptyDir == nil) == (v.PersistentVolumeClaim == nil) {
			bad("volume %s: want exactly one of emptyDir and persistentVolumeClaim", v.Name)
		}
		volumes[v.Name] = true
	}
	mounted := map[string]bool{}
	for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
		if c.Name == "" || c.Image == "" {
			bad("a container without a name or an image")
		}
		if len(c.Command) == 0 {
			bad("container %s: no command: the entry point is left to the image", c.Name)
		}
		s := c.SecurityContext
		if s.AllowPrivilegeEscalation == nil || *s.AllowPrivilegeEscalation || s.ReadOnlyRootFilesystem == nil || !*s.ReadOnlyRootFilesystem ||
			!slices.Contains(s.Capabilities.Drop, "ALL") {
			bad("container %s: want allowPrivilegeEscalation false, readOnlyRootFilesystem true, capabilities drop ALL", c.Name)
		}
		for _, res := range []string{"cpu", "memory"} {
			req, err1 := quantity(c.Resources.Requests[res])
			lim, err2 := quantity(c.Resources.Limits[res])
			if err1 != nil || err2 != nil || req <= 0 || lim < req {
				bad("container %s: %s request %q and limit %q: want both, request <= limit", c.Name, res, c.Resources.Requests[res], c.Resources.Limits[res])
			}
		}
		defined := map[string]bool{}
		for _, e := range c.Env {
			defined[e.Name] = true
			if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.Name == "JOB_COMPLETION_INDEX" && e.ValueFrom.FieldRef.FieldPath != jobIndexPath {
				bad("container %s: JOB_COMPLETION_INDEX comes from %s", c.Name, e.ValueFrom.FieldRef.FieldPath)
			}
		}
		for _, arg := range slices.Concat(c.Command, c.Args) {
			for _, m := range varRefRE.FindAllStringSubmatch(arg, -1) {
				if !defined[m[1]] {
					bad("container %s: $(%s) is not in its env, so Kubernetes leaves it as it is", c.Name, m[1])
				}
			}
		}
		tmp := false
		for _, vm := range c.VolumeMounts {
			if !volumes[vm.Name] {
				bad("container %s mounts %s, which is not a volume", c.Name, vm.Name)
			}
			mounted[vm.Name] = true
			tmp = tmp || vm.MountPath == "/tmp"
		}
		if !tmp {
			bad("container %s: the root file system is read-only and /tmp is not mounted (spindle and git write temporary files)", c.Name)
		}
	}
	for v := range volumes {
		if !mounted[v] {
			bad("volume %s is mounted by no container", v)
		}
	}
	return errs
}

// shardArg finds --shard I/N in args and returns I and N.
func shardArg(args []string) (index string, n int, ok bool) {
	for i, a := range args {
		v, found := strings.CutPrefix(a, "--shard=")
		if !found && a == "--shard" && i+1 < len(args) {
			v, found = args[i+1], true
		}
		if found {
			idx, ns, _ := strings.Cut(v, "/")
			n, err := strconv.Atoi(ns)
			return idx, n, err == nil
		}
	}
	return "", 0, false
}

// flagValue returns the value of the first of names in args.
func flagValue(args []string, names ...string) (string, bool) {
	for i, a := range args {
		for _, name := range names {
			if v, ok := strings.CutPrefix(a, name+"="); ok && strings.HasPrefix(name, "--") {
				return v, true
			}
			if a == name && i+1 < len(args) {
				return args[i+1], true
			}
		}
	}
	return "", false
}

// mountFor returns the volume mounted at the longest mountPath holding p.
func mountFor(c k8sContainer, p string) (volume string, readOnly bool) {
	best := ""
	for _, vm := range c.VolumeMounts {
		if (p == vm.MountPath || strings.HasPrefix(p, vm.MountPath+"/")) && len(vm.MountPath) > len(best) {
			best, volume, readOnly = vm.MountPath, vm.Name, vm.ReadOnly
		}
	}
	return volume, readOnly
}

// validateScanJob checks the Indexed Job of shards: each pod takes shard
// $(JOB_COMPLETION_INDEX)/N of the work with N its completions, writes a
// report of its own to a shared volume, and exits 0 on findings.
func validateScanJob(job k8sJob, pvcs map[string]k8sPVCSpec) []error {
	errs := validatePod(job)
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(job.Name+": "+format, args...)) }
	spec := job.Spec
	if spec.CompletionMode != "Indexed" {
		bad("completionMode %q, want Indexed: pods get no index otherwise", spec.CompletionMode)
	}
	if spec.Completions == nil || *spec.Completions < 1 {
		bad("completions must be set: it is N, the number of shards")
		return errs
	}
	if spec.Parallelism != nil && (*spec.Parallelism < 1 || *spec.Parallelism > *spec.Completions) {
		bad("parallelism %d: want 1 to completions (%d)", *spec.Parallelism, *spec.Completions)
	}
	pod := spec.Template.Spec
	var main *k8sContainer
	for i, c := range pod.Containers {
		if len(c.Command) > 0 && path.Base(c.Command[0]) == "spindle" {
			main = &pod.Containers[i]
		}
	}
	if main == nil {
		bad("no container runs spindle")
		return errs
	}
	args := main.Args
	if len(args) == 0 || (args[0] != "git" && args[0] != "scan") {
		bad("spindle %v: want spindle git or spindle scan", args)
	}
	index, n, ok := shardArg(args)
	switch {
	case !ok:
		bad("spindle runs without --shard I/N")
	case index != "$(JOB_COMPLETION_INDEX)":
		bad("--shard %s/%d: I must be $(JOB_COMPLETION_INDEX)", index, n)
	case n != *spec.Completions:
		bad("--shard I/%d but completions is %d: shards would be lost or scanned twice", n, *spec.Completions)
	}
	if code, _ := flagValue(args, "--exit-code"); code != "0" {
		bad("--exit-code %q: a finding must not fail the pod (it would be retried), want 0", code)
	}
	out, ok := flagValue(args, "-o", "--output")
	if !ok || !strings.Contains(out, "$(JOB_COMPLETION_INDEX)") {
		bad("--output %q: each shard needs a report of its own, named by its index", out)
	}
	if f, _ := flagValue(args, "-f", "--format"); f != "json" && f != "jsonl" {
		bad("--format %q: spindle merge reads json and jsonl", f)
	}
	if vol, ro := mountFor(*main, out); vol == "" || ro {
		bad("the report %s is not on a writable volume", out)
	} else {
		for _, v := range pod.Volumes {
			if v.Name == vol && (v.PersistentVolumeClaim == nil || pvcs[v.PersistentVolumeClaim.ClaimName].AccessModes == nil) {
				bad("the report volume %s is not a PersistentVolumeClaim defined with the job: the merge could not read it", vol)
			} else if v.Name == vol && !slices.Contains(pvcs[v.PersistentVolumeClaim.ClaimName].AccessModes, "ReadWriteMany") {
				bad("claim %s is not ReadWriteMany: pods on different nodes write to it", v.PersistentVolumeClaim.ClaimName)
			}
		}
	}
	return errs
}

// validateMergeJob checks the merge Job against the scan Job: the same
// claim, the same report names, SHARDS equal to completions.
func validateMergeJob(merge, scan k8sJob) []error {
	errs := validatePod(merge)
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(merge.Name+": "+format, args...)) }
	claim := func(j k8sJob) map[string]bool {
		out := map[string]bool{}
		for _, v := range j.Spec.Template.Spec.Volumes {
			if v.PersistentVolumeClaim != nil {
				out[v.PersistentVolumeClaim.ClaimName] = true
			}
		}
		return out
	}
	shared := false
	for c := range claim(merge) {
		shared = shared || claim(scan)[c]
	}
	if !shared {
		bad("it mounts no claim that %s writes its reports to", scan.Name)
	}
	c := merge.Spec.Template.Spec.Containers[0]
	script := strings.Join(slices.Concat(c.Command, c.Args), " ")
	scanArgs := scan.Spec.Template.Spec.Containers[0].Args
	out, _ := flagValue(scanArgs, "-o", "--output")
	pattern := strings.ReplaceAll(out, "$(JOB_COMPLETION_INDEX)", "*")
	if !strings.Contains(script, "spindle merge") || !strings.Contains(script, pattern) {
		bad("it does not run spindle merge on %s", pattern)
	}
	shards := ""
	for _, e := range c.Env {
		if e.Name == "SHARDS" {
			shards = e.Value
		}
	}
	if scan.Spec.Completions == nil || shards != strconv.Itoa(*scan.Spec.Completions) || !strings.Contains(script, "$SHARDS") {
		bad("SHARDS=%q is not the scan's completions or is not checked: a missing shard would go unnoticed", shards)
	}
	return errs
}

func TestKubernetesManifestsPassTheirChecks(t *testing.T) {
	scan := readK8s(t, "scan-job.yaml")
	merge := readK8s(t, "merge-job.yaml")
	if len(scan.jobs) != 1 || len(merge.jobs) != 1 {
		t.Fatalf("%d scan jobs and %d merge jobs, want one each", len(scan.jobs), len(merge.jobs))
	}
	for _, err := range slices.Concat(validateScanJob(scan.jobs[0], scan.pvcs), validateMergeJob(merge.jobs[0], scan.jobs[0])) {
		t.Error(err)
	}
}

func TestKubernetesChecksCatchBrokenManifests(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(j *k8sJob)
		want   string
	}{
		{"not indexed", func(j *k8sJob) { j.Spec.CompletionMode = "NonIndexed" }, "want Indexed"},
		{"N differs from completions", func(j *k8sJob) { n := 3; j.Spec.Completions = &n }, "completions is 3"},
		{"parallelism above completions", func(j *k8sJob) { n := 9; j.Spec.Parallelism = &n }, "parallelism 9"},
		{"fixed shard index", func(j *k8sJob) { replaceArg(j, "$(JOB_COMPLETION_INDEX)/4", "0/4") }, "I must be"},
		{"no shard", func(j *k8sJob) { replaceArg(j, "--shard", "--no-progress") }, "without --shard"},
		{"findings fail the pod", func(j *k8sJob) { replaceArg(j, "0", "1") }, "--exit-code"},
		{"one report for all", func(j *k8sJob) { replaceArg(j, "/reports/shard-$(JOB_COMPLETION_INDEX).json", "/reports/all.json") }, "a report of its own"},
		{"report in the pod", func(j *k8sJob) {
			replaceArg(j, "/reports/shard-$(JOB_COMPLETION_INDEX).json", "/work/shard-$(JOB_COMPLETION_INDEX).json")
		}, "not on a writable volume"},
		{"undefined variable", func(j *k8sJob) { j.Spec.Template.Spec.Containers[0].Env = nil }, "not in its env"},
		{"runs as root", func(j *k8sJob) { j.Spec.Template.Spec.SecurityContext.RunAsNonRoot = nil }, "non-root"},
		{"restarts forever", func(j *k8sJob) { j.Spec.Template.Spec.RestartPolicy = "Always" }, "restartPolicy"},
		{"no memory limit", func(j *k8sJob) { delete(j.Spec.Template.Spec.Containers[0].Resources.Limits, "memory") }, "memory request"},
		{"no /tmp", func(j *k8sJob) {
			c := &j.Spec.Template.Spec.Containers[0]
			c.VolumeMounts = slices.DeleteFunc(c.VolumeMounts, func(vm struct {
				Name      string `yaml:"name"`
				MountPath string `yaml:"mountPath"`
				ReadOnly  bool   `yaml:"readOnly"`
			}) bool {
				return vm.MountPath == "/tmp"
			})
		}, "/tmp is not mounted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := readK8s(t, "scan-job.yaml")
			job := m.jobs[0]
			tt.mutate(&job)
			errs := validateScanJob(job, m.pvcs)
			if !slices.ContainsFunc(errs, func(err error) bool { return strings.Contains(err.Error(), tt.want) }) {
				t.Errorf("no error mentions %q; got %v", tt.want, errs)
			}
		})
	}
	// The merge job's own checks.
	m := readK8s(t, "merge-job.yaml")
	scan := readK8s(t, "scan-job.yaml").jobs[0]
	five := 5
	scan.Spec.Completions = &five
	if errs := validateMergeJob(m.jobs[0], scan); len(errs) == 0 {
		t.Error("a merge job expecting 4 shards passed against a scan of 5")
	}
	if _, err := parseK8s([]byte("apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec:\n  completionmode: Indexed\n")); err == nil {
		t.Error("a misspelt field (completionmode) was accepted")
	}
}

// replaceArg replaces an argument of the job's first container (the
// spindle one), copying the slice so the change stays with this job.
func replaceArg(j *k8sJob, old, new string) {
	c := &j.Spec.Template.Spec.Containers[0]
	c.Args = slices.Clone(c.Args)
	for i, a := range c.Args {
		if a == old {
			c.Args[i] = new
		}
	}
}
