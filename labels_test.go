package spindle

import (
	"bytes"
	"runtime/pprof"
	"strings"
	"testing"
)

func TestWorkersCarryPprofLabels(t *testing.T) {
	profile := make(chan string, 1)
	e := New(Config{Workers: 2}, nil, func(int, *Worker[int, noScratch]) {
		var buf bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
		profile <- buf.String()
	})
	if err := e.Spawn(0); err != nil {
		t.Fatal(err)
	}
	p := <-profile
	if _, err := e.Join(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p, `"spindle.worker":"0"`) && !strings.Contains(p, `"spindle.worker":"1"`) {
		t.Fatalf("goroutine profile has no spindle.worker label:\n%.2000s", p)
	}
}
