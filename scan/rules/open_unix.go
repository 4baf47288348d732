//go:build unix

package rules

import "syscall"

// openNoBlock makes opening a FIFO return at once instead of waiting for a
// writer; read checks what it opened before reading from it.
const openNoBlock = syscall.O_NONBLOCK
