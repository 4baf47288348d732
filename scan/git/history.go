package git

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/report"
)

// history is one scan of a repository's history: the commits and changes
// git log listed, and what the two phases found.
type history struct {
	repo     *repository
	hashSize int
	commits  []commit
	changes  []change
	blobs    blobReader

	// candidates are the blobs with findings in phase 1. Written by the
	// engine's Found callbacks, which are serialised.
	candidates map[oid]bool
	// found holds each candidate's findings, as a multiset of what a
	// finding is whatever its line (rule, secret, match), to tell a
	// change that adds a finding from one that carries its file's
	// findings along (see needsDiff).
	found  map[oid]map[findingKey]int32
	lost   int64  // warnings of the history itself (see warn)
	prefix string // Options.Prefix
}

// blobReader opens a blob by id.
type blobReader interface {
	open(id oid) (io.ReadCloser, int64, error)
	close()
}

// Scan scans the history of the repository at path (a work tree or a bare
// repository), finding for finding what `gitleaks git` reports with the
// same rules: each finding belongs to the commit that added the line it is
// on, with that commit's path, line and column, author, email, date
// (RFC 3339, UTC) and subject, and the fingerprint commit:file:rule:line.
// Lines first introduced by a merge commit are reported too, tagged
// report.TagMerge (gitleaks does not see them). Findings and warnings go
// to the callbacks of sopts, whose other fields apply as in a directory
// scan.
//
// A path that is not a repository is an error (ErrNotRepository); a
// shallow clone is scanned as far as it goes, with an ErrShallow warning;
// a missing object is a warning naming it.
func Scan(ctx context.Context, path string, opts Options, sopts scan.Options) (Stats, error) {
	var st Stats
	if sopts.Detector == nil {
		return st, scan.ErrNoDetector
	}
	r, err := openRepo(ctx, path)
	if err != nil {
		return st, err
	}
	if err := r.ignoreFile(&sopts); err != nil {
		return st, err
	}
	shallow := r.shallow()
	st.Shallow = shallow
	h := &history{repo: r, candidates: map[oid]bool{}, hashSize: r.HashSize}
	if shallow {
		h.warn(sopts, path, "history", ErrShallow)
	}
	h.prefix = opts.Prefix
	ls, err := h.startLog(opts)
	if err != nil {
		return st, err
	}
	defer ls.stop()

	var odbWarnings []error
	h.blobs, odbWarnings = openBlobs(ctx, r, h.hashSize, sopts.Workers)
	defer h.blobs.close()
	for _, w := range odbWarnings {
		h.warn(sopts, r.GitDir, "objects", w)
	}

	start := time.Now()
	p1, err := h.scanBlobs(ctx, sopts, ls)
	st.ScanBlobs = time.Since(start)
	st.Enumerate = ls.took // its own goroutine and process, during the blob scan
	st.Commits, st.Changes = int64(len(h.commits)), int64(len(h.changes))
	st.Blobs, st.BlobBytes = p1.Files, p1.Bytes
	st.Candidates = int64(len(h.candidates))
	if err != nil {
		st.Stats = p1
		return st, err
	}

	start = time.Now()
	p2, err := h.attribute(ctx, sopts)
	st.Attribute = time.Since(start)
	st.Stats = merge(p1, p2)
	st.Warnings += h.lost
	st.Lost += h.lost
	return st, err
}

// warn passes a warning of the history itself (not of one object) to the
// user's callback and counts it: each loses data (history not scanned).
func (h *history) warn(opts scan.Options, path, op string, err error) {
	h.lost++
	if opts.OnWarning != nil {
		opts.OnWarning(scan.Warning{Path: path, Op: op, Err: err, Lost: true})
	}
}

// logStream is a running git log, parsed by a goroutine of its own as
// fast as git writes: the commit walk and tree diffs (git's, on a core of
// their own) run while the blobs listed so far are read and scanned, and
// git never waits for the scan to ask for more.
type logStream struct {
	cmd    *exec.Cmd
	out    io.ReadCloser
	stderr bytes.Buffer

	mu      sync.Mutex
	cond    *sync.Cond
	commits []commit // what the parser has published so far
	changes []change
	hash    int
	end     bool  // the output has ended (or the parser failed)
	perr    error // the parser's error
	took    time.Duration
	start   time.Time
	waited  bool // Wait was called (by finish)
}

// startLog starts git log over the selection, and the goroutine that
// parses it.
func (h *history) startLog(opts Options) (*logStream, error) {
	args := []string{"log", "--raw", "--no-abbrev", "-z", "--no-color", "--no-ext-diff", "--diff-merges=cc",
		"--format=%x01%H%x00%P%x00%aN%x00%aE%x00%at%x00%s%x00"}
	if len(opts.LogOpts) > 0 {
		args = append(args, opts.LogOpts...)
	} else {
		args = append(args, "--full-history", "--diff-filter=tuxdb")
		if len(opts.Revisions) == 0 {
			args = append(args, "--all")
		}
	}
	args = append(args, opts.Revisions...)
	if len(opts.LogOpts) == 0 || !contains(opts.LogOpts, "--") {
		args = append(args, "--")
	}
	ls := &logStream{cmd: h.repo.command(args...), start: time.Now()}
	ls.cond = sync.NewCond(&ls.mu)
	out, err := ls.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	ls.out = out
	ls.cmd.Stderr = &limitedBuffer{b: &ls.stderr, n: 64 << 10}
	if err := ls.cmd.Start(); err != nil {
		return nil, fmt.Errorf("git log: %w", err)
	}
	go ls.parse()
	return ls, nil
}

// parse runs the parser, publishing what it has every few records.
func (ls *logStream) parse() {
	p := newLogParser(ls.out)
	for {
		more, err := p.parseSome(blobBatch)
		ls.mu.Lock()
		ls.commits, ls.changes, ls.hash = p.commits, p.changes, p.hashSize
		if !more || err != nil {
			ls.end, ls.perr, ls.took = true, err, time.Since(ls.start)
		}
		ls.cond.Broadcast()
		ls.mu.Unlock()
		if !more || err != nil {
			if err != nil {
				io.Copy(io.Discard, ls.out)
			}
			return
		}
	}
}

// more waits until the parser has published changes beyond n, or ended,
// and copies what it has into h. At the end it waits for git and reports
// how it ended: an error if it listed nothing, a warning (history cut) if
// it stopped early.
func (h *history) more(ls *logStream, n int, sopts scan.Options) (end bool, err error) {
	ls.mu.Lock()
	for len(ls.changes) <= n && !ls.end {
		ls.cond.Wait()
	}
	h.commits, h.changes = ls.commits, ls.changes
	if ls.hash != 0 {
		h.hashSize = ls.hash
	}
	end, perr := ls.end && len(ls.changes) <= n, ls.perr
	ls.mu.Unlock()
	if !end {
		return false, nil
	}
	werr := ls.wait()
	switch {
	case h.repo.ctx.Err() != nil:
		return true, h.repo.ctx.Err()
	case werr != nil && len(h.commits) == 0:
		return true, fmt.Errorf("git log: %s", firstLine(ls.stderr.String(), werr))
	case werr != nil:
		// Part of the history was listed before git stopped (a missing
		// commit or tree): scan what was listed, and say what is lost.
		h.warn(sopts, h.repo.GitDir, "history", fmt.Errorf("git log stopped early, history after it is not scanned: %s", firstLine(ls.stderr.String(), werr)))
	case perr != nil:
		return true, perr
	}
	return true, nil
}

// wait waits for git once its output has ended.
func (ls *logStream) wait() error {
	if ls.waited {
		return nil
	}
	ls.waited = true
	return ls.cmd.Wait()
}

// stop ends a git log that is still running (the scan stopped early) and
// waits for the parser.
func (ls *logStream) stop() {
	if ls.waited {
		return
	}
	ls.cmd.Process.Kill()
	ls.mu.Lock()
	for !ls.end {
		ls.cond.Wait()
	}
	ls.mu.Unlock()
	ls.wait()
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func firstLine(s string, err error) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return err.Error()
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// limitedBuffer keeps the first n bytes written to it.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// scannable reports whether a change's new blob is read in phase 1: not a
// deletion, not a submodule (a commit id, not a blob), not a pure rename
// or copy (it adds no line, and the blob is scanned where it was added).
func (c *change) scannable() bool {
	return !c.new.isZero() && c.mode&0170000 != 0160000 && !c.pure
}

// scanBlobs is phase 1: every distinct blob the changes introduce, read
// and scanned once by the engine; a blob with a finding becomes a
// candidate.
func (h *history) scanBlobs(ctx context.Context, sopts scan.Options, ls *logStream) (scan.Stats, error) {
	opts := sopts
	opts.NoGitleaksIgnore = true // the repository's was loaded into Ignore
	opts.Progress = nil
	opts.Shard = scan.Shard{} // the source shards by blob id itself
	src := &blobSource{h: h, ls: ls, sopts: sopts, seen: map[oid]struct{}{}, shard: sopts.Shard}
	return scan.ScanSources(ctx, opts, src)
}

// blobSource lists the distinct blobs of the changes, in the order git
// log listed them (newest commits first), a batch at a time.
type blobSource struct {
	h     *history
	ls    *logStream // the git log still being read; nil when the changes are listed already
	ended bool       // ls has ended and every change it listed is in h
	sopts scan.Options
	next  int
	seen  map[oid]struct{}
	shard scan.Shard // blobs are split between shards by id
}

const blobBatch = 128

func (s *blobSource) Enumerate(_ context.Context, b *scan.Batch) (bool, error) {
	h := s.h
	for n := 0; n < blobBatch; s.next++ {
		if s.next >= len(h.changes) {
			if s.ls == nil || s.ended {
				break
			}
			end, err := h.more(s.ls, s.next, s.sopts)
			if err != nil {
				return false, err
			}
			s.ended = end
			s.next--
			continue
		}
		c := &h.changes[s.next]
		if !c.scannable() {
			continue
		}
		if _, ok := s.seen[c.new]; ok {
			continue
		}
		s.seen[c.new] = struct{}{}
		if !s.shard.Takes(string(c.new[:h.hashSize])) {
			b.Skip(scan.SkipShard)
			continue
		}
		n++
		id := c.new
		b.Add(scan.Object{
			Name: c.path,
			Size: -1,
			Open: func() (io.ReadCloser, error) { return h.openBlob(id) },
			Found: func(f report.Finding) {
				h.candidates[id] = true
				h.noteFinding(id, f)
			},
		})
	}
	if s.next >= len(h.changes) && (s.ls == nil || s.ended) {
		s.seen = nil
		return false, nil
	}
	return true, nil
}

// lfsPointer is how a Git LFS pointer file starts: the blob holds a
// reference to content stored elsewhere, not the content.
var lfsPointer = []byte("version https://git-lfs.github.com/spec/v1\n")

// SkipLFS is the Stats.Skipped reason of Git LFS pointers.
const SkipLFS = "lfs-pointer"

// openBlob opens a blob for the engine. A Git LFS pointer is skipped and
// counted; a missing blob is a warning naming it.
func (h *history) openBlob(id oid) (io.ReadCloser, error) {
	rc, size, err := h.blobs.open(id)
	if err != nil {
		return nil, err
	}
	if size < 1024 && size >= int64(len(lfsPointer)) {
		if b, ok := rc.(interface{ Bytes() []byte }); ok && bytes.HasPrefix(b.Bytes(), lfsPointer) {
			rc.Close()
			return nil, &scan.SkipError{Reason: SkipLFS}
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(data, lfsPointer) {
			return nil, &scan.SkipError{Reason: SkipLFS}
		}
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	return rc, nil
}

// attribute is phase 2: the commits whose changes introduced a candidate
// blob are diffed by git (`git log -p -U0`, the patches gitleaks reads,
// and --cc for merges), and the lines each added to each candidate path
// are scanned, as gitleaks scans them, with the commit's metadata.
//
// The commits are split between several git processes, one per worker,
// each diffing its share while the engine scans the fragments the others
// produced; and each diffs only the paths that matter (the candidates'
// paths and the paths they were renamed from, so that git's rename
// detection pairs them as the full log did), unless there are too many to
// name.
func (h *history) attribute(ctx context.Context, sopts scan.Options) (scan.Stats, error) {
	commits := h.candidateCommits()
	if len(commits) == 0 {
		return scan.Stats{}, nil
	}
	args := []string{"log", "-p", "-U0", "--no-walk=unsorted", "--stdin", "--diff-merges=cc",
		"--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/", "--format=%x01%H"}
	if paths := h.candidatePaths(); paths != nil {
		args = append(append(args, "--"), paths...)
	}
	procs := max(1, min(sopts.Workers, len(commits)/16))
	if sopts.Workers <= 0 {
		procs = max(1, min(runtime.GOMAXPROCS(0), len(commits)/16))
	}
	stdins := make([]io.Reader, procs)
	for p := range procs {
		var b bytes.Buffer
		// Contiguous shares: commits near each other in the log share
		// trees and delta bases in git's caches.
		lo, hi := p*len(commits)/procs, (p+1)*len(commits)/procs
		for _, ci := range commits[lo:hi] {
			b.WriteString(h.commits[ci].id.String(h.hashSize))
			b.WriteByte('\n')
		}
		stdins[p] = &b
	}
	return h.attributeWith(ctx, sopts, args, stdins...)
}

// maxPathspec bounds the bytes of the paths named to git log -p, within
// the smallest command line a platform allows (Windows: 32 KiB): past it
// (a history where most files hold findings), the patches of every path
// are read.
const maxPathspec = 24 << 10

// candidatePaths lists the paths of the candidates' changes and the paths
// they were renamed or copied from, or nil if there are too many.
func (h *history) candidatePaths() []string {
	seen := map[string]bool{}
	var paths []string
	size := 0
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			// A literal pathspec: no glob in a file name is expanded.
			paths = append(paths, ":(literal)"+p)
			size += len(p) + 12
		}
	}
	for i := range h.changes {
		c := &h.changes[i]
		if h.attributes(c) {
			add(c.path)
			add(c.oldPath)
			if size > maxPathspec {
				return nil
			}
		}
	}
	return paths
}

// attributes reports whether change c is one phase 2 diffs: it introduced
// a candidate blob, and may have added findings (needsDiff).
func (h *history) attributes(c *change) bool {
	return c.scannable() && h.candidates[c.new] && h.needsDiff(c)
}

// candidateCommits lists the commits with a change that introduced a
// candidate blob, in log order.
func (h *history) candidateCommits() []int32 {
	var order []int32
	seen := map[int32]bool{}
	for i := range h.changes {
		c := &h.changes[i]
		if h.attributes(c) && !seen[c.commit] {
			seen[c.commit] = true
			order = append(order, c.commit)
		}
	}
	return order
}

// attributeWith runs one git command (args) per stdin, whose patches hold
// the candidates' changes, and scans their added lines: one source per
// process, enumerated in parallel by the engine.
func (h *history) attributeWith(ctx context.Context, sopts scan.Options, args []string, stdins ...io.Reader) (scan.Stats, error) {
	if len(h.candidates) == 0 {
		return scan.Stats{}, nil
	}
	// want maps commit and path to the change that introduced a candidate
	// there.
	want := map[changeKey]int32{}
	byID := map[string]int32{}
	for i := range h.changes {
		c := &h.changes[i]
		if !h.attributes(c) {
			continue
		}
		want[changeKey{c.commit, c.path}] = int32(i)
		if id := h.commits[c.commit].id; id.isZero() {
			byID[""] = c.commit // a diff of the index or work tree: no commit lines
		} else {
			byID[id.String(h.hashSize)] = c.commit
		}
	}
	if len(stdins) == 0 {
		stdins = []io.Reader{nil}
	}
	type proc struct {
		cmd    *exec.Cmd
		out    io.ReadCloser
		stderr bytes.Buffer
	}
	var (
		procs []*proc
		srcs  []scan.Source
	)
	defer func() {
		for _, p := range procs {
			io.Copy(io.Discard, p.out)
			p.cmd.Wait()
		}
	}()
	for _, in := range stdins {
		p := &proc{cmd: h.repo.command(args...)}
		p.cmd.Stdin = in
		out, err := p.cmd.StdoutPipe()
		if err != nil {
			return scan.Stats{}, err
		}
		p.out = out
		p.cmd.Stderr = &limitedBuffer{b: &p.stderr, n: 64 << 10}
		if err := p.cmd.Start(); err != nil {
			return scan.Stats{}, fmt.Errorf("git %s: %w", args[0], err)
		}
		procs = append(procs, p)
		srcs = append(srcs, &fragmentSource{h: h, pr: newPatchReader(out), want: want, byID: byID})
	}
	opts := sopts
	opts.NoGitleaksIgnore = true
	opts.Progress = nil
	opts.Shard = scan.Shard{} // the candidates are this shard's already
	// A fragment holds its lines from listing until it is scanned: keep
	// few in flight, so memory follows the fragments being scanned, not
	// the size of the history.
	opts.MaxInFlight = fragmentsInFlight
	st, serr := scan.ScanSources(ctx, opts, srcs...)
	for _, p := range procs {
		io.Copy(io.Discard, p.out)
		werr := p.cmd.Wait()
		if serr == nil && werr != nil && ctx.Err() == nil {
			h.warn(sopts, h.repo.GitDir, "history", fmt.Errorf("git %s: %s", args[0], firstLine(p.stderr.String(), werr)))
		}
	}
	procs = nil
	return st, serr
}

// fragmentsInFlight bounds the fragments admitted and not yet scanned.
const fragmentsInFlight = 64

// findingKey is what a finding is, wherever it is in its file.
type findingKey struct{ rule, secret, match string }

// noteFinding records a phase-1 finding of blob id (the engine serialises
// Found calls).
func (h *history) noteFinding(id oid, f report.Finding) {
	if h.found == nil {
		h.found = map[oid]map[findingKey]int32{}
	}
	m := h.found[id]
	if m == nil {
		m = map[findingKey]int32{}
		h.found[id] = m
	}
	m[findingKey{f.RuleID, f.Secret, f.Match}]++
}

// needsDiff reports whether a change that introduced candidate blob
// c.new must be diffed to find what it added. It need not when the blob
// before it (c.old, scanned too) holds every finding the new blob holds,
// as many times: then the change carried its file's secrets along while
// editing other lines, as most edits of a file with a secret in it do, and
// adds none. A merge's combined change, a new file, a rename from a blob
// not scanned, a finding that is new or more frequent: diffed.
//
// This is where the scan can differ from gitleaks: a line holding a secret
// that an edit moves (or that a diff pairs differently, among repeated
// lines) is one git's diff shows as removed and added again, and gitleaks
// reports it again; here the secret was reported where it was first added,
// and its move is not. The comparison tests against gitleaks watch this.
func (h *history) needsDiff(c *change) bool {
	if c.status == 'X' || c.old.isZero() {
		return true
	}
	before, after := h.found[c.old], h.found[c.new]
	if len(before) == 0 {
		return true
	}
	for k, n := range after {
		if before[k] < n {
			return true
		}
	}
	return false
}

type changeKey struct {
	commit int32
	path   string
}

// fragmentSource lists the fragments of added lines of the candidates'
// changes, read from the patch stream as the engine asks for them.
type fragmentSource struct {
	h    *history
	pr   *patchReader
	want map[changeKey]int32
	byID map[string]int32
}

func (s *fragmentSource) Enumerate(_ context.Context, b *scan.Batch) (bool, error) {
	for n := 0; n < blobBatch; {
		fp, err := s.pr.next()
		if err != nil {
			return false, fmt.Errorf("git log -p: %w", err)
		}
		if fp == nil {
			return false, nil
		}
		ci, ok := s.byID[string(fp.commit)]
		if !ok {
			continue
		}
		idx, ok := s.want[changeKey{ci, fp.path}]
		if !ok {
			continue
		}
		ch := &s.h.changes[idx]
		annotate := s.h.annotator(ch)
		if fp.binary {
			// No lines to diff: an archive, or content git takes for
			// binary. The blob is scanned whole for this commit, as
			// gitleaks scans an archive its patch calls binary.
			id := ch.new
			b.Add(scan.Object{Name: ch.path, Size: -1, Annotate: annotate,
				Open: func() (io.ReadCloser, error) { return s.h.openBlob(id) }})
			n++
			continue
		}
		for _, f := range fp.fragments {
			text := f.text
			b.Add(scan.Object{Name: ch.path, Size: int64(len(text)), Line: f.line, Annotate: annotate,
				Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(text)), nil }})
			n++
		}
	}
	return true, nil
}

// annotator returns the Annotate hook of ch's findings: the commit's
// metadata, and gitleaks' fingerprint commit:file:rule:line.
func (h *history) annotator(ch *change) func(*report.Finding) {
	c := &h.commits[ch.commit]
	if c.id.isZero() {
		return nil // the index or the work tree: no commit to name
	}
	id := hex.EncodeToString(c.id[:h.hashSize])
	date := time.Unix(c.time, 0).UTC().Format(time.RFC3339)
	merge := ch.status == 'X'
	prefix := h.prefix
	return func(f *report.Finding) {
		f.File = prefix + f.File
		f.Commit, f.Author, f.Email, f.Date, f.Message = id, c.author, c.email, date, c.subject
		f.Fingerprint = id + ":" + f.File + ":" + f.RuleID + ":" + strconv.Itoa(f.Line)
		if merge {
			f.Tags = append(f.Tags[:len(f.Tags):len(f.Tags)], report.TagMerge)
		}
	}
}

// merge adds the attribution's stats to the blob scan's: the findings are
// the attribution's (phase 1's were candidates, not reported).
func merge(p1, p2 scan.Stats) scan.Stats {
	st := p1
	st.Findings, st.Known, st.Ignored = p2.Findings, p2.Known, p2.Ignored
	st.Warnings += p2.Warnings
	st.Lost += p2.Lost
	st.Noise += p2.Noise
	st.Duration += p2.Duration
	return st
}
