package main

import (
	"strings"
	"unicode"
)

// A 5×7 bitmap font for the labels of PNG charts. The standard library can
// write a PNG but has no font, and a chart is one title and a few dozen short
// labels, so the command carries the glyphs it needs rather than a font
// module and a rasteriser. Letters are upper case only; lower-case text is
// drawn in capitals. Characters without a glyph are drawn as '?'.
//
// Each glyph is seven rows of five columns, top to bottom, '#' for ink.

const (
	glyphW = 5 // columns of ink
	glyphH = 7 // rows of ink
	// glyphAdvance is the horizontal step from one character to the next:
	// the glyph and one blank column.
	glyphAdvance = glyphW + 1
)

var glyphRows = map[rune]string{
	'A':  ".###. #...# #...# ##### #...# #...# #...#",
	'B':  "####. #...# #...# ####. #...# #...# ####.",
	'C':  ".###. #...# #.... #.... #.... #...# .###.",
	'D':  "####. #...# #...# #...# #...# #...# ####.",
	'E':  "##### #.... #.... ####. #.... #.... #####",
	'F':  "##### #.... #.... ####. #.... #.... #....",
	'G':  ".###. #...# #.... #.### #...# #...# .####",
	'H':  "#...# #...# #...# ##### #...# #...# #...#",
	'I':  ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
	'J':  "..### ...#. ...#. ...#. ...#. #..#. .##..",
	'K':  "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
	'L':  "#.... #.... #.... #.... #.... #.... #####",
	'M':  "#...# ##.## #.#.# #.#.# #...# #...# #...#",
	'N':  "#...# #...# ##..# #.#.# #..## #...# #...#",
	'O':  ".###. #...# #...# #...# #...# #...# .###.",
	'P':  "####. #...# #...# ####. #.... #.... #....",
	'Q':  ".###. #...# #...# #...# #.#.# #..#. .##.#",
	'R':  "####. #...# #...# ####. #.#.. #..#. #...#",
	'S':  ".#### #.... #.... .###. ....# ....# ####.",
	'T':  "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
	'U':  "#...# #...# #...# #...# #...# #...# .###.",
	'V':  "#...# #...# #...# #...# #...# .#.#. ..#..",
	'W':  "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
	'X':  "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
	'Y':  "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
	'Z':  "##### ....# ...#. ..#.. .#... #.... #####",
	'0':  ".###. #...# #..## #.#.# ##..# #...# .###.",
	'1':  "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.",
	'2':  ".###. #...# ....# ...#. ..#.. .#... #####",
	'3':  "####. ....# ....# .###. ....# ....# ####.",
	'4':  "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
	'5':  "##### #.... ####. ....# ....# #...# .###.",
	'6':  "..##. .#... #.... ####. #...# #...# .###.",
	'7':  "##### ....# ...#. ..#.. .#... .#... .#...",
	'8':  ".###. #...# #...# .###. #...# #...# .###.",
	'9':  ".###. #...# #...# .#### ....# ...#. .##..",
	' ':  "..... ..... ..... ..... ..... ..... .....",
	'.':  "..... ..... ..... ..... ..... .##.. .##..",
	',':  "..... ..... ..... ..... .##.. ..#.. .#...",
	':':  "..... .##.. .##.. ..... .##.. .##.. .....",
	'-':  "..... ..... ..... ##### ..... ..... .....",
	'+':  "..... ..#.. ..#.. ##### ..#.. ..#.. .....",
	'=':  "..... ..... ##### ..... ##### ..... .....",
	'/':  "..... ....# ...#. ..#.. .#... #.... .....",
	'(':  "...#. ..#.. .#... .#... .#... ..#.. ...#.",
	')':  ".#... ..#.. ...#. ...#. ...#. ..#.. .#...",
	'%':  "##..# ##.#. ...#. ..#.. .#... .#.## #..##",
	'_':  "..... ..... ..... ..... ..... ..... #####",
	'\'': "..#.. ..#.. .#... ..... ..... ..... .....",
	'?':  ".###. #...# ....# ...#. ..#.. ..... ..#..",
	'×':  "..... #...# .#.#. ..#.. .#.#. #...# .....",
	'µ':  "..... #...# #...# #...# #..## ###.# #....",
	'·':  "..... ..... ..... .##.. .##.. ..... .....",
}

// glyphs holds each glyph as seven 5-bit rows, bit 4 the leftmost column.
var glyphs = func() map[rune][glyphH]uint8 {
	m := make(map[rune][glyphH]uint8, len(glyphRows))
	for r, spec := range glyphRows {
		rows := strings.Fields(spec)
		if len(rows) != glyphH {
			panic("font: glyph " + string(r) + " does not have 7 rows")
		}
		var g [glyphH]uint8
		for y, row := range rows {
			if len(row) != glyphW {
				panic("font: glyph " + string(r) + " has a row not 5 wide")
			}
			for x, c := range row {
				if c == '#' {
					g[y] |= 1 << (glyphW - 1 - x)
				}
			}
		}
		m[r] = g
	}
	return m
}()

// glyphFor returns the glyph drawn for r.
func glyphFor(r rune) [glyphH]uint8 {
	// The exact rune first: upper-casing µ gives the Greek capital Μ.
	if g, ok := glyphs[r]; ok {
		return g
	}
	if g, ok := glyphs[unicode.ToUpper(r)]; ok {
		return g
	}
	return glyphs['?']
}
