package odb_test

import (
	"fmt"
	"log"
	"time"

	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// testdata/example.git holds three commits that add a configuration file,
// put a password in it and take it out again.

func Example() {
	db, err := odb.Open("testdata/example.git/objects", odb.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	head, _ := odb.ParseID("1e778b7cf0f9e812fa5ccb5c3a51571beb20e33b")
	_, data, err := db.Read(head, nil)
	if err != nil {
		log.Fatal(err)
	}
	c, err := odb.ParseCommit(data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Subject())
	fmt.Println(c.Author.Name, c.Author.Email, c.Author.When.Format(time.RFC3339))
	fmt.Println("parents:", c.Parents)

	_, tree, err := db.Read(c.Tree, nil)
	if err != nil {
		log.Fatal(err)
	}
	for e, err := range odb.TreeEntries(tree, db.HashSize()) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.Mode, e.Mode.Type(), e.ID, string(e.Name))
	}
	// Output:
	// Set the password
	// Ada Lovelace ada@example.com 2023-11-15T00:13:20+01:00
	// parents: [e32523f5e13da8d86be4268812c6829370e5c3de]
	// 100644 blob 988d1a92f5b395ec39a040889a6bc75e8c6b9ba7 README
	// 040000 tree 0105f5a7169bff1c1decbd7625d62139fdcaeb69 config
}

// A scanner that has scanned a delta's base need only look at what the
// delta inserts.
func ExampleDB_Delta() {
	db, err := odb.Open("testdata/example.git/objects", odb.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	// config/app.conf as the second commit left it: git stores it as a
	// delta of the third commit's version (newer objects are whole or
	// near the top of their chains), which only copies "password = ".
	id, _ := odb.ParseID("0653780f67de5a408b9130aeb3033e5dec29c424")
	base, d, err := db.Delta(id)
	if err != nil {
		log.Fatal(err)
	}
	if d == nil {
		fmt.Println("stored whole")
		return
	}
	fmt.Println("delta of", base, "building", d.Size, "bytes")
	var at int64
	for _, op := range d.Ops {
		if op.Data != nil {
			fmt.Printf("insert at %d: %q\n", at, op.Data)
		}
		at += op.Len
	}
	// Output:
	// delta of bd8fd3c6402c6e01bddc49aaca49a4d4cbd273b0 building 1720 bytes
	// insert at 871: "hunter2\nline 3"
}

func ExamplePack_Entries() {
	db, err := odb.Open("testdata/example.git/objects", odb.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, p := range db.Packs() {
		for e, err := range p.Entries() {
			if err != nil {
				log.Fatal(err)
			}
			if e.Type == odb.TypeBlob {
				fmt.Println(e.Offset, e.ID, e.Delta)
			}
		}
	}
	// Output:
	// 564 988d1a92f5b395ec39a040889a6bc75e8c6b9ba7 false
	// 644 8b23143e79c1c246d1a08b7f83e0bec5ac281826 false
	// 822 bd8fd3c6402c6e01bddc49aaca49a4d4cbd273b0 true
	// 1003 0653780f67de5a408b9130aeb3033e5dec29c424 true
}
