package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// exitGrace is how long an interrupted command has to stop on its own
// (cancel the scan, close or discard its report) before the process exits
// anyway: a read of standard input or a FIFO does not return on
// cancellation, and an interrupt must not hang until more input comes.
// A second interrupt ends the process at once (the signal's default).
const exitGrace = 3 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// A reader that goes away (spindle scan | head -1) must not kill the
	// process mid-scan: that would leave temporary files behind. With
	// SIGPIPE asked for, a write to the closed pipe fails with EPIPE
	// instead, and the scan stops and cleans up as it does on SIGINT.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	env := newEnv(os.Stdin, os.Stdout, os.Stderr)
	done := make(chan int, 1)
	go func() { done <- run(ctx, env, os.Args[1:]) }()
	select {
	case code := <-done:
		stop()
		os.Exit(code)
	case <-ctx.Done():
	}
	stop()
	select {
	case code := <-done:
		os.Exit(code)
	case <-time.After(exitGrace):
		// A report file is written to a temporary file renamed over its
		// target on completion, so exiting here leaves the target as it
		// was.
		fmt.Fprintln(os.Stderr, "spindle: interrupted")
		os.Exit(exitInterrupted)
	}
}

// env is the process around a command: its streams, whether each is a
// terminal, and its environment variables. run takes it as a value so that
// tests drive the command in-process without touching the real process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// stdoutTTY and stderrTTY say whether the streams are terminals; they
	// gate colour (stdout) and the progress line (stderr).
	stdoutTTY, stderrTTY bool
	// stderrWidth is the terminal's width in columns, 0 when unknown.
	stderrWidth int
	// stdoutClosed says standard output was closed when the process
	// started (spindle scan >&-): a report written there would be lost.
	stdoutClosed bool
	getenv       func(string) string
}

// newEnv describes the real process.
func newEnv(stdin io.Reader, stdout, stderr *os.File) env {
	e := env{
		stdin:     stdin,
		stdout:    stdout,
		stderr:    stderr,
		stdoutTTY: term.IsTerminal(int(stdout.Fd())),
		stderrTTY: term.IsTerminal(int(stderr.Fd())),
		getenv:    os.Getenv,
		// Read before anything is opened, though the runtime's /dev/null
		// holds the number from the start.
		stdoutClosed: closedAtStart(stdout),
	}
	if e.stderrTTY {
		if w, _, err := term.GetSize(int(stderr.Fd())); err == nil {
			e.stderrWidth = w
		}
	}
	return e
}

// usageError marks a mistake in the command line: it is printed with a
// pointer to --help.
type usageError struct {
	cmd *cobra.Command
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// run executes the command line args and returns the exit status
// (exitStatus prints the error, if any, and decides it).
func run(ctx context.Context, e env, args []string) int {
	root := newRootCmd(e)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	return exitStatus(ctx, e, cmd, err)
}

// newRootCmd builds the command tree. Cobra's own error and usage printing
// is silenced: run prints errors, and a usage dump after a typo buries the
// one line that matters.
func newRootCmd(e env) *cobra.Command {
	root := &cobra.Command{
		Use:   "spindle",
		Short: "Find secrets in files, fast, on a work-stealing runtime",
		Long: `spindle finds secrets (API keys, tokens, private keys) in files and archives,
with gitleaks-compatible rules, on all cores. It also measures the work-stealing
runtime it is built on against plain goroutines on this machine.`,
		Example: `  spindle scan .                       # scan the current directory
  spindle scan -f sarif -o spindle.sarif src/
  spindle git -v                       # as gitleaks git -v: the history, findings printed
  spindle rules --check                # test every rule on samples of its regex
  spindle bench                        # runtime vs goroutines, on this machine`,
		Version:       versionString(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{cmd: c, err: err}
	})
	root.AddCommand(
		newScanCmd(e),
		newGitCmd(e),
		newDirCmd(e),
		newStdinCmd(e),
		newMergeCmd(e),
		newDetectCmd(e),
		newProtectCmd(e),
		newRulesCmd(e),
		newCacheCmd(e),
		newBenchCmd(e),
		newVersionCmd(e),
	)
	return root
}

// usageArgs wraps a cobra positional-argument check so that its error is
// printed as a usage error.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			return &usageError{cmd: c, err: err}
		}
		return nil
	}
}
