package archive

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// benchText is 8 MiB of source-like text: compressible about 4:1, like
// the trees a scanner walks.
func benchText() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 8<<20; i++ {
		fmt.Fprintf(&b, "func handler%d(w http.ResponseWriter, r *http.Request) { token := %q }\n", i, fmt.Sprint(i*7919))
	}
	return b.Bytes()
}

// benchWalk walks data per iteration, reading every member, and reports
// decoded MB/s (through SetBytes) and ns per member.
func benchWalk(b *testing.B, name string, data []byte, decoded int64) {
	b.ReportAllocs()
	b.SetBytes(decoded)
	members := 0
	for b.Loop() {
		err := Walk(context.Background(), name, bytes.NewReader(data), int64(len(data)), DefaultLimits(),
			func(m Member, r io.Reader) error {
				members++
				_, err := io.Copy(io.Discard, r)
				return err
			}, func(err error) { b.Fatal(err) })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(members), "ns/member")
}

func BenchmarkWalk(b *testing.B) {
	text := benchText()
	var files []file
	for i := 0; i < len(text); i += 64 << 10 {
		files = append(files, file{fmt.Sprintf("src/f%d.go", i), string(text[i:min(i+64<<10, len(text))])})
	}
	tarData := tarOf(b, files...)
	cases := []struct {
		name string
		data []byte
	}{
		{"tar", tarData},
		{"tar.gz", gzipOf(b, tarData)},
		{"tar.zst", zstdOf(b, tarData, zstd.WithEncoderLevel(zstd.SpeedDefault))},
		{"tar.xz", xzOf(b, tarData, xz.WriterConfig{})},
		{"zip", zipOf(b, zipDeflate, files...)},
		{"txt.gz", gzipOf(b, text)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { benchWalk(b, "x."+c.name, c.data, int64(len(text))) })
	}
	// The floor: the same gzip streams decoded straight to io.Discard, with
	// no walk, no budgets and no tar. Walk's overhead is the difference.
	for _, c := range cases {
		if c.name != "tar.gz" && c.name != "txt.gz" {
			continue
		}
		b.Run("decode-only/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				z, err := kgzip.NewReader(bytes.NewReader(c.data))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, z); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkZipManyEntries compares this package's streamed central
// directory with archive/zip's, which holds every entry: B/op is the
// point.
func BenchmarkZipManyEntries(b *testing.B) {
	const n = 100_000
	members := make([]rawMember, n)
	for i := range members {
		members[i] = storedMember(fmt.Sprintf("dir/file%06d.txt", i), []byte("x"))
	}
	data := rawZip(members, false)
	b.Run("walk", func(b *testing.B) {
		lim := DefaultLimits()
		lim.MaxEntries = -1
		b.ReportAllocs()
		for b.Loop() {
			Walk(context.Background(), "m.zip", bytes.NewReader(data), int64(len(data)), lim,
				func(m Member, r io.Reader) error { _, err := io.Copy(io.Discard, r); return err }, nil)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/member")
	})
	b.Run("archive-zip", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			for _, f := range zr.File {
				rc, _ := f.Open()
				io.Copy(io.Discard, rc)
				rc.Close()
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/member")
	})
}

func BenchmarkDetect(b *testing.B) {
	heads := [][]byte{tarOf(b, file{"a", "b"})[:HeadLen], []byte("plain text that is not an archive at all, " +
		string(bytes.Repeat([]byte("x"), HeadLen)))}
	b.ReportAllocs()
	for b.Loop() {
		for _, h := range heads {
			Detect(h)
		}
	}
}

// BenchmarkArchiveParts compares reading the members of one zip one after
// another (Walk) with reading its parts on several goroutines (Open, Next,
// Walk per part): the decoding that the engine, before Open, did on a
// single worker. MB/s is decoded bytes; run with -cpu 1,2,4,8 to see the
// scaling.
func BenchmarkArchiveParts(b *testing.B) {
	text := benchText()
	var files []file
	for i := 0; i < len(text); i += 64 << 10 {
		files = append(files, file{fmt.Sprintf("src/f%d.go", i), string(text[i:min(i+64<<10, len(text))])})
	}
	data := zipOf(b, zipDeflate, files...)
	discard := func(m Member, r io.Reader) error { _, err := io.Copy(io.Discard, r); return err }
	b.Run("walk", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if err := Walk(context.Background(), "x.zip", bytes.NewReader(data), int64(len(data)), DefaultLimits(), discard, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parts", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		workers := runtime.GOMAXPROCS(0)
		for b.Loop() {
			a, err := NewRoot(DefaultLimits()).Open(context.Background(), "x.zip", bytes.NewReader(data), int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			parts := make(chan Part, workers)
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					for p := range parts {
						if err := a.Walk(context.Background(), p, discard, nil); err != nil {
							b.Error(err)
						}
					}
				})
			}
			for {
				p, err := a.Next(context.Background(), nil)
				if err != nil {
					break
				}
				parts <- p
			}
			close(parts)
			wg.Wait()
			a.Close()
		}
	})
}
