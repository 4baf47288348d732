package main

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// The bench chart: for each workload a heading and one horizontal bar per
// implementation, its length the time per unit on one logarithmic axis
// shared by the whole chart, with a grid line at every power of ten. Shorter
// is faster. The axis is logarithmic because the times span three or four
// orders of magnitude (a forked tree node costs a few ns, a goroutine
// hundreds): on a linear axis every Spindle bar would be a sliver. The label
// after each bar gives the time and the ratio to goroutines.
//
// The chart is laid out once, as rectangles and text on a pixel grid, and
// then written either as SVG or rasterised to PNG with the bitmap font in
// font.go. Text is laid out with the bitmap font's metrics; the SVG uses a
// monospace font sized to the same advance, so both come out alike.

// Layout constants, in pixels.
const (
	chartScale   = 2                         // bitmap font scale: glyphs are 10×14
	charW        = glyphAdvance * chartScale // advance of one character
	lineH        = (glyphH + 4) * chartScale // height of a text line
	chartMargin  = 24
	labelColumn  = 24 * charW // implementation names
	barMaxWidth  = 420
	barHeight    = glyphH * chartScale
	afterBarText = 26 * charW // "21.3 ns/task 12.1× faster"
	chartWidth   = 2*chartMargin + labelColumn + barMaxWidth + 12 + afterBarText
)

var (
	chartBackground = color.RGBA{0xff, 0xff, 0xff, 0xff}
	chartInk        = color.RGBA{0x22, 0x22, 0x22, 0xff}
	chartGrid       = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	chartMuted      = color.RGBA{0x66, 0x66, 0x66, 0xff}
	barSpindle      = color.RGBA{0x2b, 0x6c, 0xb0, 0xff} // Spindle's implementations
	barGoroutines   = color.RGBA{0x9a, 0x9a, 0x9a, 0xff} // the baseline
	barOther        = color.RGBA{0xd9, 0x8b, 0x2b, 0xff} // everything else
)

// figure is a laid-out chart.
type figure struct {
	width, height int
	rects         []figRect
	texts         []figText
}

type figRect struct {
	x, y, w, h int
	fill       color.RGBA
}

// figText is one line of text; (x, y) is the top left of its first glyph.
type figText struct {
	x, y int
	s    string
	fill color.RGBA
}

// layoutChart lays out results under title.
func layoutChart(results []benchResult, title string) figure {
	f := figure{width: chartWidth}
	y := chartMargin
	text := func(x int, s string, c color.RGBA) {
		f.texts = append(f.texts, figText{x: x, y: y, s: s, fill: c})
	}
	// The title may be longer than the chart is wide: break it at a comma.
	for _, line := range wrapText(title, (chartWidth-2*chartMargin)/charW) {
		text(chartMargin, line, chartInk)
		y += lineH
	}
	y += lineH / 2

	// The axis: from the power of ten at or below the fastest time to the
	// one at or above the slowest.
	lo, hi := math.Inf(1), 0.0
	for _, r := range results {
		if r.nsUnit > 0 {
			lo, hi = min(lo, r.nsUnit), max(hi, r.nsUnit)
		}
	}
	if hi == 0 {
		lo, hi = 1, 10
	}
	decLo, decHi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if decHi <= decLo {
		decHi = decLo + 1
	}
	barX := chartMargin + labelColumn
	xOf := func(ns float64) int {
		return barX + int(float64(barMaxWidth)*(math.Log10(ns)-decLo)/(decHi-decLo)+0.5)
	}
	for d := decLo; d <= decHi; d++ {
		label := formatNanos(math.Pow(10, d))
		x := xOf(math.Pow(10, d)) - utf8.RuneCountInString(label)*charW/2
		text(max(x, barX-charW), label, chartMuted)
	}
	y += lineH
	gridTop := y

	for start := 0; start < len(results); {
		end := start + 1
		for end < len(results) && results[end].w == results[start].w {
			end++
		}
		group := results[start:end]
		w := group[0].w
		text(chartMargin, fmt.Sprintf("%s: %s (time per %s)", w.group, w.name, w.unit), chartInk)
		y += lineH
		for _, r := range group {
			text(chartMargin, truncateText(r.impl, labelColumn/charW-1), chartMuted)
			length := 1
			if r.nsUnit > 0 {
				length = max(1, xOf(r.nsUnit)-barX)
			}
			fill := barOther
			switch {
			case r.impl == goroutineImpl:
				fill = barGoroutines
			case strings.HasPrefix(r.impl, "spindle") || strings.HasPrefix(r.impl, "fork") || strings.HasPrefix(r.impl, "flow"):
				fill = barSpindle
			}
			f.rects = append(f.rects, figRect{x: barX, y: y, w: length, h: barHeight, fill: fill})
			label := fmt.Sprintf("%s/%s  %s", formatNanos(r.nsUnit), w.unit, formatSpeedup(r))
			text(barX+length+12, label, chartInk)
			y += lineH
		}
		y += lineH / 2
		start = end
	}
	// Grid lines go first so that bars and text are drawn over them.
	var grid []figRect
	for d := decLo; d <= decHi; d++ {
		grid = append(grid, figRect{x: xOf(math.Pow(10, d)), y: gridTop - lineH/4, w: 1, h: y - gridTop, fill: chartGrid})
	}
	f.rects = append(grid, f.rects...)
	f.height = y + chartMargin - lineH/2
	return f
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

// writeSVG writes the chart of results as an SVG document.
func writeSVG(w io.Writer, results []benchResult, title string) error {
	return layoutChart(results, title).writeSVG(w)
}

// writePNG writes the chart of results as a PNG image.
func writePNG(w io.Writer, results []benchResult, title string) error {
	return png.Encode(w, layoutChart(results, title).raster())
}

func hexColor(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// writeSVG writes f. Text is escaped with encoding/xml: implementation
// names are ours, but the title carries the Go version string.
func (f figure) writeSVG(w io.Writer) error {
	bw := bufio.NewWriter(w)
	// A monospace font at 10/6 of the advance gives the bitmap font's
	// character width, so the layout's text widths hold.
	fontSize := float64(charW) / 0.6
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="%.1f">`+"\n",
		f.width, f.height, f.width, f.height, fontSize)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="%s"/>`+"\n", hexColor(chartBackground))
	for _, r := range f.rects {
		fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", r.x, r.y, r.w, r.h, hexColor(r.fill))
	}
	for _, t := range f.texts {
		// y is the baseline in SVG: the glyph's top plus its height.
		fmt.Fprintf(bw, `<text x="%d" y="%d" fill="%s">`, t.x, t.y+glyphH*chartScale, hexColor(t.fill))
		if err := xml.EscapeText(bw, []byte(t.s)); err != nil {
			return err
		}
		bw.WriteString("</text>\n")
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// raster draws f into an image with the bitmap font.
func (f figure) raster() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, f.width, f.height))
	fill := func(x0, y0, x1, y1 int, c color.RGBA) {
		r := image.Rect(x0, y0, x1, y1).Intersect(img.Bounds())
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	fill(0, 0, f.width, f.height, chartBackground)
	for _, r := range f.rects {
		fill(r.x, r.y, r.x+r.w, r.y+r.h, r.fill)
	}
	for _, t := range f.texts {
		x := t.x
		for _, ch := range t.s {
			g := glyphFor(ch)
			for row := range glyphH {
				for col := range glyphW {
					if g[row]&(1<<(glyphW-1-col)) != 0 {
						px, py := x+col*chartScale, t.y+row*chartScale
						fill(px, py, px+chartScale, py+chartScale, t.fill)
					}
				}
			}
			x += charW
		}
	}
	return img
}
