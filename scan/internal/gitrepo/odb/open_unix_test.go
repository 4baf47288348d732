//go:build unix

package odb

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAlternatesFIFOIsRefused: an info/alternates that is a FIFO (or
// names a device) is a warning at once, not a read that never ends.
func TestAlternatesFIFOIsRefused(t *testing.T) {
	dir := newRepo(t, true)
	info := filepath.Join(dir, "objects", "info")
	if err := syscall.Mkfifo(filepath.Join(info, "alternates"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan *DB, 1)
	go func() {
		db, err := openRepo(dir, Options{})
		if err != nil {
			t.Error(err)
		}
		done <- db
	}()
	select {
	case db := <-done:
		if db == nil {
			return
		}
		defer db.Close()
		if len(db.Warnings()) != 1 || !strings.Contains(db.Warnings()[0].Error(), "regular") {
			t.Errorf("warnings %v, want one naming the FIFO", db.Warnings())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open blocked on a FIFO")
	}
}

// TestAlternateNamingADeviceIsRefused: alternates naming /dev/zero (a
// character device, not a directory) is a warning.
func TestAlternateNamingADeviceIsRefused(t *testing.T) {
	dir := newRepo(t, true)
	writeFiles(t, dir, map[string]string{"objects/info/alternates": "/dev/zero\n"})
	db, err := openRepo(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if len(db.Warnings()) != 1 {
		t.Errorf("warnings %v, want one", db.Warnings())
	}
}
