package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spindle-go/spindle/internal/smallfile"
)

// This file reads config files as untrusted input. A scan loads the
// scanned tree's own .gitleaks.toml by itself, so whoever can add a file
// to a repository (a pull request) chooses that config and what it
// extends. Each file must be a regular file of at most maxConfigSize
// bytes (a FIFO would block the open, /dev/zero would never end), and a
// config found in a tree reads only files inside that tree.

// maxConfigSize is the largest config file read, in bytes. gitleaks' own
// default config is 98 KB; ten times that leaves room for any real
// config, and bounds what a hostile one can make the decoder do.
const maxConfigSize = 1 << 20

// maxRules and maxAllowlists bound what a config may hold once extended,
// since a scan's time grows with both: about twenty times gitleaks'
// 222 rules, and as many allowlists (global and per rule).
const (
	maxRules      = 4096
	maxAllowlists = 4096
)

// countProblem refuses a config with more rules or allowlists than the
// limits allow.
func countProblem(cfg *Config) string {
	allow := len(cfg.Allowlists)
	for _, r := range cfg.Rules {
		allow += len(r.Allowlists)
	}
	switch {
	case len(cfg.Rules) > maxRules:
		return fmt.Sprintf("%d rules, more than the %d a config may have", len(cfg.Rules), maxRules)
	case allow > maxAllowlists:
		return fmt.Sprintf("%d allowlists, more than the %d a config may have", allow, maxAllowlists)
	}
	return ""
}

// Problems with a config file itself; a ConfigError wraps them.
var (
	errNotRegular  = smallfile.ErrNotRegular
	errTooLarge    = fmt.Errorf("larger than the %d KiB a config may have", maxConfigSize>>10)
	errTooDeep     = fmt.Errorf("nested more than %d levels deep", maxNesting)
	errEscapesTree = errors.New("outside the scanned tree (only a config given explicitly may read files there)")
)

// Origin says where a config came from, which decides what its [extend]
// path may name.
type Origin int

const (
	// BuiltIn is the embedded default rules.
	BuiltIn Origin = iota
	// Explicit is a config the caller chose (a command-line flag, Parse's
	// data): trusted, so [extend] may name any file.
	Explicit
	// FoundInTree is a config Find found in the scanned tree: untrusted,
	// so it and every file it extends must lie inside that tree.
	FoundInTree
)

// String describes the origin in words, for messages.
func (o Origin) String() string {
	switch o {
	case BuiltIn:
		return "built-in rules"
	case Explicit:
		return "given explicitly"
	case FoundInTree:
		return "found in the scanned tree"
	}
	return fmt.Sprintf("Origin(%d)", int(o))
}

// files reads the files of an extend chain. With a nil root it reads any
// path (a trusted config); with one, only files under the root, whose
// symbolic links may not leave it either.
type files struct {
	root *os.Root // opened at real
	dir  string   // the root's directory as the caller spelled it, for names
	real string   // that directory with symbolic links resolved
	// builtin is what [extend] useDefault names in every file of the
	// chain: the built-in rules with or without spindle's own.
	builtin Builtin
}

// name returns the path a message uses for rel, a path inside the root.
func (f *files) name(rel string) string {
	if f.root == nil {
		return rel
	}
	return filepath.Join(f.dir, rel)
}

// extendTarget resolves an [extend] path written in the config named
// source. A relative path is relative to source's directory (or, for
// source "", to the working directory). Under a root the result must stay
// inside it, and is returned relative to it, as spelled (read resolves
// the links in it).
func (f *files) extendTarget(source, path string) (string, error) {
	if f.root == nil {
		if !filepath.IsAbs(path) && source != "" {
			path = filepath.Join(filepath.Dir(source), path)
		}
		return path, nil
	}
	var rel string
	if filepath.IsAbs(path) {
		// An absolute path may still name a file inside the tree, spelled
		// from the tree's path as given or as resolved.
		rel = relInside(f.dir, path)
		if rel == "" {
			rel = relInside(f.real, path)
		}
	} else if from, err := filepath.Rel(f.dir, source); err == nil {
		rel = filepath.Join(filepath.Dir(from), path)
	}
	if rel == "" || !filepath.IsLocal(rel) {
		return "", errEscapesTree
	}
	return rel, nil
}

// resolve follows the symbolic links in rel, a path inside the root, and
// returns the file's path relative to the root's real directory, or
// errEscapesTree if a link leads out of the tree. A path that does not
// resolve is returned as it is, for read to report why.
func (f *files) resolve(rel string) (string, error) {
	resolved, err := filepath.EvalSymlinks(filepath.Join(f.real, rel))
	if err != nil {
		return rel, nil
	}
	if r := relInside(f.real, resolved); r != "" {
		return r, nil
	}
	return "", errEscapesTree
}

// relInside returns path relative to dir if path lies inside dir, else "".
func relInside(dir, path string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	path, err = filepath.Abs(path)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	return rel
}

// read returns the content of the config at name (relative to the root,
// under one), refusing anything but a regular file of at most
// maxConfigSize bytes. Nothing else is opened: a FIFO or a device would
// wait or read forever.
func (f *files) read(name string) ([]byte, error) {
	var (
		data []byte
		err  error
	)
	if f.root == nil {
		data, err = smallfile.Read(name, maxConfigSize)
	} else {
		// Links are resolved here, to refuse with a clear error those that
		// leave the tree; os.Root then refuses any that a concurrent change
		// makes leave it.
		if name, err = f.resolve(name); err != nil {
			return nil, err
		}
		data, err = smallfile.ReadIn(f.root, name, maxConfigSize)
	}
	// The callers name the file; a ConfigError says what was wrong with it.
	var pe *fs.PathError
	switch {
	case errors.Is(err, smallfile.ErrTooLarge):
		return nil, errTooLarge
	case errors.As(err, &pe) && pe.Op == "read":
		return nil, pe.Err
	}
	return data, err
}
