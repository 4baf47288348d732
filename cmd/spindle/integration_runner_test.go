package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// GitHub cannot run here, so these tests run GitHub Actions steps the way a
// runner does, for the part of the runner that action.yml and the
// workflows in deploy/ and docs/examples/ use: ${{ }} expressions that read
// a context (github.event.before, inputs.args, matrix.shard, steps.scan.
// outputs.findings), step conditions joined by &&, run steps executed by
// bash --noprofile --norc -eo pipefail with the GITHUB_OUTPUT, GITHUB_PATH
// and GITHUB_STEP_SUMMARY files, and step outputs. Steps that use another
// action (checkout, setup-go, upload-sarif) are recorded with their
// evaluated inputs, not run. An expression outside that subset fails the
// test: the files stay within what is tested.

// ghStep is a step of a composite action or of a workflow job.
type ghStep struct {
	ID               string            `yaml:"id"`
	Name             string            `yaml:"name"`
	If               string            `yaml:"if"`
	Shell            string            `yaml:"shell"`
	Run              string            `yaml:"run"`
	Uses             string            `yaml:"uses"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	With             map[string]string `yaml:"with"`
}

// ghContext holds the contexts expressions read: github, inputs, runner,
// matrix, strategy, env, and steps (filled in as steps run).
type ghContext map[string]any

// exprRE finds ${{ expression }}.
var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// pathRE is what an expression may be: a dotted path into a context.
var pathRE = regexp.MustCompile(`^[a-z_]+(\.[A-Za-z0-9_-]+)*$`)

// lookup returns the value at a dotted path, "" for a missing key below a
// known context (GitHub's null, which formats as ""), and an error for an
// unknown context or an expression that is not a path.
func (c ghContext) lookup(expr string) (string, error) {
	if !pathRE.MatchString(expr) {
		return "", fmt.Errorf("expression %q: only context paths are supported", expr)
	}
	parts := strings.Split(expr, ".")
	v, ok := c[parts[0]]
	if !ok {
		return "", fmt.Errorf("expression %q: unknown context %s", expr, parts[0])
	}
	for _, p := range parts[1:] {
		m, isMap := v.(map[string]any)
		if !isMap {
			return "", nil
		}
		if v, ok = m[p]; !ok {
			return "", nil
		}
	}
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case map[string]any, []any:
		return "", fmt.Errorf("expression %q is an object, not a value", expr)
	default:
		return fmt.Sprint(v), nil
	}
}

// substitute replaces every ${{ path }} in s.
func (c ghContext) substitute(s string) (string, error) {
	var err error
	out := exprRE.ReplaceAllStringFunc(s, func(m string) string {
		v, e := c.lookup(exprRE.FindStringSubmatch(m)[1])
		if e != nil && err == nil {
			err = e
		}
		return v
	})
	return out, err
}

// condTermRE is one term of a condition: a status function, or a path
// compared with a quoted literal.
var condTermRE = regexp.MustCompile(`^(?:(always|success|failure)\(\)|(\S+)\s*(==|!=)\s*'([^']*)')$`)

// cond evaluates an if: condition, terms joined by &&, given whether an
// earlier step failed. As on GitHub, a condition without a status function
// has an implicit success().
func (c ghContext) cond(s string, failed bool) (bool, error) {
	s = strings.TrimSpace(s)
	if inner, ok := strings.CutPrefix(s, "${{"); ok {
		s = strings.TrimSpace(strings.TrimSuffix(inner, "}}"))
	}
	if s == "" {
		return !failed, nil
	}
	result, status := true, false
	for term := range strings.SplitSeq(s, "&&") {
		m := condTermRE.FindStringSubmatch(strings.TrimSpace(term))
		if m == nil {
			return false, fmt.Errorf("condition %q: term %q is not supported", s, term)
		}
		switch m[1] {
		case "always":
			status = true
		case "success":
			status, result = true, result && !failed
		case "failure":
			status, result = true, result && failed
		default:
			v, err := c.lookup(m[2])
			if err != nil {
				return false, err
			}
			result = result && (v == m[4]) == (m[3] == "==")
		}
	}
	if !status {
		result = result && !failed
	}
	return result, nil
}

// usedAction is a uses: step as the emulation records it.
type usedAction struct {
	uses string
	with map[string]string
}

// stepRun is what running a list of steps did.
type stepRun struct {
	failed  bool
	used    []usedAction
	log     strings.Builder // every step's output
	summary string          // GITHUB_STEP_SUMMARY
	path    []string        // GITHUB_PATH, latest first
}

// runSteps runs steps as a runner would, in workdir, with the given
// process environment, updating ctx["steps"] with each step's outputs.
// RUNNER_TEMP is runner.temp. A uses: step is passed to uses, if not nil,
// which does what the action would for the test (an error fails the step).
func runSteps(t *testing.T, steps []ghStep, ctx ghContext, env []string, workdir string, uses func(usedAction) error) *stepRun {
	t.Helper()
	r := &stepRun{}
	temp, err := ctx.lookup("runner.temp")
	if err != nil || temp == "" {
		t.Fatal("runner.temp is not set")
	}
	if ctx["steps"] == nil {
		ctx["steps"] = map[string]any{}
	}
	summary := filepath.Join(temp, "step-summary.md")
	for i, st := range steps {
		name := st.Name
		if name == "" {
			name = fmt.Sprintf("step %d", i+1)
		}
		ok, err := ctx.cond(st.If, r.failed)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !ok {
			continue
		}
		stepEnv := map[string]string{}
		for k, v := range st.Env {
			if stepEnv[k], err = ctx.substitute(v); err != nil {
				t.Fatalf("%s: env %s: %v", name, k, err)
			}
		}
		if st.Uses != "" {
			with := map[string]string{}
			for k, v := range st.With {
				if with[k], err = ctx.substitute(v); err != nil {
					t.Fatalf("%s: with %s: %v", name, k, err)
				}
			}
			u := usedAction{st.Uses, with}
			r.used = append(r.used, u)
			if uses != nil {
				if err := uses(u); err != nil {
					r.failed = true
					fmt.Fprintf(&r.log, "--- %s failed: %v\n", name, err)
				}
			}
			continue
		}
		if st.Shell != "bash" {
			t.Fatalf("%s: shell %q: only bash is emulated", name, st.Shell)
		}
		if exprRE.MatchString(st.Run) {
			// GitHub would splice the value into the script; an input or a
			// branch name could then inject shell code.
			t.Fatalf("%s: the script has a ${{ }} expression: pass values through env:", name)
		}
		script := filepath.Join(temp, fmt.Sprintf("step-%d.sh", i))
		output := filepath.Join(temp, fmt.Sprintf("step-%d.output", i))
		ghPath := filepath.Join(temp, fmt.Sprintf("step-%d.path", i))
		for _, f := range []string{script, output, ghPath} {
			body := ""
			if f == script {
				body = st.Run
			}
			if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = workdir
		if st.WorkingDirectory != "" {
			wd, err := ctx.substitute(st.WorkingDirectory)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Dir = filepath.Join(workdir, wd)
		}
		pathVar := os.Getenv("PATH")
		for _, kv := range env {
			if p, ok := strings.CutPrefix(kv, "PATH="); ok {
				pathVar = p
			}
		}
		cmd.Env = append(append([]string{}, env...),
			"PATH="+strings.Join(append(r.path, pathVar), string(os.PathListSeparator)),
			"RUNNER_TEMP="+temp, "GITHUB_OUTPUT="+output, "GITHUB_PATH="+ghPath,
			"GITHUB_STEP_SUMMARY="+summary, "GITHUB_ACTIONS=true", "CI=true")
		for k, v := range stepEnv {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		fmt.Fprintf(&r.log, "--- %s\n%s", name, out)
		if err != nil {
			r.failed = true
			fmt.Fprintf(&r.log, "--- %s failed: %v\n", name, err)
		}
		outputs := map[string]any{}
		readLines(t, output, func(line string) {
			if k, v, ok := strings.Cut(line, "="); ok {
				outputs[k] = v
			}
		})
		if st.ID != "" {
			ctx["steps"].(map[string]any)[st.ID] = map[string]any{"outputs": outputs}
		}
		readLines(t, ghPath, func(line string) { r.path = append([]string{line}, r.path...) })
	}
	if data, err := os.ReadFile(summary); err == nil {
		r.summary = string(data)
	}
	return r
}

// readLines calls f on each non-empty line of file.
func readLines(t *testing.T, file string, f func(string)) {
	t.Helper()
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			f(line)
		}
	}
}

func TestRunnerEmulationEvaluatesWhatTheFilesUse(t *testing.T) {
	ctx := ghContext{
		"github": map[string]any{"event_name": "push", "event": map[string]any{"before": "abc"}},
		"inputs": map[string]any{"scan": "true", "n": 3},
		"steps":  map[string]any{"scan": map[string]any{"outputs": map[string]any{"exit-code": "1"}}},
	}
	values := []struct {
		expr, want string
		wantErr    bool
	}{
		{"github.event.before", "abc", false},
		{"github.event.pull_request.base.sha", "", false}, // null below a known context
		{"inputs.n", "3", false},
		{"steps.scan.outputs.exit-code", "1", false},
		{"secrets.TOKEN", "", true},              // unknown context
		{"github.event", "", true},               // an object
		{"format('{0}', inputs.scan)", "", true}, // a function
		{"inputs.scan || 'false'", "", true},     // an operator
	}
	for _, v := range values {
		got, err := ctx.lookup(v.expr)
		if (err != nil) != v.wantErr || got != v.want {
			t.Errorf("lookup(%q) = %q, %v; want %q, error %v", v.expr, got, err, v.want, v.wantErr)
		}
	}
	conds := []struct {
		cond    string
		failed  bool
		want    bool
		wantErr bool
	}{
		{"", false, true, false},
		{"", true, false, false},
		{"inputs.scan == 'true'", false, true, false},
		{"inputs.scan == 'true'", true, false, false}, // implicit success()
		{"always() && inputs.scan == 'true'", true, true, false},
		{"${{ inputs.scan != 'true' }}", false, false, false},
		{"inputs.scan == 'true' && steps.scan.outputs.exit-code == '1'", false, true, false},
		{"inputs.scan == 'true' && steps.scan.outputs.exit-code == '0'", false, false, false},
		{"failure()", true, true, false},
		{"inputs.scan == 'true' || always()", false, false, true},
	}
	for _, c := range conds {
		got, err := ctx.cond(c.cond, c.failed)
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("cond(%q, failed=%v) = %v, %v; want %v, error %v", c.cond, c.failed, got, err, c.want, c.wantErr)
		}
	}
	if s, err := ctx.substitute("a ${{ github.event_name }} b ${{inputs.n}}"); err != nil || s != "a push b 3" {
		t.Errorf("substitute = %q, %v", s, err)
	}
}
