//go:build !unix

package smallfile

// openNoBlock is 0 where opening a file cannot wait for a writer the way
// opening a Unix FIFO does.
const openNoBlock = 0
