package geo

import "math"

// Shape is the area of a search, centered on Lon, Lat: a circle of
// Radius, or with Box a rectangle of Width by Height, in units of
// Conversion meters (1 for M, 1000 for KM, ...).
type Shape struct {
	Lon, Lat      float64
	Box           bool
	Radius        float64
	Width, Height float64
	Conversion    float64
	// MembershipOnly says the caller uses no distance: Contains may then
	// decide from the cheap distance alone, away from the border, and
	// return it in place of the exact one.
	MembershipOnly bool
}

// roughMargin bounds the relative difference between roughDistance and
// Distance (a few ulps) with a wide margin.
const roughMargin = 1e-9

// bounds is geohashBoundingBox: the longitudes and latitudes that enclose
// the shape.
func (s *Shape) bounds() (minLon, minLat, maxLon, maxLat float64) {
	height, width := s.Radius, s.Radius
	if s.Box {
		height, width = s.Height/2, s.Width/2
	}
	height *= s.Conversion
	width *= s.Conversion
	latDelta := radDeg(height / EarthRadius)
	lonDeltaTop := radDeg(width / EarthRadius / cCos(degRad(s.Lat+latDelta)))
	lonDeltaBottom := radDeg(width / EarthRadius / cCos(degRad(s.Lat-latDelta)))
	// The widest latitude of the shape is the one nearer the equator.
	if s.Lat < 0 {
		minLon, maxLon = s.Lon-lonDeltaBottom, s.Lon+lonDeltaBottom
	} else {
		minLon, maxLon = s.Lon-lonDeltaTop, s.Lon+lonDeltaTop
	}
	return minLon, s.Lat - latDelta, maxLon, s.Lat + latDelta
}

// stepsFor is geohashEstimateStepsByRadius: the coarsest step whose cells
// are about as wide as the radius, one or two coarser near the poles.
func stepsFor(meters, lat float64) uint8 {
	if meters == 0 {
		return 26
	}
	step := 1
	for meters < mercatorMax {
		meters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint8(min(max(step, 1), 26))
}

// Neighbors of a hash, in Redis's order of search after the cell itself.
const (
	north = iota
	south
	east
	west
	northEast
	northWest
	southEast
	southWest
)

// move shifts h by dx cells east (negative: west) and dy north, wrapping
// around at the ends of the ranges.
func move(h Hash, dx, dy int) Hash {
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	shift := 64 - 2*uint(h.Step)
	if dx != 0 {
		zz := uint64(0x5555555555555555) >> shift
		if dx > 0 {
			x += zz + 1
		} else {
			x = (x | zz) - (zz + 1)
		}
		x &= 0xaaaaaaaaaaaaaaaa >> shift
	}
	if dy != 0 {
		zz := uint64(0xaaaaaaaaaaaaaaaa) >> shift
		if dy > 0 {
			y += zz + 1
		} else {
			y = (y | zz) - (zz + 1)
		}
		y &= 0x5555555555555555 >> shift
	}
	return Hash{Bits: x | y, Step: h.Step}
}

// neighbors is geohashNeighbors, in the order of the constants above.
func neighbors(h Hash) [8]Hash {
	return [8]Hash{
		north:     move(h, 0, 1),
		south:     move(h, 0, -1),
		east:      move(h, 1, 0),
		west:      move(h, -1, 0),
		northEast: move(h, 1, 1),
		northWest: move(h, -1, 1),
		southEast: move(h, 1, -1),
		southWest: move(h, -1, -1),
	}
}

// Cells is geohashCalculateAreasByShapeWGS84: the cell around the
// shape's center and its eight neighbors, in the order Redis searches
// them (center, N, S, E, W, NE, NW, SE, SW). A neighbor the shape cannot
// reach is the zero Hash.
func (s *Shape) Cells() [9]Hash {
	minLon, minLat, maxLon, maxLat := s.bounds()
	meters := s.Radius
	if s.Box {
		meters = math.Sqrt(float64(s.Width/2*(s.Width/2)) + float64(s.Height/2*(s.Height/2)))
	}
	meters *= s.Conversion
	steps := stepsFor(meters, s.Lat)
	h, _ := Encode(s.Lon, s.Lat, steps)
	n := neighbors(h)
	area := Decode(h)
	if steps > 1 && (Decode(n[north]).Lat.Max < maxLat || Decode(n[south]).Lat.Min > minLat ||
		Decode(n[east]).Lon.Max < maxLon || Decode(n[west]).Lon.Min > minLon) {
		steps--
		h, _ = Encode(s.Lon, s.Lat, steps)
		n = neighbors(h)
		area = Decode(h)
	}
	if steps >= 2 {
		if area.Lat.Min < minLat {
			n[south], n[southWest], n[southEast] = Hash{}, Hash{}, Hash{}
		}
		if area.Lat.Max > maxLat {
			n[north], n[northEast], n[northWest] = Hash{}, Hash{}, Hash{}
		}
		if area.Lon.Min < minLon {
			n[west], n[southWest], n[northWest] = Hash{}, Hash{}, Hash{}
		}
		if area.Lon.Max > maxLon {
			n[east], n[southEast], n[northEast] = Hash{}, Hash{}, Hash{}
		}
	}
	return [9]Hash{h, n[north], n[south], n[east], n[west], n[northEast], n[northWest], n[southEast], n[southWest]}
}

// ScoreRange is the scores of the points in one cell: Min <= score < Max.
type ScoreRange struct{ Min, Max uint64 }

// Ranges is the score ranges a search over s reads, in Redis's order:
// the cells of Cells without the unreachable ones, and without a cell equal
// to the one searched just before it (Redis compares a neighbor only with
// the previous searched neighbor, never with the center cell).
func (s *Shape) Ranges() []ScoreRange {
	cells := s.Cells()
	out := make([]ScoreRange, 0, len(cells))
	last := -1
	for i, c := range cells {
		if c.IsZero() {
			continue
		}
		if last > 0 && c == cells[last] {
			continue
		}
		out = append(out, ScoreRange{Min: Align52(c), Max: Align52(Hash{Bits: c.Bits + 1, Step: c.Step})})
		last = i
	}
	return out
}

// Contains reports whether the point stored with score lies in s, with
// its position and its distance in meters from the center.
func (s *Shape) Contains(score float64) (lon, lat, dist float64, ok bool) {
	lon, lat = Position(score)
	if !s.Box {
		radius := s.Radius * s.Conversion
		// Two cheap lower bounds of the distance first: the one along
		// the meridian (no trigonometry), then Go's haversine, each with
		// a margin far above their rounding differences. The exact
		// distance only where it is asked for or decides.
		if LatDistance(lat, s.Lat) > radius*(1+roughMargin) {
			return lon, lat, 0, false
		}
		rough := roughDistance(s.Lon, s.Lat, lon, lat)
		if rough > radius*(1+roughMargin) {
			return lon, lat, 0, false
		}
		if s.MembershipOnly && rough < radius*(1-roughMargin) {
			return lon, lat, rough, true
		}
		dist = Distance(s.Lon, s.Lat, lon, lat)
		return lon, lat, dist, dist <= radius
	}
	width, height := s.Width*s.Conversion, s.Height*s.Conversion
	if LatDistance(lat, s.Lat) > height/2 {
		return lon, lat, 0, false
	}
	rough := roughDistance(lon, lat, s.Lon, lat)
	if rough > width/2*(1+roughMargin) {
		return lon, lat, 0, false
	}
	if !s.MembershipOnly || rough >= width/2*(1-roughMargin) {
		if Distance(lon, lat, s.Lon, lat) > width/2 {
			return lon, lat, 0, false
		}
	}
	if s.MembershipOnly {
		return lon, lat, 0, true
	}
	return lon, lat, Distance(s.Lon, s.Lat, lon, lat), true
}
