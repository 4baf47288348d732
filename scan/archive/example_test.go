package archive_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/spindle-go/spindle/scan/archive"
)

// tarGz builds a .tar.gz in memory from name, content pairs.
func tarGz(pairs ...string) []byte {
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	for i := 0; i < len(pairs); i += 2 {
		tw.WriteHeader(&tar.Header{Name: pairs[i], Mode: 0o644, Size: int64(len(pairs[i+1]))})
		io.WriteString(tw, pairs[i+1])
	}
	tw.Close()
	gz.Close()
	return b.Bytes()
}

func zipOf(pairs ...string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for i := 0; i < len(pairs); i += 2 {
		w, _ := zw.Create(pairs[i])
		io.WriteString(w, pairs[i+1])
	}
	zw.Close()
	return b.Bytes()
}

// Walk streams every member to visit, nested archives included; the names
// say where each member came from.
func ExampleWalk() {
	inner := zipOf("x.env", "TOKEN=abc")
	data := tarGz("README", "hello", "lib/inner.zip", string(inner))

	err := archive.Walk(context.Background(), "a.tar.gz", bytes.NewReader(data), int64(len(data)),
		archive.DefaultLimits(),
		func(m archive.Member, r io.Reader) error {
			b, err := io.ReadAll(r)
			fmt.Printf("%s (depth %d): %s\n", m.Name, m.Depth, b)
			return err
		},
		func(warning error) { fmt.Println("warning:", warning) })
	if err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// a.tar.gz!README (depth 1): hello
	// a.tar.gz!lib/inner.zip!x.env (depth 2): TOKEN=abc
}

// A Root shares one byte budget among all the archives of a scan root.
// Past MaxRootBytes decoded, the root may decode no more than MaxRatio
// bytes per compressed byte of the archives it opened: here 1,000 bytes,
// then 5:1. Each archive below inflates 2,000 bytes from about 50, so the
// first runs the root over and the second is not opened; a budget hit is
// a warning naming the archive and the budget.
func ExampleRoot() {
	lim := archive.DefaultLimits()
	lim.MaxRootBytes, lim.MaxRatio = 1000, 5
	root := archive.NewRoot(lim)
	visit := func(m archive.Member, r io.Reader) error {
		b, err := io.ReadAll(r)
		fmt.Printf("%s: %d bytes\n", m.Name, len(b))
		return err
	}
	warn := func(w error) { fmt.Println("warning:", w) }
	zeros := strings.Repeat("0", 1000)
	for _, name := range []string{"one.tar.gz", "two.tar.gz"} {
		data := tarGz("a.txt", zeros, "b.txt", zeros)
		if err := root.Walk(context.Background(), name, bytes.NewReader(data), int64(len(data)), visit, warn); err != nil {
			fmt.Println("error:", err)
		}
	}
	// Output:
	// one.tar.gz!a.txt: 1000 bytes
	// one.tar.gz!b.txt: 1000 bytes
	// warning: archive: one.tar.gz: root-bytes budget exceeded (limit 1000 B)
	// warning: archive: two.tar.gz: root-bytes budget exceeded (limit 1000 B)
}

// A compressed file that is not an archive is one member under its own
// name; MaxDepth 0 turns archives off and hands the bytes over as they are.
func ExampleWalk_compressedFile() {
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	io.WriteString(gz, "password=hunter2")
	gz.Close()
	for _, depth := range []int{3, 0} {
		lim := archive.DefaultLimits()
		lim.MaxDepth = depth
		archive.Walk(context.Background(), "notes.txt.gz", bytes.NewReader(b.Bytes()), int64(b.Len()), lim,
			func(m archive.Member, r io.Reader) error {
				data, err := io.ReadAll(r)
				fmt.Printf("depth %d: %s, %d bytes, gzip: %v\n", depth, m.Name, len(data),
					archive.Detect(data) == archive.Gzip)
				return err
			}, nil)
	}
	// Output:
	// depth 3: notes.txt.gz, 16 bytes, gzip: false
	// depth 0: notes.txt.gz, 40 bytes, gzip: true
}

// Detect trusts magic numbers; DetectName only guesses from the name.
func ExampleDetect() {
	fmt.Println(archive.Detect([]byte("PK\x03\x04...")))
	fmt.Println(archive.Detect([]byte{0x1f, 0x8b, 0x08, 0x00}))
	fmt.Println(archive.Detect([]byte("just text, though named notes.gz")))
	fmt.Println(archive.DetectName("app.jar"), archive.DetectName("x.tar.gz"), archive.DetectName(strings.ToUpper("x.tzst")))
	// Output:
	// zip
	// gzip
	// none
	// zip gzip zstd
}

// Open reads the members of a zip or 7z on several goroutines at once: one
// goroutine lists the parts with Next, workers read them with Walk. The
// budgets are shared by all the parts; a member a budget keeps from being
// read is named in a warning, wherever it was going to be read.
func ExampleRoot_Open() {
	data := zipOf("a.env", "TOKEN=a", "b.env", "TOKEN=b", "c.env", "TOKEN=c")
	root := archive.NewRoot(archive.DefaultLimits())
	a, err := root.Open(context.Background(), "app.zip", bytes.NewReader(data), int64(len(data)))
	if err != nil { // archive.ErrNotRandomAccess: a tar, a stream, a plain file; use Walk
		fmt.Println("error:", err)
		return
	}
	defer a.Close()

	var mu sync.Mutex
	found := map[string]string{}
	visit := func(m archive.Member, r io.Reader) error {
		b, err := io.ReadAll(r)
		mu.Lock()
		found[m.Name] = string(b)
		mu.Unlock()
		return err
	}
	warn := func(w error) { fmt.Println("warning:", w) } // called by Next and by the workers: lock if shared

	parts := make(chan archive.Part)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for p := range parts {
				if err := a.Walk(context.Background(), p, visit, warn); err != nil {
					fmt.Println("error:", err)
				}
			}
		})
	}
	for {
		p, err := a.Next(context.Background(), warn)
		if err != nil { // io.EOF at the end
			break
		}
		parts <- p
	}
	close(parts)
	wg.Wait()
	for _, name := range slices.Sorted(maps.Keys(found)) {
		fmt.Println(name, found[name])
	}
	// Output:
	// app.zip!a.env TOKEN=a
	// app.zip!b.env TOKEN=b
	// app.zip!c.env TOKEN=c
}

// DetectFile finds what Detect cannot see in a file's first bytes: a zip
// appended to an executable or script, a self-extracting archive.
func ExampleDetectFile() {
	sfx := append([]byte("#!/bin/sh\nexec unzip -o \"$0\"\n"), zipOf("x.env", "TOKEN=abc")...)
	head := sfx[:min(len(sfx), archive.HeadLen)]
	fmt.Println(archive.Detect(head), archive.DetectFile(head, bytes.NewReader(sfx), int64(len(sfx))))
	// Output:
	// none zip
}
