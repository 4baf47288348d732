package smallfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadTakesARegularFileUpToTheLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		limit int64
		ok    bool
	}{{10, true}, {11, true}, {9, false}, {0, false}} {
		data, err := Read(p, tt.limit)
		switch {
		case tt.ok && (err != nil || string(data) != "0123456789"):
			t.Errorf("limit %d: %q, %v", tt.limit, data, err)
		case !tt.ok && !errors.Is(err, ErrTooLarge):
			t.Errorf("limit %d: err = %v, want ErrTooLarge", tt.limit, err)
		case !tt.ok && !strings.Contains(err.Error(), p):
			t.Errorf("limit %d: the error %q does not name the file", tt.limit, err)
		}
	}
}

func TestReadRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	_, err := Read(dir, 1<<20)
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("a directory: %v", err)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != dir {
		t.Errorf("want an *fs.PathError naming %s, got %#v", dir, err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestReadInStaysInsideTheRoot(t *testing.T) {
	dir := t.TempDir()
	inner := filepath.Join(dir, "inner")
	os.Mkdir(inner, 0o755)
	os.WriteFile(filepath.Join(dir, "outside"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(inner, "inside"), []byte("ok"), 0o644)
	root, err := os.OpenRoot(inner)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if data, err := ReadIn(root, "inside", 10); err != nil || string(data) != "ok" {
		t.Errorf("inside: %q, %v", data, err)
	}
	if _, err := ReadIn(root, "../outside", 10); err == nil {
		t.Error("a name leaving the root was read")
	}
	if _, err := ReadIn(root, "inside", 1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("limit: %v", err)
	}
	if _, err := ReadIn(root, ".", 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("the root itself: %v", err)
	}
}

func TestSizeNamesLimitsInBinaryUnits(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 64 << 10: "64 KiB", 3 << 30: "3 GiB", 100: "100 bytes", 1500: "1500 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
