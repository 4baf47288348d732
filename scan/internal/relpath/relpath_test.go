package relpath

import "testing"

func TestJoin(t *testing.T) {
	for _, c := range []struct{ dir, name, want string }{
		{"", "a", "a"},
		{".", "a", "a"},
		{"/", "a", "/a"},
		{"dir/", "a", "dir/a"},
		{"dir", "a", "dir/a"},
		{"./dir", "a", "./dir/a"},
		{"a/b", "c.txt", "a/b/c.txt"},
	} {
		if got := Join(c.dir, c.name); got != c.want {
			t.Errorf("Join(%q, %q) = %q, want %q", c.dir, c.name, got, c.want)
		}
	}
}
