package git

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// A cache directory (Cache.Dir) holds one directory per repository, named
// by its root commit, holding one directory per settings key (the first
// 128 bits of the key, in hex), holding that store's segments; and a file
// "repository" naming the git directory last scanned with it, for
// ListStores.

// repositoryFile names, in a repository's store, the git directory last
// scanned.
const repositoryFile = "repository"

// StoreInfo describes the store of one repository and one settings key in
// a cache directory.
type StoreInfo struct {
	Dir        string // the store's directory
	Root       string // the repository's root commit
	Repository string // the git directory last scanned with it, if known
	Segments   int
	// Clean and Found count the commits stored without and with findings
	// (a commit in two segments twice); Findings the findings.
	Clean, Found, Findings int
	Bytes                  int64
	Used                   time.Time // when a scan last read or wrote it
	// Problem is why a scan would not use the store (damaged, another
	// format); nil if it would.
	Problem error
}

// ListStores describes the stores in a cache directory, most recently
// used first. A directory that does not exist holds none.
func ListStores(dir string) ([]StoreInfo, error) {
	roots, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []StoreInfo
	for _, r := range roots {
		if !r.IsDir() || !isHexName(r.Name(), 2*odb.SHA1Size) && !isHexName(r.Name(), 2*odb.SHA256Size) {
			continue
		}
		rdir := filepath.Join(dir, r.Name())
		repo, _ := os.ReadFile(filepath.Join(rdir, repositoryFile))
		keys, err := os.ReadDir(rdir)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if !k.IsDir() || !isHexName(k.Name(), 32) {
				continue
			}
			info := StoreInfo{Dir: filepath.Join(rdir, k.Name()), Root: r.Name(), Repository: strings.TrimSpace(string(repo))}
			if fi, err := k.Info(); err == nil {
				info.Used = fi.ModTime()
			}
			inspectStore(&info, k.Name(), len(r.Name())/2)
			out = append(out, info)
		}
	}
	slices.SortFunc(out, func(a, b StoreInfo) int { return b.Used.Compare(a.Used) })
	return out, nil
}

// inspectStore reads a store's segments into info; keyName is the key's
// directory name, which every segment's key must begin with; idSize
// the length of the repository's object ids, told by its root's name.
func inspectStore(info *StoreInfo, keyName string, idSize int) {
	ents, err := os.ReadDir(info.Dir)
	if err != nil {
		info.Problem = err
		return
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), segmentExt) || strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(info.Dir, e.Name()))
		if err != nil {
			info.Problem = err
			continue
		}
		info.Segments++
		info.Bytes += int64(len(data))
		var key [32]byte
		if off := len(storeMagic) + 2; len(data) >= off+32 {
			copy(key[:], data[off:])
		}
		if hex.EncodeToString(key[:16]) != keyName {
			info.Problem = errStoreForeign
			continue
		}
		clean, found, err := decodeSegment(data, key, idSize)
		if err != nil {
			info.Problem = err
			continue
		}
		info.Clean += len(clean) / idSize
		info.Found += len(found)
		for _, fs := range found {
			info.Findings += len(fs)
		}
	}
}

// PruneStores removes from a cache directory the stores no scan has used
// for longer than unused (every store when unused is 0), and the
// repositories' directories they leave empty; it returns the directories
// removed. Only what a store is made of is removed: names of other shapes
// are left where they are, so a cache directory named by mistake (the
// home directory) loses nothing else.
func PruneStores(dir string, unused time.Duration) ([]string, error) {
	stores, err := ListStores(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, s := range stores {
		if unused > 0 && time.Since(s.Used) <= unused {
			continue
		}
		if err := removeStore(s.Dir); err != nil {
			return removed, err
		}
		removed = append(removed, s.Dir)
		rdir := filepath.Dir(s.Dir)
		if rest, err := os.ReadDir(rdir); err == nil && len(rest) <= 1 {
			if len(rest) == 1 && rest[0].Name() == repositoryFile {
				os.Remove(filepath.Join(rdir, repositoryFile))
			}
			os.Remove(rdir) // fails, harmlessly, if anything else is there
		}
	}
	if left, err := ListStores(dir); err == nil && len(left) == 0 {
		// The roots of the HEADs scanned last serve the stores only.
		os.Remove(filepath.Join(dir, headsFile))
	}
	return removed, nil
}

// removeStore removes a store's segments and temporary files, then its
// directory (if nothing else is in it).
func removeStore(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if name := e.Name(); !e.IsDir() && (strings.HasSuffix(name, segmentExt) || strings.HasPrefix(name, tmpPrefix) || name == recordName) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// isHexName reports whether name is n lower-case hex digits.
func isHexName(name string, n int) bool {
	if len(name) != n {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
