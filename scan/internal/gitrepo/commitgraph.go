package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// CommitGraph is the commit-graph file git writes beside a repository's
// objects (objects/info/commit-graph, or a chain of them under
// objects/info/commit-graphs): for each commit, its tree, its parents and
// its date, so that a walk need not read the commit objects. Git uses it
// the same way; it is only a cache, and a commit it does not hold is read
// from its object.
//
// The file is untrusted input: every offset and position is checked
// against the data, and a file that does not hold together is not used
// at all (Open's error says why). Its trailing checksum is checked when
// it is opened (a few milliseconds for a history of 50,000 commits): a
// damaged graph, whose trees or parents would send a walk elsewhere than
// the commit objects do, is not used, and the walk reads the commits
// themselves, which is what git's view of the history is made of.
type CommitGraph struct {
	layers []*graphLayer // base first
}

// graphLayer is one file of a commit-graph chain.
type graphLayer struct {
	data   []byte
	hs     int    // id length: 20 or 32
	n      uint32 // commits in this file
	before uint32 // commits in the files below it (their positions come first)
	fanout []byte // 256 × 4
	oids   []byte // n × hs
	cdat   []byte // n × (hs+16)
	edges  []byte // extra parents of octopus merges, 4 bytes each
}

// maxCommitGraph bounds a commit-graph file read (36 bytes and an id a
// commit: 10 million commits).
const maxCommitGraph = 600 << 20

const (
	graphNoParent   = 0x70000000
	graphExtraEdges = 0x80000000
	graphLastEdge   = 0x80000000
)

// errGraph is wrapped by the errors about a commit-graph's content.
var errGraph = errors.New("malformed commit-graph")

// OpenCommitGraph reads the repository's commit-graph, if it has one and
// git would use it: not when core.commitGraph is false, nor when refs
// replace objects or the clone is shallow (git then ignores the graph,
// whose parents could disagree). It returns nil and no error when there
// is none to use.
func (r *Repo) OpenCommitGraph(replacing bool) (*CommitGraph, error) {
	if use, ok := r.Config.Bool("core", "", "commitgraph"); ok && !use {
		return nil, nil
	}
	if replacing {
		return nil, nil
	}
	if sh, _ := r.Shallow(); len(sh) > 0 {
		return nil, nil
	}
	info := filepath.Join(r.ObjectsDir, "info")
	chain, err := readLimited(filepath.Join(info, "commit-graphs", "commit-graph-chain"), 1<<20)
	var files []string
	switch {
	case err == nil:
		for _, h := range strings.Fields(string(chain)) {
			if !isHexID(h, r.HashSize) {
				return nil, fmt.Errorf("%w: chain names %q", errGraph, h)
			}
			files = append(files, filepath.Join(info, "commit-graphs", "graph-"+h+".graph"))
		}
	case errors.Is(err, os.ErrNotExist):
		files = []string{filepath.Join(info, "commit-graph")}
	default:
		return nil, err
	}
	g := &CommitGraph{}
	var before uint32
	for i, f := range files {
		data, err := readLimited(f, maxCommitGraph)
		if errors.Is(err, os.ErrNotExist) && len(files) == 1 {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		l, err := parseGraphLayer(data, i, r.HashSize)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		l.before = before
		if uint64(before)+uint64(l.n) >= graphNoParent {
			return nil, fmt.Errorf("%s: %w: too many commits", f, errGraph)
		}
		before += l.n
		g.layers = append(g.layers, l)
	}
	return g, nil
}

// parseGraphLayer checks and indexes one commit-graph file of a
// repository whose ids are hs bytes long; bases is how many files of its
// chain come before it. The file's checksum (its last hs bytes, the
// digest of the rest) must match.
func parseGraphLayer(data []byte, bases, hs int) (*graphLayer, error) {
	if len(data) < 8+12+hs || string(data[:4]) != "CGPH" {
		return nil, fmt.Errorf("%w: no CGPH header", errGraph)
	}
	hashVersion := byte(1)
	if hs == odb.SHA256Size {
		hashVersion = 2
	}
	if data[4] != 1 || data[5] != hashVersion {
		return nil, fmt.Errorf("%w: version %d, hash version %d (want 1, %d)", errGraph, data[4], data[5], hashVersion)
	}
	if !checksumOK(data, hs) {
		return nil, fmt.Errorf("%w: checksum mismatch (the file is damaged)", errGraph)
	}
	data = data[:len(data)-hs]
	chunks := int(data[6])
	if int(data[7]) != bases {
		return nil, fmt.Errorf("%w: %d base graphs, the chain has %d", errGraph, data[7], bases)
	}
	table := data[8:]
	if len(table) < (chunks+1)*12 {
		return nil, fmt.Errorf("%w: chunk table truncated", errGraph)
	}
	l := &graphLayer{data: data, hs: hs}
	for i := 0; i < chunks; i++ {
		id := string(table[i*12 : i*12+4])
		lo := binary.BigEndian.Uint64(table[i*12+4:])
		hi := binary.BigEndian.Uint64(table[(i+1)*12+4:])
		if lo > hi || hi > uint64(len(data)) || lo < uint64(8+(chunks+1)*12) {
			return nil, fmt.Errorf("%w: chunk %q at [%d,%d)", errGraph, id, lo, hi)
		}
		chunk := data[lo:hi]
		switch id {
		case "OIDF":
			l.fanout = chunk
		case "OIDL":
			l.oids = chunk
		case "CDAT":
			l.cdat = chunk
		case "EDGE":
			l.edges = chunk
		}
	}
	if len(l.fanout) != 256*4 {
		return nil, fmt.Errorf("%w: no fanout", errGraph)
	}
	prev := uint32(0)
	for i := 0; i < 256; i++ {
		v := binary.BigEndian.Uint32(l.fanout[i*4:])
		if v < prev {
			return nil, fmt.Errorf("%w: fanout not sorted", errGraph)
		}
		prev = v
	}
	l.n = prev
	if uint64(len(l.oids)) != uint64(l.n)*uint64(hs) || uint64(len(l.cdat)) != uint64(l.n)*uint64(hs+16) {
		return nil, fmt.Errorf("%w: %d commits, but ids or data of another length", errGraph, l.n)
	}
	if len(l.edges)%4 != 0 {
		return nil, fmt.Errorf("%w: extra edges truncated", errGraph)
	}
	return l, nil
}

// Lookup returns what the graph holds of commit id: its tree, its parents
// (appended to parents) and its committer date. ok is false when the
// graph does not hold the commit, or holds it damaged (then the caller
// reads the commit itself).
func (g *CommitGraph) Lookup(id odb.ID, parents []odb.ID) (tree odb.ID, ps []odb.ID, when int64, ok bool) {
	if g == nil {
		return tree, parents, 0, false
	}
	for _, l := range g.layers {
		pos, found := l.find(&id)
		if !found {
			continue
		}
		hs := uint32(l.hs)
		rec := l.cdat[pos*(hs+16):]
		copy(tree[:hs], rec[:hs])
		p1 := binary.BigEndian.Uint32(rec[hs:])
		p2 := binary.BigEndian.Uint32(rec[hs+4:])
		hi := binary.BigEndian.Uint32(rec[hs+8:])
		lo := binary.BigEndian.Uint32(rec[hs+12:])
		when = int64(hi&3)<<32 | int64(lo)
		ps = parents
		if p1 != graphNoParent {
			pid, ok := g.at(p1)
			if !ok {
				return tree, parents, 0, false
			}
			ps = append(ps, pid)
		}
		switch {
		case p2 == graphNoParent:
		case p2&graphExtraEdges == 0:
			pid, ok := g.at(p2)
			if !ok {
				return tree, parents, 0, false
			}
			ps = append(ps, pid)
		default:
			// An octopus merge: its other parents are a run of the
			// extra-edge list, the last one flagged.
			for i := uint64(p2 &^ graphExtraEdges); ; i++ {
				if (i+1)*4 > uint64(len(l.edges)) {
					return tree, parents, 0, false
				}
				e := binary.BigEndian.Uint32(l.edges[i*4:])
				pid, ok := g.at(e &^ graphLastEdge)
				if !ok {
					return tree, parents, 0, false
				}
				ps = append(ps, pid)
				if e&graphLastEdge != 0 {
					break
				}
				if len(ps)-len(parents) > 1<<16 {
					return tree, parents, 0, false
				}
			}
		}
		return tree, ps, when, true
	}
	return tree, parents, 0, false
}

// at returns the id at a position of the chain.
func (g *CommitGraph) at(pos uint32) (odb.ID, bool) {
	var id odb.ID
	for _, l := range g.layers {
		if pos >= l.before && pos < l.before+l.n {
			i := pos - l.before
			copy(id[:l.hs], l.oids[uint64(i)*uint64(l.hs):])
			return id, true
		}
	}
	return id, false
}

// find returns the position of id in the layer.
func (l *graphLayer) find(id *odb.ID) (uint32, bool) {
	lo := uint32(0)
	if id[0] > 0 {
		lo = binary.BigEndian.Uint32(l.fanout[(int(id[0])-1)*4:])
	}
	hi := binary.BigEndian.Uint32(l.fanout[int(id[0])*4:])
	pos, ok := odb.SearchIDs(l.oids, l.hs, 0, l.hs, int(lo), int(hi), id)
	return uint32(pos), ok
}

// checksumOK reports whether data ends with the digest of what comes
// before it: SHA-1 for 20-byte ids, SHA-256 for 32-byte ones (git's
// hashfile trailer).
func checksumOK(data []byte, hs int) bool {
	body, sum := data[:len(data)-hs], data[len(data)-hs:]
	if hs == odb.SHA256Size {
		h := sha256.Sum256(body)
		return bytes.Equal(h[:], sum)
	}
	h := sha1.Sum(body)
	return bytes.Equal(h[:], sum)
}
