//go:build unix

package rules

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a named pipe that nothing ever writes to: opening it for
// reading the ordinary way blocks forever.
func mkfifo(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return path
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlink: %v", err)
	}
}

func TestConfigsThatAreNotRegularFilesFailAtOnce(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, root string) func() error
		want  error  // errors.Is
		text  string // in the message
	}{
		{"explicit FIFO", func(t *testing.T, root string) func() error {
			p := mkfifo(t, filepath.Join(root, "c.toml"))
			return func() error { _, err := LoadFile(p); return err }
		}, errNotRegular, "a named pipe"},
		{"found FIFO", func(t *testing.T, root string) func() error {
			mkfifo(t, filepath.Join(root, ".gitleaks.toml"))
			return func() error { _, _, err := Find(root, ""); return err }
		}, errNotRegular, "a named pipe"},
		{"explicit /dev/zero", func(t *testing.T, root string) func() error {
			return func() error { _, err := LoadFile("/dev/zero"); return err }
		}, errNotRegular, "a character device"},
		{"explicit config extending /dev/zero", func(t *testing.T, root string) func() error {
			p := writeFile(t, root, "c.toml", "[extend]\npath = '/dev/zero'\n")
			return func() error { _, err := LoadFile(p); return err }
		}, errNotRegular, "extend: cannot read /dev/zero: not a regular file (a character device)"},
		{"explicit config extending a FIFO", func(t *testing.T, root string) func() error {
			mkfifo(t, filepath.Join(root, "base.toml"))
			p := writeFile(t, root, "c.toml", "[extend]\npath = 'base.toml'\n")
			return func() error { _, err := LoadFile(p); return err }
		}, errNotRegular, "a named pipe"},
		{"found config extending a FIFO in the tree", func(t *testing.T, root string) func() error {
			mkfifo(t, filepath.Join(root, "ci", "base.toml"))
			writeFile(t, root, ".gitleaks.toml", "[extend]\npath = 'ci/base.toml'\n")
			return func() error { _, _, err := Find(root, ""); return err }
		}, errNotRegular, "a named pipe"},
		{"found config extending /dev/zero", func(t *testing.T, root string) func() error {
			writeFile(t, root, ".gitleaks.toml", "[extend]\npath = '/dev/zero'\n")
			return func() error { _, _, err := Find(root, ""); return err }
		}, errEscapesTree, "outside the scanned tree"},
		{"found config linked to /dev/zero", func(t *testing.T, root string) func() error {
			symlink(t, "/dev/zero", filepath.Join(root, ".gitleaks.toml"))
			return func() error { _, _, err := Find(root, ""); return err }
		}, errEscapesTree, "cannot read config: outside the scanned tree"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			load := c.setup(t, t.TempDir())
			err := within(t, 10*time.Second, 256<<10, load)
			configError(t, err)
			if c.want != nil && !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
				t.Errorf("got %v, want %v and %q", err, c.want, c.text)
			}
		})
	}
}

func TestFoundConfigMayNotLeaveTheTreeThroughALink(t *testing.T) {
	root, out := treeWith(t, nil, map[string]string{"base.toml": secretRule, ".gitleaks.toml": secretRule})

	// A link in the tree to a file outside it.
	symlink(t, filepath.Join(out, "base.toml"), filepath.Join(root, "ci", "base.toml"))
	cfgPath := writeFile(t, root, ".gitleaks.toml", "[extend]\npath = 'ci/base.toml'\n")
	_, _, err := Find(root, "")
	if ce := configError(t, err); !errors.Is(err, errEscapesTree) || ce.File != cfgPath || ce.Line != 2 {
		t.Errorf("extend through a link: %v", err)
	}

	// A directory link: the path looks local, the file is not.
	symlink(t, out, filepath.Join(root, "shared"))
	writeFile(t, root, ".gitleaks.toml", "[extend]\npath = 'shared/base.toml'\n")
	if _, _, err := Find(root, ""); !errors.Is(err, errEscapesTree) {
		t.Errorf("extend through a directory link: %v", err)
	}

	// The config itself a link out of the tree: refused, not read.
	if err := os.Remove(cfgPath); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(out, ".gitleaks.toml"), cfgPath)
	if cfg, _, err := Find(root, ""); err == nil {
		t.Errorf("a linked config outside the tree was loaded: %d rules", len(cfg.Rules))
	}

	// Links that stay inside the tree are fine.
	if err := os.Remove(cfgPath); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "real/base.toml", secretRule)
	symlink(t, filepath.Join("real", "base.toml"), filepath.Join(root, "inside.toml"))
	writeFile(t, root, ".gitleaks.toml", "[extend]\npath = 'inside.toml'\n")
	if cfg, _, err := Find(root, ""); err != nil || len(cfg.Rules) != 1 {
		t.Errorf("link inside the tree: %v", err)
	}
}
