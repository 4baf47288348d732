package report

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestHumanBytesUsesBinaryUnitsAndNeverShows1024(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{10188, "9.9 KiB"},     // 9.949
		{10240 - 20, "10 KiB"}, // 9.98 would print as "10.0"
		{840 << 20, "840 MiB"},
		{1288490189, "1.2 GiB"},
		{(1 << 20) - 1, "1.0 MiB"}, // 1023.999 KiB
		{1 << 40, "1.0 TiB"},
		{1<<63 - 1, "8.0 EiB"},
	}
	for _, tt := range tests {
		if got := humanBytes(tt.n); got != tt.want {
			t.Errorf("humanBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestHumanDurationKeepsAboutThreeFigures(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{-time.Second, "0s"},
		{840 * time.Microsecond, "840µs"},
		{412345 * time.Microsecond, "412ms"},
		{1534 * time.Millisecond, "1.53s"},
		{123456 * time.Millisecond, "2m3s"},
	}
	for _, tt := range tests {
		if got := humanDuration(tt.d); got != tt.want {
			t.Errorf("humanDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestSummaryWriteText(t *testing.T) {
	tests := []struct {
		name string
		s    Summary
		want string
	}{
		{
			"full",
			Summary{
				Files: 1250, Bytes: 1288490189, Duration: 1534 * time.Millisecond,
				Findings: 3, Warnings: 1,
				Skipped: map[string]int64{"too large": 4, "binary": 12, "gitignored": 0},
			},
			"scanned 1250 files, 1.2 GiB in 1.53s (801 MiB/s)\n3 findings, 1 warning\nskipped: 12 binary, 4 too large\n",
		},
		{
			"nothing scanned",
			Summary{},
			"scanned 0 files, 0 B in 0s\n0 findings, 0 warnings\n",
		},
		{
			"singulars",
			Summary{Files: 1, Bytes: 1, Duration: time.Second, Findings: 1, Warnings: 1},
			"scanned 1 file, 1 B in 1s (1 B/s)\n1 finding, 1 warning\n",
		},
		{
			"both warning classes",
			Summary{Files: 2, Lost: 1, Noise: 3, Skipped: map[string]int64{"lfs pointer": 2}},
			"scanned 2 files, 0 B in 0s\n0 findings, 4 warnings (1 lost data, 3 noise)\nskipped: 2 lfs pointer\n",
		},
		{
			"noise only",
			Summary{Noise: 1},
			"scanned 0 files, 0 B in 0s\n0 findings, 1 warning (1 noise)\n",
		},
		{
			"unclassified warnings beyond the classes are other",
			Summary{Warnings: 5, Lost: 2},
			"scanned 0 files, 0 B in 0s\n0 findings, 5 warnings (2 lost data, 3 other)\n",
		},
		{
			"hostile reason",
			Summary{Skipped: map[string]int64{"bad\x1b[2J": 1}},
			"scanned 0 files, 0 B in 0s\n0 findings, 0 warnings\nskipped: 1 bad\\x1b[2J\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.s.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Fatalf("WriteText =\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}

func TestSummaryWriteTextReturnsTheWritersError(t *testing.T) {
	if err := (Summary{}).WriteText(&failWriter{err: errDisk}); !errors.Is(err, errDisk) {
		t.Fatalf("error = %v, want %v", err, errDisk)
	}
}
