// Package geo is Redis's geospatial arithmetic: the 52-bit interleaved
// geohash that GEOADD stores as a sorted-set score, the haversine distance
// on Redis's earth sphere, and the nine geohash cells around a search
// shape whose score ranges a search reads (Redis's geohash.c,
// geohash_helper.c and geo.c, Redis 7.2).
//
// Every function is pure; the floating-point steps are those of Redis, in
// the same order, so that scores, coordinates and distances come out bit
// for bit as Redis computes them (up to the last ulp of the platform's
// sin, cos and asin).
package geo

import (
	"math"
	"strconv"
)

// The limits of the coordinates Redis indexes (EPSG:900913): latitudes
// beyond ±85.05112878° cannot be encoded.
const (
	LatMin = -85.05112878
	LatMax = 85.05112878
	LonMin = -180.0
	LonMax = 180.0
)

// StepMax is the precision of a stored score: 26 bits of longitude and 26
// of latitude, interleaved into 52 bits.
const StepMax = 26

// EarthRadius is Redis's earth radius in meters (the quadratic mean radius
// of WGS-84) for its haversine distances.
const EarthRadius = 6372797.560856

// mercatorMax bounds the step estimate of a search radius.
const mercatorMax = 20037726.37

// Range is an interval of one coordinate.
type Range struct{ Min, Max float64 }

// Hash is a geohash of Step bits per coordinate: latitude in the even
// bits, longitude in the odd ones. The zero Hash (no bits, step 0) is
// Redis's "no cell".
type Hash struct {
	Bits uint64
	Step uint8
}

// IsZero reports whether h is the "no cell" hash.
func (h Hash) IsZero() bool { return h.Bits == 0 && h.Step == 0 }

// Cell is the rectangle a Hash covers.
type Cell struct {
	Hash Hash
	Lon  Range
	Lat  Range
}

// Redis's coordinate ranges, and the standard ones of a textual geohash.
var (
	lonRange    = Range{LonMin, LonMax}
	latRange    = Range{LatMin, LatMax}
	stdLatRange = Range{-90, 90}
)

// spread puts the 32 bits of v in the even bits of the result.
func spread(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	x = (x | x<<8) & 0x00FF00FF00FF00FF
	x = (x | x<<4) & 0x0F0F0F0F0F0F0F0F
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// squeeze is the inverse of spread: the even bits of v, packed.
func squeeze(v uint64) uint32 {
	x := v & 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0F0F0F0F0F0F0F0F
	x = (x | x>>4) & 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	x = (x | x>>16) & 0x00000000FFFFFFFF
	return uint32(x)
}

// Valid reports whether lon, lat can be encoded: GEOADD and the searches
// reject anything else with "invalid longitude,latitude pair".
func Valid(lon, lat float64) bool {
	return lon >= LonMin && lon <= LonMax && lat >= LatMin && lat <= LatMax
}

// encode is geohashEncode over the given ranges; ok is false outside them.
func encode(lonR, latR Range, lon, lat float64, step uint8) (Hash, bool) {
	if step == 0 || step > 32 || !Valid(lon, lat) ||
		lat < latR.Min || lat > latR.Max || lon < lonR.Min || lon > lonR.Max {
		return Hash{}, false
	}
	latOff := (lat - latR.Min) / (latR.Max - latR.Min)
	lonOff := (lon - lonR.Min) / (lonR.Max - lonR.Min)
	scale := float64(uint64(1) << step)
	latOff = float64(latOff * scale)
	lonOff = float64(lonOff * scale)
	return Hash{Bits: spread(uint32(latOff)) | spread(uint32(lonOff))<<1, Step: step}, true
}

// Encode is the geohash of lon, lat at step bits per coordinate over
// Redis's ranges.
func Encode(lon, lat float64, step uint8) (Hash, bool) {
	return encode(lonRange, latRange, lon, lat, step)
}

// Score is the sorted-set score GEOADD stores for lon, lat: the 52-bit
// geohash as an integer. ok is false for coordinates out of range.
func Score(lon, lat float64) (uint64, bool) {
	h, ok := Encode(lon, lat, StepMax)
	return Align52(h), ok
}

// Align52 is h's bits shifted to the top of 52 bits, the score of the
// cell's first point.
func Align52(h Hash) uint64 { return h.Bits << (52 - 2*uint(h.Step)) }

// decode is geohashDecode: the rectangle h covers within the ranges.
func decode(lonR, latR Range, h Hash) Cell {
	latBits := squeeze(h.Bits)
	lonBits := squeeze(h.Bits >> 1)
	div := float64(uint64(1) << h.Step)
	latScale := latR.Max - latR.Min
	lonScale := lonR.Max - lonR.Min
	return Cell{
		Hash: h,
		Lat: Range{
			Min: latR.Min + (float64(latBits)*1.0/div)*latScale,
			Max: latR.Min + ((float64(latBits)+1)*1.0/div)*latScale,
		},
		Lon: Range{
			Min: lonR.Min + (float64(lonBits)*1.0/div)*lonScale,
			Max: lonR.Min + ((float64(lonBits)+1)*1.0/div)*lonScale,
		},
	}
}

// Decode is the rectangle h covers over Redis's ranges.
func Decode(h Hash) Cell { return decode(lonRange, latRange, h) }

// Center is the middle of c, clamped to the encodable ranges.
func (c Cell) Center() (lon, lat float64) {
	lon = (c.Lon.Min + c.Lon.Max) / 2
	lon = min(max(lon, LonMin), LonMax)
	lat = (c.Lat.Min + c.Lat.Max) / 2
	lat = min(max(lat, LatMin), LatMax)
	return lon, lat
}

// scoreBits converts a score to the integer a C cast (uint64_t)score
// gives on x86-64, including for scores no GEOADD wrote.
func scoreBits(score float64) uint64 {
	const two63 = 9223372036854775808.0
	switch {
	case math.IsNaN(score):
		return 1 << 63
	case score < two63:
		if score <= -two63-1 || math.IsInf(score, -1) {
			return 1 << 63
		}
		return uint64(int64(score))
	case score-two63 < two63:
		return uint64(int64(score-two63)) ^ 1<<63
	default:
		return 0
	}
}

// Position decodes a stored score into the center of its cell, as GEOPOS
// reports it.
func Position(score float64) (lon, lat float64) {
	return Decode(Hash{Bits: scoreBits(score), Step: StepMax}).Center()
}

// HashInt is the integer WITHHASH reports for a score: C's (long long)
// conversion.
func HashInt(score float64) int64 { return int64(scoreBits(score)) }

// base32 is the alphabet of textual geohashes.
const base32 = "0123456789bcdefghjkmnpqrstuvwxyz"

// String is the 11-character standard geohash GEOHASH reports for a
// stored score: its position re-encoded over latitudes ±90, the 11th
// character always '0'.
func String(score float64) string {
	lon, lat := Position(score)
	h, _ := encode(lonRange, stdLatRange, lon, lat, StepMax)
	var b [11]byte
	for i := 0; i < 10; i++ {
		b[i] = base32[(h.Bits>>(52-uint(i+1)*5))&0x1f]
	}
	b[10] = base32[0]
	return string(b[:])
}

// degRad converts degrees to radians with Redis's constant (M_PI/180
// rounded to a double, then multiplied).
func degRad(a float64) float64 {
	pi := math.Pi
	return a * (pi / 180.0)
}

// radDeg converts radians to degrees as Redis does.
func radDeg(a float64) float64 {
	pi := math.Pi
	return a / (pi / 180.0)
}

// LatDistance is the distance in meters between two latitudes on one
// meridian.
func LatDistance(lat1, lat2 float64) float64 {
	return EarthRadius * math.Abs(degRad(lat2)-degRad(lat1))
}

// Distance is Redis's haversine distance in meters between two points.
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r := degRad(lon1)
	lon2r := degRad(lon2)
	v := cSin((lon2r - lon1r) / 2)
	if v == 0 {
		return LatDistance(lat1, lat2)
	}
	lat1r := degRad(lat1)
	lat2r := degRad(lat2)
	u := cSin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(cCos(lat1r)*cCos(lat2r))*v)*v
	return 2.0 * EarthRadius * cAsin(math.Sqrt(a))
}

// roughDistance is Distance with Go's sin, cos and asin: within a few
// ulps of it, and several times cheaper, for discarding the points far
// outside a search before computing their exact distance.
func roughDistance(lon1, lat1, lon2, lat2 float64) float64 {
	v := math.Sin((degRad(lon2) - degRad(lon1)) / 2)
	if v == 0 {
		return LatDistance(lat1, lat2)
	}
	lat1r, lat2r := degRad(lat1), degRad(lat2)
	u := math.Sin((lat2r - lat1r) / 2)
	a := u*u + math.Cos(lat1r)*math.Cos(lat2r)*v*v
	return 2.0 * EarthRadius * math.Asin(math.Sqrt(a))
}

// AppendCoordinate appends a longitude or latitude as Redis 7.2 replies
// with it (GEOPOS, WITHCOORD: addReplyHumanLongDouble): "%.17f" without
// trailing zeros or a trailing point, "-0" made "0".
func AppendCoordinate(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.AppendFloat(dst, f, 'g', -1, 64)
	}
	start := len(dst)
	// 'f' converts the binary value to decimal exactly and rounds half to
	// even, as glibc's printf does.
	dst = strconv.AppendFloat(dst, f, 'f', 17, 64)
	for dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	if dst[len(dst)-1] == '.' {
		dst = dst[:len(dst)-1]
	}
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}

// FormatDistance formats a distance as Redis's replies do: fixed point
// with four decimals, rounded half to even from d·10⁴.
func FormatDistance(d float64) string {
	return string(AppendDistance(nil, d))
}

// AppendDistance appends FormatDistance(d) to dst.
func AppendDistance(dst []byte, d float64) []byte {
	if d == 0 {
		return append(dst, "0.0000"...)
	}
	v := math.RoundToEven(d * 10000)
	neg := v < 0
	if neg {
		v = -v
		dst = append(dst, '-')
	}
	if v >= 1<<63 || math.IsNaN(v) {
		// Beyond what Redis's fixed-point formatter handles; no distance
		// on earth gets here.
		return strconv.AppendFloat(dst, d, 'f', 4, 64)
	}
	u := uint64(v)
	digits := strconv.AppendUint(nil, u, 10)
	for len(digits) < 5 {
		digits = append([]byte{'0'}, digits...)
	}
	dst = append(dst, digits[:len(digits)-4]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-4:]...)
}
