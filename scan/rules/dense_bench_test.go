package rules

import (
	"bytes"
	"sort"
	"strings"
	"testing"
)

// denseText returns about size bytes made of the built-in rules' positive
// examples, one per line, over and over: a buffer where every line holds
// a finding.
func denseText(size int) []byte {
	examples := builtinExamples()
	ids := make([]string, 0, len(examples))
	for id := range examples {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	for b.Len() < size {
		for _, id := range ids {
			for _, e := range examples[id].positive {
				b.WriteString(strings.ReplaceAll(e.text, "\n", " "))
				b.WriteByte('\n')
			}
		}
	}
	return []byte(b.String()[:size])
}

// BenchmarkScanDense scans 1 MiB in which every line holds a finding, in
// one call and in pieces: the time per byte must not grow with the size
// of the call.
func BenchmarkScanDense(b *testing.B) {
	lines := denseText(1 << 20)
	oneLine := bytes.ReplaceAll(lines, []byte("\n"), []byte(" "))
	for _, c := range []struct {
		name string
		mk   func(testing.TB) *Detector
		data []byte
	}{
		{"rules=default/text=lines", defaultDetector, lines},
		{"rules=default/text=oneline", defaultDetector, oneLine},
		{"rules=gitleaks/text=lines", gitleaksDetector, lines},
		{"rules=gitleaks/text=oneline", gitleaksDetector, oneLine},
	} {
		for _, piece := range []int{64 << 10, 1 << 20} {
			benchDense(b, c.name+"/piece="+sizeName(piece), c.mk(b), c.data, piece)
		}
	}
}

func benchDense(b *testing.B, name string, d *Detector, data []byte, piece int) {
	{
		b.Run(name, func(b *testing.B) {
			s := d.NewScratch()
			findings := 0
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				for off := 0; off < len(data); off += piece {
					d.Scan(s, "config/app.env", data[off:min(off+piece, len(data))], func(Match) { findings++ })
				}
			}
			b.ReportMetric(float64(findings)/float64(b.N), "findings/op")
		})
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return itoa(n>>20) + "MiB"
	}
	return itoa(n>>10) + "KiB"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}
