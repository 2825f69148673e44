// Package lolwut draws LOLWUT's computer art: for version 5, Georg Nees's
// "Schotter" (squares that fall into disorder row by row) in braille
// characters; for version 6, a skyline of skyscrapers in four shades of
// terminal colour. Any other version shows the version line alone, as
// Redis 7 does for its own. The drawings are Cairn's own, of the same
// subjects Redis draws; like Redis's they are random, so two calls differ.
//
// The package is pure text: it never sees the protocol.
package lolwut

import (
	"math"
	"math/rand/v2"
	"strings"
)

// art is which drawing a version shows.
type art int

const (
	artNone art = iota
	artSchotter
	artSkyline
)

// artOf picks the drawing for a version string as Redis does: 5.x (but
// 5.9) and 4.9 draw Schotter, 6.x (but 6.9) and 5.9 the skyline.
func artOf(ver string) art {
	if len(ver) < 3 || ver[1] != '.' {
		return artNone
	}
	switch {
	case ver[0] == '5' && ver[2] != '9', ver[0] == '4' && ver[2] == '9':
		return artSchotter
	case ver[0] == '6' && ver[2] != '9', ver[0] == '5' && ver[2] == '9':
		return artSkyline
	}
	return artNone
}

// Params is how many integer arguments after VERSION the drawing for ver
// reads: Schotter's columns, squares per row and per column; the
// skyline's columns and rows.
func Params(ver string) int {
	switch artOf(ver) {
	case artSchotter:
		return 3
	case artSkyline:
		return 2
	}
	return 0
}

// Render draws the art of version ver (as "N.0.0" or a release), sized by
// params (missing ones take their defaults; out-of-range ones are pulled
// into range), and ends with the version line naming redisVersion.
func Render(ver, redisVersion string, params []int64) string {
	arg := func(i int, def, lo, hi int64) int {
		v := def
		if i < len(params) {
			v = params[i]
		}
		return int(min(max(v, lo), hi))
	}
	switch artOf(ver) {
	case artSchotter:
		c := schotter(arg(0, 66, 1, 1000), arg(1, 8, 1, 200), arg(2, 12, 1, 200), rand.Float64)
		return c.braille() + "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. " + redisVersion + "\n"
	case artSkyline:
		c := skyline(arg(0, 80, 1, 1000), arg(1, 20, 1, 1000), rand.IntN)
		return c.shades() + "\nA skyline of skyscrapers, drawn anew each time. Redis ver. " + redisVersion + "\n"
	}
	return "Redis ver. " + redisVersion + "\n"
}

// canvas is a grid of pixels, each a shade from 0 (off) up.
type canvas struct {
	w, h int
	px   []uint8
}

func newCanvas(w, h int) *canvas { return &canvas{w: w, h: h, px: make([]uint8, w*h)} }

func (c *canvas) set(x, y int, v uint8) {
	if x >= 0 && x < c.w && y >= 0 && y < c.h {
		c.px[y*c.w+x] = v
	}
}

func (c *canvas) get(x, y int) uint8 {
	if x >= 0 && x < c.w && y >= 0 && y < c.h {
		return c.px[y*c.w+x]
	}
	return 0
}

// line draws from (x0,y0) to (x1,y1) by Bresenham's algorithm.
func (c *canvas) line(x0, y0, x1, y1 int) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for {
		c.set(x0, y0, 1)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * e; e2 >= dy {
			e += dy
			x0 += sx
		} else {
			e += dx
			y0 += sy
		}
	}
}

func abs(n int) int { return max(n, -n) }

func sign(n int) int {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}

// schotter draws Nees's grid of squares: a canvas two pixels per terminal
// column wide, squares per row across it, and from the third row down each
// square turned and shifted by a random amount that grows with the row.
func schotter(cols, perRow, perCol int, random func() float64) *canvas {
	width := cols * 2
	pad := 0
	if width > 4 {
		pad = 2
	}
	side := float64(width-2*pad) / float64(perRow)
	height := int(side*float64(perCol)) + 2*pad
	c := newCanvas(width, height)
	for row := range perCol {
		for col := range perRow {
			cx := float64(col)*side + side/2 + float64(pad)
			cy := float64(row)*side + side/2 + float64(pad)
			angle := 0.0
			if row > 1 {
				// Disorder grows with the row: up to row/perCol radians of
				// turn and a third of a side of shift.
				spread := func() float64 {
					v := random() * float64(row) / float64(perCol)
					if random() < 0.5 {
						v = -v
					}
					return v
				}
				angle = spread()
				cx += spread() * side / 3
				cy += spread() * side / 3
			}
			c.square(cx, cy, side, angle)
		}
	}
	return c
}

// square draws the outline of a square of the given side centred on
// (cx, cy) and turned by angle radians.
func (c *canvas) square(cx, cy, side, angle float64) {
	r := side / 2 * math.Sqrt2
	var xs, ys [4]int
	for k := range 4 {
		a := angle + math.Pi/4 + float64(k)*math.Pi/2
		xs[k] = int(math.Round(cx + r*math.Cos(a)))
		ys[k] = int(math.Round(cy + r*math.Sin(a)))
	}
	for k := range 4 {
		c.line(xs[k], ys[k], xs[(k+1)%4], ys[(k+1)%4])
	}
}

// braille renders the canvas two pixels across and four down per
// character, with Unicode's braille dot numbering (dots 1-3 and 7 in the
// left column, 4-6 and 8 in the right).
func (c *canvas) braille() string {
	var b strings.Builder
	for y := 0; y < c.h; y += 4 {
		for x := 0; x < c.w; x += 2 {
			dots := 0
			for i, p := range [8][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {0, 3}, {1, 3}} {
				if c.get(x+p[0], y+p[1]) != 0 {
					dots |= 1 << i
				}
			}
			b.WriteRune(rune(0x2800 + dots))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// skyline draws three ranks of skyscrapers, the farthest palest, over a
// black sky, on a canvas one pixel per terminal cell; the nearest rank has
// lit windows. intn is the random source, rand.IntN's contract.
func skyline(cols, rows int, intn func(int) int) *canvas {
	c := newCanvas(cols, rows)
	for rank := range 3 {
		shade := uint8(3 - rank) // far: 3 (light), near: 1 (dark)
		minH, maxH := rows/2+rows/6*(2-rank), rows-rows/8*rank
		for x := intn(4) - 2; x < cols; {
			w := 3 + intn(6)
			h := minH + intn(max(maxH-minH, 1)+1)
			h = min(max(h, 1), rows)
			for dx := range w {
				for y := rows - h; y < rows; y++ {
					c.set(x+dx, y, shade)
				}
			}
			if rank == 2 {
				// Lit windows, every other cell of every other floor.
				for dx := 1; dx < w-1; dx += 2 {
					for y := rows - h + 1; y < rows-1; y += 2 {
						if intn(3) == 0 {
							c.set(x+dx, y, 4)
						}
					}
				}
			}
			x += w + intn(3)
		}
	}
	return c
}

// shadeColours are the ANSI foreground;background codes of each shade:
// sky, near, middle and far buildings, lit windows.
var shadeColours = [5]string{"0;30;40", "0;90;100", "0;37;47", "0;97;107", "0;93;103"}

// shades renders the canvas one coloured space per pixel.
func (c *canvas) shades() string {
	var b strings.Builder
	for y := range c.h {
		for x := range c.w {
			b.WriteString("\x1b[" + shadeColours[c.get(x, y)] + "m \x1b[0m")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
