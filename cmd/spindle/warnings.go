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
	// lost counts the warnings that lost data by kind, even with -q: the
	// error that fails the scan names them (see lostError).
	lost      map[string]int
	firstLost string // the first warning that lost data, as one line
}

func newWarnPrinter(con *console, quiet, verbose bool) *warnPrinter {
	return &warnPrinter{con: con, quiet: quiet, verbose: verbose, seen: map[string]int{}, lost: map[string]int{}}
}

func (p *warnPrinter) print(w scan.Warning) {
	if errors.Is(w.Err, context.Canceled) || errors.Is(w.Err, context.DeadlineExceeded) {
		// A read the stop cut short: the stop itself is what to say.
		return
	}
	kind := w.Op + ": " + warningCause(w)
	if w.Lost {
		if len(p.lost) == 0 {
			p.firstLost = warningText(w)
		}
		p.lost[kind]++
	}
	if p.quiet {
		return
	}
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

// lostKinds is how many lost-data warnings there were of each kind, the
// most frequent first, at most max kinds and "and N more kinds" after.
func (p *warnPrinter) lostKinds(max int) string {
	kinds := slices.Collect(maps.Keys(p.lost))
	slices.SortFunc(kinds, func(a, b string) int {
		if c := p.lost[b] - p.lost[a]; c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for i, k := range kinds {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %s more", plural(int64(len(kinds)-max), "kind", "kinds")))
			break
		}
		parts = append(parts, fmt.Sprintf("%d× %s", p.lost[k], k))
	}
	return strings.Join(parts, "; ")
}

// lostError is the error of a scan that lost data and was not allowed a
// partial result: how many warnings lost data, of which kinds, the first
// one whole, and the flag that accepts a partial result. Nothing the scan
// could not read was searched for secrets, so its findings (or their
// absence) are not an answer for what it was asked to scan.
func lostError(lost int64, p *warnPrinter) error {
	msg := fmt.Sprintf("the scan lost data: %s", plural(lost, "warning", "warnings"))
	if kinds := p.lostKinds(3); kinds != "" {
		msg += " (" + kinds + ")"
	}
	if p.firstLost != "" {
		msg += "; first: " + p.firstLost
	}
	return errors.New(msg + "; what was not read was not searched (--allow-partial accepts a partial result)")
}
