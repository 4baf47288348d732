package main

import (
	"archive/zip"
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The release engineering: .github/workflows (CI and release),
// .goreleaser.yaml, scripts/release-check.sh and the module as `go install
// .../cmd/spindle@VERSION` fetches it. What needs GitHub, a registry or a
// container engine cannot run here; everything else does.

// ciScriptSteps returns the commands .ci/run runs, in order: its lines
// that are not comments, blank, or shell set-up (set, cd).
func ciScriptSteps(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot(t), ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "set ") || strings.HasPrefix(line, "cd ") {
			continue
		}
		steps = append(steps, line)
	}
	if len(steps) == 0 {
		t.Fatal(".ci/run runs nothing")
	}
	return steps
}

// TestCIWorkflowRunsTheCIScriptSteps holds .github/workflows/ci.yml to
// .ci/run: its job runs exactly .ci/run's commands, in order, after a
// checkout and a Go set up from go.mod, on pushes and pull requests.
func TestCIWorkflowRunsTheCIScriptSteps(t *testing.T) {
	w := readWorkflow(t, ".github/workflows/ci.yml")
	for _, err := range validateWorkflow(w) {
		t.Error(err)
	}
	if tr := w.triggers(); !slices.Contains(tr, "push") || !slices.Contains(tr, "pull_request") {
		t.Errorf("ci.yml runs on %v, want push and pull_request", tr)
	}
	if len(w.Jobs) != 1 {
		t.Fatalf("ci.yml has %d jobs, want one", len(w.Jobs))
	}
	for _, j := range w.Jobs {
		var runs []string
		for _, st := range j.Steps {
			if st.Run != "" {
				runs = append(runs, strings.TrimSpace(st.Run))
			}
		}
		if want := ciScriptSteps(t); !slices.Equal(runs, want) {
			t.Errorf("ci.yml runs\n%q\n.ci/run runs\n%q", runs, want)
		}
		if len(j.usesAction("actions/checkout")) != 1 || len(j.usesAction("actions/setup-go")) != 1 {
			t.Error("ci.yml: want one checkout and one setup-go")
		} else if j.usesAction("actions/setup-go")[0].With["go-version-file"] != "go.mod" {
			t.Error("ci.yml: setup-go must take Go's version from go.mod")
		}
	}
}

// TestReleaseWorkflowReleasesTaggedVersions checks the release workflow:
// it runs on version tags, runs .ci/run first, and then GoReleaser on the
// whole history with the tag's CHANGELOG section as the notes.
func TestReleaseWorkflowReleasesTaggedVersions(t *testing.T) {
	w := readWorkflow(t, ".github/workflows/release.yml")
	for _, err := range validateWorkflow(w) {
		t.Error(err)
	}
	var on struct {
		Push struct {
			Tags []string `yaml:"tags"`
		} `yaml:"push"`
	}
	if err := w.On.Decode(&on); err != nil || len(on.Push.Tags) == 0 || !strings.HasPrefix(on.Push.Tags[0], "v") {
		t.Errorf("release.yml must run on pushed version tags: %v %+v", err, on)
	}
	test, release := w.Jobs["test"], w.Jobs["release"]
	if test == nil || release == nil {
		t.Fatalf("release.yml: want jobs test and release, have %v", slices.Collect(func(yield func(string) bool) {
			for k := range w.Jobs {
				if !yield(k) {
					return
				}
			}
		}))
	}
	if !slices.ContainsFunc(test.Steps, func(s ghStep) bool { return strings.TrimSpace(s.Run) == "./.ci/run" }) {
		t.Error("release.yml: the test job must run ./.ci/run")
	}
	if !slices.Contains(release.Needs, "test") {
		t.Error("release.yml: the release must wait for the tests")
	}
	if !fetchesHistory(release) {
		t.Error("release.yml: GoReleaser needs the whole history (fetch-depth: 0)")
	}
	gr := release.usesAction("goreleaser/goreleaser-action")
	if len(gr) != 1 || !strings.Contains(gr[0].With["args"], "release --clean") || !strings.Contains(gr[0].With["args"], "--release-notes=") {
		t.Errorf("release.yml: want goreleaser release --clean with --release-notes: %+v", gr)
	}
	if !slices.ContainsFunc(release.Steps, func(s ghStep) bool { return strings.Contains(s.Run, "scripts/release-notes.sh") }) {
		t.Error("release.yml: the notes come from scripts/release-notes.sh")
	}
	if w.Permissions["contents"] != "write" || w.Permissions["packages"] != "write" {
		t.Errorf("release.yml: permissions %v, want contents and packages write (release, image)", w.Permissions)
	}
}

// goreleaserConfig is the part of GoReleaser v2's schema .goreleaser.yaml
// uses, decoded strictly: a key it does not know is an error here, as a
// misspelt key would be ignored by GoReleaser only in older versions.
type goreleaserConfig struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Before      struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		ID           string   `yaml:"id"`
		Main         string   `yaml:"main"`
		Binary       string   `yaml:"binary"`
		Env          []string `yaml:"env"`
		Flags        []string `yaml:"flags"`
		Ldflags      []string `yaml:"ldflags"`
		Goos         []string `yaml:"goos"`
		Goarch       []string `yaml:"goarch"`
		ModTimestamp string   `yaml:"mod_timestamp"`
	} `yaml:"builds"`
	Archives []struct {
		ID              string   `yaml:"id"`
		IDs             []string `yaml:"ids"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		NameTemplate string   `yaml:"name_template"`
		Files        []string `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	SBOMs []struct {
		Artifacts string `yaml:"artifacts"`
	} `yaml:"sboms"`
	Dockers []struct {
		ID                 string   `yaml:"id"`
		IDs                []string `yaml:"ids"`
		Goos               string   `yaml:"goos"`
		Goarch             string   `yaml:"goarch"`
		Dockerfile         string   `yaml:"dockerfile"`
		Use                string   `yaml:"use"`
		ImageTemplates     []string `yaml:"image_templates"`
		BuildFlagTemplates []string `yaml:"build_flag_templates"`
		ExtraFiles         []string `yaml:"extra_files"`
	} `yaml:"dockers"`
	Changelog struct {
		Disable bool `yaml:"disable"`
	} `yaml:"changelog"`
	Release struct {
		GitHub struct {
			Owner string `yaml:"owner"`
			Name  string `yaml:"name"`
		} `yaml:"github"`
		Draft      bool   `yaml:"draft"`
		Prerelease string `yaml:"prerelease"`
	} `yaml:"release"`
}

// TestGoreleaserConfigBuildsWhatReleasesPromise checks .goreleaser.yaml:
// static binaries of cmd/spindle for linux, darwin and windows on amd64
// and arm64, the version stamped in main.version, checksums, an SBOM, and
// the image from the Dockerfile with every source file its build stage
// compiles in its context. With goreleaser installed, goreleaser check
// validates it against GoReleaser's own schema too.
func TestGoreleaserConfigBuildsWhatReleasesPromise(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c goreleaserConfig
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if c.Version != 2 || len(c.Builds) != 1 {
		t.Fatalf("want GoReleaser v2's schema and one build: version %d, %d builds", c.Version, len(c.Builds))
	}
	b := c.Builds[0]
	if b.Main != "./cmd/spindle" || b.Binary != "spindle" {
		t.Errorf("build: main %q, binary %q", b.Main, b.Binary)
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") {
		t.Errorf("build: env %v, flags %v; want a static, trimmed build", b.Env, b.Flags)
	}
	if !slices.ContainsFunc(b.Ldflags, func(s string) bool { return strings.Contains(s, "-X main.version={{ .Tag }}") }) {
		t.Errorf("build: ldflags %v do not stamp the tag into main.version", b.Ldflags)
	}
	slices.Sort(b.Goos)
	slices.Sort(b.Goarch)
	if !slices.Equal(b.Goos, []string{"darwin", "linux", "windows"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) {
		t.Errorf("build: goos %v, goarch %v", b.Goos, b.Goarch)
	}
	// The script builds what the config builds.
	script, err := os.ReadFile(filepath.Join(root, "scripts", "release-check.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, os := range b.Goos {
		for _, arch := range b.Goarch {
			if !strings.Contains(string(script), os+"/"+arch) {
				t.Errorf("scripts/release-check.sh does not build %s/%s", os, arch)
			}
		}
	}
	if c.Checksum.Algorithm != "sha256" || len(c.SBOMs) == 0 || len(c.Archives) != 1 {
		t.Errorf("checksum %+v, %d sboms, %d archives", c.Checksum, len(c.SBOMs), len(c.Archives))
	}
	for _, f := range c.Archives[0].Files {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("archives: %v", err)
		}
	}
	if len(c.Dockers) != 1 || c.Dockers[0].Dockerfile != "Dockerfile" {
		t.Fatalf("dockers: want the image from the Dockerfile: %+v", c.Dockers)
	}
	d := c.Dockers[0]
	if !slices.Contains(d.BuildFlagTemplates, "--build-arg=VERSION={{ .Tag }}") {
		t.Errorf("dockers: the image is not built with VERSION set to the tag: %v", d.BuildFlagTemplates)
	}
	// Every file the Dockerfile's build stage compiles (the packages
	// cmd/spindle imports from this module, and the files they embed)
	// must be in the context extra_files makes.
	in := func(rel string) bool {
		return slices.ContainsFunc(d.ExtraFiles, func(e string) bool { return rel == e || strings.HasPrefix(rel, e+"/") })
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if !in(f) {
			t.Errorf("dockers: extra_files lacks %s", f)
		}
	}
	for _, e := range d.ExtraFiles {
		if _, err := os.Stat(filepath.Join(root, e)); err != nil {
			t.Errorf("dockers: extra_files: %v", err)
		}
	}
	list := exec.Command("go", "list", "-deps", "-json=Module,Dir,GoFiles,EmbedFiles", "./cmd/spindle")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec2 := json.NewDecoder(strings.NewReader(string(out)))
	for dec2.More() {
		var p struct {
			Module              *struct{ Main bool }
			Dir                 string
			GoFiles, EmbedFiles []string
		}
		if err := dec2.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Module == nil || !p.Module.Main {
			continue
		}
		for _, f := range append(p.GoFiles, p.EmbedFiles...) {
			rel, err := filepath.Rel(root, filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if !in(filepath.ToSlash(rel)) {
				t.Errorf("dockers: the image's build needs %s, which extra_files leaves out of its context", rel)
			}
		}
	}
	if c.Release.GitHub.Owner != "spindle-go" || c.Release.GitHub.Name != "spindle" {
		t.Errorf("release: %+v", c.Release.GitHub)
	}
	if gr, err := exec.LookPath("goreleaser"); err == nil {
		cmd := exec.Command(gr, "check")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("goreleaser check: %v\n%s", err, out)
		}
	} else {
		t.Log("goreleaser not installed: its own schema check not run")
	}
}

// TestReleaseCheckBuildsEveryTarget runs scripts/release-check.sh: the
// six targets build static with the release's flags, and the host's
// binary says the version CHANGELOG.md's newest section names.
func TestReleaseCheckBuildsEveryTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("six builds of spindle: not with -short")
	}
	dir, _ := snapshotRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "scripts/release-check.sh")
	cmd.Dir, cmd.Env = dir, append(sharedBuildEnv(), "OUT="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/release-check.sh: %v\n%s", err, out)
	}
	for _, want := range []string{"built linux/amd64", "built darwin/arm64", "built windows/arm64", "host binary: spindle v0.1.0 ", "CHANGELOG.md has notes for v0.1.0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("release-check.sh output lacks %q:\n%s", want, out)
		}
	}
}

// goInstallTagged is `go install github.com/spindle-go/spindle/cmd/spindle@v0.1.0`
// as a user runs it once the tag is published, run against a module proxy
// made here: the snapshot of this repository zipped as the module's
// v0.1.0 (as the Go proxy zips a tag: the files of the module, without
// nested modules), the dependencies from this machine's module cache, no
// network (so no checksum database: GOSUMDB=off). It returns the
// installed binary.
func goInstallTagged(t *testing.T) string {
	t.Helper()
	const mod, version = "github.com/spindle-go/spindle", "v0.1.0"
	dir, _ := snapshotRepo(t)
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	proxy := t.TempDir()
	at := filepath.Join(proxy, filepath.FromSlash(mod), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"list":            version + "\n",
		version + ".info": `{"Version":"` + version + `","Time":"2026-11-28T00:00:00Z"}`,
		version + ".mod":  string(gomod),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(at, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The module's files: not .git, not a directory holding another
	// module (bench/ has its own go.mod).
	nested := map[string]bool{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "go.mod" && filepath.Dir(p) != dir {
			nested[filepath.Dir(p)] = true
		}
		return nil
	})
	zf, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || nested[p] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		w, err := zw.Create(mod + "@" + version + "/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()
	gobin := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", "go install "+mod+"/cmd/spindle@"+version)
	cmd.Dir = t.TempDir()
	cmd.Env = sharedBuildEnv("GOBIN="+gobin, "GOMODCACHE="+t.TempDir(), "GOTOOLCHAIN=local",
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(strings.TrimSpace(string(modcache)), "cache", "download")),
		// No checksum database here; the module's go.sum still checks
		// every dependency the proxy serves.
		"GOSUMDB=off", "GOFLAGS=-modcacherw")
	if out, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "not found") || strings.Contains(string(out), "reading file://") {
			t.Skipf("this machine's module cache cannot serve every dependency offline:\n%s", out)
		}
		t.Fatalf("go install %s/cmd/spindle@%s: %v\n%s", mod, version, err, out)
	}
	return filepath.Join(gobin, "spindle")
}
