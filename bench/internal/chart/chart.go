// Package chart draws the horizontal bar chart of Cairn/Redis ratios that
// bench/run writes next to RESULTS.md, as a standalone SVG file.
//
// It is deliberately small: one kind of chart, fixed geometry, no external
// fonts or scripts, so the file renders the same on GitHub, in a browser and
// in an image viewer.
package chart

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
)

// Bar is one workload's ratio. Low and High, when not NaN, draw a whisker
// showing the spread of the ratio over the runs.
type Bar struct {
	Label string
	Value float64 // NaN draws "n/a" instead of a bar
	Low   float64
	High  float64
}

// Section is a titled group of bars, e.g. all workloads at -P 16.
type Section struct {
	Title string
	Bars  []Bar
}

// Chart is the whole figure.
type Chart struct {
	Title    string
	Subtitle string
	Note     string  // a line under the axis explaining bars and whiskers
	RefValue float64 // where the reference line is drawn (1.0 = parity)
	Sections []Section
}

// Geometry in SVG user units.
const (
	width      = 800.0
	labelRight = 190.0 // labels end here, right-aligned
	plotLeft   = 200.0
	plotRight  = 730.0
	rowHeight  = 20.0
	barHeight  = 13.0
	headHeight = 24.0
	topMargin  = 72.0
)

// Colours: below the reference line and at or above it.
const (
	colourBelow = "#e8853d"
	colourAbove = "#3f7fbf"
)

// axisMax is the end of the x axis: past every value and whisker, rounded
// up to a tick.
func (c Chart) axisMax() float64 {
	m := math.Max(c.RefValue*1.2, 0.5)
	for _, s := range c.Sections {
		for _, b := range s.Bars {
			for _, v := range []float64{b.Value, b.Low, b.High} {
				if !math.IsNaN(v) && !math.IsInf(v, 0) && v > m {
					m = v
				}
			}
		}
	}
	step := tickStep(m)
	return math.Ceil(m/step) * step
}

func tickStep(m float64) float64 {
	switch {
	case m <= 1.5:
		return 0.25
	case m <= 3:
		return 0.5
	case m <= 8:
		return 1
	default:
		return math.Pow(10, math.Floor(math.Log10(m)))
	}
}

// X returns the x coordinate of ratio v on the chart's axis.
func (c Chart) X(v float64) float64 {
	return plotLeft + (plotRight-plotLeft)*math.Max(v, 0)/c.axisMax()
}

// WriteSVG writes the chart as a standalone SVG document.
func (c Chart) WriteSVG(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }

	rows := 0
	for _, s := range c.Sections {
		rows += len(s.Bars)
	}
	plotTop := topMargin
	plotBottom := plotTop + float64(len(c.Sections))*headHeight + float64(rows)*rowHeight + 6
	height := plotBottom + 50
	axisMax := c.axisMax()
	step := tickStep(axisMax)

	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	p(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	p(`<text x="%.0f" y="22" font-size="16" font-weight="bold">%s</text>`+"\n", 10.0, esc(c.Title))
	if c.Subtitle != "" {
		p(`<text x="%.0f" y="40" fill="#555555">%s</text>`+"\n", 10.0, esc(c.Subtitle))
	}

	// Grid and tick labels.
	for t := 0.0; t <= axisMax+step/2; t += step {
		x := c.X(t)
		p(`<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e4e4e4"/>`+"\n", x, plotTop, x, plotBottom)
		p(`<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555555">%s</text>`+"\n", x, plotBottom+16, trimFloat(t))
	}
	p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999999"/>`+"\n", plotLeft, plotBottom, plotRight, plotBottom)

	y := plotTop
	for _, s := range c.Sections {
		p(`<text x="%.0f" y="%.1f" font-weight="bold">%s</text>`+"\n", 10.0, y+16, esc(s.Title))
		y += headHeight
		for _, b := range s.Bars {
			mid := y + rowHeight/2
			p(`<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", labelRight, mid+4, esc(b.Label))
			if math.IsNaN(b.Value) || math.IsInf(b.Value, 0) {
				p(`<text x="%.1f" y="%.1f" fill="#888888">n/a</text>`+"\n", plotLeft+4, mid+4)
				y += rowHeight
				continue
			}
			colour := colourAbove
			if b.Value < c.RefValue {
				colour = colourBelow
			}
			x := c.X(b.Value)
			p(`<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %s×</title></rect>`+"\n",
				plotLeft, mid-barHeight/2, x-plotLeft, barHeight, colour, esc(b.Label), fmtRatio(b.Value))
			textX := x
			if !math.IsNaN(b.Low) && !math.IsNaN(b.High) {
				lo, hi := c.X(b.Low), c.X(b.High)
				p(`<path class="whisker" d="M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f" stroke="#333333" fill="none"/>`+"\n",
					lo, mid, hi, lo, mid-4, mid+4, hi, mid-4, mid+4)
				textX = math.Max(textX, hi)
			}
			p(`<text x="%.1f" y="%.1f">%s×</text>`+"\n", textX+5, mid+4, fmtRatio(b.Value))
			y += rowHeight
		}
	}

	ref := c.X(c.RefValue)
	p(`<line class="ref" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#c0392b" stroke-width="1.5" stroke-dasharray="5 3"/>`+"\n",
		ref, plotTop-4, ref, plotBottom)
	p(`<text x="%.1f" y="%.1f" text-anchor="middle" fill="#c0392b">%s = Redis</text>`+"\n", ref, plotTop-8, trimFloat(c.RefValue))
	if c.Note != "" {
		p(`<text x="%.0f" y="%.1f" fill="#555555">%s</text>`+"\n", 10.0, plotBottom+38, esc(c.Note))
	}
	p("</svg>\n")
	return bw.Flush()
}

func esc(s string) string { return html.EscapeString(s) }

func fmtRatio(v float64) string { return fmt.Sprintf("%.2f", v) }

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
