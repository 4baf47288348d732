package scan

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/archive"
)

// TestArchivePartsSpendingTheBudgetReportEachMemberOnce reads a zip whose
// members are read in parallel part groups until the archive budget runs
// out, on 1, 2 and 4 workers. Each member ends with its secret and is
// exactly the member budget long, so a member read whole has its secret
// found, and a member cut short loses it. Every member is then either
// found or named in a budget warning, never both and never neither, and
// never reported as corrupt, however the parts that were reading when the
// budget ran out were cut; the bytes scanned are the archive budget
// exactly.
func TestArchivePartsSpendingTheBudgetReportEachMemberOnce(t *testing.T) {
	const (
		members = 24
		size    = 256 << 10 // four members to a part group
	)
	dir := t.TempDir()
	path := filepath.Join(dir, "parts.zip")
	f, err := os.Create(path)
	must(t, err)
	zw := zip.NewWriter(f)
	body := strings.Repeat("a line of text to be scanned\n", size)
	for i := range members {
		tail := "k=" + secret(i)
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: "m" + itoa(i) + ".txt", Method: zip.Store})
		must(t, err)
		io.WriteString(fw, body[:size-len(tail)])
		io.WriteString(fw, tail)
	}
	must(t, zw.Close())
	must(t, f.Close())
	lim := archive.Limits{MaxMemberBytes: size, MaxArchiveBytes: 5*size + 1234}
	rounds := 3
	if testing.Short() {
		rounds = 1
	}
	for range rounds {
		for _, workers := range []int{1, 2, 4} {
			found, warns, st, err := collect(t, Options{Detector: newFake(), Workers: workers, MaxInFlight: 2, ArchiveDepth: 1, Archive: lim}, dir)
			if err != nil {
				t.Fatal(err)
			}
			whole := map[string]bool{}
			for _, k := range found {
				for i := range members {
					if k.File == "parts.zip!m"+itoa(i)+".txt" && k.Secret == secret(i)[len("SECRET_"):] {
						whole[k.File] = true
					}
				}
			}
			named := map[string]bool{}
			for _, w := range archiveWarnings(t, warns) {
				if b := budgetOf(w); b != archive.BudgetArchiveBytes && b != archive.BudgetMemberBytes || named[w.Path] || !w.Lost {
					t.Errorf("%d workers: warning %v: want one archive-bytes budget per member cut, lost data", workers, w)
				}
				named[w.Path] = true
			}
			for i := range members {
				name := "parts.zip!m" + itoa(i) + ".txt"
				if whole[name] == named[name] {
					t.Errorf("%d workers: %s: secret found %v, named in a warning %v; want exactly one", workers, name, whole[name], named[name])
				}
			}
			if st.Bytes != lim.MaxArchiveBytes || len(whole) > 5 {
				t.Errorf("%d workers: %d bytes scanned, %d members whole; want the archive budget, %d, and at most 5", workers, st.Bytes, len(whole), lim.MaxArchiveBytes)
			}
		}
	}
}
