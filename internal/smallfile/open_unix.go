//go:build unix

package smallfile

import "syscall"

// openNoBlock makes opening a FIFO return at once instead of waiting for a
// writer; the file is checked to be regular before anything is read.
const openNoBlock = syscall.O_NONBLOCK
