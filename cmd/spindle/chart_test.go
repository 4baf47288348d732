package main

import (
	"bytes"
	"encoding/xml"
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

// chartDoc is the part of the SVG the tests read back.
type chartDoc struct {
	XMLName xml.Name
	Width   int `xml:"width,attr"`
	Height  int `xml:"height,attr"`
	Rects   []struct {
		X      int    `xml:"x,attr"`
		Y      int    `xml:"y,attr"`
		Width  int    `xml:"width,attr"`
		Height int    `xml:"height,attr"`
		Fill   string `xml:"fill,attr"`
	} `xml:"rect"`
	Texts []struct {
		Y    int    `xml:"y,attr"`
		Text string `xml:",chardata"`
	} `xml:"text"`
}

func parseChart(t *testing.T, results []benchResult, title string) chartDoc {
	t.Helper()
	var buf bytes.Buffer
	if err := writeSVG(&buf, results, title); err != nil {
		t.Fatal(err)
	}
	var doc chartDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("SVG does not parse: %v\n%s", err, buf.String())
	}
	return doc
}

// bars returns the chart's bars, in order: the rectangles in a bar colour.
func (d chartDoc) bars() (widths []int, fills []string) {
	for _, r := range d.Rects {
		switch r.Fill {
		case barSpindle, barGoroutines, barOther:
			widths = append(widths, r.Width)
			fills = append(fills, r.Fill)
		}
	}
	return widths, fills
}

func TestSVGChartIsWellFormedAndLabelsEveryBar(t *testing.T) {
	doc := parseChart(t, sampleResults(), "spindle bench: <&> title")
	if doc.XMLName.Local != "svg" {
		t.Fatalf("root element %q, want svg", doc.XMLName.Local)
	}
	_, fills := doc.bars()
	want := []string{barSpindle, barOther, barGoroutines, barSpindle, barGoroutines}
	if strings.Join(fills, " ") != strings.Join(want, " ") {
		t.Errorf("bar colours %v, want %v", fills, want)
	}
	var all []string
	for _, tx := range doc.Texts {
		all = append(all, tx.Text)
		if tx.Y <= 0 || tx.Y >= doc.Height {
			t.Errorf("text %q at y=%d, outside the %d-high chart", tx.Text, tx.Y, doc.Height)
		}
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{"<&> title", "spindle SpawnBatch", "channel-fed pool", "fork.Future", "12× faster", "baseline", "1 ns", "1 µs"} {
		if !strings.Contains(text, want) {
			t.Errorf("chart text lacks %q:\n%s", want, text)
		}
	}
	for _, r := range doc.Rects {
		if r.Fill != "#ffffff" && (r.X+r.Width > doc.Width || r.Y+r.Height > doc.Height) {
			t.Errorf("rect %+v leaves the %dx%d chart", r, doc.Width, doc.Height)
		}
	}
}

func TestChartBarsGrowWithTime(t *testing.T) {
	widths, _ := parseChart(t, sampleResults(), "title").bars()
	// Within each workload the results are fastest first, so the bars
	// must not shrink.
	if len(widths) != 5 || !(widths[0] < widths[1] && widths[1] < widths[2] && widths[3] < widths[4]) {
		t.Errorf("bar widths %v do not follow the times", widths)
	}
}

// TestPlotTakesSVGOnly: --plot draws SVG; a .png name gets an error that
// says how to convert the SVG, any other name one that says what to use.
func TestPlotTakesSVGOnly(t *testing.T) {
	if f, err := chartWriter("out/Bench.SVG"); err != nil || f == nil {
		t.Fatalf("chartWriter(.SVG) = %v", err)
	}
	for name, want := range map[string][]string{
		"bench.png": {"SVG only", "bench.svg", "rsvg-convert"},
		"x.gif":     {"x.gif", ".svg"},
		"noext":     {"noext", ".svg"},
	} {
		f, err := chartWriter(name)
		if err == nil || f != nil {
			t.Fatalf("chartWriter(%q) accepted it", name)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("chartWriter(%q) error %q lacks %q", name, err, w)
			}
		}
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
