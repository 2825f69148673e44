package chart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

type element struct {
	name  string
	attrs map[string]string
	text  string
}

// parse checks that the SVG is well-formed XML and returns its elements.
func parse(t *testing.T, svg []byte) []element {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var out []element
	var stack []int
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, svg)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := element{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
			stack = append(stack, len(out)-1)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				out[stack[len(stack)-1]].text += string(tok)
			}
		}
	}
	if len(out) == 0 || out[0].name != "svg" {
		t.Fatalf("root element is not svg")
	}
	return out
}

func withClass(els []element, class string) []element {
	var out []element
	for _, e := range els {
		if e.attrs["class"] == class {
			out = append(out, e)
		}
	}
	return out
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("attribute %q is not a number", s)
	}
	return v
}

func TestWriteSVG(t *testing.T) {
	nan := math.NaN()
	c := Chart{
		Title:    "Cairn / Redis <ops/s> & more",
		RefValue: 1,
		Note:     "whiskers: min–max",
		Sections: []Section{
			{Title: "-P 1", Bars: []Bar{
				{Label: "SET", Value: 0.5, Low: 0.4, High: 0.6},
				{Label: "GET", Value: 1.5, Low: nan, High: nan},
			}},
			{Title: "-P 16", Bars: []Bar{
				{Label: "LPUSH <skipped>", Value: nan, Low: nan, High: nan},
				{Label: "INCR", Value: 0.75, Low: 0.7, High: 0.9},
			}},
		},
	}
	var buf bytes.Buffer
	if err := c.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	els := parse(t, buf.Bytes())

	bars := withClass(els, "bar")
	if len(bars) != 3 {
		t.Fatalf("got %d bars, want 3 (the NaN bar is drawn as text)", len(bars))
	}
	// Widths are proportional to the ratios.
	w0, w1 := num(t, bars[0].attrs["width"]), num(t, bars[1].attrs["width"])
	if math.Abs(w1/w0-3) > 0.01 {
		t.Errorf("bar widths %v and %v are not in ratio 1.5/0.5", w0, w1)
	}
	if bars[0].attrs["fill"] != colourBelow || bars[1].attrs["fill"] != colourAbove {
		t.Errorf("fills = %s, %s; want below/above colours", bars[0].attrs["fill"], bars[1].attrs["fill"])
	}
	if got := len(withClass(els, "whisker")); got != 2 {
		t.Errorf("got %d whiskers, want 2", got)
	}

	refs := withClass(els, "ref")
	if len(refs) != 1 {
		t.Fatalf("got %d reference lines, want 1", len(refs))
	}
	if x := num(t, refs[0].attrs["x1"]); math.Abs(x-c.X(1)) > 0.1 || math.Abs(c.X(1)-(plotLeft+w0*2)) > 0.2 {
		t.Errorf("reference line at x=%v, want the end of a 1.0 bar (%v)", x, plotLeft+w0*2)
	}

	var texts []string
	for _, e := range els {
		if e.name == "text" {
			texts = append(texts, e.text)
		}
	}
	all := strings.Join(texts, "|")
	for _, want := range []string{"Cairn / Redis <ops/s> & more", "LPUSH <skipped>", "n/a", "0.50×", "1.50×", "-P 16"} {
		if !strings.Contains(all, want) {
			t.Errorf("texts %q do not include %q", all, want)
		}
	}
}

func TestAxisCoversLargestValue(t *testing.T) {
	c := Chart{RefValue: 1, Sections: []Section{{Bars: []Bar{{Label: "x", Value: 2, Low: 1.5, High: 3.7}}}}}
	if m := c.axisMax(); m < 3.7 {
		t.Errorf("axisMax = %v, want ≥ 3.7", m)
	}
	if c.X(3.7) > plotRight+0.01 {
		t.Errorf("whisker end %v drawn beyond the plot (%v)", c.X(3.7), plotRight)
	}
}

func TestEmptyChart(t *testing.T) {
	var buf bytes.Buffer
	if err := (Chart{Title: "nothing yet", RefValue: 1}).WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	els := parse(t, buf.Bytes())
	if len(withClass(els, "bar")) != 0 || len(withClass(els, "ref")) != 1 {
		t.Error("an empty chart should have no bars and one reference line")
	}
}
