package main

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"strings"
	"testing"
)

// sampleResults are two workloads as measureWorkload returns them.
func sampleResults() []benchResult {
	a := &workload{group: "executor", name: "1M tiny tasks, injected", unit: "task"}
	b := &workload{group: "fork", name: "tree sum, 1023 nodes", unit: "node"}
	return []benchResult{
		{w: a, impl: "spindle SpawnBatch", nsUnit: 21.3, speedup: 12},
		{w: a, impl: "channel-fed pool", nsUnit: 60, speedup: 4.3},
		{w: a, impl: goroutineImpl, nsUnit: 256, speedup: 1},
		{w: b, impl: "fork.Future", nsUnit: 3.1, speedup: 90},
		{w: b, impl: goroutineImpl, nsUnit: 280, speedup: 1},
	}
}

func TestSVGChartIsWellFormedAndLabelsEveryBar(t *testing.T) {
	var buf bytes.Buffer
	if err := writeSVG(&buf, sampleResults(), "spindle bench: <&> title"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name
		Rects   []struct {
			Fill string `xml:"fill,attr"`
		} `xml:"rect"`
		Texts []string `xml:"text"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("SVG does not parse: %v\n%s", err, buf.String())
	}
	if doc.XMLName.Local != "svg" {
		t.Fatalf("root element %q, want svg", doc.XMLName.Local)
	}
	bars := 0
	for _, r := range doc.Rects {
		switch r.Fill {
		case hexColor(barSpindle), hexColor(barGoroutines), hexColor(barOther):
			bars++
		}
	}
	if want := len(sampleResults()); bars != want {
		t.Errorf("%d bars, want %d", bars, want)
	}
	all := strings.Join(doc.Texts, "\n")
	for _, want := range []string{"<&> title", "spindle SpawnBatch", "channel-fed pool", "fork.Future", "12× faster", "baseline", "1 ns", "1 µs"} {
		if !strings.Contains(all, want) {
			t.Errorf("chart text lacks %q:\n%s", want, all)
		}
	}
}

func TestPNGChartDrawsBarsInTheirColours(t *testing.T) {
	var buf bytes.Buffer
	if err := writePNG(&buf, sampleResults(), "title"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	fig := layoutChart(sampleResults(), "title")
	if b := img.Bounds(); b.Dx() != fig.width || b.Dy() != fig.height {
		t.Fatalf("image is %v, want %dx%d", b, fig.width, fig.height)
	}
	for _, r := range fig.rects {
		if r.fill == chartGrid {
			continue
		}
		got := img.At(r.x+r.w/2, r.y+r.h/2)
		gr, gg, gb, _ := got.RGBA()
		wr, wg, wb, _ := r.fill.RGBA()
		if gr != wr || gg != wg || gb != wb {
			t.Errorf("bar at (%d,%d) is %v, want %v", r.x, r.y, got, r.fill)
		}
	}
}

func TestChartBarsGrowWithTime(t *testing.T) {
	fig := layoutChart(sampleResults(), "title")
	var widths []int
	for _, r := range fig.rects {
		if r.fill != chartGrid {
			widths = append(widths, r.w)
		}
	}
	// Within each workload the results are fastest first, so the bars
	// must not shrink.
	if !(widths[0] < widths[1] && widths[1] < widths[2] && widths[3] < widths[4]) {
		t.Errorf("bar widths %v do not follow the times", widths)
	}
}

func TestGlyphsCoverChartText(t *testing.T) {
	unknown := glyphFor('?')
	for _, r := range "abcxyzABCXYZ0123456789 .,:-+=/()%_'×µ·" {
		if r != '?' && glyphFor(r) == unknown {
			t.Errorf("no glyph for %q", r)
		}
	}
	if glyphFor('a') != glyphFor('A') {
		t.Error("lower case is not drawn as upper case")
	}
	if glyphFor('µ') == glyphFor('M') {
		t.Error("µ is drawn as the Greek capital")
	}
}

func TestWrapTextBreaksAfterCommas(t *testing.T) {
	got := wrapText("aaaa, bbbb, cccc, dd", 11)
	want := []string{"aaaa, bbbb,", "cccc, dd"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrapText = %q, want %q", got, want)
	}
	if got := wrapText("short", 80); len(got) != 1 || got[0] != "short" {
		t.Errorf("wrapText(short) = %q", got)
	}
}

func TestCountNamesWorkloadSizes(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{1 << 20, "1M"}, {16 << 10, "16K"}, {1023, "1023"}, {1000, "1000"}, {1<<20 - 1, "1,048,575"}, {12345, "12,345"},
	}
	for _, tt := range tests {
		if got := count(tt.n); got != tt.want {
			t.Errorf("count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
