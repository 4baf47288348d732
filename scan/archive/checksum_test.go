package archive

import (
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"testing"
)

// A zip member's CRC-32 is checked only once its data has been read to the
// end, so a member a budget cuts is never judged by it: a cut member is
// reported as the budget that cut it, never as corrupt, whatever its CRC
// says and however the parts reading the archive interleave. A member read
// whole whose CRC does not match is corrupt. These tests put members just
// below, at and past the budgets, with true and false CRCs.

// crcMember returns a member holding data, stored or deflated, whose
// directory records the CRC-32 of data, or a wrong one if !trueCRC.
func crcMember(t testing.TB, name string, data []byte, method uint16, trueCRC bool) rawMember {
	t.Helper()
	m := rawMember{name: name, data: data, usize: uint64(len(data)), crc: crc32.ChecksumIEEE(data), meth: method}
	if !trueCRC {
		m.crc ^= 0x5a5a5a5a
	}
	if method == zipDeflate {
		var b bytes.Buffer
		w, err := flate.NewWriter(&b, flate.BestSpeed)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		m.data = b.Bytes()
	}
	return m
}

// classify sorts the warnings of a walk by the member they name: the
// budget that cut it, or that it failed its checksum. Any other warning,
// and any member named twice, fails the test.
func classify(t *testing.T, warnings []error) (budgets map[string]Budget, corrupt map[string]bool) {
	t.Helper()
	budgets, corrupt = map[string]Budget{}, map[string]bool{}
	for _, w := range warnings {
		var (
			be *BudgetError
			fe *FormatError
		)
		switch {
		case errors.As(w, &be) && be.Member != "":
			if _, dup := budgets[be.Member]; dup || corrupt[be.Member] {
				t.Errorf("%s named twice: %v", be.Member, w)
			}
			budgets[be.Member] = be.Budget
		case errors.As(w, &fe) && errors.Is(fe, errChecksum) && fe.Lost:
			if _, dup := budgets[fe.Name]; dup || corrupt[fe.Name] {
				t.Errorf("%s named twice: %v", fe.Name, w)
			}
			corrupt[fe.Name] = true
		default:
			t.Errorf("unexpected warning %v", w)
		}
	}
	return budgets, corrupt
}

func TestAMemberCutByABudgetIsReportedAsTheBudgetNeverAsCorrupt(t *testing.T) {
	const budget = 64 << 10
	text := func(n int) []byte { return bytes.Repeat([]byte("0123456789abcdef\n"), n/17+1)[:n] }
	for _, method := range []uint16{zipStore, zipDeflate} {
		for _, trueCRC := range []bool{true, false} {
			// The member budget, one member at a time: below it and at it
			// the member is read whole and its CRC judged; one byte past
			// it, the member is cut, its CRC never judged.
			var ms []rawMember
			sizes := []int{budget - 1, budget, budget + 1, 4 * budget}
			for i, n := range sizes {
				ms = append(ms, crcMember(t, "m"+itoa(i), text(n), method, trueCRC))
			}
			lim := DefaultLimits()
			lim.MaxMemberBytes = budget
			res := walkAll(t, "x.zip", rawZip(ms, false), lim)
			if res.err != nil {
				t.Fatal(res.err)
			}
			budgets, corrupt := classify(t, res.warnings)
			for i, n := range sizes {
				name := "x.zip!m" + itoa(i)
				got := len(res.members[name])
				switch {
				case n <= budget:
					if got != n || corrupt[name] == trueCRC || budgets[name] != 0 {
						t.Errorf("method %d, true CRC %v: %s of %d bytes: read %d, corrupt %v, budget %v; want it read whole, corrupt only for a false CRC",
							method, trueCRC, name, n, got, corrupt[name], budgets[name])
					}
				default:
					if got != budget || corrupt[name] || budgets[name] != BudgetMemberBytes {
						t.Errorf("method %d, true CRC %v: %s of %d bytes: read %d, corrupt %v, budget %v; want it cut at %d by the member budget",
							method, trueCRC, name, n, got, corrupt[name], budgets[name], budget)
					}
				}
			}

			// The archive budget: two members that fill it exactly are read
			// whole; one byte less and the second is cut by it.
			pair := []rawMember{crcMember(t, "a", text(budget/2), method, trueCRC), crcMember(t, "b", text(budget/2), method, trueCRC)}
			for _, room := range []int64{budget, budget - 1} {
				lim := DefaultLimits()
				lim.MaxArchiveBytes = room
				res := walkAll(t, "y.zip", rawZip(pair, false), lim)
				budgets, corrupt := classify(t, res.warnings)
				got := len(res.members["y.zip!b"])
				if room == budget && (got != budget/2 || corrupt["y.zip!b"] == trueCRC || len(budgets) != 0) ||
					room < budget && (got != budget/2-1 || corrupt["y.zip!b"] || budgets["y.zip!b"] != BudgetArchiveBytes) {
					t.Errorf("method %d, true CRC %v, archive budget %d: b read %d bytes, corrupt %v, budgets %v",
						method, trueCRC, room, got, corrupt["y.zip!b"], budgets)
				}
			}
		}
	}
}

// TestParallelPartsCutByTheSharedBudgetAreNeverReportedAsCorrupt reads
// archives of many members on eight goroutines at once, so that the
// archive budget runs out while several members are being read: each
// member is named once, as corrupt exactly when it was read whole and its
// CRC is false, and otherwise by the budget that cut it; the bytes read
// add up to the archive budget exactly.
func TestParallelPartsCutByTheSharedBudgetAreNeverReportedAsCorrupt(t *testing.T) {
	const members, budget = 48, 32 << 10
	data := bytes.Repeat([]byte("the same line of text, again\n"), 2*budget/29)
	rounds := 12
	if testing.Short() {
		rounds = 4
	}
	for _, tt := range []struct {
		name    string
		size    int // each member's size
		trueCRC bool
	}{
		{"past the member budget, false CRCs", 3 * budget / 2, false},
		{"at the member budget, false CRCs", budget, false},
		{"at the member budget, true CRCs", budget, true},
	} {
		var ms []rawMember
		for i := range members {
			ms = append(ms, crcMember(t, "m"+itoa(i), data[:tt.size], zipDeflate, tt.trueCRC))
		}
		zip := rawZip(ms, false)
		for round := range rounds {
			lim := DefaultLimits()
			lim.MaxMemberBytes, lim.MaxArchiveBytes = budget, 10*budget+1234
			res := walkParallel(t, NewRoot(lim), "x.zip", zip, 8, uint64(round))
			if len(res.errs) != 0 {
				t.Fatal(res.errs)
			}
			budgets, corrupt := classify(t, res.warnings)
			var total int64
			for i := range members {
				name := "x.zip!m" + itoa(i)
				got, visited := res.members[name]
				total += int64(len(got))
				whole := len(got) == tt.size
				b := budgets[name]
				switch {
				case whole && corrupt[name] != !tt.trueCRC:
					t.Fatalf("%s, round %d: %s read whole, corrupt %v", tt.name, round, name, corrupt[name])
				case whole && b != 0:
					t.Fatalf("%s, round %d: %s read whole, and named by the %v budget", tt.name, round, name, b)
				case !whole && (corrupt[name] || b == 0):
					t.Fatalf("%s, round %d: %s read %d of %d bytes (visited %v): corrupt %v, budget %v; want a budget",
						tt.name, round, name, len(got), tt.size, visited, corrupt[name], b)
				case b != 0 && b != BudgetMemberBytes && b != BudgetArchiveBytes:
					t.Fatalf("%s, round %d: %s cut by the %v budget", tt.name, round, name, b)
				}
			}
			if total != lim.MaxArchiveBytes {
				t.Fatalf("%s, round %d: %d bytes read, want the archive budget, %d", tt.name, round, total, lim.MaxArchiveBytes)
			}
		}
	}
}
