package ignore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFingerprintsReadGitleaksIgnoreFiles(t *testing.T) {
	ig, err := ParseFingerprints(strings.NewReader(`
# comment
src/app.go:generic-api-key:12
  cmd\win\main.go:github-pat:3  
0123456789abcdef0123456789abcdef01234567:deploy/.env:aws-access-key-id:7
abc1234:nested/dir/x.yaml:jwt:1
C:dir:odd.txt:r:5
`))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{
		"src/app.go:generic-api-key:12":                                            true,
		"src/app.go:generic-api-key:13":                                            false,
		"cmd/win/main.go:github-pat:3":                                             true, // backslashes read as slashes
		`cmd\win\main.go:github-pat:3`:                                             true,
		"deploy/.env:aws-access-key-id:7":                                          false, // an entry with a commit suppresses that commit only
		"0123456789abcdef0123456789abcdef01234567:deploy/.env:aws-access-key-id:7": true,
		"1111111111111111111111111111111111111111:deploy/.env:aws-access-key-id:7": false,
		"abc1234:nested/dir/x.yaml:jwt:1":                                          true,
		"2222222:src/app.go:generic-api-key:12":                                    true, // a global entry suppresses every commit
		"nested/dir/x.yaml:jwt:1":                                                  false,
		"C:dir:odd.txt:r:5":                                                        true, // ':' in a file name, no commit
		"# comment":                                                                false,
		"":                                                                         false,
	}
	for fp, want := range cases {
		if got := ig.Has(fp); got != want {
			t.Errorf("Has(%q) = %v, want %v", fp, got, want)
		}
	}
	if ig.Len() != 5 {
		t.Errorf("Len = %d, want 5", ig.Len())
	}
	var none *Fingerprints
	if none.Has("a:b:1") || none.Len() != 0 {
		t.Error("nil Ignore is not empty")
	}
}

func TestLoadFingerprintsAcceptsAFileOrItsDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".gitleaksignore"), []byte("a.go:r:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, ".gitleaksignore")} {
		ig, err := LoadFingerprints(p)
		if err != nil || !ig.Has("a.go:r:1") {
			t.Errorf("LoadFingerprints(%s): %v", p, err)
		}
	}
	_, err := LoadFingerprints(filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}
