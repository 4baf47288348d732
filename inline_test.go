package spindle

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestFinishInlines checks that core.Worker.Finish, run after every task,
// inlines into the executor's worker loop (steps): its inliner cost is
// close to the budget (see Finish), and a call there costs an injected
// task about 10 instructions.
func TestFinishInlines(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found")
	}
	out, err := exec.Command(goTool, "build", "-o", filepath.Join(t.TempDir(), "inline"),
		"-gcflags=github.com/spindle-go/spindle/...=-m", "./testdata/inline").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	want := `executor\.go:\d+:\d+: inlining call to core\.\(\*Worker\[[^\]]*\]\)\.Finish\b`
	if !regexp.MustCompile(want).Match(out) {
		t.Errorf("compiler output lacks %q:\n%s", want, out)
	}
}
