package odb

import (
	"bufio"
	"bytes"
	stdflate "compress/flate"
	stdzlib "compress/zlib"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	kzlib "github.com/klauspost/compress/zlib"
)

// The benchmarks read every blob of a repository: the mirror clone of
// caddy at caddyRepo when it exists (skipped otherwise), and a synthetic
// history that git fast-import generates in the benchmark's setup.
//
//	go test -run '^$' -bench . -benchtime 5x ./scan/internal/gitrepo/odb/
//
// For instruction counts, which do not depend on the machine's load
// (the runtime's rdtscp and preemption signals confuse valgrind):
//
//	go test -c -o odb.test ./scan/internal/gitrepo/odb/
//	GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	    ./odb.test -test.run '^$' -test.bench 'ReadCaddy/listed=true/goroutines=1' -test.benchtime 1x
//
// Besides ns/op and MB/s (of blob content), each reports cpu-ms/op and
// cpu-ms/MB: the process's user+system CPU, plus its children's for git
// cat-file, which is what counts on a loaded machine.
const caddyRepo = "/work/repos/caddy.git"

// caddyDir returns the caddy mirror, or skips.
func caddyDir(b *testing.B) string {
	if st, err := os.Stat(caddyRepo); err != nil || !st.IsDir() {
		b.Skip("no", caddyRepo)
	}
	return caddyRepo
}

// syntheticDir generates the synthetic history: 3000 commits editing 300
// files of about 200 lines, repacked as git gc would.
func syntheticDir(b *testing.B) string {
	dir := newRepo(b, true)
	fastImport(b, dir, 3000, 300, 200)
	git(b, dir, nil, "repack", "-adfq")
	return dir
}

// blobList is every blob of a repository in pack order, and their bytes.
type blobList struct {
	ids   []ID
	bytes int64
}

func listBlobs(b *testing.B, dir string) blobList {
	db, err := openRepo(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var l blobList
	for _, p := range db.Packs() {
		for e, err := range p.Entries() {
			if err != nil {
				b.Fatal(err)
			}
			if e.Type == TypeBlob {
				l.ids = append(l.ids, e.ID)
			}
		}
	}
	var buf []byte
	for _, id := range l.ids {
		if _, buf, err = db.Read(id, buf); err != nil {
			b.Fatal(err)
		}
		l.bytes += int64(len(buf))
	}
	return l
}

// reportCPU adds cpu-ms/op and cpu-ms/MB for the CPU used since self0,
// children0 over b.N iterations of mb megabytes each.
func reportCPU(b *testing.B, self0, children0 time.Duration, mb float64) {
	self, children := cpuTimes()
	cpu := (self - self0) + (children - children0)
	perOp := float64(cpu) / float64(b.N) / 1e6
	b.ReportMetric(perOp, "cpu-ms/op")
	b.ReportMetric(perOp/mb, "cpu-ms/MB")
}

// BenchmarkReadCaddy and BenchmarkReadSynthetic read every blob with
// DB.Read from 1 and 2 goroutines that take batches of ids in pack order.
// Each iteration opens the database afresh (a cold cache) and, in the
// "listed" variant, lists the packs' entries first as a history scan
// does, which tells the reader which objects are delta bases. (The caddy
// benchmark starts no process, so it also runs under valgrind.)
func BenchmarkReadCaddy(b *testing.B)     { benchRead(b, caddyDir(b)) }
func BenchmarkReadSynthetic(b *testing.B) { benchRead(b, syntheticDir(b)) }

func benchRead(b *testing.B, dir string) {
	blobs := listBlobs(b, dir)
	for _, listed := range []bool{true, false} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("listed=%v/goroutines=%d", listed, workers), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(blobs.bytes)
				self0, children0 := cpuTimes()
				for range b.N {
					readAll(b, dir, blobs.ids, workers, listed)
				}
				reportCPU(b, self0, children0, float64(blobs.bytes)/1e6)
			})
		}
	}
}

func readAll(b *testing.B, dir string, ids []ID, workers int, listed bool) {
	db, err := openRepo(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if listed {
		for _, p := range db.Packs() {
			for _, err := range p.Entries() {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	const batch = 64
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var buf []byte
			for {
				i := int(next.Add(batch)) - batch
				if i >= len(ids) {
					return
				}
				for _, id := range ids[i:min(i+batch, len(ids))] {
					var err error
					if _, buf, err = db.Read(id, buf); err != nil {
						b.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkCatFileCaddy and BenchmarkCatFileSynthetic read the same blobs
// through git cat-file --batch (with --buffer): one process, or one per
// goroutine each taking a contiguous share of the pack-ordered ids.
func BenchmarkCatFileCaddy(b *testing.B) {
	requireGit(b)
	benchCatFile(b, caddyDir(b))
}

func BenchmarkCatFileSynthetic(b *testing.B) { benchCatFile(b, syntheticDir(b)) }

func benchCatFile(b *testing.B, dir string) {
	{
		blobs := listBlobs(b, dir)
		for _, procs := range []int{1, 2} {
			b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(blobs.bytes)
				self0, children0 := cpuTimes()
				for range b.N {
					var wg sync.WaitGroup
					share := (len(blobs.ids) + procs - 1) / procs
					for p := range procs {
						ids := blobs.ids[min(p*share, len(blobs.ids)):min((p+1)*share, len(blobs.ids))]
						wg.Go(func() {
							if err := catFile(dir, ids); err != nil {
								b.Error(err)
							}
						})
					}
					wg.Wait()
				}
				reportCPU(b, self0, children0, float64(blobs.bytes)/1e6)
			})
		}
	}
}

// catFile feeds ids to one git cat-file --batch --buffer and reads every
// reply into a reused buffer.
func catFile(dir string, ids []ID) error {
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch", "--buffer")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		w := bufio.NewWriterSize(in, 64<<10)
		for _, id := range ids {
			w.WriteString(id.String())
			w.WriteByte('\n')
		}
		w.Flush()
		in.Close()
	}()
	r := bufio.NewReaderSize(out, 256<<10)
	var buf []byte
	for range ids {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		f := bytes.Fields(line)
		if len(f) != 3 {
			return fmt.Errorf("cat-file: %q", line)
		}
		n, err := strconv.Atoi(string(f[2]))
		if err != nil {
			return err
		}
		buf = grow(buf, n+1)
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
	}
	return cmd.Wait()
}

// BenchmarkInflate inflates the zlib streams of every entry of caddy's
// pack (whole objects and delta data, as stored) with the one-shot
// decoder, klauspost's flate and the standard library's, reusing one
// decompressor, and through each library's zlib reader, which also checks
// the Adler-32 trailer.
func BenchmarkInflate(b *testing.B) {
	db, err := openRepo(caddyDir(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	type stream struct {
		z    []byte
		size int64
	}
	var streams []stream
	var total int64
	for _, p := range db.Packs() {
		rev, err := p.reverse()
		if err != nil {
			b.Fatal(err)
		}
		for rank, pos := range rev.order {
			off := p.idx.offset(int(pos))
			end := rev.end(rank, p.end)
			raw := make([]byte, end-off)
			if err := p.readAt(raw, off); err != nil {
				b.Fatal(err)
			}
			h, err := parseEntryHeader(raw, off, p.idx.hs)
			if err != nil {
				b.Fatal(err)
			}
			streams = append(streams, stream{raw[h.hdrLen:], h.size})
			total += h.size
		}
	}
	run := func(b *testing.B, inflate func(z []byte, out []byte) error) {
		b.ReportAllocs()
		b.SetBytes(total)
		out := make([]byte, 0, 1<<20)
		for range b.N {
			for _, s := range streams {
				out = grow(out, int(s.size))
				if err := inflate(s.z, out); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("oneshot", func(b *testing.B) {
		z := newInflater()
		run(b, func(src, out []byte) error {
			_, err := z.inflateBytes(src, int64(len(out)), out)
			return err
		})
	})
	b.Run("klauspost-flate", func(b *testing.B) {
		z := newInflater()
		run(b, func(src, out []byte) error {
			z.br.Reset(src[2:])
			_, err := z.run(&z.br, int64(len(out)), out)
			return err
		})
	})
	b.Run("stdlib-flate", func(b *testing.B) {
		var br bytes.Reader
		fr := stdflate.NewReader(&br)
		run(b, func(src, out []byte) error {
			br.Reset(src[2:])
			fr.(stdflate.Resetter).Reset(&br, nil)
			_, err := io.ReadFull(fr, out)
			return err
		})
	})
	b.Run("klauspost-zlib", func(b *testing.B) {
		var br bytes.Reader
		br.Reset(streams[0].z)
		zr, _ := kzlib.NewReader(&br)
		run(b, func(src, out []byte) error {
			br.Reset(src)
			zr.(kzlib.Resetter).Reset(&br, nil)
			if _, err := io.ReadFull(zr, out); err != nil {
				return err
			}
			_, err := zr.Read(out[:0:1][:1])
			if err != io.EOF {
				return fmt.Errorf("no end: %v", err)
			}
			return nil
		})
	})
	b.Run("stdlib-zlib", func(b *testing.B) {
		var br bytes.Reader
		br.Reset(streams[0].z)
		zr, _ := stdzlib.NewReader(&br)
		run(b, func(src, out []byte) error {
			br.Reset(src)
			zr.(stdzlib.Resetter).Reset(&br, nil)
			if _, err := io.ReadFull(zr, out); err != nil {
				return err
			}
			var one [1]byte
			if _, err := zr.Read(one[:]); err != io.EOF {
				return fmt.Errorf("no end: %v", err)
			}
			return nil
		})
	})
}
