module github.com/spindle-go/spindle/bench

go 1.26.0

require github.com/spindle-go/spindle v0.0.0

require (
	github.com/alitto/pond/v2 v2.7.1 // indirect
	github.com/panjf2000/ants/v2 v2.12.1 // indirect
	github.com/sourcegraph/conc v0.3.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)

replace github.com/spindle-go/spindle => ../
