//go:build !unix

package odb

import "os"

// openNoBlock opens a file for reading (no FIFOs to fear here).
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
