package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits maps the suffixes --max-file-size accepts (lower-cased) to their
// multipliers. Suffixes with a B and no i are SI (10MB is ten million
// bytes, as disk vendors and gitleaks' --max-target-megabytes count); those
// with iB, and the bare letters ripgrep's --max-filesize takes (500k, 2G), are
// binary. Both readings exist in the wild, so both spellings are accepted and
// mean exactly what they say.
var sizeUnits = map[string]float64{
	"":    1,
	"b":   1,
	"k":   1 << 10,
	"kib": 1 << 10,
	"kb":  1e3,
	"m":   1 << 20,
	"mib": 1 << 20,
	"mb":  1e6,
	"g":   1 << 30,
	"gib": 1 << 30,
	"gb":  1e9,
	"t":   1 << 40,
	"tib": 1 << 40,
	"tb":  1e12,
}

// parseSize reads a byte count such as "10MB", "1GiB", "500k", "1.5g" or
// "4096". Case and space between number and unit do not matter. The result
// is rounded down to a whole byte; negative sizes and sizes that overflow
// int64 are errors.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	if num == "" {
		return 0, fmt.Errorf("invalid size %q: want a number with an optional unit (10MB, 1GiB, 500k, 4096)", s)
	}
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q (use B, k/KiB, KB, m/MiB, MB, g/GiB, GB, t/TiB, TB)", s, unit)
	}
	if !strings.Contains(num, ".") {
		// Integer arithmetic keeps large sizes exact; every multiplier is
		// a whole number.
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || int64(mult) != 0 && n > math.MaxInt64/int64(mult) {
			return 0, fmt.Errorf("invalid size %q: larger than %d bytes", s, int64(math.MaxInt64))
		}
		return n * int64(mult), nil
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: %q is not a number", s, num)
	}
	bytes := math.Floor(v * mult)
	if bytes >= math.MaxInt64 {
		return 0, fmt.Errorf("invalid size %q: larger than %d bytes", s, int64(math.MaxInt64))
	}
	return int64(bytes), nil
}

// sizeValue is a pflag.Value for byte counts written as parseSize reads them.
type sizeValue struct {
	bytes int64
	text  string // as the user wrote it, for --help's default and errors
}

func (v *sizeValue) String() string { return v.text }

// Set implements pflag.Value.
func (v *sizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	v.bytes, v.text = n, s
	return nil
}

// Type names the value in --help ("--max-file-size SIZE").
func (v *sizeValue) Type() string { return "SIZE" }
