//go:build unix

package odb

import (
	"errors"
	"os"
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

// TestLooseObjectFIFOIsUnreadable: a FIFO in place of a loose object is
// refused at once as unreadable (not corrupt), never waited on.
func TestLooseObjectFIFOIsUnreadable(t *testing.T) {
	dir := newRepo(t, true)
	objects := filepath.Join(dir, "objects")
	id := writeLoose(t, objects, "blob", []byte("x\n"))
	p := filepath.Join(objects, id.String()[:2], id.String()[2:])
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	db, err := Open(objects, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	done := make(chan error, 1)
	go func() { _, _, err := db.Read(id, nil); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrUnreadable) || errors.Is(err, ErrCorrupt) {
			t.Errorf("Read: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read blocked on a FIFO")
	}
}
