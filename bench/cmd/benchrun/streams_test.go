package main

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/bench/internal/loadgen"
	"github.com/cairndb/cairn/bench/internal/procs"
	"github.com/cairndb/cairn/internal/redistest"
)

func TestStreamID(t *testing.T) {
	if got := streamID(0); got != "1700000000000-0" {
		t.Errorf("streamID(0) = %s", got)
	}
	if got := streamID(123); got != "1700000000012-3" {
		t.Errorf("streamID(123) = %s", got)
	}
	// Ids rise with i, as XADD requires.
	less := func(a, b string) bool {
		am, as, _ := strings.Cut(a, "-")
		bm, bs, _ := strings.Cut(b, "-")
		ami, _ := strconv.ParseInt(am, 10, 64)
		bmi, _ := strconv.ParseInt(bm, 10, 64)
		asi, _ := strconv.Atoi(as)
		bsi, _ := strconv.Atoi(bs)
		return ami < bmi || (ami == bmi && asi < bsi)
	}
	for i := range 1000 {
		if !less(streamID(i), streamID(i+1)) {
			t.Fatalf("streamID(%d) = %s is not below streamID(%d) = %s", i, streamID(i), i+1, streamID(i+1))
		}
	}
}

func TestWorkloadRunsAt(t *testing.T) {
	w := workload{Pipelines: []int{1}}
	if !w.runsAt(1) || w.runsAt(16) || !(workload{}).runsAt(16) {
		t.Error("runsAt ignores Pipelines")
	}
	// A scenario with a set-up must not also rely on FLUSHALL: its workloads
	// have no per-run prefill.
	for _, wl := range allWorkloads() {
		if scenarioSetups[wl.Group] != nil && wl.Prefill != nil {
			t.Errorf("%s: scenario %s has a set-up and never flushes, but the workload has a per-run prefill", wl.Name, wl.Group)
		}
	}
}

// testRedis starts a Redis for a test and returns it as the harness sees
// a server.
func testRedis(t *testing.T, name string) (server, *redistest.Conn) {
	c := redistest.Start(t)
	_, port, _ := net.SplitHostPort(c.Addr())
	p := &procs.Process{}
	p.Port, _ = strconv.Atoi(port)
	gc := client(p)
	t.Cleanup(func() { gc.Close() })
	return server{name, p, gc}, c
}

func smokeHarness(t *testing.T) *harness {
	set, err := settingsFor(options{mode: "smoke"})
	if err != nil {
		t.Fatal(err)
	}
	set.Clients = 3
	return &harness{set: set, stderr: &strings.Builder{}, start: time.Now()}
}

// TestStreamReadsAgainstRedis builds the big streams, small, in a real
// Redis and runs every timed command: each check accepts Redis's reply,
// and rejects it for a stream of another size.
func TestStreamReadsAgainstRedis(t *testing.T) {
	sv, _ := testRedis(t, "redis")
	h := smokeHarness(t)
	ctx := context.Background()
	const n, pending = 2500, 1200 // the pending list takes two XREADGROUPs, the last short
	if err := h.fillStream(ctx, sv, bigStream, n); err != nil {
		t.Fatal(err)
	}
	if err := readPending(ctx, sv, bigStream, pending); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(rd streamRead, entries, pend int) error {
		args, ok := rd.Cmd(rng, bigStream, entries, pend)
		v, err := sv.c.Do(ctx, args...).Result()
		if err != nil {
			t.Fatalf("%s: %v", rd.Name, err)
		}
		return ok(v)
	}
	trimmed := false
	for _, rd := range streamReads {
		if rd.AfterTrim && !trimmed {
			d, err := timeOnce(ctx, sv.c, []any{"XTRIM", bigStream, "MINID", streamID(pending)}, pending)
			if err != nil || d <= 0 {
				t.Fatalf("XTRIM: %v, %v", d, err)
			}
			trimmed = true
		}
		for range 5 {
			if err := check(rd, n, pending); err != nil {
				t.Errorf("%s: %v", rd.Name, err)
			}
		}
		// The checks must be able to fail: on one entry fewer, or on the
		// reply for another pending count.
		args, ok := rd.Cmd(rng, bigStream, n, pending)
		if i := slices.Index(args, any("COUNT")); i >= 0 {
			args[i+1] = 9
		} else {
			_, ok = rd.Cmd(rng, bigStream, n, pending+1)
		}
		v, err := sv.c.Do(ctx, args...).Result()
		if err != nil {
			t.Fatalf("%s: %v", rd.Name, err)
		}
		if err := ok(v); err == nil {
			t.Errorf("%s: check accepted %v for %v", rd.Name, v, args)
		}
	}
	// The reads marked Small work in any stream.
	if err := h.fillStream(ctx, sv, smallStream, 37); err != nil {
		t.Fatal(err)
	}
	for _, rd := range streamReads {
		if !rd.Small {
			continue
		}
		args, ok := rd.Cmd(rng, smallStream, 37, 0)
		v, err := sv.c.Do(ctx, args...).Result()
		if err != nil {
			t.Fatalf("%s: %v", rd.Name, err)
		}
		if err := ok(v); err != nil {
			t.Errorf("%s in the small stream: %v", rd.Name, err)
		}
	}
	// Every read's name in INFO latencystats is Redis's.
	for _, rd := range streamReads {
		if _, err := serverLatencyOf(ctx, sv.c, rd.Stat); err != nil {
			t.Errorf("%s: %v", rd.Name, err)
		}
	}
	if _, err := timeOnce(ctx, sv.c, []any{"DEL", bigStream}, 1); err != nil {
		t.Error(err)
	}
	if _, err := timeOnce(ctx, sv.c, []any{"DEL", bigStream}, 1); err == nil {
		t.Error("timeOnce accepted DEL of a missing key")
	}
}

// TestLoadgenWorkloadsAgainstRedis runs every workload of the streams and
// hll-geo scenarios, tiny, against a real redis-server, as the matrix
// does: probe, set-up or prefill, run.
func TestLoadgenWorkloadsAgainstRedis(t *testing.T) {
	sv, c := testRedis(t, "redis")
	h := smokeHarness(t)
	ctx := context.Background()
	if err := setupHLLGeo(ctx, h, "redis", sv.c); err != nil {
		t.Fatal(err)
	}
	for _, w := range slices.Concat(hllGeoWorkloads, streamWorkloads) {
		for _, pl := range []int{1, 4} {
			if !w.runsAt(pl) {
				continue
			}
			if ok, reason, err := probe(ctx, sv.c, w); !ok || err != nil {
				t.Fatalf("%s probe: %s %v", w.Name, reason, err)
			}
			if w.Prefill != nil {
				if _, err := c.Do("DEL", streamKey); err != nil {
					t.Fatal(err)
				}
				if err := w.Prefill(ctx, sv.c, h.set, 137); err != nil {
					t.Fatalf("%s prefill: %v", w.Name, err)
				}
			}
			r, err := w.Run(ctx, h, sv.p, 137, pl)
			if err != nil {
				t.Fatalf("%s -P %d: %v", w.Name, pl, err)
			}
			if !(r.RPS > 0) || math.IsNaN(r.P50Ms) {
				t.Errorf("%s -P %d: %+v", w.Name, pl, r)
			}
		}
	}
	// The consumer group acknowledged everything it was given.
	if v, err := c.Do("XPENDING", streamKey, streamGroup); err != nil || v.([]any)[0].(int64) != 0 {
		t.Errorf("XPENDING after the consumer group = %v, %v", v, err)
	}
	// The geo searches find about GeoPerSearch members each.
	g := newGeoArea(h.set)
	rng := rand.New(rand.NewPCG(3, 4))
	total := 0
	const searches = 40
	for range searches {
		lon, lat := g.searchCentre(rng)
		v, err := c.Do("GEOSEARCH", geoKey, "FROMLONLAT", fmtCoord(lon), fmtCoord(lat), "BYRADIUS", "5", "km")
		if err != nil {
			t.Fatal(err)
		}
		total += len(v.([]any))
	}
	if avg := float64(total) / searches; math.Abs(avg-h.set.GeoPerSearch) > 0.25*h.set.GeoPerSearch {
		t.Errorf("GEOSEARCH BYRADIUS 5 km found %.1f members on average, want about %v", avg, h.set.GeoPerSearch)
	}
}

func TestGeoArea(t *testing.T) {
	for _, members := range []int{10, 3000, 1_000_000} {
		s := settings{GeoMembers: members, GeoRadiusKm: 5, GeoPerSearch: 100}
		g := newGeoArea(s)
		// Members per km² × circle area = GeoPerSearch.
		if got := float64(members) / (g.sideKm * g.sideKm) * math.Pi * 25; math.Abs(got-100) > 1e-6 {
			t.Errorf("%d members: %.3f per circle", members, got)
		}
		for i := range 200 {
			lon, lat := g.member(i)
			if math.Abs(lon-g.lon0) > g.dLon || math.Abs(lat-g.lat0) > g.dLat {
				t.Fatalf("%d members: member %d at %v,%v is outside the square", members, i, lon, lat)
			}
			if l2, a2 := g.member(i); l2 != lon || a2 != lat {
				t.Fatalf("member %d moves", i)
			}
		}
		rng := rand.New(rand.NewPCG(5, 6))
		for range 200 {
			lon, lat := g.searchCentre(rng)
			if math.Abs(lon-g.lon0) > g.insetL+1e-12 || math.Abs(lat-g.lat0) > g.insetLat+1e-12 {
				t.Fatalf("%d members: centre %v,%v outside the inset", members, lon, lat)
			}
		}
	}
	if g := newGeoArea(settings{GeoMembers: 1_000_000, GeoRadiusKm: 5, GeoPerSearch: 100}); g.sideKm < 880 || g.sideKm > 890 {
		t.Errorf("1M members: a %.0f km square, want about 886", g.sideKm)
	}
}

func TestStreamSettings(t *testing.T) {
	s, err := settingsFor(options{mode: "default"})
	if err != nil {
		t.Fatal(err)
	}
	if s.StreamEntries != 10_000_000 || s.StreamPending != 1_000_000 || s.GeoMembers != 1_000_000 || s.GroupConsumers != 10 || s.GroupCount != 10 || s.GeoRadiusKm != 5 {
		t.Errorf("default: %+v", s)
	}
	o, err := parseArgs([]string{"--quick", "streams", "--stream-entries", "5000", "--stream-pending", "700", "--geo-members", "900"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = settingsFor(o); err != nil || s.StreamEntries != 5000 || s.StreamPending != 700 || s.GeoMembers != 900 {
		t.Errorf("flags: %+v, %v", s, err)
	}
	if _, err := settingsFor(options{mode: "smoke", streamEntries: 10, streamPending: 11}); err == nil {
		t.Error("more pending entries than the stream has accepted")
	}
}

func sampleStreams() *streamResult {
	lat := func(p99 time.Duration) loadgen.Latency {
		return loadgen.Latency{Count: 100, P50: p99 / 4, P99: p99, P999: p99 * 2, Max: p99 * 3}
	}
	r := &streamResult{Entries: 10_000_000, Pending: 1_000_000, Small: 10_000, Samples: 100}
	r.Cairn = streamSide{Fill: 50 * time.Second, PEL: 10 * time.Second, Trim: 3 * time.Millisecond, Del: 6 * time.Millisecond, DelRest: time.Millisecond,
		Reads: map[string]loadgen.Latency{}}
	r.Redis = streamSide{Fill: 11 * time.Second, PEL: 2 * time.Second, Trim: 2 * time.Millisecond, Del: 80 * time.Millisecond, DelRest: 900 * time.Millisecond,
		Reads: map[string]loadgen.Latency{}}
	r.Cairn.ReadsServer, r.Redis.ReadsServer = map[string]serverLatency{}, map[string]serverLatency{}
	r.Cairn.SmallReads, r.Redis.SmallReads = map[string]loadgen.Latency{}, map[string]loadgen.Latency{}
	r.Cairn.SmallServer, r.Redis.SmallServer = map[string]serverLatency{}, map[string]serverLatency{}
	for i, rd := range streamReads {
		r.Cairn.Reads[rd.Name] = lat(time.Duration(100+i*100) * time.Microsecond)
		r.Redis.Reads[rd.Name] = lat(40 * time.Microsecond)
		r.Cairn.ReadsServer[rd.Name] = serverLatency{P50: time.Duration(10+i) * time.Microsecond, P99: time.Duration(20+i) * time.Microsecond, P999: time.Millisecond}
		if rd.Small {
			r.Cairn.SmallReads[rd.Name] = lat(90 * time.Microsecond)
			r.Redis.SmallReads[rd.Name] = lat(40 * time.Microsecond)
			r.Cairn.SmallServer[rd.Name] = serverLatency{P50: 9 * time.Microsecond, P99: 19 * time.Microsecond, P999: time.Millisecond}
		}
	}
	return r
}

func TestMarkdownStreams(t *testing.T) {
	r := sampleResults()
	r.Streams = sampleStreams()
	r.Matrix = append(r.Matrix, &matrixResult{Scenario: streams, Title: scenarioTitles[streams],
		Rows: []*matrixRow{{Workload: "XREADGROUP_XACK", Pipeline: 1, Requests: 1000,
			Redis: []benchRun{res(100000, 1, 2)}, Cairn: []benchRun{res(45000, 1, 2)}}}})
	r.Matrix = append(r.Matrix, &matrixResult{Scenario: hllGeo, Title: scenarioTitles[hllGeo],
		Rows: []*matrixRow{{Workload: "GEOSEARCH", Pipeline: 1, Requests: 1000,
			Redis: []benchRun{res(10000, 1, 2)}, Cairn: []benchRun{res(6000, 1, 2)}}}})
	md := r.markdown("")
	for _, want := range []string{
		"## A big stream",
		"| XRANGE - + COUNT 10 (the start) | 0.025 / 0.100 / 0.200 / 0.300 | 0.010 / 0.040 / 0.080 / 0.120 | 10.0 / 20.0 | – |",
		"| XTRIM MINID dropping 1,000,000 entries | 3.000 ms | 2.000 ms |",
		"| DEL of the big stream after the trim (9,000,000 entries, 1,000,000 pending) | 1.000 ms | 900 ms |",
		"| filling: entries added | 220,000/s | 1,000,000/s |",
		"| XRANGE COUNT 10 from the start, middle and end of a 10,000,000-entry stream, p99 | < 1 ms | 0.300 ms (worst: XRANGE <id> + COUNT 10, the last 10 entries; in the server p99 22.0 µs); in a 10,000-entry stream 0.090 ms, in the server 19.0 µs | met |",
		"| XRANGE <id> + COUNT 10, id in the middle half, in a 10,000-entry stream | 0.022 / 0.090 / 0.180 / 0.270 | 0.010 / 0.040 / 0.080 / 0.120 | 9.000 / 19.0 | – |",
		"| XPENDING summary and XINFO GROUPS, 1,000,000 pending entries, p99 | < 1 ms | 0.600 ms (worst: XINFO GROUPS; in the server p99 25.0 µs) | met |",
		"| XTRIM MINID dropping 1,000,000 entries, and DEL of a stream of 1,000,000 entries all pending | < 5 ms | XTRIM 3.000 ms, DEL 6.000 ms | **not met** |",
		"| consumer group, 10 consumers XREADGROUP COUNT 10 + XACK: messages acknowledged/s | ≥ 0.5× Redis | 0.45× | **not met** |",
		"| GEOSEARCH BYRADIUS 5 km in the geo set (1M members in a full run) | ≥ 0.5× Redis | 0.60× | met |",
		"| PFADD of 10 elements | ≥ 0.6× Redis | – | not measured |",
		"- XREADGROUP_XACK: 10 consumers of one group",
		"- GEOSEARCH: `GEOSEARCH geo FROMLONLAT <random point> BYRADIUS 5 km` in a set of 1,000,000 members spread evenly over 886 × 886 km",
		"The HyperLogLogs and the geo set are loaded once into each server",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "The big stream of issue 20") || strings.Contains(md, "GEOSEARCH in a 1,000,000-member geo set") {
		t.Error("full-size streams and geo set reported as smaller")
	}
	r.Streams.Entries, r.Settings.GeoMembers = 100_000, 3000
	md = r.markdown("")
	for _, want := range []string{
		"- The big stream of issue 20 (10,000,000 entries, 1,000,000 pending): this run used 100,000 and 1,000,000;",
		"- GEOSEARCH in a 1,000,000-member geo set, as issue 21 asks: this run used 3,000 members;",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// Without a run, the stream targets are there, unmeasured.
	md = sampleResults().markdown("")
	if !strings.Contains(md, "| XTRIM MINID dropping 1M entries, and DEL of a stream of 1M entries all pending | < 5 ms | – | not measured |") {
		t.Error("stream targets missing from a run without streams")
	}
	if err := streamsComplete(sampleStreams()); err != nil {
		t.Error(err)
	}
	bad := sampleStreams()
	delete(bad.Redis.Reads, "XINFO GROUPS")
	if err := streamsComplete(bad); err == nil {
		t.Error("streamsComplete accepted a missing read")
	}
	bad = sampleStreams()
	delete(bad.Cairn.SmallReads, streamReads[0].Name)
	if err := streamsComplete(bad); err == nil {
		t.Error("streamsComplete accepted a missing read in the small stream")
	}
}
