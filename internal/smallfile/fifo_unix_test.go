//go:build unix

package smallfile

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadRefusesAFIFOWithoutWaitingForAWriter(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Read(p, 10)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("a FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read of a FIFO hangs")
	}
}
