package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/spindle-go/spindle/scan/rules"
)

type rulesOptions struct {
	config       string
	check        bool
	spindleRules bool
}

func newRulesCmd(e env) *cobra.Command {
	var o rulesOptions
	c := &cobra.Command{
		Use:   "rules [flags] [PATH]",
		Short: "List the rules in effect and validate a config",
		Long: `rules loads the rules a scan of PATH (default: the current directory) would use,
exactly as scan picks them (--config, else PATH/.gitleaks.toml, else the
built-in set), checks them, and lists each rule's id, where it comes from,
its keywords and description. A config error exits with status 2 and names
the file, the line and the rule.

The built-in rules are gitleaks' default config, taken from the gitleaks Go
module (SOURCE "gitleaks v8.x.y"), then spindle's own rules for kinds of
secret gitleaks' rules miss (SOURCE "spindle"); a config's own rules say
"config". A config with [extend] useDefault = true builds on both.
spindle scan runs both; the gitleaks drop-ins (dir, git, stdin, detect,
protect) run gitleaks' defaults alone unless given --spindle-rules, so
--spindle-rules=false lists what they run. A config's [extend]
useSpindleRules = true or false decides for it in every command.

--check tests each rule end to end. A rule with examples must report each
example and none of its negatives (a negative may be reported tagged
placeholder, checksum:invalid or malformed): a rule from gitleaks is run on
the true and false positives gitleaks' own code gives it, one of spindle's
on its examples and negatives keys, as is a config rule that has them. A
rule without examples is tested on strings generated from its regex (and a
file path from its path regex), scanned as a scan would, and fails if it
finds none of its own samples: keywords that do not occur in what the regex
matches, an entropy threshold no match reaches, an allowlist that drops
everything. It exits 1 if a rule fails.`,
		Example: `  spindle rules                          # the rules 'spindle scan .' uses
  spindle rules -c .gitleaks.toml        # validate a config
  spindle rules --check                  # test the built-in rules
  spindle rules --spindle-rules=false    # the rules 'spindle dir .' uses
  spindle rules --check -c my.toml       # test a config's rules`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			return runRules(e, o, args)
		},
	}
	c.Flags().StringVarP(&o.config, "config", "c", "", "gitleaks-schema rules `FILE` (default: PATH/.gitleaks.toml, else built-in rules)")
	c.Flags().BoolVar(&o.spindleRules, "spindle-rules", true, "the built-in rules include spindle's own, as in spindle scan (=false: gitleaks' defaults alone, as in the drop-ins)")
	c.Flags().BoolVar(&o.check, "check", false, "test each rule on its examples, or on samples generated from its own regex")
	c.MarkFlagFilename("config", "toml")
	return c
}

func runRules(e env, o rulesOptions, args []string) error {
	root := "."
	if len(args) == 1 {
		root = args[0]
	}
	builtin := rules.WithSpindle
	if !o.spindleRules {
		builtin = rules.GitleaksOnly
	}
	cfg, source, err := rules.FindWith(root, o.config, builtin)
	if err != nil {
		return exitWith(exitError, err)
	}
	det, err := rules.Compile(cfg)
	if err != nil {
		return exitWith(exitError, err)
	}
	if o.check {
		return checkRules(e, cfg, det, source)
	}
	infos := det.Rules()
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSOURCE\tKEYWORDS\tDESCRIPTION")
	count := map[rules.Provenance]int64{}
	for _, r := range infos {
		kw := strings.Join(r.Keywords, ",")
		if r.PathOnly {
			kw = "(file path)"
		}
		count[r.From]++
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.From, truncateText(kw, 40), r.Description)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if source == "" {
		source = "built-in rules"
	}
	fmt.Fprintf(e.stderr, "%s: %s, valid%s\n", source, plural(int64(len(infos)), "rule", "rules"), provenanceCounts(count))
	return nil
}

// provenanceCounts says how many rules come from each catalog, when some
// come from the built-in ones: " (222 gitleaks v8.30.1, 69 spindle)".
func provenanceCounts(count map[rules.Provenance]int64) string {
	if count[rules.FromGitleaks]+count[rules.FromSpindle] == 0 {
		return ""
	}
	var parts []string
	for _, p := range []rules.Provenance{rules.FromGitleaks, rules.FromSpindle, rules.FromConfig} {
		if count[p] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[p], p))
		}
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// checkRules runs checkConfig and prints one line per rule that failed or
// was skipped, then a count. Failures exit 1, like findings.
func checkRules(e env, cfg *rules.Config, det *rules.Detector, source string) error {
	if source == "" {
		source = "built-in rules"
	}
	var passed, skipped, failed, examples int
	count := map[rules.Provenance]int64{}
	for _, c := range checkConfig(cfg, det) {
		count[c.from]++
		examples += c.examples
		switch {
		case c.failed != "":
			failed++
			fmt.Fprintf(e.stdout, "FAIL  %s (%s): %s\n", c.id, c.from, c.failed)
		case c.skipped != "":
			skipped++
			fmt.Fprintf(e.stdout, "skip  %s (%s): %s\n", c.id, c.from, c.skipped)
		default:
			passed++
		}
	}
	fmt.Fprintf(e.stdout, "%s%s: %d passed, %d failed, %d skipped (%d examples run)\n", source, provenanceCounts(count), passed, failed, skipped, examples)
	if failed > 0 {
		return exitWith(exitFindings, nil)
	}
	return nil
}
