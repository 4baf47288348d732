package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
)

// catFile reads blobs through `git cat-file --batch` processes, one per
// reader at a time: a pipe answers one request after another, so several
// workers reading at once need several processes. It is the way to read
// objects that works with any repository git can read.
type catFile struct {
	ctx     context.Context
	gitDir  string
	size    int // hash size
	mu      sync.Mutex
	idle    []*catProc
	all     []*catProc
	maxProc int
}

type catProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func newCatFile(ctx context.Context, gitDir string, hashSize, procs int) *catFile {
	return &catFile{ctx: ctx, gitDir: gitDir, size: hashSize, maxProc: max(procs, 1)}
}

func (c *catFile) get() (*catProc, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.idle); n > 0 {
		p := c.idle[n-1]
		c.idle = c.idle[:n-1]
		return p, nil
	}
	cmd := gitCommand(c.ctx, c.gitDir, "", "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	p := &catProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}
	c.all = append(c.all, p)
	return p, nil
}

func (c *catFile) put(p *catProc) {
	c.mu.Lock()
	c.idle = append(c.idle, p)
	c.mu.Unlock()
}

// errMissing is wrapped by the error for an object the repository lacks.
var errMissing = errors.New("object missing from the repository")

// maxInMemory is the largest blob read whole into memory; a larger one is
// streamed from the process, which it holds until closed.
const maxInMemory = 32 << 20

// open returns a reader of the blob id and its size.
func (c *catFile) open(id oid) (io.ReadCloser, int64, error) {
	p, err := c.get()
	if err != nil {
		return nil, 0, err
	}
	hexID := id.String(c.size)
	if _, err := io.WriteString(p.in, hexID+"\n"); err != nil {
		c.broken(p)
		return nil, 0, fmt.Errorf("git cat-file: %w", err)
	}
	hdr, err := p.out.ReadSlice('\n')
	if err != nil {
		c.broken(p)
		return nil, 0, fmt.Errorf("git cat-file: %w", err)
	}
	f := bytes.Fields(hdr)
	if len(f) == 2 && string(f[1]) == "missing" {
		c.put(p)
		return nil, 0, fmt.Errorf("blob %s: %w", hexID, errMissing)
	}
	if len(f) != 3 {
		c.broken(p)
		return nil, 0, fmt.Errorf("git cat-file: unexpected header %q", hdr)
	}
	size, err := strconv.ParseInt(string(f[2]), 10, 64)
	if err != nil || size < 0 {
		c.broken(p)
		return nil, 0, fmt.Errorf("git cat-file: unexpected header %q", hdr)
	}
	if size <= maxInMemory {
		buf := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(p.out, buf); err != nil {
			c.broken(p)
			return nil, 0, fmt.Errorf("git cat-file: %w", err)
		}
		c.put(p)
		return io.NopCloser(bytes.NewReader(buf[:size])), size, nil
	}
	return &catStream{c: c, p: p, r: io.LimitReader(p.out, size)}, size, nil
}

// catStream streams a large blob; Close drains what is left and gives the
// process back.
type catStream struct {
	c *catFile
	p *catProc
	r io.Reader
}

func (s *catStream) Read(b []byte) (int, error) { return s.r.Read(b) }

func (s *catStream) Close() error {
	if s.p == nil {
		return nil
	}
	if _, err := io.Copy(io.Discard, s.r); err != nil {
		s.c.broken(s.p)
	} else if _, err := s.p.out.ReadByte(); err != nil { // the newline
		s.c.broken(s.p)
	} else {
		s.c.put(s.p)
	}
	s.p = nil
	return nil
}

// broken drops a process whose pipe is out of step.
func (c *catFile) broken(p *catProc) {
	p.in.Close()
	p.cmd.Process.Kill()
	p.cmd.Wait()
	c.mu.Lock()
	for i, q := range c.all {
		if q == p {
			c.all = append(c.all[:i], c.all[i+1:]...)
			break
		}
	}
	c.mu.Unlock()
}

// close ends every process.
func (c *catFile) close() {
	c.mu.Lock()
	all := c.all
	c.all, c.idle = nil, nil
	c.mu.Unlock()
	for _, p := range all {
		p.in.Close()
		p.cmd.Wait()
	}
}
