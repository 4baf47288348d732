package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/spindle-go/spindle/scan/git"
)

const cacheLong = `cache shows the history stores in the cache directory (the user's cache
directory, or --cache DIR): one per repository and settings, each holding what
every commit a history scan read yields, so that the next scan of that
repository with the same rules and settings scans only the commits it has not
seen and writes the same report. A store holds the findings as a report does,
secrets included (none when the scan ran with --redact); whoever can write it
can hide findings from the scans that read it.

cache prune removes the stores no scan has used for --unused (30 days), or
every store with --all.`

const cacheExamples = `  spindle cache                        # the stores, their commits, their size
  spindle cache prune                  # drop the stores unused for 30 days
  spindle cache prune --all --cache .spindle-cache`

// cacheOptions are the cache command's flags.
type cacheOptions struct {
	dir    string
	unused time.Duration
	all    bool
}

func newCacheCmd(e env) *cobra.Command {
	var o cacheOptions
	c := &cobra.Command{
		Use:     "cache [prune]",
		Short:   "Show or prune the history stores of incremental git scans",
		Long:    cacheLong,
		Example: cacheExamples,
		Args:    usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			dir, err := o.cacheDir()
			if err != nil {
				return exitWith(exitError, err)
			}
			if len(args) == 0 {
				return showCache(e, dir)
			}
			if args[0] != "prune" {
				return &usageError{cmd: c, err: fmt.Errorf("unknown cache command %q (want prune)", args[0])}
			}
			unused := o.unused
			if o.all {
				unused = 0
			}
			removed, err := git.PruneStores(dir, unused)
			for _, d := range removed {
				fmt.Fprintf(e.stdout, "removed %s\n", d)
			}
			if err != nil {
				return exitWith(exitError, fmt.Errorf("cache prune: %w", err))
			}
			fmt.Fprintf(e.stderr, "%s removed from %s\n", plural(int64(len(removed)), "store", "stores"), dir)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.dir, "cache", "", "the cache `DIR` (default: the user's cache directory)")
	f.DurationVar(&o.unused, "unused", 30*24*time.Hour, "prune: remove the stores unused for longer than `DURATION`")
	f.BoolVar(&o.all, "all", false, "prune: remove every store")
	return c
}

// cacheDir is --cache, or the user's cache directory's.
func (o cacheOptions) cacheDir() (string, error) {
	if o.dir != "" {
		return o.dir, nil
	}
	return git.DefaultCacheDir()
}

// showCache lists the stores of dir, most recently used first.
func showCache(e env, dir string) error {
	stores, err := git.ListStores(dir)
	if err != nil {
		return exitWith(exitError, fmt.Errorf("cache: %w", err))
	}
	fmt.Fprintf(e.stderr, "history stores in %s\n", dir)
	if len(stores) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ROOT COMMIT\tSETTINGS\tUSED\tCOMMITS\tWITH FINDINGS\tFINDINGS\tSIZE\tREPOSITORY")
	var total int64
	for _, s := range stores {
		state := s.Repository
		if s.Problem != nil {
			state = fmt.Sprintf("%s (not used: %v)", state, s.Problem)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", s.Root[:12], lastElem(s.Dir)[:12], s.Used.Format("2006-01-02 15:04"),
			s.Clean+s.Found, s.Found, s.Findings, formatBytes(s.Bytes), state)
		total += s.Bytes
	}
	tw.Flush()
	fmt.Fprintf(e.stderr, "%s, %s\n", plural(int64(len(stores)), "store", "stores"), formatBytes(total))
	return nil
}

// lastElem is the last element of a path.
func lastElem(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || p[i] == '\\' {
			return p[i+1:]
		}
	}
	return p
}
