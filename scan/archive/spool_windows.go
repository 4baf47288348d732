package archive

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/windows"
)

// spoolSeq makes spool names unique within the process.
var spoolSeq atomic.Uint64

// createSpool returns an open temporary file in dir that the system
// deletes when its last handle is closed (FILE_FLAG_DELETE_ON_CLOSE):
// Windows cannot remove the name of an open file, but it closes every
// handle of a process that ends, however it ends, and the file goes with
// them. It is created exclusively, readable and writable by this handle
// only, with the temporary attribute, which keeps it in the cache.
func createSpool(dir string) (*os.File, error) {
	for range 100 {
		unique := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-" +
			strconv.FormatUint(spoolSeq.Add(1), 10)
		name := filepath.Join(dir, strings.Replace(spoolPattern, "*", unique, 1))
		p, err := windows.UTF16PtrFromString(name)
		if err != nil {
			return nil, err
		}
		h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.CREATE_NEW,
			windows.FILE_ATTRIBUTE_TEMPORARY|windows.FILE_FLAG_DELETE_ON_CLOSE, 0)
		if err == windows.ERROR_FILE_EXISTS {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(h), name), nil
	}
	return nil, &os.PathError{Op: "open", Path: dir, Err: windows.ERROR_FILE_EXISTS}
}
