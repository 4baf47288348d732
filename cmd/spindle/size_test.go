package main

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestParseSizeAcceptsSIAndBinaryUnits(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"0", 0},
		{"4096", 4096},
		{"12b", 12},
		{"500k", 500 << 10},
		{"500K", 500 << 10},
		{"1KiB", 1 << 10},
		{"1kb", 1000},
		{"10MB", 10_000_000},
		{"10mb", 10_000_000},
		{"10MiB", 10 << 20},
		{"2m", 2 << 20},
		{"1GiB", 1 << 30},
		{"1g", 1 << 30},
		{"3GB", 3_000_000_000},
		{"1.5GiB", 3 << 29},
		{"1.5k", 1536},
		{"0.5", 0}, // rounded down to whole bytes
		{" 7 MiB ", 7 << 20},
		{"2TiB", 2 << 40},
		{"1tb", 1_000_000_000_000},
		{"9223372036854775807", math.MaxInt64},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if err != nil {
			t.Errorf("parseSize(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("parseSize(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestParseSizeRejectsNonsenseWithTheInputInTheMessage(t *testing.T) {
	for _, in := range []string{
		"", "MB", "-1", "-5MB", "10 parsecs", "1.2.3k", ".", "10XB", "1e3",
		"9223372036854775808",   // one past MaxInt64
		"9000000000000000000TB", // overflows in the multiplication
		"99999999999999999999.5GiB",
	} {
		_, err := parseSize(in)
		if err == nil {
			t.Errorf("parseSize(%q) succeeded, want an error", in)
			continue
		}
		if !strings.Contains(err.Error(), strconv.Quote(in)) {
			t.Errorf("parseSize(%q) error %q does not quote the input", in, err)
		}
	}
}

func TestSizeValueKeepsTheTextForHelp(t *testing.T) {
	var v sizeValue
	if err := v.Set("10MB"); err != nil {
		t.Fatal(err)
	}
	if v.bytes != 10_000_000 || v.String() != "10MB" || v.Type() != "SIZE" {
		t.Errorf("after Set(10MB): bytes %d, String %q, Type %q", v.bytes, v.String(), v.Type())
	}
	if err := v.Set("lots"); err == nil || v.bytes != 10_000_000 {
		t.Errorf("Set(lots) = %v and changed the value to %d; want an error and no change", err, v.bytes)
	}
}

// FuzzParseSize checks that parseSize never panics, never returns a
// negative size, and agrees with itself on a number written back out.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"10MB", "1GiB", "500k", "4096", "1.5g", "", "-1", "9223372036854775807t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("parseSize(%q) = %d, negative", s, n)
		}
		again, err := parseSize(strconv.FormatInt(n, 10))
		if err != nil || again != n {
			t.Fatalf("parseSize(%d) = %d, %v; want the same number", n, again, err)
		}
	})
}
