package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/spindle-go/spindle/scan"
)

// warnRepeat is how many warnings of one kind are printed before the rest
// of that kind are only counted: a module cache can hold thousands of
// corrupt fuzz corpora, and a page of identical lines hides the one that
// matters.
const warnRepeat = 5

// warnPrinter prints a scan's warnings: all with -v, none with -q, and
// otherwise the first few of each kind (operation and cause), the rest
// counted and summed up by flush. The engine serialises its calls.
type warnPrinter struct {
	con            *console
	quiet, verbose bool
	seen           map[string]int // kind -> warnings seen
}

func newWarnPrinter(con *console, quiet, verbose bool) *warnPrinter {
	return &warnPrinter{con: con, quiet: quiet, verbose: verbose, seen: map[string]int{}}
}

func (p *warnPrinter) print(w scan.Warning) {
	if p.quiet || errors.Is(w.Err, context.Canceled) || errors.Is(w.Err, context.DeadlineExceeded) {
		// A read the stop cut short: the stop itself is what to say.
		return
	}
	kind := w.Op + ": " + warningCause(w)
	p.seen[kind]++
	if p.verbose || p.seen[kind] <= warnRepeat {
		p.con.warn(warningText(w))
	}
}

// allFlag is the flag that prints every warning: spindle scan's -v; in
// the drop-ins, where -v prints findings, --all-warnings.
func (p *warnPrinter) allFlag() string {
	if p.con.logs {
		return "--all-warnings"
	}
	return "-v"
}

// flush prints, for each kind that passed warnRepeat, how many more there
// were.
func (p *warnPrinter) flush() {
	if p.quiet || p.verbose {
		return
	}
	for _, kind := range slices.Sorted(maps.Keys(p.seen)) {
		if n := p.seen[kind] - warnRepeat; n > 0 {
			p.con.warn(fmt.Sprintf("%s more like that: %s (%s prints them all)", plural(int64(n), "warning", "warnings"), kind, p.allFlag()))
		}
	}
}

// warningText is a warning as one line: the path, what failed, why.
func warningText(w scan.Warning) string {
	return fmt.Sprintf("%s: %s: %s", w.Path, w.Op, warningCause(w))
}

// warningCause is why a warning happened, without the path: an
// *fs.PathError repeats the path (as opened, which the warning's name may
// shorten) and names a system call; only its cause is kept.
func warningCause(w scan.Warning) string {
	err := w.Err
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.HasSuffix(pe.Path, w.Path) {
		err = pe.Err
	}
	return err.Error()
}
