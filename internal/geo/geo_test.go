package geo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The expected values below were computed by redis-server 7.0.15
// (GEOADD then ZSCORE, GEOHASH, GEOPOS; GEODIST).
func TestScoreHashPosition(t *testing.T) {
	cases := []struct {
		lon, lat float64
		score    uint64
		hash     string
		pos      [2]string // as Redis prints them
	}{
		{13.361389, 38.115556, 3479099956230698, "sqc8b49rny0", [2]string{"13.36138933897018433", "38.11555639549629859"}},
		{15.087269, 37.502669, 3479447370796909, "sqdtr74hyu0", [2]string{"15.08726745843887329", "37.50266842333162032"}},
		{-180, -85.05112878, 0, "00bh0hbj200", [2]string{"-179.99999731779098511", "-85.05112751263942528"}},
		{180, 85.05112878, 13510798882111488, "bp05b5048p0", [2]string{"180", "85.0511287799999991"}},
		{0, 0, 3377699720527872, "s0000000000", [2]string{"0.00000268220901489", "0.00000126736058093"}},
		{-122.4194, 37.7749, 1367859919124626, "9q8yyk8ytp0", [2]string{"-122.41940170526504517", "37.77490001056577995"}},
		{179.9999, -45, 3095862556159159, "pzzzzzzzvx0", [2]string{"179.99990075826644897", "-45.00000100864581043"}},
	}
	for _, c := range cases {
		s, ok := Score(c.lon, c.lat)
		if !ok || s != c.score {
			t.Errorf("Score(%v, %v) = %d, %v; want %d", c.lon, c.lat, s, ok, c.score)
		}
		if h := String(float64(c.score)); h != c.hash {
			t.Errorf("String(%d) = %q; want %q", c.score, h, c.hash)
		}
		lon, lat := Position(float64(c.score))
		for i, v := range []float64{lon, lat} {
			if got := string(AppendCoordinate(nil, v)); got != c.pos[i] {
				t.Errorf("Position(%d)[%d] = %s; want %s", c.score, i, got, c.pos[i])
			}
		}
	}
}

func TestScoreOutOfRange(t *testing.T) {
	for _, p := range [][2]float64{{180.0001, 0}, {-180.0001, 0}, {0, 85.05112879}, {0, -85.05112879}, {0, 90}} {
		if _, ok := Score(p[0], p[1]); ok {
			t.Errorf("Score(%v, %v) accepted", p[0], p[1])
		}
	}
}

func TestDistance(t *testing.T) {
	// GEODIST between the members of TestScoreHashPosition, divided by the
	// unit's meters, as redis-server printed it.
	cases := []struct {
		a, b uint64
		unit float64
		want string
	}{
		{3479099956230698, 3479447370796909, 1, "166274.1516"},
		{0, 13510798882111488, 1000, "18919.8446"},
		{1367859919124626, 3095862556159159, 1609.34, "6750.4205"},
		{3377699720527872, 3377699720527872, 1, "0.0000"},
	}
	for _, c := range cases {
		lon1, lat1 := Position(float64(c.a))
		lon2, lat2 := Position(float64(c.b))
		if got := FormatDistance(Distance(lon1, lat1, lon2, lat2) / c.unit); got != c.want {
			t.Errorf("distance %d-%d = %s; want %s", c.a, c.b, got, c.want)
		}
	}
}

func TestFormatDistance(t *testing.T) {
	for _, c := range []struct {
		d    float64
		want string
	}{
		{0, "0.0000"}, {0.00004, "0.0000"}, {0.00006, "0.0001"}, {0.5, "0.5000"},
		{1, "1.0000"}, {12345.67891, "12345.6789"}, {0.000149999, "0.0001"},
	} {
		if got := FormatDistance(c.d); got != c.want {
			t.Errorf("FormatDistance(%v) = %q; want %q", c.d, got, c.want)
		}
	}
}

func TestNeighborsWrap(t *testing.T) {
	h, _ := Encode(179.9, 0, 4)
	e := move(h, 1, 0)
	if c := Decode(e); c.Lon.Min != -180 {
		t.Errorf("east of the antimeridian cell starts at %v; want -180", c.Lon.Min)
	}
	w := move(e, -1, 0)
	if w != h {
		t.Errorf("west of east = %+v; want %+v", w, h)
	}
}

func TestRangesAreCellsOfTheShape(t *testing.T) {
	s := Shape{Lon: 13.361389, Lat: 38.115556, Radius: 200, Conversion: 1000}
	rs := s.Ranges()
	if len(rs) == 0 || len(rs) > 9 {
		t.Fatalf("%d ranges", len(rs))
	}
	center, _ := Score(s.Lon, s.Lat)
	if center < rs[0].Min || center >= rs[0].Max {
		t.Errorf("center score %d outside the first range %+v", center, rs[0])
	}
	for _, r := range rs {
		if r.Min >= r.Max {
			t.Errorf("empty range %+v", r)
		}
	}
}

func TestRoughDistanceIsClose(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 5000 {
		lon1, lat1 := r.Float64()*360-180, r.Float64()*170-85
		lon2, lat2 := r.Float64()*360-180, r.Float64()*170-85
		if r.IntN(4) == 0 {
			lon2, lat2 = lon1+r.Float64()*1e-3, lat1+r.Float64()*1e-3
		}
		d, rough := Distance(lon1, lat1, lon2, lat2), roughDistance(lon1, lat1, lon2, lat2)
		if math.Abs(d-rough) > 1e-10*d+1e-9 {
			t.Fatalf("distance (%v,%v)-(%v,%v): %v, rough %v", lon1, lat1, lon2, lat2, d, rough)
		}
	}
}

// FuzzPosition checks, for any coordinates, that a valid pair encodes to
// a score whose cell holds it, and that any score decodes to a valid pair
// without panicking.
func FuzzPosition(f *testing.F) {
	f.Add(13.361389, 38.115556)
	f.Add(-180.0, -85.05112878)
	f.Add(180.0, 85.05112878)
	f.Add(0.0, 0.0)
	f.Add(1e300, -1e300)
	f.Fuzz(func(t *testing.T, lon, lat float64) {
		lonP, latP := Position(lon) // any double may be a score
		if !Valid(lonP, latP) {
			t.Fatalf("Position(%v) = %v, %v: out of range", lon, lonP, latP)
		}
		score, ok := Score(lon, lat)
		if ok != Valid(lon, lat) {
			t.Fatalf("Score(%v, %v) ok = %v", lon, lat, ok)
		}
		if !ok {
			return
		}
		c := Decode(Hash{Bits: score, Step: StepMax})
		if lon < c.Lon.Min-1e-9 || lon > c.Lon.Max+1e-9 || lat < c.Lat.Min-1e-9 || lat > c.Lat.Max+1e-9 {
			t.Fatalf("(%v, %v) outside its cell %+v", lon, lat, c)
		}
		String(float64(score))
		HashInt(float64(score))
	})
}

// The cheap rejections and acceptances in Contains never change its
// answer, and it returns the exact distance unless told membership is all
// that counts.
func TestContainsMatchesExactDistance(t *testing.T) {
	for _, tc := range []struct {
		name                string
		box, membershipOnly bool
	}{
		{"radius", false, false},
		{"radius membership", false, true},
		{"box", true, false},
		{"box membership", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(9, 10))
			for range 20000 {
				size := math.Pow(10, r.Float64()*7)
				s := Shape{Lon: r.Float64()*360 - 180, Lat: r.Float64()*170 - 85, Conversion: 1, Box: tc.box, MembershipOnly: tc.membershipOnly}
				if tc.box {
					s.Width, s.Height = size, size*(0.5+r.Float64())
				} else {
					s.Radius = size
				}
				lon := s.Lon + (r.Float64()-0.5)*math.Min(360, size/1e4)
				lat := s.Lat + (r.Float64()-0.5)*math.Min(170, size/1e4)
				if !Valid(lon, lat) {
					continue
				}
				score, _ := Score(lon, lat)
				plon, plat := Position(float64(score))
				_, _, dist, ok := s.Contains(float64(score))
				exact := Distance(s.Lon, s.Lat, plon, plat)
				want := exact <= s.Radius
				if tc.box {
					want = LatDistance(plat, s.Lat) <= s.Height/2 && Distance(plon, plat, s.Lon, plat) <= s.Width/2
				}
				if ok != want || (ok && !tc.membershipOnly && dist != exact) {
					t.Fatalf("Contains(%+v, (%v, %v)) = %v, %v; exact distance %v", s, plon, plat, dist, ok, exact)
				}
			}
		})
	}
}

func TestAppendCoordinate(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {-1e-20, "0"}, {180, "180"}, {-0.5, "-0.5"},
		{13.361389338970184, "13.36138933897018433"}, {1e-17, "0.00000000000000001"},
	} {
		if got := string(AppendCoordinate(nil, c.f)); got != c.want {
			t.Errorf("AppendCoordinate(%v) = %q; want %q", c.f, got, c.want)
		}
	}
}
