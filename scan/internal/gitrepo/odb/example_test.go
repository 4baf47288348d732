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
	c, err := odb.ParseCommitLimit(data, -1)
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
	entries, err := odb.AppendTree(nil, tree, db.HashSize())
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		fmt.Println(e.Mode, e.Mode.Type(), e.ID, string(e.Name))
	}
	// Output:
	// Set the password
	// Ada Lovelace ada@example.com 2023-11-15T00:13:20+01:00
	// parents: [e32523f5e13da8d86be4268812c6829370e5c3de]
	// 100644 blob 988d1a92f5b395ec39a040889a6bc75e8c6b9ba7 README
	// 040000 tree 0105f5a7169bff1c1decbd7625d62139fdcaeb69 config
}
