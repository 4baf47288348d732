package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is the release this binary was built as, set at link time:
//
//	go build -ldflags "-X main.version=v1.2.3" ./cmd/spindle
//
// Release builds (the Dockerfile, the GitHub Action) set it; without it the
// version comes from the module's build information.
var version string

// versionString describes this binary in one line: the version, the commit
// and its time when the binary was built with VCS information, and the Go
// toolchain and platform, which are what a bug report needs.
//
// The version is main.version when the linker set it, else the module
// version Go recorded: "v0.3.0" from go install ...@v0.3.0; from a git
// checkout, a pseudo-version such as v0.0.0-20260101120000-0123456789ab
// (with +dirty for uncommitted changes) since Go 1.24; "(devel)" when the
// build had no VCS information (-buildvcs=false, a source tarball, a git
// worktree, whose .git is a file that Go does not recognise).
func versionString() string {
	v, commit, when, dirty := "(unknown)", "", "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Version != "" {
			v = info.Main.Version
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
	if version != "" {
		v = version
	}
	var b strings.Builder
	fmt.Fprintf(&b, "spindle %s", v)
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

// develVersion is moduleVersion for a build that knows no version: a
// semantic version, as SARIF's semanticVersion wants, that says so.
const develVersion = "v0.0.0-devel"

// moduleVersion is the version alone, for SARIF's tool.driver: main.version
// when the linker set it, else the module version, else develVersion (a
// build without VCS information), so that a report always names one.
func moduleVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return develVersion
}
