package flow

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

func TestWriteDOT(t *testing.T) {
	g := New(`my "graph"`)
	a := g.Add("load", nil)
	c := g.AddCondition("ok?", func(context.Context) (int, error) { return 0, nil })
	s := g.AddSubflow("split\nwork", nil)
	d := g.Add(`C:\out`, nil)
	a.Precede(c)
	c.Precede(s, d)
	s.Precede(d)
	var buf bytes.Buffer
	if err := g.WriteDOT(&buf); err != nil {
		t.Fatal(err)
	}
	want := `digraph "my \"graph\"" {
	t0 [label="load"];
	t1 [label="ok?", shape=diamond];
	t2 [label="split\nwork", shape=box3d];
	t3 [label="C:\\out"];
	t0 -> t1;
	t1 -> t2 [style=dashed, label="0"];
	t1 -> t3 [style=dashed, label="1"];
	t2 -> t3;
}
`
	if got := buf.String(); got != want {
		t.Fatalf("WriteDOT:\n%s\nwant:\n%s", got, want)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteDOTReportsWriteErrors(t *testing.T) {
	g := New("g")
	g.Add("a", nil)
	if err := g.WriteDOT(failWriter{}); err == nil {
		t.Fatal("WriteDOT returned nil on a failing writer")
	}
}

func TestNames(t *testing.T) {
	g := New("g")
	tests := []struct{ got, want string }{
		{g.Name(), "g"},
		{g.Add("named", nil).Name(), "named"},
		{g.Add("", nil).Name(), "task1"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("name %q, want %q", tc.got, tc.want)
		}
	}
}
