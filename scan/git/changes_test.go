package git

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/git/internal/linediff"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// TestSigCacheKeepsWithinItsBudget: the shared signature cache returns
// what was put, holds at most two generations of its budget, keeps a
// signature looked up in the old generation when the young one turns
// over, and does not keep one larger than its budget.
func TestSigCacheKeepsWithinItsBudget(t *testing.T) {
	sig := func(i int) *linediff.Signature {
		var b strings.Builder
		for j := range 20 {
			fmt.Fprintf(&b, "line %d of file %d\n", j, i)
		}
		return linediff.NewSignature([]byte(b.String()))
	}
	id := func(i int) odb.ID { return odb.ID{byte(i), byte(i >> 8), 1} }
	per := sig(0).Bytes() + 64
	c := newSigCache(10 * per)
	for i := range 10 {
		c.put(id(i), sig(i))
	}
	for i := range 10 {
		if s, ok := c.get(id(i)); !ok || s.Bytes() != sig(i).Bytes() {
			t.Fatalf("signature %d not kept within the budget", i)
		}
	}
	// Ten more turn the generation over: the first ten are old now.
	for i := 10; i < 20; i++ {
		c.put(id(i), sig(i))
	}
	if _, ok := c.get(id(3)); !ok {
		t.Fatal("a signature of the old generation was dropped too early")
	}
	// Another turn drops the old generation, but not what was looked up
	// in it (it moved to the young one).
	for i := 20; i < 30; i++ {
		c.put(id(i), sig(i))
	}
	if _, ok := c.get(id(3)); !ok {
		t.Error("a signature looked up in the old generation was not kept")
	}
	if _, ok := c.get(id(4)); ok {
		t.Error("a signature two generations old is still kept")
	}
	if n := len(c.young) + len(c.old); n > 20 {
		t.Errorf("%d signatures held, more than two generations of the budget", n)
	}
	var b strings.Builder
	for j := range 2000 {
		fmt.Fprintf(&b, "distinct line %d\n", j)
	}
	c.put(id(99), linediff.NewSignature([]byte(b.String())))
	if _, ok := c.get(id(99)); ok {
		t.Error("a signature larger than the budget was kept")
	}
}
