package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/cairndb/cairn/bench/internal/loadgen"
)

// The hll-geo scenario (issue 21): PFADD of 10 elements, PFCOUNT of one
// and of three keys, and GEOSEARCH BYRADIUS in a big geo set, on the load
// generator at -P 1 and -P 16. The HyperLogLogs and the geo set are loaded
// once per server (scenarioSetups) and every run reads them: the geo set
// is too big to load again before each run, so no run FLUSHALLs.

const hllGeo = "hll-geo"

// geoKey is the geo set; hllKey(i) the HyperLogLogs.
const geoKey = "geo"

func hllKey(i int) string { return "hll:" + strconv.Itoa(i) }

// pfaddElements is the number of elements of each PFADD.
const pfaddElements = 10

var hllGeoWorkloads = []workload{
	{Name: "PFADD_10", Group: hllGeo, Probe: []any{"PFADD", probeKey, "x"}, Run: runOp(pfaddOp)},
	{Name: "PFCOUNT_1", Group: hllGeo, Probe: []any{"PFCOUNT", probeKey}, Run: runOp(pfcountOp(1))},
	{Name: "PFCOUNT_3", Group: hllGeo, Probe: []any{"PFCOUNT", probeKey, probeKey + ":2", probeKey + ":3"}, Scale: 0.25, Run: runOp(pfcountOp(3))},
	{Name: "GEOSEARCH", Group: hllGeo, Probe: []any{"GEOSEARCH", probeKey, "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"}, Scale: 0.25, Run: runOp(geosearchOp)},
}

// hllGeoDescriptions say what each workload of the scenario sends, for
// RESULTS.md.
func hllGeoDescriptions(s settings) map[string]string {
	g := newGeoArea(s)
	// Redis turns a sparse HyperLogLog dense past hll-sparse-max-bytes
	// (3000), which 5,000 elements pass and 1,000 do not.
	enc := ""
	switch {
	case s.HLLFill >= 5000:
		enc = " (dense in Redis)"
	case s.HLLFill <= 1000:
		enc = " (sparse in Redis)"
	}
	return map[string]string{
		"PFADD_10":  fmt.Sprintf("`PFADD hll:<random> e1 … e10`, 10 random elements, into one of %d HyperLogLogs loaded with %s elements each%s", s.HLLKeys, fmtOps(float64(s.HLLFill)), enc),
		"PFCOUNT_1": "`PFCOUNT hll:<random>` of one of those HyperLogLogs",
		"PFCOUNT_3": "`PFCOUNT hll:<a> hll:<b> hll:<c>`, three different random ones (a union, computed afresh every time)",
		"GEOSEARCH": fmt.Sprintf("`GEOSEARCH %s FROMLONLAT <random point> BYRADIUS %g km` in a set of %s members spread evenly over %.0f × %.0f km around %g°N %g°E, about %.0f members within each circle",
			geoKey, s.GeoRadiusKm, fmtOps(float64(s.GeoMembers)), g.sideKm, g.sideKm, g.lat0, g.lon0, s.GeoPerSearch),
	}
}

func pfaddOp(s settings) loadgen.Op {
	return loadgen.Op{
		Name:    "PFADD",
		Replies: 1,
		Append: func(buf []byte, rng *rand.Rand) []byte {
			buf = append(buf, '*')
			buf = strconv.AppendInt(buf, 2+pfaddElements, 10)
			buf = append(buf, '\r', '\n')
			buf = loadgen.AppendBulk(buf, "PFADD")
			buf = loadgen.AppendBulk(buf, hllKey(rng.IntN(s.HLLKeys)))
			for range pfaddElements {
				buf = loadgen.AppendBulk(buf, "e:"+strconv.FormatUint(rng.Uint64(), 16))
			}
			return buf
		},
		Check: func(_ int, r loadgen.Reply) error {
			if r.Type != ':' || (r.Int != 0 && r.Int != 1) {
				return fmt.Errorf("got %s, want 0 or 1", r)
			}
			return nil
		},
	}
}

// pfcountOp counts the union of keys different random HyperLogLogs, all
// loaded, so the count cannot be zero.
func pfcountOp(keys int) func(settings) loadgen.Op {
	return func(s settings) loadgen.Op {
		return loadgen.Op{
			Name:    "PFCOUNT",
			Replies: 1,
			Append: func(buf []byte, rng *rand.Rand) []byte {
				args := make([]string, 1, 1+keys)
				args[0] = "PFCOUNT"
				for _, k := range rng.Perm(s.HLLKeys)[:keys] {
					args = append(args, hllKey(k))
				}
				return loadgen.AppendCommand(buf, args...)
			},
			Check: func(_ int, r loadgen.Reply) error {
				if r.Type != ':' || r.Int <= 0 {
					return fmt.Errorf("got %s, want a positive count", r)
				}
				return nil
			},
		}
	}
}

func geosearchOp(s settings) loadgen.Op {
	g := newGeoArea(s)
	radius := strconv.FormatFloat(s.GeoRadiusKm, 'g', -1, 64)
	return loadgen.Op{
		Name:    "GEOSEARCH",
		Replies: 1,
		Append: func(buf []byte, rng *rand.Rand) []byte {
			lon, lat := g.searchCentre(rng)
			return loadgen.AppendCommand(buf, "GEOSEARCH", geoKey, "FROMLONLAT", fmtCoord(lon), fmtCoord(lat), "BYRADIUS", radius, "km")
		},
		Check: func(_ int, r loadgen.Reply) error {
			if r.Type != '*' || r.Null {
				return fmt.Errorf("got %s, want an array of members", r)
			}
			return nil
		},
	}
}

func fmtCoord(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }

// geoArea is the square the geo set's members are spread over: its side
// gives GeoPerSearch members per circle of GeoRadiusKm on average.
type geoArea struct {
	lat0, lon0       float64 // centre, degrees
	sideKm           float64
	dLat, dLon       float64 // half the side, degrees
	insetLat, insetL float64 // the part of the half side a search centre may use, degrees
}

// kmPerDegree is a degree of latitude (and of longitude at the equator).
const kmPerDegree = 111.2

func newGeoArea(s settings) geoArea {
	g := geoArea{lat0: 48, lon0: 10}
	g.sideKm = math.Sqrt(float64(s.GeoMembers) * math.Pi * s.GeoRadiusKm * s.GeoRadiusKm / s.GeoPerSearch)
	lonKm := kmPerDegree * math.Cos(g.lat0*math.Pi/180)
	g.dLat = g.sideKm / 2 / kmPerDegree
	g.dLon = g.sideKm / 2 / lonKm
	// Keep each circle inside the square, so that it finds as many
	// members as anywhere else.
	inset := max(g.sideKm/2-s.GeoRadiusKm, 0)
	g.insetLat, g.insetL = inset/kmPerDegree, inset/lonKm
	return g
}

// member returns member i's position, the same on every run.
func (g geoArea) member(i int) (lon, lat float64) {
	rng := rand.New(rand.NewPCG(uint64(i), 0x9e0))
	return g.lon0 + (2*rng.Float64()-1)*g.dLon, g.lat0 + (2*rng.Float64()-1)*g.dLat
}

func (g geoArea) searchCentre(rng *rand.Rand) (lon, lat float64) {
	return g.lon0 + (2*rng.Float64()-1)*g.insetL, g.lat0 + (2*rng.Float64()-1)*g.insetLat
}

func geoMember(i int) string { return "m:" + strconv.Itoa(i) }

// hllGeoBatch members or elements go into one command, hllGeoDepth
// commands into one pipeline.
const (
	hllGeoBatch = 1000
	hllGeoDepth = 8
)

// setupHLLGeo loads the HyperLogLogs and the geo set into one server and
// checks them.
func setupHLLGeo(ctx context.Context, h *harness, name string, c *redis.Client) error {
	s := h.set
	if err := c.FlushAll(ctx).Err(); err != nil {
		return fmt.Errorf("FLUSHALL: %w", err)
	}
	pipe := c.Pipeline()
	flush := func(force bool) error {
		if pipe.Len() == 0 || (!force && pipe.Len() < hllGeoDepth) {
			return nil
		}
		_, err := pipe.Exec(ctx)
		return err
	}
	for k := range s.HLLKeys {
		for first := 0; first < s.HLLFill; first += hllGeoBatch {
			args := []any{"PFADD", hllKey(k)}
			for j := first; j < min(first+hllGeoBatch, s.HLLFill); j++ {
				args = append(args, "e:"+strconv.Itoa(k)+":"+strconv.Itoa(j))
			}
			pipe.Do(ctx, args...)
			if err := flush(false); err != nil {
				return fmt.Errorf("PFADD: %w", err)
			}
		}
	}
	if err := flush(true); err != nil {
		return fmt.Errorf("PFADD: %w", err)
	}
	g := newGeoArea(s)
	h.logf("%s: %s: %d HyperLogLogs loaded; loading %s geo members", hllGeo, name, s.HLLKeys, fmtOps(float64(s.GeoMembers)))
	for first := 0; first < s.GeoMembers; first += hllGeoBatch {
		args := []any{"GEOADD", geoKey}
		for i := first; i < min(first+hllGeoBatch, s.GeoMembers); i++ {
			lon, lat := g.member(i)
			args = append(args, fmtCoord(lon), fmtCoord(lat), geoMember(i))
		}
		pipe.Do(ctx, args...)
		if err := flush(false); err != nil {
			return fmt.Errorf("GEOADD: %w", err)
		}
	}
	if err := flush(true); err != nil {
		return fmt.Errorf("GEOADD: %w", err)
	}
	if n, err := c.ZCard(ctx, geoKey).Result(); err != nil || n != int64(s.GeoMembers) {
		return fmt.Errorf("ZCARD %s = %d (%v), want %d", geoKey, n, err, s.GeoMembers)
	}
	if n, err := c.PFCount(ctx, hllKey(0)).Result(); err != nil || math.Abs(float64(n)-float64(s.HLLFill)) > 0.05*float64(s.HLLFill)+2 {
		return fmt.Errorf("PFCOUNT %s = %d (%v), want about %d", hllKey(0), n, err, s.HLLFill)
	}
	return nil
}
