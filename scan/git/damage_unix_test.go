//go:build unix

package git

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
)

// TestFIFOsAndAbsentAlternatesNeverScanAsClean: a FIFO in place of the
// .pack or the .idx (never opened: it would block), and alternates whose
// objects are absent, each make the scan say it lost data, or fail.
func TestFIFOsAndAbsentAlternatesNeverScanAsClean(t *testing.T) {
	src := packedSecretRepo(t)
	det := detector(t)
	want := make([]string, damageSecrets)
	for i := range want {
		want[i] = tok(i)
	}
	slices.Sort(want)
	var outcomes sync.Map
	copyRepo := func(t *testing.T) (dir, pack, idx string) {
		dir = filepath.Join(t.TempDir(), "repo.git")
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		pack, idx = packFiles(t, dir)
		return dir, pack, idx
	}
	for _, which := range []string{"pack", "idx"} {
		t.Run("a FIFO in place of the "+which, func(t *testing.T) {
			dir, pack, idx := copyRepo(t)
			path := map[string]string{"pack": pack, "idx": idx}[which]
			os.Remove(path)
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skip("mkfifo:", err)
			}
			checkDamaged(t, det, dir, want, &outcomes)
		})
	}
	t.Run("alternates whose objects are absent", func(t *testing.T) {
		dir, _, _ := copyRepo(t)
		elsewhere := filepath.Join(t.TempDir(), "objects")
		if err := os.Rename(filepath.Join(dir, "objects"), elsewhere); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "objects", "info"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "objects", "info", "alternates"), []byte(elsewhere+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if found, st, err := scanSecrets(det, dir); err != nil || st.Lost != 0 || !slices.Equal(found, want) {
			t.Fatalf("alternates present: %d secrets, %d lost, %v", len(found), st.Lost, err)
		}
		if err := os.RemoveAll(elsewhere); err != nil {
			t.Fatal(err)
		}
		checkDamaged(t, det, dir, want, &outcomes)
	})
}
