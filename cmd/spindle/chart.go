package main

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// The bench chart, written as plain SVG that any browser renders (and that
// rsvg-convert or Inkscape turn into PNG): for each workload a heading and
// one horizontal bar per implementation, its length the time per unit on one
// logarithmic axis shared by the whole chart, with a grid line at every
// power of ten. Shorter is faster. The axis is logarithmic because the times
// span three or four orders of magnitude (a forked tree node costs a few ns,
// a goroutine hundreds): on a linear axis every Spindle bar would be a
// sliver. The label after each bar gives the time and the ratio to
// goroutines. Text is set in the viewer's monospace font, whose advance is
// 0.6 em, so the layout knows how wide each label is.

// Layout, in SVG user units (pixels at 100%).
const (
	chartFont    = 14                 // font size
	charW        = chartFont * 6 / 10 // advance of a monospace character
	lineH        = chartFont * 3 / 2  // height of a text line
	chartMargin  = 16                 //
	labelColumn  = 24 * charW         // implementation names
	barMaxWidth  = 420                //
	barHeight    = chartFont          //
	afterBarText = 28 * charW         // "21.3 ns/task  12.1× faster"
	chartWidth   = 2*chartMargin + labelColumn + barMaxWidth + 8 + afterBarText
)

// Colours of the bars: Spindle's implementations, the goroutine baseline,
// everything else.
const (
	barSpindle    = "#2b6cb0"
	barGoroutines = "#9a9a9a"
	barOther      = "#d98b2b"
	chartInk      = "#222222"
	chartMuted    = "#666666"
	chartGrid     = "#dddddd"
)

// chartWriter returns the function that draws the chart to path, chosen by
// its extension, or an error naming what --plot accepts. PNG is no longer
// drawn (the command carried its own rasteriser and bitmap font for it):
// the error says how to get one from the SVG.
func chartWriter(path string) (func(io.Writer, []benchResult, string) error, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg":
		return writeSVG, nil
	case ".png":
		return nil, fmt.Errorf("invalid argument %q for \"--plot\": the chart is SVG only; write %s and convert it (rsvg-convert -o %s %s)",
			path, strings.TrimSuffix(path, filepath.Ext(path))+".svg", path, strings.TrimSuffix(path, filepath.Ext(path))+".svg")
	default:
		return nil, fmt.Errorf("invalid argument %q for \"--plot\": want a .svg file name", path)
	}
}

// svgChart accumulates the chart's elements.
type svgChart struct {
	b *bufio.Writer
	y int // top of the next line
}

// text writes s with its top left corner at (x, c.y).
func (c *svgChart) text(x int, s, fill string) {
	// SVG places text by its baseline, about 0.8 em below the top.
	fmt.Fprintf(c.b, `<text x="%d" y="%d" fill="%s">`, x, c.y+chartFont*8/10, fill)
	_ = xml.EscapeText(c.b, []byte(s)) // a write error sticks in c.b and surfaces at Flush
	c.b.WriteString("</text>\n")
}

func (c *svgChart) rect(x, y, w, h int, fill string) {
	fmt.Fprintf(c.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", x, y, w, h, fill)
}

// writeSVG writes the chart of results under title as an SVG document.
// Text is escaped: implementation names are ours, but the title carries the
// Go version string.
func writeSVG(w io.Writer, results []benchResult, title string) error {
	titleLines := wrapText(title, (chartWidth-2*chartMargin)/charW)
	groups := 0
	for i, r := range results {
		if i == 0 || r.w != results[i-1].w {
			groups++
		}
	}
	height := 2*chartMargin + (len(titleLines)+2+groups+len(results))*lineH + groups*lineH/2

	c := &svgChart{b: bufio.NewWriter(w), y: chartMargin}
	fmt.Fprintf(c.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="%d">`+"\n",
		chartWidth, height, chartWidth, height, chartFont)
	c.rect(0, 0, chartWidth, height, "#ffffff")
	for _, line := range titleLines {
		c.text(chartMargin, line, chartInk)
		c.y += lineH
	}
	c.y += lineH / 2

	// The axis: from the power of ten at or below the fastest time to the
	// one at or above the slowest, labelled at every power of ten, with the
	// grid lines drawn first so that bars and text cover them.
	decLo, decHi := decades(results)
	barX := chartMargin + labelColumn
	xOf := func(ns float64) int {
		return barX + int(float64(barMaxWidth)*(math.Log10(ns)-decLo)/(decHi-decLo)+0.5)
	}
	gridTop, gridBottom := c.y+lineH-lineH/4, height-chartMargin
	for d := decLo; d <= decHi; d++ {
		x := xOf(math.Pow(10, d))
		label := formatNanos(math.Pow(10, d))
		c.text(max(x-utf8.RuneCountInString(label)*charW/2, barX-charW), label, chartMuted)
		c.rect(x, gridTop, 1, gridBottom-gridTop, chartGrid)
	}
	c.y += lineH

	for i, r := range results {
		if i == 0 || r.w != results[i-1].w {
			if i > 0 {
				c.y += lineH / 2
			}
			c.text(chartMargin, fmt.Sprintf("%s: %s (time per %s)", r.w.group, r.w.name, r.w.unit), chartInk)
			c.y += lineH
		}
		c.text(chartMargin, truncateText(r.impl, labelColumn/charW-1), chartMuted)
		length := 1
		if r.nsUnit > 0 {
			length = max(1, xOf(r.nsUnit)-barX)
		}
		c.rect(barX, c.y+(lineH-barHeight)/2, length, barHeight, barColour(r.impl))
		c.text(barX+length+8, fmt.Sprintf("%s/%s  %s", formatNanos(r.nsUnit), r.w.unit, formatSpeedup(r)), chartInk)
		c.y += lineH
	}
	c.b.WriteString("</svg>\n")
	return c.b.Flush()
}

// decades returns the powers of ten that bound the results' times.
func decades(results []benchResult) (lo, hi float64) {
	fast, slow := math.Inf(1), 0.0
	for _, r := range results {
		if r.nsUnit > 0 {
			fast, slow = min(fast, r.nsUnit), max(slow, r.nsUnit)
		}
	}
	if slow == 0 {
		fast, slow = 1, 10
	}
	lo, hi = math.Floor(math.Log10(fast)), math.Ceil(math.Log10(slow))
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

// barColour tells Spindle's implementations from the baseline and the rest.
func barColour(impl string) string {
	switch {
	case impl == goroutineImpl:
		return barGoroutines
	case strings.HasPrefix(impl, "spindle"), strings.HasPrefix(impl, "fork"), strings.HasPrefix(impl, "flow"):
		return barSpindle
	}
	return barOther
}

// wrapText breaks s into lines of at most width characters where it can,
// after ", " (a part longer than width stays whole).
func wrapText(s string, width int) []string {
	parts := strings.Split(s, ", ")
	var lines []string
	line := parts[0]
	for _, p := range parts[1:] {
		if utf8.RuneCountInString(line)+len(", ")+utf8.RuneCountInString(p) > width {
			lines = append(lines, line+",")
			line = p
			continue
		}
		line += ", " + p
	}
	return append(lines, line)
}

// truncateText cuts s to n characters.
func truncateText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
