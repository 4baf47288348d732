package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/spindle-go/spindle/scan/rules"
)

type rulesOptions struct {
	config string
	check  bool
}

func newRulesCmd(e env) *cobra.Command {
	var o rulesOptions
	c := &cobra.Command{
		Use:   "rules [flags] [PATH]",
		Short: "List the rules in effect and validate a config",
		Long: `rules loads the rules a scan of PATH (default: the current directory) would use,
exactly as scan picks them (--config, else PATH/.gitleaks.toml, else the
built-in set), checks them, and lists each rule's id, keywords and description.
A config error exits with status 2 and names the file, the line and the rule.

--check also runs the built-in rules' own examples: every true-positive example
must be found and every false-positive example must not.`,
		Example: `  spindle rules                          # the rules 'spindle scan .' uses
  spindle rules -c .gitleaks.toml        # validate a config
  spindle rules --check                  # test the built-in rules`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			return runRules(e, o, args)
		},
	}
	c.Flags().StringVarP(&o.config, "config", "c", "", "gitleaks-schema rules `FILE` (default: PATH/.gitleaks.toml, else built-in rules)")
	c.Flags().BoolVar(&o.check, "check", false, "run the built-in rules' examples and report any that fail")
	c.MarkFlagFilename("config", "toml")
	return c
}

func runRules(e env, o rulesOptions, args []string) error {
	root := "."
	if len(args) == 1 {
		root = args[0]
	}
	cfg, source, err := rules.Find(root, o.config)
	if err != nil {
		return exitWith(exitError, err)
	}
	det, err := rules.Compile(cfg)
	if err != nil {
		return exitWith(exitError, err)
	}
	if o.check {
		return checkRules(e)
	}
	infos := det.Rules()
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKEYWORDS\tDESCRIPTION")
	for _, r := range infos {
		kw := strings.Join(r.Keywords, ",")
		if r.PathOnly {
			kw = "(file path)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, truncateText(kw, 40), r.Description)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if source == "" {
		source = "built-in rules"
	}
	fmt.Fprintf(e.stderr, "%s: %s, valid\n", source, plural(int64(len(infos)), "rule", "rules"))
	return nil
}

// checkRules runs the built-in rules' examples. It is filled in when the
// rules package exposes them.
func checkRules(e env) error {
	return fmt.Errorf("rules --check: not available yet")
}
