package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes. They are the command's contract with scripts and CI, and the
// same as gitleaks' where gitleaks has one (0 clean, 1 leaks found), except
// that spindle's own commands keep errors apart from findings: a CI job must
// not read "the config is broken" as "a secret leaked", nor the reverse.
// The gitleaks drop-ins (dir, git, stdin, detect, protect) exit as gitleaks
// does instead (see exitStatus): --exit-code N for leaks, 1 on any error,
// 126 for an unknown flag; a job that must tell an error from a leak there
// gives --exit-code another value, as gitleaks-action's --exit-code 2 does.
const (
	exitClean       = 0   // nothing found
	exitFindings    = 1   // findings reported (--exit-code changes it)
	exitError       = 2   // bad flag, bad config or rule, unreadable input, I/O error; --strict warnings
	exitInterrupted = 130 // SIGINT or SIGTERM: 128 + SIGINT, as shells report it
	exitBrokenPipe  = 141 // the report's reader went away (spindle scan | head): 128 + SIGPIPE

	dropInError       = 1   // any error in a drop-in, as gitleaks' logging.Fatal exits
	dropInUnknownFlag = 126 // an unknown long flag in a drop-in, as gitleaks' Execute exits
)

// exitCodeError carries the process exit status a command wants, with the
// error to print (nil: print nothing, the command has already said it all).
type exitCodeError struct {
	code  int
	err   error
	leaks bool // the status is --exit-code's, for findings: kept as given
}

func (e *exitCodeError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitCodeError) Unwrap() error { return e.err }

// exitWith returns an error that makes run exit with code after printing
// err (if not nil). exitWith(exitError, err) is how a command fails: the
// drop-ins exit 1 for it, as gitleaks does, spindle's commands 2. A scan
// that lost data fails this way unless the user opted into a partial
// result.
func exitWith(code int, err error) error { return &exitCodeError{code: code, err: err} }

// leaksFound is the result of a scan that found something: the process
// exits code, the --exit-code the user gave, whatever its value; a drop-in
// does not mistake it for an error even when it equals exitError.
func leaksFound(code int) error { return &exitCodeError{code: code, leaks: true} }

// exitStatus prints err (once, as "spindle: message") and returns the
// process exit status for cmd's result: the one place exit codes are
// decided.
//
//   - no error: 0;
//   - findings: the command's --exit-code, as given; os.Exit keeps its low
//     8 bits on Unix, as it does for gitleaks' any int (256 exits 0, -1
//     exits 255);
//   - interrupted: 130; the report's reader gone: 141;
//   - any other error: 2 in spindle's commands, 1 in the drop-ins (an
//     unknown long flag there 126), as gitleaks exits.
func exitStatus(ctx context.Context, e env, cmd *cobra.Command, err error) int {
	code := printedStatus(ctx, e, err)
	if err == nil || !isDropIn(cmd) {
		return code
	}
	var coded *exitCodeError
	switch {
	case errors.As(err, &coded) && coded.leaks:
		return code
	case code == exitInterrupted || code == exitBrokenPipe:
		return code
	}
	var usage *usageError
	if errors.As(err, &usage) && strings.HasPrefix(usage.err.Error(), "unknown flag") {
		return dropInUnknownFlag
	}
	return dropInError
}

// printedStatus prints err and returns the status spindle's own commands
// give it.
func printedStatus(ctx context.Context, e env, err error) int {
	if err == nil {
		return exitClean
	}
	var usage *usageError
	var coded *exitCodeError
	switch {
	case errors.As(err, &coded):
		if coded.err != nil {
			fmt.Fprintf(e.stderr, "spindle: %v\n", coded.err)
		}
		return coded.code
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		fmt.Fprintln(e.stderr, "spindle: interrupted")
		return exitInterrupted
	case errors.As(err, &usage):
		fmt.Fprintf(e.stderr, "spindle: %v\nRun '%s --help' for usage.\n", usage.err, usage.cmd.CommandPath())
		return exitError
	default:
		// Cobra's unknown-command error ends in blank lines.
		fmt.Fprintf(e.stderr, "spindle: %s\n", strings.TrimRight(err.Error(), "\n"))
		return exitError
	}
}

// isDropIn reports whether c is one of the gitleaks drop-ins.
func isDropIn(c *cobra.Command) bool {
	return c != nil && c.Annotations[dropInAnnotation] != ""
}
