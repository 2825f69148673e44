package lolwut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Versions pick Redis's drawings: 5.x and 4.9 Schotter, 6.x and 5.9 the
// skyline, anything else the version line alone.
func TestVersions(t *testing.T) {
	for ver, want := range map[string]art{
		"5.0.0": artSchotter, "4.9.0": artSchotter, "6.0.0": artSkyline, "5.9.0": artSkyline,
		"7.2.0": artNone, "6.9.0": artNone, "4.0.0": artNone, "10.0.0": artNone, "": artNone,
	} {
		if got := artOf(ver); got != want {
			t.Errorf("artOf(%q) = %v, want %v", ver, got, want)
		}
	}
	if got := Render("7.2.0", "7.2.0", nil); got != "Redis ver. 7.2.0\n" {
		t.Errorf("Render 7: %q", got)
	}
}

// Schotter is braille, as wide as asked, ordered in its top rows and
// ending with its caption; out-of-range sizes are pulled into range.
func TestSchotter(t *testing.T) {
	out := Render("5.0.0", "7.2.0", []int64{40, 4, 6})
	art, caption, ok := strings.Cut(out, "\n\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. 7.2.0\n")
	if !ok || caption != "" {
		t.Fatalf("no caption at the end: %q", out)
	}
	for _, line := range strings.Split(art, "\n") {
		if n := utf8.RuneCountInString(line); n != 40 {
			t.Errorf("line of %d characters, want 40: %q", n, line)
		}
		for _, r := range line {
			if r < 0x2800 || r > 0x28ff {
				t.Fatalf("not braille: %q", r)
			}
		}
	}
	// The first two rows of squares are straight: the same on every call.
	a, b := Render("5.0.0", "v", []int64{40, 4, 2}), Render("5.0.0", "v", []int64{40, 4, 2})
	if a != b {
		t.Error("two straight rows differ between calls")
	}
	if out := Render("5.0.0", "v", []int64{-5, 0, 100000}); !strings.HasSuffix(out, "Redis ver. v\n") {
		t.Errorf("clamped sizes: %q", out)
	}
}

// The skyline is one coloured cell per column and row.
func TestSkyline(t *testing.T) {
	out := Render("6.0.0", "7.2.0", []int64{12, 5})
	lines := strings.Split(out, "\n")
	if len(lines) != 8 || !strings.HasSuffix(out, "Redis ver. 7.2.0\n") {
		t.Fatalf("skyline: %q", out)
	}
	for _, line := range lines[:5] {
		if n := strings.Count(line, "m \x1b[0m"); n != 12 {
			t.Errorf("%d cells in a row, want 12", n)
		}
	}
}
