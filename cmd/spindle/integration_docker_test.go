package main

import (
	"bufio"
	"debug/buildinfo"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// No container engine runs on the machines these tests run on, so the
// Dockerfile cannot be built here. Instead the tests read it as the builder
// would (stages, instructions, the exec form of ENTRYPOINT), hold its
// structure to what the image promises (a static binary from a Go stage, a
// small runtime stage with git, a non-root user), and run the build stage's
// RUN instructions on this machine in a copy of the build context that
// .dockerignore leaves, so a broken build command or an ignore pattern that
// drops a source file fails here rather than in someone's docker build.

// dockerInstruction is one Dockerfile instruction, continuation lines
// joined.
type dockerInstruction struct {
	cmd  string // upper case: FROM, RUN, ...
	args string // the rest of the instruction, trimmed
	line int    // where it starts, from 1
}

// execForm returns the instruction's arguments in exec (JSON array) form,
// or false if it is in shell form.
func (in dockerInstruction) execForm() ([]string, bool) {
	if !strings.HasPrefix(in.args, "[") {
		return nil, false
	}
	var args []string
	if err := json.Unmarshal([]byte(in.args), &args); err != nil {
		return nil, false
	}
	return args, true
}

// dockerStage is a FROM and the instructions up to the next FROM.
type dockerStage struct {
	base, name string
	from       dockerInstruction
	body       []dockerInstruction
}

// dockerfile is a parsed Dockerfile: the ARGs before the first FROM and the
// stages.
type dockerfile struct {
	globalArgs []dockerInstruction
	stages     []dockerStage
}

// parseDockerfile splits a Dockerfile into instructions as BuildKit's parser
// does for the subset this repository uses: comment lines are dropped (also
// inside a continued instruction), a line ending in a backslash continues
// on the next, and the first word names the instruction.
func parseDockerfile(text string) (dockerfile, error) {
	var df dockerfile
	var cur strings.Builder
	start := 0
	flush := func() error {
		s := strings.TrimSpace(cur.String())
		cur.Reset()
		if s == "" {
			return nil
		}
		word, rest, _ := strings.Cut(s, " ")
		in := dockerInstruction{cmd: strings.ToUpper(word), args: strings.TrimSpace(rest), line: start}
		switch {
		case in.cmd == "FROM":
			f := strings.Fields(in.args)
			if len(f) != 1 && !(len(f) == 3 && strings.EqualFold(f[1], "AS")) {
				return fmt.Errorf("line %d: FROM %q: want IMAGE [AS NAME]", in.line, in.args)
			}
			st := dockerStage{base: f[0], from: in}
			if len(f) == 3 {
				st.name = f[2]
			}
			df.stages = append(df.stages, st)
		case len(df.stages) == 0 && in.cmd == "ARG":
			df.globalArgs = append(df.globalArgs, in)
		case len(df.stages) == 0:
			return fmt.Errorf("line %d: %s before the first FROM", in.line, in.cmd)
		default:
			st := &df.stages[len(df.stages)-1]
			st.body = append(st.body, in)
		}
		return nil
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		if cur.Len() == 0 {
			if trimmed == "" {
				continue
			}
			start = n
		}
		if body, ok := strings.CutSuffix(strings.TrimRight(line, " \t"), `\`); ok {
			cur.WriteString(body) // joined as the builder does, with no separator added
			continue
		}
		cur.WriteString(line)
		if err := flush(); err != nil {
			return df, err
		}
	}
	if cur.Len() > 0 {
		return df, fmt.Errorf("line %d: the file ends inside a continued instruction", start)
	}
	return df, flush()
}

// instructions returns the stage's instructions named cmd.
func (st dockerStage) instructions(cmd string) []dockerInstruction {
	var out []dockerInstruction
	for _, in := range st.body {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// last returns the stage's last instruction named cmd, if any.
func (st dockerStage) last(cmd string) (dockerInstruction, bool) {
	ins := st.instructions(cmd)
	if len(ins) == 0 {
		return dockerInstruction{}, false
	}
	return ins[len(ins)-1], true
}

func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	df, err := parseDockerfile(string(data))
	if err != nil {
		t.Fatalf("Dockerfile: %v", err)
	}
	return df
}

// buildStage is the stage that compiles spindle: the one whose base image
// is golang's and that the final stage copies the binary from.
func buildStage(t *testing.T, df dockerfile) (dockerStage, dockerInstruction) {
	t.Helper()
	final := df.stages[len(df.stages)-1]
	for _, cp := range final.instructions("COPY") {
		from, ok := strings.CutPrefix(cp.args, "--from=")
		if !ok {
			continue
		}
		from, _, _ = strings.Cut(from, " ")
		for _, st := range df.stages[:len(df.stages)-1] {
			if st.name == from {
				return st, cp
			}
		}
		t.Fatalf("line %d: COPY --from=%s names no earlier stage", cp.line, from)
	}
	t.Fatal("the final stage copies nothing from a build stage")
	return dockerStage{}, dockerInstruction{}
}

func TestDockerfileParserJoinsContinuationsAndDropsComments(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // "CMD args" of every instruction, stages flattened
		wantErr    bool
	}{
		{"one stage", "FROM a\nRUN x\n", []string{"FROM a", "RUN x"}, false},
		{"continuation", "FROM a\nRUN x \\\n && y\n", []string{"FROM a", "RUN x  && y"}, false},
		{"comment inside a continuation", "FROM a\nRUN x \\\n# why\n && y\n", []string{"FROM a", "RUN x  && y"}, false},
		{"named stages and global args", "ARG V=1\nFROM a:${V} AS b\nFROM c\nCOPY --from=b /x /y\n",
			[]string{"ARG V=1", "FROM a:${V} AS b", "FROM c", "COPY --from=b /x /y"}, false},
		{"lower-case instruction", "from a\nrun x\n", []string{"FROM a", "RUN x"}, false},
		{"instruction before FROM", "RUN x\nFROM a\n", nil, true},
		{"dangling continuation", "FROM a\nRUN x \\\n", nil, true},
		{"bad FROM", "FROM a b\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			df, err := parseDockerfile(tt.text)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			var got []string
			for _, in := range df.globalArgs {
				got = append(got, in.cmd+" "+in.args)
			}
			for _, st := range df.stages {
				got = append(got, st.from.cmd+" "+st.from.args)
				for _, in := range st.body {
					got = append(got, in.cmd+" "+in.args)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// goBuildRE finds the go build command of the build stage and its output.
var goBuildRE = regexp.MustCompile(`go build\b[^&;|]*?-o\s+(\S+)\s+\./cmd/spindle\b`)

func TestDockerfileBuildStageMakesAStaticVersionedBinary(t *testing.T) {
	df := readDockerfile(t)
	if len(df.stages) < 2 {
		t.Fatalf("%d stages, want a build stage and a runtime stage", len(df.stages))
	}
	build, copyBin := buildStage(t, df)
	if !strings.HasPrefix(build.base, "golang:") {
		t.Errorf("build stage %q is FROM %s, want golang:...", build.name, build.base)
	}
	var cmd dockerInstruction
	for _, run := range build.instructions("RUN") {
		if goBuildRE.MatchString(run.args) {
			cmd = run
		}
	}
	if cmd.cmd == "" {
		t.Fatal("no RUN ... go build ... -o FILE ./cmd/spindle in the build stage")
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-X main.version=${VERSION}"} {
		if !strings.Contains(cmd.args, want) {
			t.Errorf("line %d: the go build command lacks %s", cmd.line, want)
		}
	}
	// ARG VERSION must be declared in the stage before the RUN that uses
	// it: a global ARG is not visible inside a stage.
	declared := false
	for _, in := range build.body {
		if in.cmd == "ARG" && (in.args == "VERSION" || strings.HasPrefix(in.args, "VERSION=")) && in.line < cmd.line {
			declared = true
		}
	}
	if !declared {
		t.Errorf("ARG VERSION is not declared in the build stage before line %d", cmd.line)
	}
	out := goBuildRE.FindStringSubmatch(cmd.args)[1]
	src := strings.Fields(strings.TrimPrefix(copyBin.args, "--from="+build.name))
	if len(src) != 2 || src[0] != out {
		t.Errorf("line %d: COPY %q does not copy the binary the build writes (%s)", copyBin.line, copyBin.args, out)
	}
}

func TestDockerfileRuntimeStageIsSmallNonRootWithGit(t *testing.T) {
	df := readDockerfile(t)
	final := df.stages[len(df.stages)-1]
	if base := final.base; strings.HasPrefix(base, "golang") || !(strings.HasPrefix(base, "alpine") ||
		strings.HasPrefix(base, "gcr.io/distroless/") || strings.HasPrefix(base, "debian:") && strings.Contains(base, "slim")) {
		t.Errorf("runtime stage is FROM %s, want a small base (alpine, distroless, debian slim)", base)
	}
	if _, cp := buildStage(t, df); cp.cmd == "" {
		t.Error("runtime stage copies no binary")
	}

	installsGit := regexp.MustCompile(`(apk add|apt-get install)\b[^&;|]*\bgit\b`)
	gitAt, userAt := 0, 0
	for _, run := range final.instructions("RUN") {
		if installsGit.MatchString(run.args) {
			gitAt = run.line
		}
	}
	if gitAt == 0 {
		t.Error("the runtime stage does not install git (spindle git needs it)")
	}
	user, ok := final.last("USER")
	if !ok {
		t.Fatal("the runtime stage has no USER: it would run as root")
	}
	userAt = user.line
	name, _, _ := strings.Cut(user.args, ":")
	if name == "root" || name == "0" || strings.Trim(name, "0123456789") != "" {
		t.Errorf("USER %s: want a numeric non-root user, which Kubernetes' runAsNonRoot can check", user.args)
	}
	if gitAt > userAt {
		t.Errorf("git is installed (line %d) after USER (line %d): the install needs root", gitAt, userAt)
	}
	for _, run := range final.instructions("RUN") {
		if run.line > userAt && strings.Contains(run.args, "apk") {
			t.Errorf("line %d: a package install after USER fails as non-root", run.line)
		}
	}
	if !strings.Contains(strings.Join(dockerArgs(final.instructions("RUN")), "\n"), "safe.directory") {
		t.Error("git is not told to trust mounted repositories (safe.directory): a volume owned by the host user is refused")
	}

	if wd, ok := final.last("WORKDIR"); !ok || wd.args != "/repo" {
		t.Errorf("WORKDIR %q, want /repo", wd.args)
	}
	ep, ok := final.last("ENTRYPOINT")
	if !ok {
		t.Fatal("no ENTRYPOINT")
	}
	args, exec := ep.execForm()
	if !exec || len(args) == 0 || path.Base(args[0]) != "spindle" {
		t.Errorf("ENTRYPOINT %s: want the exec form running spindle (signals reach it, no shell)", ep.args)
	}
	if cmd, ok := final.last("CMD"); ok {
		if _, exec := cmd.execForm(); !exec {
			t.Errorf("CMD %s: the shell form would be passed to spindle as sh -c", cmd.args)
		}
	}
}

// dockerArgs returns the arguments of each instruction.
func dockerArgs(ins []dockerInstruction) []string {
	var out []string
	for _, in := range ins {
		out = append(out, in.args)
	}
	return out
}

// dockerignore is a parsed .dockerignore: patterns in order, each possibly
// an exception ("!").
type dockerignore []struct {
	re     *regexp.Regexp
	except bool
}

// parseDockerignore reads .dockerignore patterns as Docker does: relative
// to the context root, "**" for any number of directories, "*" and "?"
// within a name, and a pattern that matches a directory excludes what is
// under it; the last pattern that matches a path decides. Character
// classes and escapes are refused, so that what this matcher does not
// implement cannot creep into the file untested.
func parseDockerignore(text string) (dockerignore, error) {
	var di dockerignore
	for line := range strings.Lines(text) {
		p := strings.TrimSpace(line)
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		except := false
		if rest, ok := strings.CutPrefix(p, "!"); ok {
			except, p = true, strings.TrimSpace(rest)
		}
		if strings.ContainsAny(p, `[]\`) {
			return nil, fmt.Errorf("pattern %q: character classes and escapes are not supported here", p)
		}
		p = path.Clean(strings.TrimPrefix(p, "/"))
		var re strings.Builder
		re.WriteString("^")
		for i := 0; i < len(p); i++ {
			switch {
			case strings.HasPrefix(p[i:], "**/"):
				re.WriteString("(.*/)?")
				i += 2
			case strings.HasPrefix(p[i:], "**"):
				re.WriteString(".*")
				i++
			case p[i] == '*':
				re.WriteString("[^/]*")
			case p[i] == '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(p[i : i+1]))
			}
		}
		// A match on a directory covers everything below it.
		re.WriteString("(/.*)?$")
		di = append(di, struct {
			re     *regexp.Regexp
			except bool
		}{regexp.MustCompile(re.String()), except})
	}
	return di, nil
}

// excludes reports whether the slash-separated path is left out of the
// build context.
func (di dockerignore) excludes(name string) bool {
	out := false
	for _, p := range di {
		if p.re.MatchString(name) {
			out = !p.except
		}
	}
	return out
}

func TestDockerignoreMatchesAsDockerDoes(t *testing.T) {
	di, err := parseDockerignore("# c\n.git\n**/*_test.go\n**/testdata\nbench\n*.md\n!README.md\n/docs/\n")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want bool
	}{
		{".git", true},
		{".git/config", true},
		{"a/.git", false}, // patterns are anchored at the root
		{"x_test.go", true},
		{"scan/x_test.go", true},
		{"scan/x.go", false},
		{"scan/testdata/a/b.txt", true},
		{"testdata/a", true},
		{"bench/go.mod", true},
		{"benchmarks.go", false},
		{"NOTES.md", true},
		{"README.md", false}, // the exception comes last
		{"docs/x.md", true},
		{"scan/doc.md", false}, // *.md does not cross a slash
	}
	for _, tt := range tests {
		if got := di.excludes(tt.name); got != tt.want {
			t.Errorf("excludes(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
	if _, err := parseDockerignore("[ab]\n"); err == nil {
		t.Error("a character class was accepted")
	}
}

// buildContext copies into a new directory the files of this repository
// (those git tracks or would track) that .dockerignore leaves in the
// context, and returns it.
func buildContext(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	di, err := parseDockerignore(string(data))
	if err != nil {
		t.Fatalf(".dockerignore: %v", err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout?)", err)
	}
	dir := t.TempDir()
	kept := 0
	for name := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if name == "" || di.excludes(name) {
			continue
		}
		src := filepath.Join(root, filepath.FromSlash(name))
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or a link
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(src, dst); err != nil {
			t.Fatal(err)
		}
		kept++
	}
	if kept == 0 {
		t.Fatal(".dockerignore leaves nothing in the build context")
	}
	return dir
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func TestDockerfileBuildStageRunsHereOnTheIgnoredContext(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image is linux; the static-binary check reads ELF")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	t.Parallel()
	df := readDockerfile(t)
	build, _ := buildStage(t, df)
	ctx := buildContext(t)
	for _, dropped := range []string{".git", "cmd/spindle/e2e_test.go", "README.md"} {
		if _, err := os.Stat(filepath.Join(ctx, dropped)); err == nil {
			t.Errorf("%s is in the build context", dropped)
		}
	}

	// The stage's instructions, run here: WORKDIR is the context copy
	// (every COPY of the stage copies from the context into it), ARGs are
	// environment variables with VERSION given as a build argument, and
	// the build's output directory is a temporary one.
	const version = "v1.2.3-dockertest"
	outDir := t.TempDir()
	env := []string{}
	for _, kv := range os.Environ() {
		// The image's environment has no GOFLAGS (this machine's may turn
		// VCS stamping off, or worse).
		if !strings.HasPrefix(kv, "GOFLAGS=") {
			env = append(env, kv)
		}
	}
	var binOut string
	for _, in := range build.body {
		switch in.cmd {
		case "WORKDIR":
		case "COPY":
			f := strings.Fields(in.args)
			if strings.HasPrefix(in.args, "--") || (f[len(f)-1] != "./" && f[len(f)-1] != ".") {
				t.Fatalf("line %d: COPY %s: only copies from the context into WORKDIR are emulated", in.line, in.args)
			}
		case "ARG":
			name, def, _ := strings.Cut(in.args, "=")
			if name == "VERSION" {
				def = version
			}
			env = append(env, name+"="+def)
		case "ENV":
			// ENV k=v (no spaces in values here).
			env = append(env, strings.Fields(in.args)...)
		case "RUN":
			script := in.args
			m := goBuildRE.FindStringSubmatch(script)
			if m != nil {
				binOut = filepath.Join(outDir, path.Base(m[1]))
				script = strings.ReplaceAll(script, path.Dir(m[1])+"/", outDir+"/")
			}
			cmd := exec.Command("sh", "-c", script)
			cmd.Dir, cmd.Env = ctx, env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("line %d: RUN %s: %v\n%s", in.line, in.args, err, out)
			} else if m != nil && !strings.Contains(string(out), "spindle "+version+" ") {
				t.Errorf("line %d: the build's own check did not print the version:\n%s", in.line, out)
			}
		default:
			t.Fatalf("line %d: %s in the build stage is not emulated here", in.line, in.cmd)
		}
	}
	if binOut == "" {
		t.Fatal("no RUN built spindle")
	}

	info, err := buildinfo.ReadFile(binOut)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["CGO_ENABLED"] != "0" || settings["-trimpath"] != "true" {
		t.Errorf("built with CGO_ENABLED=%q -trimpath=%q, want 0 and true", settings["CGO_ENABLED"], settings["-trimpath"])
	}
	f, err := elf.Open(binOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary has an ELF interpreter: it is dynamically linked")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary needs shared libraries %v", libs)
	}
	out, err := exec.Command(binOut, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "spindle "+version+" ") {
		t.Errorf("spindle version: %q, %v; want it to start with spindle %s", out, err, version)
	}
}
