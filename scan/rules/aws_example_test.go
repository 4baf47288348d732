package rules

import "testing"

// AWS documents AKIAIOSFODNN7EXAMPLE as its example key id; like gitleaks,
// the built-in rule does not report ids ending in EXAMPLE, and still reports
// the same shape without that suffix.
func TestAWSDocumentedExampleKeyIsAllowed(t *testing.T) {
	d, err := Compile(Default())
	if err != nil {
		t.Fatal(err)
	}
	example := "AKIA" + "IOSFODNN7" + "EXAMPLE"
	real := "AKIA" + "IOSFODNN7" + "EXAMPLF"
	var got []string
	d.Scan(d.NewScratch(), "config.env", []byte("a = "+example+"\nb = "+real+"\n"), func(m Match) {
		if m.RuleID == "aws-access-token" {
			got = append(got, m.Secret)
		}
	})
	if len(got) != 1 || got[0] != real {
		t.Fatalf("aws-access-token findings %q, want only %q", got, real)
	}
}
