package flow

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteDOT writes the graph in Graphviz DOT form: one node per task, labelled
// with its name (condition tasks as diamonds, subflow tasks as 3-D boxes,
// since their children exist only at run time), one edge per dependency.
// Edges out of a condition task are dashed and labelled with the index that
// selects them. The output is deterministic: tasks and edges in the order
// they were added.
func (g *Graph) WriteDOT(w io.Writer) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n", dotQuote(g.name))
	for _, t := range g.tasks {
		fmt.Fprintf(bw, "\tt%d [label=%s", t.id, dotQuote(t.Name()))
		switch t.kind {
		case kindCond:
			bw.WriteString(", shape=diamond")
		case kindSubflow:
			bw.WriteString(", shape=box3d")
		}
		bw.WriteString("];\n")
	}
	for _, t := range g.tasks {
		for i, s := range t.succ {
			if t.kind == kindCond {
				fmt.Fprintf(bw, "\tt%d -> t%d [style=dashed, label=\"%d\"];\n", t.id, s.id, i)
			} else {
				fmt.Fprintf(bw, "\tt%d -> t%d;\n", t.id, s.id)
			}
		}
	}
	bw.WriteString("}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("flow: graph %q: write DOT: %w", g.name, err)
	}
	return nil
}

// dotQuote makes s a DOT quoted string: backslashes and quotes escaped,
// newlines as \n.
func dotQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
