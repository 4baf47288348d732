package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// versionString describes this binary in one line: the module version
// ("v0.3.0" from go install ...@v0.3.0, "(devel)" from a checkout), the
// commit and its time when the binary was built with VCS information, and
// the Go toolchain and platform, which are what a bug report needs.
func versionString() string {
	version, commit, when, dirty := "(unknown)", "", "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "spindle %s", version)
	if commit != "" {
		if len(commit) > 12 {
			commit = commit[:12]
		}
		fmt.Fprintf(&b, " (commit %s", commit)
		if when != "" {
			fmt.Fprintf(&b, ", %s", when)
		}
		if dirty {
			b.WriteString(", modified")
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, " %s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}

func newVersionCmd(e env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go toolchain of this binary",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(e.stdout, versionString())
			return err
		},
	}
}

// moduleVersion is the module version alone, for SARIF's tool.driver:
// "" when unknown or a development build.
func moduleVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return ""
}
