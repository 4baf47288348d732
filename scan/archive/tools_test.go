package archive

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tests in this file build their archives with the real tools (7z,
// zip, zstd, gzip, bzip2, xz), as users make them, and skip when a tool is
// missing.

// tool returns the path of a command, or skips the test.
func tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed", name)
	}
	return p
}

// run runs a command in dir and fails the test if it fails.
func run(t testing.TB, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(tool(t, name), args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// writeTree writes files under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sampleTree is a small source tree: text, a secret, a bigger file, an
// empty one, and x86-like code (E8 and E9 opcodes with near operands, what
// the BCJ filter rewrites).
func sampleTree() map[string]string {
	var seq strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&seq, "%d\n", i)
	}
	code := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i+5 <= len(code); {
		switch rng.IntN(4) {
		case 0, 1: // a call or jump to a near target, forwards or back
			code[i] = 0xe8 + byte(rng.IntN(2))
			off := int32(rng.IntN(1<<16) - 1<<15)
			code[i+1], code[i+2], code[i+3], code[i+4] = byte(off), byte(off>>8), byte(off>>16), byte(off>>24)
			i += 5
		default:
			code[i] = byte(rng.IntN(256))
			i++
		}
	}
	return map[string]string{"d/a.env": secret, "d/sub/seq.txt": seq.String(), "d/empty.txt": "", "d/prog.bin": string(code)}
}

// withPrefix returns files with each name prefixed.
func withPrefix(prefix string, files map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range files {
		m[prefix+k] = v
	}
	return m
}

// walkFile walks the file at path, named name, through an *os.File.
func walkFile(t testing.TB, path, name string, lim Limits) result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	return walkReader(t, name, f, fi.Size(), lim)
}

func TestSevenZipMadeBy7zIsRead(t *testing.T) {
	tool(t, "7z")
	dir := t.TempDir()
	writeTree(t, dir, sampleTree())
	tests := []struct {
		name string
		args []string
	}{
		{"solid.7z", nil},
		{"nonsolid.7z", []string{"-ms=off"}},
		{"lzma.7z", []string{"-m0=LZMA"}},
		{"lzma2-mx9.7z", []string{"-mx=9"}},
		{"bcj.7z", []string{"-mf=BCJ"}},
		{"delta.7z", []string{"-mf=Delta:4"}},
		{"deflate.7z", []string{"-m0=Deflate"}},
		{"bzip2.7z", []string{"-m0=BZip2"}},
		{"copy.7z", []string{"-mx=0"}},
		{"plainheader.7z", []string{"-mhc=off"}},
	}
	want := withPrefix("", sampleTree())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, dir, "7z", append(append([]string{"a", "-bd", tt.name}, tt.args...), "d")...)
			for _, via := range []string{"file", "stream"} {
				var res result
				if via == "file" {
					res = walkFile(t, filepath.Join(dir, tt.name), tt.name, DefaultLimits())
				} else {
					data, _ := os.ReadFile(filepath.Join(dir, tt.name))
					res = walkReader(t, tt.name, plainReader{bytes.NewReader(data)}, -1, DefaultLimits())
				}
				if res.err != nil || len(res.warnings) != 0 {
					t.Fatalf("%s: err %v, warnings %v", via, res.err, res.warnings)
				}
				if !maps.Equal(res.members, withPrefix(tt.name+"!", want)) {
					t.Errorf("%s: members %v", via, slices.Sorted(maps.Keys(res.members)))
				}
			}
		})
	}
}

func TestSevenZipMethodsNotReadAreNamedAsUnsupportedOrEncrypted(t *testing.T) {
	tool(t, "7z")
	dir := t.TempDir()
	writeTree(t, dir, sampleTree())
	tests := []struct {
		name     string
		args     []string
		is       error
		members  int  // members named in warnings
		lostOpen bool // the header itself cannot be read: one warning, for the archive
	}{
		// empty.txt has no data, so nothing to decode: it is visited.
		{"ppmd.7z", []string{"-m0=PPMd"}, ErrUnsupported, 3, false},
		{"encdata.7z", []string{"-ppw"}, ErrEncrypted, 3, false},
		{"encheader.7z", []string{"-ppw", "-mhe=on"}, ErrEncrypted, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, dir, "7z", append(append([]string{"a", "-bd", tt.name}, tt.args...), "d")...)
			res := walkFile(t, filepath.Join(dir, tt.name), tt.name, DefaultLimits())
			if res.err != nil {
				t.Fatal(res.err)
			}
			named := 0
			for _, w := range res.warnings {
				var fe *FormatError
				if !errors.As(w, &fe) || !errors.Is(fe, tt.is) || !fe.Lost {
					t.Errorf("warning %v: want a lost-data %v", w, tt.is)
					continue
				}
				if strings.HasPrefix(fe.Name, tt.name+"!") {
					named++
				}
			}
			if tt.lostOpen && len(res.warnings) != 1 || named != tt.members {
				t.Errorf("warnings %v: want %d naming members", res.warnings, tt.members)
			}
		})
	}
}

func TestArchivesNestedIn7zAnd7zNestedInOthersAreWalked(t *testing.T) {
	tool(t, "7z")
	tool(t, "zip")
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"in/x.env": secret})
	run(t, dir, "zip", "-qr", "inner.zip", "in")
	run(t, dir, "7z", "a", "-bd", "inner.7z", "in")
	run(t, dir, "7z", "a", "-bd", "outer.7z", "inner.zip", "in")
	run(t, dir, "zip", "-q", "outer.zip", "inner.7z")
	for name, want := range map[string][]string{
		"outer.7z":  {"outer.7z!inner.zip!in/x.env", "outer.7z!in/x.env"},
		"outer.zip": {"outer.zip!inner.7z!in/x.env"},
	} {
		res := walkFile(t, filepath.Join(dir, name), name, DefaultLimits())
		if res.err != nil || len(res.warnings) != 0 {
			t.Fatalf("%s: err %v, warnings %v", name, res.err, res.warnings)
		}
		for _, m := range want {
			if res.members[m] != secret {
				t.Errorf("%s: member %s = %q; members %v", name, m, res.members[m], slices.Sorted(maps.Keys(res.members)))
			}
		}
	}
}
