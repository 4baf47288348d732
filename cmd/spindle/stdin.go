package main

import (
	"context"
	"io"
)

// contextReader is an io.Reader whose Read returns ctx's error once ctx is
// done, even while the read underneath is blocked: a read of a terminal,
// a pipe or a FIFO does not return on cancellation, and an interrupted or
// timed-out scan of standard input must still stop and say so. The
// blocked read is left to a goroutine that ends with the process.
//
// One read is outstanding at a time, into the reader's own buffer, so a
// caller's buffer is never written after its Read has returned.
type contextReader struct {
	ctx     context.Context
	r       io.Reader
	buf     []byte
	pending chan readResult // the outstanding read; nil when none
	rest    []byte          // bytes read, not yet handed out
	err     error           // the underlying reader's error, after rest
}

type readResult struct {
	n   int
	err error
}

func newContextReader(ctx context.Context, r io.Reader) *contextReader {
	return &contextReader{ctx: ctx, r: r}
}

func (c *contextReader) Read(p []byte) (int, error) {
	if len(c.rest) > 0 {
		n := copy(p, c.rest)
		c.rest = c.rest[n:]
		return n, nil
	}
	if c.err != nil {
		return 0, c.err
	}
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if c.pending == nil {
		if cap(c.buf) < len(p) {
			c.buf = make([]byte, len(p))
		}
		buf := c.buf[:len(p)]
		ch := make(chan readResult, 1)
		c.pending = ch
		go func() {
			n, err := c.r.Read(buf)
			ch <- readResult{n, err}
		}()
	}
	select {
	case res := <-c.pending:
		c.pending = nil
		n := copy(p, c.buf[:res.n])
		c.rest = c.buf[n:res.n]
		if res.err != nil {
			c.err = res.err
			if len(c.rest) == 0 {
				return n, res.err
			}
		}
		return n, nil
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
}
