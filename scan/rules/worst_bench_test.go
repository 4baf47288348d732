package rules

import (
	"bytes"
	"strings"
	"testing"
)

// BenchmarkWorstCase scans pathological content next to ordinary source
// text, 8 MiB of each in 256 KiB chunks (the engine's way), with decoding
// on: the throughput of each case should stay within 3× of ordinary text.
//
//	go test -run '^$' -bench WorstCase -count 6 ./scan/rules
func BenchmarkWorstCase(b *testing.B) {
	const size = 8 << 20
	var ordinary []byte
	for _, c := range goSourceChunks(b) {
		ordinary = append(ordinary, c...)
	}
	ordinary = ordinary[:min(size, len(ordinary))]
	wrapped := func(line string) []byte {
		return bytes.Repeat([]byte(line+"\n"), size/(len(line)+1))
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"ordinary", ordinary},
		{"one-char", bytes.Repeat([]byte{'a'}, size)},
		{"base64-zeros-one-line", bytes.Repeat([]byte{'A'}, size)},
		{"base64-zeros-wrapped", wrapped(strings.Repeat("A", 76))},
		{"dense-keywords", wrapped("secret token key password auth api credential ghp_ xoxb- AKIA sk_live_")},
		{"dense-assignments", wrapped(`password = "hunter2" api_key: 'not-a-key' token=${TOKEN}`)},
		{"one-line", bytes.ReplaceAll(ordinary, []byte{'\n'}, []byte{' '})},
		{"percent-encoded", wrapped(strings.Repeat("%41%42", 20))},
	}
	for _, cfg := range []struct {
		name string
		mk   func(testing.TB) *Config
	}{{"default", func(testing.TB) *Config { return Default() }}, {"gitleaks", gitleaksConfig}} {
		d, err := Compile(cfg.mk(b))
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range cases {
			b.Run("rules="+cfg.name+"/case="+c.name, func(b *testing.B) {
				s := d.NewScratch()
				b.SetBytes(int64(len(c.data)))
				for b.Loop() {
					for off := 0; off < len(c.data); off += benchChunkBytes {
						d.Scan(s, "f.txt", c.data[off:min(off+benchChunkBytes, len(c.data))], func(Match) {})
					}
				}
			})
		}
	}
}
