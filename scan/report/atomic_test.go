package report

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestAtomicFileReplacesTheTargetOnlyOnCommit(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	os.WriteFile(target, []byte("old report"), 0o640)

	a, err := CreateAtomic(target)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("new "))
	// Half written: the target is still the old report, whole.
	if got, _ := os.ReadFile(target); string(got) != "old report" {
		t.Fatalf("target during the write = %q", got)
	}
	a.Write([]byte("report"))
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "new report" {
		t.Fatalf("target after Commit = %q", got)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("files beside the report: %v", names)
	}
	if runtime.GOOS != "windows" {
		if info, _ := os.Stat(target); info.Mode().Perm() != 0o640 {
			t.Errorf("mode = %v, want the replaced file's 0640", info.Mode().Perm())
		}
	}
	if err := a.Abort(); err != nil {
		t.Errorf("Abort after Commit = %v, want nil", err)
	}
	if err := a.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}
	if _, err := a.Write([]byte("x")); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Write after Commit = %v", err)
	}
}

func TestAtomicFileAbortLeavesTheTargetAndNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	os.WriteFile(target, []byte("old"), 0o600)
	a, err := CreateAtomic(target)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("partial"))
	if err := a.Abort(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "old" {
		t.Fatalf("target after Abort = %q", got)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("files left beside the report: %v", names)
	}

	// A new report aborted leaves nothing at all.
	fresh := filepath.Join(dir, "new.json")
	a, err = CreateAtomic(fresh)
	if err != nil {
		t.Fatal(err)
	}
	a.Abort()
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("an aborted new report exists: %v", err)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("files left: %v", names)
	}
}

func TestAtomicFileHasNoNameWhileWrittenOnLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("O_TMPFILE is Linux's")
	}
	dir := t.TempDir()
	a, err := CreateAtomic(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Abort()
	a.Write([]byte("secret-bearing report"))
	// A kill now would leave nothing: the file has no name yet.
	if names := dirNames(t, dir); len(names) != 0 {
		t.Fatalf("visible while written: %v", names)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "r.json")); string(got) != "secret-bearing report" {
		t.Fatalf("committed %q", got)
	}
}

func TestAtomicFileNamedFallbackCommitsAndAborts(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "r.json")
	for _, commit := range []bool{true, false} {
		a := &AtomicFile{target: target}
		if err := a.createNamedTemp(); err != nil {
			t.Fatal(err)
		}
		a.Write([]byte("x"))
		if commit {
			if err := a.Commit(); err != nil {
				t.Fatal(err)
			}
		} else {
			a.Abort()
		}
		if names := dirNames(t, dir); len(names) != 1 || names[0] != "r.json" {
			t.Fatalf("commit=%v: files %v", commit, names)
		}
	}
}

func TestAtomicFileFollowsLinksAndWritesDevicesInPlace(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	os.WriteFile(real, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(real, link); err == nil {
		a, err := CreateAtomic(link)
		if err != nil {
			t.Fatal(err)
		}
		a.Write([]byte("new"))
		if err := a.Commit(); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v %v", info, err)
		}
		if got, _ := os.ReadFile(real); string(got) != "new" {
			t.Errorf("the linked file holds %q", got)
		}
	}
	if _, err := CreateAtomic(dir); err == nil {
		t.Error("a directory is accepted as a report path")
	}
	if runtime.GOOS != "windows" {
		a, err := CreateAtomic(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Write([]byte("discarded")); err != nil {
			t.Fatal(err)
		}
		if err := a.Commit(); err != nil {
			t.Fatalf("committing to %s: %v", os.DevNull, err)
		}
		if info, err := os.Stat(os.DevNull); err != nil || info.Mode().IsRegular() {
			t.Fatalf("%s was replaced: %v", os.DevNull, err)
		}
	}
}

func TestSameFileSeesThroughSpellingAndLinks(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "baseline.json")
	os.WriteFile(base, []byte("[]"), 0o600)
	other := filepath.Join(dir, "other.json")
	os.WriteFile(other, []byte("[]"), 0o600)
	if !SameFile(base, filepath.Join(dir, ".", "x", "..", "baseline.json")) {
		t.Error("another spelling of the path is not the same file")
	}
	if SameFile(base, other) || SameFile(base, filepath.Join(dir, "missing.json")) {
		t.Error("different or missing files are the same")
	}
	hard := filepath.Join(dir, "hard.json")
	if err := os.Link(base, hard); err == nil && !SameFile(base, hard) {
		t.Error("a hard link is not the same file")
	}
	sym := filepath.Join(dir, "sym.json")
	if err := os.Symlink(base, sym); err == nil && !SameFile(sym, base) {
		t.Error("a symbolic link is not the same file")
	}
}
