module github.com/spindle-go/spindle/bench

go 1.26.0

require github.com/spindle-go/spindle v0.0.0

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/sourcegraph/conc v0.3.0
	golang.org/x/sync v0.24.0
)

require golang.org/x/sys v0.49.0 // indirect

replace github.com/spindle-go/spindle => ../
