package fork_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestForkAndJoinInline checks the property the cost model rests on: the
// fast paths of Future.Fork and Future.Join (and Rec's) inline into recursive user
// code, so an untaken fork costs a few instructions and no call. The
// compiler's inlining budget is tight for them (see Fork), and a change to
// either the code or the compiler can tip them over.
func TestForkAndJoinInline(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found")
	}
	out, err := exec.Command(goTool, "build", "-o", filepath.Join(t.TempDir(), "inline"),
		"-gcflags=-m", "./testdata/inline").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The messages must name a call site in main.go: the generic method
	// inlined into its own instantiation wrapper, but not into the
	// caller, still costs a call.
	for _, want := range []string{
		`main\.go:\d+:\d+: inlining call to fork\.\(\*Future\[[^\]]*\]\)\.Fork\b`,
		`main\.go:\d+:\d+: inlining call to fork\.\(\*Future\[[^\]]*\]\)\.Join\b`,
		`main\.go:\d+:\d+: inlining call to fork\.\(\*Frame\[[^\]]*\]\)\.Fork\b`,
		`main\.go:\d+:\d+: inlining call to fork\.\(\*Frame\[[^\]]*\]\)\.Join\b`,
		// sumRec's frame stays on the stack: it is what makes a Frame fork
		// cheap (no allocation, no write barrier).
		`main\.go:\d+:\d+: f does not escape`,
	} {
		if !regexp.MustCompile(want).Match(out) {
			t.Errorf("compiler output lacks %q:\n%s", want, out)
		}
	}
	if m := regexp.MustCompile(`main\.go:\d+:\d+: moved to heap: g\b.*`).Find(out); m != nil {
		t.Errorf("a Frame escapes: %s", m)
	}
}
