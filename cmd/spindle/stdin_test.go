package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestContextReaderPassesTheStreamThrough(t *testing.T) {
	text := strings.Repeat("0123456789", 1000)
	for _, r := range []io.Reader{strings.NewReader(text), iotest.OneByteReader(strings.NewReader(text)), iotest.DataErrReader(strings.NewReader(text))} {
		got, err := io.ReadAll(newContextReader(context.Background(), r))
		if err != nil || string(got) != text {
			t.Errorf("read %d bytes, %v", len(got), err)
		}
	}
	boom := errors.New("boom")
	if _, err := io.ReadAll(newContextReader(context.Background(), iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Errorf("the reader's error is lost: %v", err)
	}
}

// TestContextReaderReturnsWhenCancelledWhileBlocked: a read blocked on a
// pipe with no writer returns at once when the context is cancelled.
func TestContextReaderReturnsWhenCancelledWhileBlocked(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	r := newContextReader(ctx, pr)
	go func() { pw.Write([]byte("first")) }()
	buf := make([]byte, 16)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "first" {
		t.Fatalf("%q, %v", buf[:n], err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(buf)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Read after cancel = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read stays blocked after cancel")
	}
	if _, err := r.Read(buf); !errors.Is(err, context.Canceled) {
		t.Errorf("a later Read = %v", err)
	}
}
