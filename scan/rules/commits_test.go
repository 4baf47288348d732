package rules

import "testing"

// TestCommitAllows: OR lists drop every finding of a named commit (global
// ones for every rule, a rule's own for that rule only); AND lists only
// when their other checks pass too; other commits are never dropped.
func TestCommitAllows(t *testing.T) {
	cfg, err := Parse([]byte(`
[[rules]]
id = "a"
regex = '''a_[0-9]{4}'''
[[rules.allowlists]]
commits = ["c1"]
[[rules]]
id = "b"
regex = '''b_[0-9]{4}'''
[[allowlists]]
commits = ["c2"]
[[allowlists]]
condition = "AND"
commits = ["c3"]
paths = ['''^test/''']
stopwords = ["1111"]
`), "t.toml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !d.HasCommitAllowlists() {
		t.Fatal("HasCommitAllowlists false")
	}
	for _, c := range []struct {
		commit, rule, path, secret string
		want                       bool
	}{
		{"c1", "a", "x", "a_0001", true},
		{"c1", "b", "x", "b_0001", false},
		{"c2", "a", "x", "a_0001", true},
		{"c2", "b", "x", "b_0001", true},
		{"c3", "b", "test/x", "b_1111", true},
		{"c3", "b", "src/x", "b_1111", false},
		{"c3", "b", "test/x", "b_2222", false},
		{"c4", "a", "x", "a_0001", false},
	} {
		if got := d.CommitAllows(c.commit, c.rule, c.path, []byte(c.secret), []byte(c.secret)); got != c.want {
			t.Errorf("CommitAllows(%s, %s, %s, %s) = %v, want %v", c.commit, c.rule, c.path, c.secret, got, c.want)
		}
	}
}
