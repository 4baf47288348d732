//go:build !unix

package main

import "os"

// closedAtStart reports whether f, a standard stream, was closed when the
// process started; it cannot be told here.
func closedAtStart(*os.File) bool { return false }
