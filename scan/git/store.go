package git

import (
	"bytes"
	"compress/flate"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
	"github.com/spindle-go/spindle/scan/report"
)

// This file is the store of an incremental history scan: for one
// repository and one key of the settings that change what a commit
// yields (key.go), the findings of every commit scanned, before
// .gitleaksignore files, baselines and redaction apply.
//
// A store is a directory of segment files, each written whole to a
// temporary file and renamed into place, never changed after: a scan that
// scanned new commits adds one segment; when there are more than
// maxSegments, a scan merges them all into one and removes those it
// merged. Readers and writers take no lock: a segment is either there
// whole or not there, two scans that write at once write two segments,
// and a reader that finds a segment gone (merged meanwhile) lists the
// directory again. A scan killed at any point leaves at most a temporary
// file, removed by a later merge.
//
// A segment:
//
//	magic "SPNDLHS\n", version (1 byte), id length (1 byte), the settings key (32 bytes)
//	clean commits (uvarint), commits with findings (uvarint), compressed length (uvarint)
//	the clean commits' ids, sorted, each once
//	the commits with findings, deflated (storedFinding.append)
//	SHA-256 of everything before it
//
// Clean commits, nearly all of any history, cost their id alone: 20
// bytes. A segment that does not check out (damaged, truncated, another
// key's, an older format's) is a warning, and the scan then uses none of
// the store: it scans every commit and writes the store again.

// storeMagic begins every segment; storeVersion is its format's version.
const (
	storeMagic   = "SPNDLHS\n"
	storeVersion = 1
)

// maxSegments is how many segments a store holds before a scan merges
// them.
const maxSegments = 8

// maxKeys is how many settings keys a repository's store keeps (the rules
// of the last few releases, a config and a trial one): the least recently
// used beyond that are removed when a new one is made.
const maxKeys = 4

// maxStoreFindings bounds the inflated findings of one segment: a store
// is read whole, and a damaged or hostile one must not make the scan
// allocate without bound.
const maxStoreFindings = 256 << 20

// tmpPrefix names the temporary files segments are written to.
const tmpPrefix = "tmp-"

// segmentExt ends the name of every segment; atticPrefix begins the name
// of a segment of commits no ref reached when it was written.
const (
	segmentExt  = ".seg"
	atticPrefix = "attic-"
)

// storedFinding is one finding of a commit as the store keeps it: as the
// detector reported it for the commit's change, after the rules'
// allowlists (commit allowlists included), before the repository prefix,
// the commit's metadata, the fingerprint and the merge tag are added
// (history.commitFinding adds them, for a stored finding as for a new
// one).
type storedFinding struct {
	f     report.Finding
	merge bool // the change is a merge's own (report.TagMerge)
}

// store is one repository's stored results for one settings key.
type store struct {
	dir   string // <cache>/<repository>/<key>
	key   [32]byte
	idLen int
	segs  []string // the segments read, by name
	clean [][]byte // each segment's sorted ids of clean commits
	found map[odb.ID][]storedFinding
	// bySeg is what each segment read holds, by name, for a selection
	// record naming some of them (tips.go).
	bySeg   map[string]segment
	bytes   int64 // the segments' size
	problem error // why the store is not used, if it is not
}

// openStore reads the store in dir. A missing store is an empty one; a
// damaged, foreign or older one is reported in s.problem and not used.
func openStore(dir string, key [32]byte, idLen int) *store {
	s := &store{dir: dir, key: key, idLen: idLen, found: map[odb.ID][]storedFinding{}}
	for try := 0; ; try++ {
		err := s.read()
		if err == nil {
			break
		}
		if errors.Is(err, fs.ErrNotExist) && try < 5 {
			// A segment merged away between the listing and the read:
			// list again.
			*s = store{dir: dir, key: key, idLen: idLen, found: map[odb.ID][]storedFinding{}}
			continue
		}
		s.clean, s.found = nil, map[odb.ID][]storedFinding{}
		s.problem = err
		break
	}
	if s.segs != nil {
		// The directory's time says when the store was last used, for
		// pruning.
		now := time.Now()
		os.Chtimes(dir, now, now)
	}
	return s
}

// read lists and reads every segment.
func (s *store) read() error {
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, segmentExt) || strings.HasPrefix(name, tmpPrefix) {
			continue
		}
		s.segs = append(s.segs, name)
		data, err := os.ReadFile(filepath.Join(s.dir, name))
		if err != nil {
			return err
		}
		s.bytes += int64(len(data))
		clean, found, err := decodeSegment(data, s.key, s.idLen)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(s.dir, name), err)
		}
		if len(clean) > 0 {
			s.clean = append(s.clean, clean)
		}
		seg := segment{clean: clean}
		for id, fs := range found {
			s.found[id] = fs
			seg.found = append(seg.found, id)
		}
		if s.bySeg == nil {
			s.bySeg = map[string]segment{}
		}
		s.bySeg[name] = seg
	}
	return nil
}

// segment is what one segment holds: the sorted ids of its clean
// commits and the ids of its commits with findings.
type segment struct {
	clean []byte
	found []odb.ID
}

// lookup returns what the store holds for commit id: its findings (none
// for a clean commit) and whether it holds the commit at all.
func (s *store) lookup(id odb.ID) ([]storedFinding, bool) {
	if fs, ok := s.found[id]; ok {
		return fs, true
	}
	for _, ids := range s.clean {
		if containsID(ids, id[:s.idLen]) {
			return nil, true
		}
	}
	return nil, false
}

// save writes a segment with the commits a scan added: clean ones and
// those with findings. When the store was not usable, holds more than
// maxSegments segments after this one, or compact is set, it writes one
// segment with everything instead (what it read, less the commits keep
// refuses when keep is not nil, and what was added) and removes the
// segments it read; compact keeps what keep refuses too, in a segment of
// its own, which the next merge drops. It returns the name of the segment
// it wrote with the commits added ("" when it wrote nothing) and whether
// that segment replaced those read.
func (s *store) save(clean []odb.ID, found map[odb.ID][]storedFinding, keep func(odb.ID) bool, compact bool) (name string, merged bool, err error) {
	if len(clean) == 0 && len(found) == 0 && s.problem == nil && len(s.segs) <= maxSegments && !compact {
		return "", false, nil
	}
	newKey := false
	if _, err := os.Stat(s.dir); errors.Is(err, fs.ErrNotExist) {
		newKey = true
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", false, err
	}
	merge := s.problem != nil || len(s.segs)+1 > maxSegments || compact
	// The attic holds what a compaction keeps apart: commits no ref
	// reaches, kept for a branch that comes back, until the next
	// compaction or merge.
	var atticClean []odb.ID
	atticFound := map[odb.ID][]storedFinding{}
	if merge && s.problem == nil {
		n := s.idLen
		added := found
		found = make(map[odb.ID][]storedFinding, len(s.found)+len(found))
		for _, segName := range s.segs {
			seg := s.bySeg[segName]
			attic := compact && !strings.HasPrefix(segName, atticPrefix)
			for i := 0; i+n <= len(seg.clean); i += n {
				var id odb.ID
				copy(id[:], seg.clean[i:i+n])
				if keep == nil || keep(id) {
					clean = append(clean, id)
				} else if attic {
					atticClean = append(atticClean, id)
				}
			}
			for _, id := range seg.found {
				if keep == nil || keep(id) {
					found[id] = s.found[id]
				} else if attic {
					atticFound[id] = s.found[id]
				}
			}
		}
		for id, fs := range added {
			found[id] = fs
		}
	}
	data, err := encodeSegment(s.key, s.idLen, clean, found)
	if err != nil {
		return "", false, err
	}
	if name, err = writeSegment(s.dir, "", data); err != nil {
		return "", false, err
	}
	if len(atticClean) > 0 || len(atticFound) > 0 {
		data, err := encodeSegment(s.key, s.idLen, atticClean, atticFound)
		if err == nil {
			_, err = writeSegment(s.dir, atticPrefix, data)
		}
		if err != nil {
			// What is dropped costs a later scan its time only.
			os.Remove(filepath.Join(s.dir, name))
			return "", false, err
		}
	}
	if merge {
		for _, old := range s.segs {
			os.Remove(filepath.Join(s.dir, old))
		}
		removeStaleTemps(s.dir)
	}
	if newKey {
		pruneKeys(filepath.Dir(s.dir), maxKeys)
	}
	return name, merge, nil
}

// writeSegment writes data as a new segment of dir, to a temporary file
// renamed into place once complete, and returns its name, which begins
// with prefix.
func writeSegment(dir, prefix string, data []byte) (string, error) {
	var r [8]byte
	rand.Read(r[:])
	name := fmt.Sprintf("%s%016x-%s%s", prefix, time.Now().UnixNano(), hex.EncodeToString(r[:]), segmentExt)
	return name, writeFileAtomic(dir, name, data)
}

// writeFileAtomic writes data to dir/name through a temporary file
// renamed into place once complete: a reader finds the old file or the
// new one, whole.
func writeFileAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, tmpPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// removeStaleTemps removes temporary files older than an hour: those of
// scans killed while writing (a scan writing now has a younger one).
func removeStaleTemps(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// pruneKeys keeps the n most recently used key directories of a
// repository's store.
func pruneKeys(repoDir string, n int) {
	ents, err := os.ReadDir(repoDir)
	if err != nil {
		return
	}
	type dir struct {
		name string
		used time.Time
	}
	var dirs []dir
	for _, e := range ents {
		if !e.IsDir() || !isHexName(e.Name(), 32) {
			continue
		}
		if fi, err := e.Info(); err == nil {
			dirs = append(dirs, dir{e.Name(), fi.ModTime()})
		}
	}
	if len(dirs) <= n {
		return
	}
	slices.SortFunc(dirs, func(a, b dir) int { return b.used.Compare(a.used) })
	for _, d := range dirs[n:] {
		removeStore(filepath.Join(repoDir, d.name))
	}
}

// ErrStoreDamaged is the error of a store segment that does not check out:
// truncated, changed, or not a segment at all.
var ErrStoreDamaged = errors.New("damaged: its checksum does not match")

// errStoreForeign and errStoreFormat are the errors of a segment of
// another settings key or repository, or of another format.
var (
	errStoreForeign = errors.New("not a store of these settings")
	errStoreFormat  = errors.New("written in another format")
)

// encodeSegment encodes a segment (see the file's comment).
func encodeSegment(key [32]byte, idLen int, clean []odb.ID, found map[odb.ID][]storedFinding) ([]byte, error) {
	slices.SortFunc(clean, func(a, b odb.ID) int { return bytes.Compare(a[:], b[:]) })
	clean = slices.Compact(clean)
	ids := slices.SortedFunc(func(yield func(odb.ID) bool) {
		for id := range found {
			if !yield(id) {
				return
			}
		}
	}, func(a, b odb.ID) int { return bytes.Compare(a[:], b[:]) })
	var raw []byte
	for _, id := range ids {
		raw = append(raw, id[:idLen]...)
		fs := found[id]
		raw = binary.AppendUvarint(raw, uint64(len(fs)))
		for _, f := range fs {
			raw = f.append(raw)
		}
	}
	var z bytes.Buffer
	zw, _ := flate.NewWriter(&z, flate.BestSpeed)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	out := make([]byte, 0, 64+len(clean)*idLen+z.Len()+sha256.Size)
	out = append(out, storeMagic...)
	out = append(out, storeVersion, byte(idLen))
	out = append(out, key[:]...)
	out = binary.AppendUvarint(out, uint64(len(clean)))
	out = binary.AppendUvarint(out, uint64(len(ids)))
	out = binary.AppendUvarint(out, uint64(z.Len()))
	for _, id := range clean {
		out = append(out, id[:idLen]...)
	}
	out = append(out, z.Bytes()...)
	sum := sha256.Sum256(out)
	return append(out, sum[:]...), nil
}

// decodeSegment checks and decodes a segment: the sorted ids of its clean
// commits (a slice of data) and its commits with findings. It reads each
// byte once, and allocates in proportion to what it reads (the inflated
// findings at most maxStoreFindings).
func decodeSegment(data []byte, key [32]byte, idLen int) ([]byte, map[odb.ID][]storedFinding, error) {
	if len(data) < len(storeMagic)+2+32+sha256.Size || string(data[:len(storeMagic)]) != storeMagic {
		if len(data) >= len(storeMagic) && string(data[:len(storeMagic)]) != storeMagic {
			return nil, nil, errStoreForeign
		}
		return nil, nil, ErrStoreDamaged
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, nil, ErrStoreDamaged
	}
	p := body[len(storeMagic):]
	if p[0] != storeVersion {
		return nil, nil, fmt.Errorf("%w (version %d, this one reads %d)", errStoreFormat, p[0], storeVersion)
	}
	if int(p[1]) != idLen {
		return nil, nil, errStoreForeign
	}
	if !bytes.Equal(p[2:34], key[:]) {
		return nil, nil, errStoreForeign
	}
	d := decoder{b: p[34:]}
	nClean, nFound, zlen := d.uvarint(), d.uvarint(), d.uvarint()
	if d.err != nil || nClean > uint64(len(d.b)/idLen) {
		return nil, nil, ErrStoreDamaged
	}
	clean := d.b[:int(nClean)*idLen]
	d.b = d.b[len(clean):]
	for i := idLen; i < len(clean); i += idLen {
		if bytes.Compare(clean[i-idLen:i], clean[i:i+idLen]) >= 0 {
			return nil, nil, ErrStoreDamaged
		}
	}
	if zlen != uint64(len(d.b)) {
		return nil, nil, ErrStoreDamaged
	}
	found := map[odb.ID][]storedFinding{}
	if nFound == 0 {
		return clean, found, nil
	}
	raw, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(d.b)), maxStoreFindings+1))
	if err != nil || len(raw) > maxStoreFindings {
		return nil, nil, ErrStoreDamaged
	}
	d = decoder{b: raw}
	// Each commit takes at least its id and a count.
	if nFound > uint64(len(raw)/(idLen+1)) {
		return nil, nil, ErrStoreDamaged
	}
	for range nFound {
		var id odb.ID
		copy(id[:], d.bytes(idLen))
		n := d.uvarint()
		if d.err != nil || n == 0 || n > uint64(len(d.b)/minFindingLen) {
			return nil, nil, ErrStoreDamaged
		}
		fs := make([]storedFinding, 0, n)
		for range n {
			var f storedFinding
			f.read(&d)
			fs = append(fs, f)
		}
		if d.err != nil {
			return nil, nil, ErrStoreDamaged
		}
		found[id] = fs
	}
	if len(d.b) != 0 || len(found) != int(nFound) {
		return nil, nil, ErrStoreDamaged
	}
	return clean, found, nil
}

// minFindingLen is the fewest bytes a stored finding takes: a flag, five
// empty strings, four one-byte numbers, the entropy, no tags.
const minFindingLen = 1 + 5 + 4 + 8 + 1

// append encodes f.
func (f *storedFinding) append(b []byte) []byte {
	var flags byte
	if f.merge {
		flags = 1
	}
	b = append(b, flags)
	for _, s := range []string{f.f.RuleID, f.f.Description, f.f.File, f.f.Secret, f.f.Match} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, n := range []int{f.f.Line, f.f.Column, f.f.EndLine, f.f.EndColumn} {
		b = binary.AppendVarint(b, int64(n))
	}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f.f.Entropy))
	b = binary.AppendUvarint(b, uint64(len(f.f.Tags)))
	for _, t := range f.f.Tags {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	return b
}

// read decodes a finding that append encoded.
func (f *storedFinding) read(d *decoder) {
	flags := d.bytes(1)
	f.merge = len(flags) == 1 && flags[0]&1 != 0
	for _, s := range []*string{&f.f.RuleID, &f.f.Description, &f.f.File, &f.f.Secret, &f.f.Match} {
		*s = d.str()
	}
	for _, n := range []*int{&f.f.Line, &f.f.Column, &f.f.EndLine, &f.f.EndColumn} {
		*n = int(d.varint())
	}
	if e := d.bytes(8); len(e) == 8 {
		f.f.Entropy = math.Float64frombits(binary.LittleEndian.Uint64(e))
	}
	nt := d.uvarint()
	if nt > uint64(len(d.b)) {
		d.err = ErrStoreDamaged
		return
	}
	if nt > 0 {
		f.f.Tags = make([]string, 0, nt)
		for range nt {
			f.f.Tags = append(f.f.Tags, d.str())
		}
	}
}

// decoder reads a segment's fields; the first error sticks, and every
// read after it returns zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = ErrStoreDamaged
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 || v > math.MaxInt32 || v < math.MinInt32 {
		d.err = ErrStoreDamaged
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil || n > len(d.b) {
		d.err = ErrStoreDamaged
		return nil
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b
}

func (d *decoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err = ErrStoreDamaged
		return ""
	}
	return string(d.bytes(int(n)))
}
