package git

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// storeKey is the key of every setting that changes what a commit yields,
// so that a store answers only for scans that would find what it holds:
//
//   - the detector's key (scan.Keyed): the resolved config with
//     everything it extends, the built-in rules, the decoding kinds and
//     depth, the inline-allow and implausible-finding settings;
//   - the detection code's version (codeVersion);
//   - the scan options that reach a fragment's findings: archive depth and
//     budgets, the file size limit, binary scanning, the chunk size,
//     gitleaks' columns;
//   - the selection's options that change a commit's changes: first
//     parent only, paths, the diff filter, renames;
//   - the repository's object replacements (refs/replace), which change
//     what a commit id reads as, and its id length.
//
// The second result is false when no key can be made (a detector that is
// not scan.Keyed, a build whose code cannot be identified): the scan is
// then not cached.
func storeKey(sopts *scan.Options, sel *selection, idSize int, replace map[odb.ID]odb.ID) ([32]byte, bool) {
	kd, ok := sopts.Detector.(scan.Keyed)
	if !ok || kd.Key() == "" {
		return [32]byte{}, false
	}
	code := codeVersion()
	if code == "" {
		return [32]byte{}, false
	}
	depth := sopts.ArchiveDepth
	if depth == 0 {
		depth = scan.DefaultArchiveDepth
	}
	chunk := sopts.ChunkSize
	if chunk <= 0 {
		chunk = scan.DefaultChunkSize
	}
	limits := sopts.Archive
	limits.TempDir, limits.SpoolMemory = "", 0 // where and how a nested zip is spooled: no finding changes
	var b bytes.Buffer
	fmt.Fprintf(&b, "spindle history store %d\n", storeVersion)
	fmt.Fprintf(&b, "code %q\ndetector %q\n", code, kd.Key())
	fmt.Fprintf(&b, "archive depth %d\narchive limits %#v\nmax file %d\nbinary %t\nchunk %d\ngitleaks columns %t\n",
		depth, limits, sopts.MaxFileSize, sopts.ScanBinary, chunk, sopts.GitleaksColumns)
	fmt.Fprintf(&b, "first parent %t\npaths %q\ndiff filter %q %q\nrenames %t\n",
		sel.firstParent, sel.paths, sel.filter.include, sel.filter.exclude, sel.renames)
	fmt.Fprintf(&b, "id length %d\n", idSize)
	froms := slices.SortedFunc(func(yield func(odb.ID) bool) {
		for id := range replace {
			if !yield(id) {
				return
			}
		}
	}, func(a, b odb.ID) int { return bytes.Compare(a[:], b[:]) })
	for _, from := range froms {
		fmt.Fprintf(&b, "replace %s %s\n", from, replace[from])
	}
	return sha256.Sum256(b.Bytes()), true
}

// codeVersion identifies the code that scans: the build's module versions
// (the main module's and every dependency's, which decide how a scan
// finds) when the build is a released or committed one, and otherwise
// (a work tree with changes, a test binary, a dependency replaced by a
// directory) the SHA-256 of the executable itself, so that a store
// written by one build of changed code is never read by another. ""
// when neither can be read: nothing is then cached.
var codeVersion = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if ok && releasedBuild(bi) {
		return bi.String()
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return "executable " + hex.EncodeToString(h.Sum(nil))
})

// releasedBuild reports whether build information names the code
// exactly: a main module version from a tag or a commit without local
// changes, and no dependency replaced by a directory.
func releasedBuild(bi *debug.BuildInfo) bool {
	v := bi.Main.Version
	if v == "" || v == "(devel)" || strings.HasSuffix(v, "+dirty") {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.modified" && s.Value == "true" {
			return false
		}
	}
	for _, d := range bi.Deps {
		if d.Replace != nil && d.Replace.Version == "" {
			return false
		}
	}
	return true
}
