package fork

import (
	"testing"
	"unsafe"
)

// TestTaskIsWholeCacheLines checks the layout that keeps two workers' Tasks
// off each other's cache lines (see cacheLine).
func TestTaskIsWholeCacheLines(t *testing.T) {
	if size := unsafe.Sizeof(Task{}); size%cacheLine != 0 {
		t.Fatalf("sizeof(Task) = %d, not a multiple of %d", size, cacheLine)
	}
}
