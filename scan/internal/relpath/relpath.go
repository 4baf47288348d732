// Package relpath builds the slash-separated paths that the scanner's
// directory walks and the ignore files' walk report: one function, so
// that a path a walk names and the path an ignore rule is matched against
// are spelled the same way.
package relpath

// Join appends name to dir as a walk builds paths: no "./" prefix for the
// current directory ("" or "."), no doubled slash after a dir that ends
// in "/" (a root given as "/" or "dir/").
func Join(dir, name string) string {
	switch {
	case dir == "" || dir == ".":
		return name
	case dir[len(dir)-1] == '/':
		return dir + name
	}
	return dir + "/" + name
}
