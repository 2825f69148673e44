package main

import (
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/bench/internal/loadgen"
	"github.com/cairndb/cairn/bench/internal/procs"
	"github.com/cairndb/cairn/bench/internal/rbench"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args      []string
		mode      string
		scenarios []string
		pprof     bool
		wantErr   string
	}{
		{args: nil, mode: "default", scenarios: scenarioNames},
		{args: []string{"--quick"}, mode: "quick", scenarios: scenarioNames},
		{args: []string{"strings", "--pprof", "restart"}, mode: "default", scenarios: []string{"strings", "restart"}, pprof: true},
		{args: []string{"--smoke", "bigger-than-memory"}, mode: "smoke", scenarios: []string{"bigger-than-memory"}},
		{args: []string{"zset-churn", "--churn-duration", "5s"}, mode: "default", scenarios: []string{"zset-churn"}},
		{args: []string{"hot-zset"}, wantErr: `unknown scenario "hot-zset"`},
		{args: []string{"--bc-members", "-1"}, wantErr: "negative"},
		{args: []string{"--btm-rate", "1.5"}, wantErr: "--btm-rate"},
		{args: []string{"--quick", "--smoke"}, wantErr: "exclude each other"},
		{args: []string{"--rounds", "-1"}, wantErr: "negative"},
	}
	for _, tc := range tests {
		o, err := parseArgs(tc.args, io.Discard)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseArgs(%q) err = %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseArgs(%q): %v", tc.args, err)
			continue
		}
		if o.mode != tc.mode || !slices.Equal(o.scenarios, tc.scenarios) || o.pprof != tc.pprof {
			t.Errorf("parseArgs(%q) = mode %s scenarios %v pprof %v; want %s %v %v", tc.args, o.mode, o.scenarios, o.pprof, tc.mode, tc.scenarios, tc.pprof)
		}
	}
}

func TestSettingsFor(t *testing.T) {
	s, err := settingsFor(options{mode: "default"})
	if err != nil {
		t.Fatal(err)
	}
	// N × 1 KiB is at least 4× the 64 MiB block cache and the 64 MiB key
	// cache together.
	if s.BTMCacheSize != 64<<20 || s.BTMKeyCache != "64mb" || s.BTMKeys != 4*128<<10 || int64(s.BTMKeys)*int64(s.BTMValueSize) < 4*(s.BTMCacheSize+64<<20) {
		t.Errorf("default bigger-than-memory: cache %d, key cache %s, keys %d", s.BTMCacheSize, s.BTMKeyCache, s.BTMKeys)
	}
	if s.Rounds < 3 {
		t.Errorf("default rounds = %d, want ≥ 3", s.Rounds)
	}
	big, err := settingsFor(options{mode: "default", big: true})
	if err != nil {
		t.Fatal(err)
	}
	if gb := float64(big.BTMKeys) * float64(big.BTMValueSize) / 1e9; gb < 45 || gb > 55 || big.RestartKeys != 10_000_000 {
		t.Errorf("--big: %.1f GB of values, %d restart keys; want ~50 GB and 10M", gb, big.RestartKeys)
	}
	if s.BCMembers != 1_000_000 || s.BCChurnDuration != time.Minute || !(s.BTMRateFraction > 0 && s.BTMRateFraction < 1) {
		t.Errorf("default: %d members per big collection, churn %v, fixed rate at %v of saturation; want 1M, 60s, a fraction",
			s.BCMembers, s.BCChurnDuration, s.BTMRateFraction)
	}
	o, err := settingsFor(options{mode: "quick", btmCache: "1mb", btmKeys: 7, restartKeys: 9, rounds: 5, bcMembers: 11, churnDur: 3 * time.Second, btmRate: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	if o.BTMCacheSize != 1<<20 || o.BTMKeys != 7 || o.RestartKeys != 9 || o.Rounds != 5 || o.RestartRounds != 5 ||
		o.BCMembers != 11 || o.BCChurnDuration != 3*time.Second || o.BTMRateFraction != 0.25 {
		t.Errorf("overrides not applied: %+v", o)
	}
	for _, mode := range []string{"default", "quick", "smoke"} {
		m, err := settingsFor(options{mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if m.BCMembers <= 0 || m.BCSamples <= 0 || m.BCChurnSize <= 11 || m.BCChurnDuration <= 0 || m.BCChurnConns <= 0 || m.BCChurnBatch <= 0 || m.BTMRateDuration <= 0 {
			t.Errorf("%s: big-collection, churn or fixed-rate setting missing: %+v", mode, m)
		}
	}
	if _, err := settingsFor(options{mode: "default", btmCache: "lots"}); err == nil {
		t.Error("a bad --btm-cache was accepted")
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"64mb", 64 << 20, true},
		{"1GB", 1 << 30, true},
		{"16m", 16_000_000, true},
		{"1k", 1000, true},
		{"1kb", 1024, true},
		{"4096", 4096, true},
		{"", 0, false},
		{"mb", 0, false},
		{"-1mb", 0, false},
		{"99999999999999gb", 0, false},
	}
	for _, tc := range tests {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func res(rps, p50, p99 float64) benchRun {
	return resCPU(rps, p50, p99, math.NaN())
}

func resCPU(rps, p50, p99, cpu float64) benchRun {
	return benchRun{Result: rbench.Result{Test: "SET", RPS: rps, P50Ms: p50, P99Ms: p99}, CPUus: cpu}
}

func TestRowSummary(t *testing.T) {
	row := &matrixRow{
		Workload: "SET", Pipeline: 1, Requests: 1000,
		Redis: []benchRun{resCPU(100, 1, 2, 9), resCPU(90, 1.2, 3, 11), resCPU(110, 0.9, 2.5, 10)},
		Cairn: []benchRun{resCPU(80, 2, 4, 20), failedRun("SET"), resCPU(99, 1.5, 3, 16)},
	}
	s := row.summary()
	if s.Redis.Median != 100 || s.Redis.Min != 90 || s.Redis.Max != 110 || s.Redis.N != 3 {
		t.Errorf("Redis summary = %+v", s.Redis)
	}
	if s.Cairn.Median != 89.5 || s.Cairn.N != 2 {
		t.Errorf("Cairn summary = %+v, want median of the two good runs", s.Cairn)
	}
	if math.Abs(s.Ratio-0.895) > 1e-9 {
		t.Errorf("ratio = %v, want 0.895", s.Ratio)
	}
	// Paired: round 1 0.8, round 3 0.9; round 2 has no Cairn value.
	if s.Paired.N != 2 || math.Abs(s.Paired.Min-0.8) > 1e-9 || math.Abs(s.Paired.Max-0.9) > 1e-9 {
		t.Errorf("paired = %+v, want 0.8–0.9 over 2", s.Paired)
	}
	if s.RedisP99.Median != 2.5 || s.CairnP50.Median != 1.75 {
		t.Errorf("latency medians = %v, %v", s.RedisP99.Median, s.CairnP50.Median)
	}
	if s.RedisCPU.Median != 10 || s.CairnCPU.Median != 18 || s.CairnCPU.N != 2 {
		t.Errorf("CPU per command = %+v, %+v; want medians 10 and 18 (the failed run has none)", s.RedisCPU, s.CairnCPU)
	}
}

func TestCPUPerCommand(t *testing.T) {
	tests := []struct {
		ticks int64
		n     int
		want  float64
	}{
		{150, 100_000, 15},     // 1.5 s of CPU over 100,000 commands
		{0, 1000, math.NaN()},  // too short to tick: nothing measured
		{100, 1_000_000, 1},    // pipelined
		{5, 0, math.NaN()},     // no commands
		{-1, 1000, math.NaN()}, // counters went backwards: not a measurement
	}
	for _, tc := range tests {
		got := cpuPerCommand(tc.ticks, tc.n)
		if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("cpuPerCommand(%d, %d) = %v, want %v", tc.ticks, tc.n, got, tc.want)
		}
	}
}

func sampleResults() *results {
	set, _ := settingsFor(options{mode: "default"})
	return &results{
		Mode:     "default",
		Started:  time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		Elapsed:  9 * time.Minute,
		Settings: set,
		Versions: versions{Cairn: "Cairn v=0.1.0", Redis: "Redis server v=7.0.15", Benchmark: "redis-benchmark 7.0.15", Go: "go1.26", Commit: "abc"},
		Matrix: []*matrixResult{
			{
				Scenario: "strings", Title: scenarioTitles["strings"], CairnCmd: "cairn --port <port>", RedisCmd: "redis-server --port <port>",
				Rows: []*matrixRow{
					{Workload: "SET", Pipeline: 1, Requests: 50000,
						Redis: []benchRun{resCPU(100000, 0.3, 0.5, 9.5), resCPU(100000, 0.3, 0.5, 9.5), resCPU(100000, 0.3, 0.5, 9.5)},
						Cairn: []benchRun{resCPU(85000, 0.4, 0.9, 14.25), resCPU(85000, 0.4, 0.9, 14.25), resCPU(85000, 0.4, 0.9, 14.25)}},
					{Workload: "GET", Pipeline: 16, Requests: 200000,
						Redis: []benchRun{res(400000, 1, 2), res(400000, 1, 2), res(400000, 1, 2)},
						Cairn: []benchRun{res(200000, 2, 4), res(200000, 2, 4), res(200000, 2, 4)}},
				},
			},
			{
				Scenario: "collections", Title: scenarioTitles["collections"],
				Skipped: []skip{{"LPUSH", "Cairn: ERR unknown command 'LPUSH'"}},
			},
		},
		BTM: &btmResult{
			Keys: 1000, ValueSize: 1024, CacheSize: 256 << 10, Conns: 50, GetRatio: 0.9, Duration: time.Second,
			Load: loadgen.LoadResult{Keys: 1000, Bytes: 1000 << 10, Elapsed: time.Second},
			Mix: loadgen.MixResult{Elapsed: time.Second, Gets: 900, Sets: 100,
				Get: loadgen.Latency{Count: 900, P50: 100 * time.Microsecond, P99: 1500 * time.Microsecond, P999: 3 * time.Millisecond}},
			PeakRSS: 50 << 20, Disk: procs.DirUsage{Apparent: 2 << 20, Allocated: 3 << 20, ByExt: map[string]int64{".sst": 1 << 20}},
			RedisKeys: 500, RedisUsed: 600 << 10, RedisAtN: 1200 << 10, RedisExtra: true,
			RateFraction: 0.5, RateDuration: time.Second,
			Fixed: loadgen.MixResult{Elapsed: time.Second, Gets: 450, Sets: 50, Rate: 500,
				Get:   loadgen.Latency{Count: 450, P50: 200 * time.Microsecond, P99: 1800 * time.Microsecond, P999: 2500 * time.Microsecond},
				Sched: loadgen.Latency{Count: 900, P50: 10 * time.Microsecond, P99: 100 * time.Microsecond, P999: 400 * time.Microsecond}},
			FixedCPU:       cpuUse{Server: 0.9, Client: 0.5, Others: 0.25, Interrupts: 0.125},
			FixedGetServer: serverLatency{P50: 4 * time.Microsecond, P99: 90 * time.Microsecond, P999: 1200 * time.Microsecond},
			KeyCacheSize:   256 << 10,
		},
		BigColl: &bcResult{Members: 1_000_000, Samples: 100,
			Cairn: bcSide{Load: 10 * time.Second,
				Reads:  map[string]loadgen.Latency{bcReads[0].Name: {Count: 100, P50: 30 * time.Microsecond, P99: 170 * time.Microsecond, P999: 400 * time.Microsecond, Max: 4 * time.Millisecond}},
				Del:    map[string]time.Duration{"hash": 150 * time.Microsecond, "set": 90 * time.Microsecond, "list": 40 * time.Microsecond, "zset": 90 * time.Microsecond},
				Unlink: map[string]time.Duration{"hash": 40 * time.Microsecond, "set": 40 * time.Microsecond, "list": 40 * time.Microsecond, "zset": 870 * time.Microsecond}},
			Redis: bcSide{Load: 2 * time.Second,
				Reads: map[string]loadgen.Latency{bcReads[0].Name: {Count: 100, P50: 20 * time.Microsecond, P99: 50 * time.Microsecond, P999: 90 * time.Microsecond, Max: 3 * time.Millisecond}},
				Del:   map[string]time.Duration{"hash": 316 * time.Millisecond}},
		},
		Churn: &churnResult{Size: 1000, Duration: time.Minute, Conns: 2, Batch: 50, Samples: 100,
			Cairn: churnSide{Pairs: 600_000, Elapsed: time.Minute,
				Before:       loadgen.Latency{Count: 100, P50: 50 * time.Microsecond, P99: 100 * time.Microsecond},
				After:        loadgen.Latency{Count: 100, P50: 60 * time.Microsecond, P99: 150 * time.Microsecond},
				Slices:       []loadgen.Latency{{Count: 10, P50: time.Millisecond}, {Count: 10, P50: 2 * time.Millisecond}},
				BeforeServer: serverLatency{P50: 11 * time.Microsecond, P99: 30 * time.Microsecond},
				AfterServer:  serverLatency{P50: 12100 * time.Nanosecond, P99: 33 * time.Microsecond}},
			Redis: churnSide{Pairs: 6_000_000, Elapsed: time.Minute,
				Before:       loadgen.Latency{Count: 100, P50: 40 * time.Microsecond, P99: 90 * time.Microsecond},
				After:        loadgen.Latency{Count: 100, P50: 40 * time.Microsecond, P99: 90 * time.Microsecond},
				BeforeServer: serverLatency{P50: time.Nanosecond, P99: 1003 * time.Nanosecond},
				AfterServer:  serverLatency{P50: 1003 * time.Nanosecond, P99: 1003 * time.Nanosecond}},
		},
		Restart: &restartResult{Keys: 100, ValueSize: 128,
			CairnReady: []time.Duration{30 * time.Millisecond, 20 * time.Millisecond, 25 * time.Millisecond},
			RedisReady: []time.Duration{10 * time.Millisecond, 12 * time.Millisecond, 11 * time.Millisecond}},
		Errors: []string{"durable: SET -P 1 round 2, cairn: boom\nsecond line"},
	}
}

func TestMarkdown(t *testing.T) {
	md := sampleResults().markdown("## History\n\n- 2026-11-20: before.\n")
	for _, want := range []string{
		"# Cairn benchmark results",
		"## Machine",
		"| SET | 50,000 | 100,000 (100,000–100,000) | 85,000 (85,000–85,000) | **0.85×** (0.85–0.85) | 0.300 / 0.500 | 0.400 / 0.900 | 9.500 / 14.2 |",
		"| GET | 200,000 | 400,000 (400,000–400,000) | 200,000 (200,000–200,000) | **0.50×** (0.50–0.50) | 1.000 / 2.000 | 2.000 / 4.000 | – / – |",
		"### -P 16",
		"| unpipelined SET | ≥ 0.8× Redis | 0.85× | met |",
		"| pipelined GET (-P 16) | ≥ 0.6× Redis | 0.50× | **not met** |",
		"| unpipelined GET | ≥ 0.8× Redis | – | not measured |",
		"| bigger than memory, GET p99 with N ≥ 4× caches, at a fixed 50% of Cairn's saturated rate | < 2 ms | 1.800 ms at 500 ops/s | met |",
		"| **fixed rate: GET p50 / p99 / p99.9 ms** | 0.200 / 1.800 / 2.500 | – (does not fit) |",
		"| fixed rate: GET inside the server (INFO latencystats), p50 / p99 / p99.9 ms | 0.004 / 0.090 / 1.200 | – (does not fit) |",
		"| fixed rate: client scheduling delay p50 / p99 / p99.9 ms | 0.010 / 0.100 / 0.400 | – (does not fit) |",
		"| fixed rate: CPU, cores: server / load generator / other processes / interrupts | 0.90 / 0.50 / 0.25 / 0.12 | – (does not fit) |",
		"Cairn also keeps its key cache (key-cache-size 256.0 KiB), which holds recently used records with their values: 2.0× the two caches together.",
		"| saturated: GET p50 / p99 / p99.9 ms | 0.100 / 1.500 / 3.000 | – (does not fit) |",
		"| DEL / UNLINK of a 1M-member hash, set, list, zset | < 5 ms | 0.870 ms (worst: UNLINK zset) | met |",
		"| HGET, middle LINDEX, deep ZRANGEBYSCORE LIMIT 0 10 in 1M-member collections | well under 1 ms | p99 0.170 ms (worst: HGET) | met |",
		"| ZRANGE 0 10 after 1m0s of hot-zset churn, against before (p50 in the server) | ≤ 2× | 1.10× (p50 in the server 11.0 µs → 12.1 µs; at the client 0.050 ms → 0.060 ms, 1.20×) | met |",
		"| ZRANGE 0 10 in the server before, p50 / p99 | 11.0 µs / 30.0 µs | 0.001 µs / 1.003 µs |",
		"| ZRANGE 0 10 in the server after, p50 / p99 | 12.1 µs / 33.0 µs | 1.003 µs / 1.003 µs |",
		"| after / before in the server, p50 | **1.10×** (p99 1.10×) | – |",
		"| HGET, random field | 0.030 / 0.170 / 0.400 / 4.000 | 0.020 / 0.050 / 0.090 / 3.000 |",
		"| LINDEX, random index in the middle half | – | – |",
		"| hash | 0.150 ms | 316 ms | 0.040 ms | – |",
		"Loading all eight collections (8,000,000 members): Cairn 800,000 members/s, Redis 4,000,000 members/s.",
		"| churn, pairs/s | 10,000 (600,000 in total) | 100,000 (6,000,000 in total) |",
		"| after / before at the client, p50 | 1.20× (p99 1.50×) | 1.00× (p99 1.00×) |",
		"| last / first tenth, p50 | 2.00× | – |",
		"- Restart with 10,000,000 keys on disk, as issue 4 asks: this run used 100 to stay within its time budget",
		"- LPUSH — Cairn: ERR unknown command 'LPUSH'",
		"**extrapolated** to 1.2 MiB at N",
		"| time to first PONG, ms | 25.0 (20.0–30.0) | 11.0 (10.0–12.0) |",
		"Not run this time: durable, scripting-pubsub, streams, hll-geo, acl, bitmaps, tls, sparse-bitmaps, rdb-import.",
		"- durable: SET -P 1 round 2, cairn: boom second line",
		"## History\n\n- 2026-11-20: before.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Index(md, "## History") < strings.Index(md, "## Errors") {
		t.Error("History is not kept at the end")
	}
}

func TestPreservedHistory(t *testing.T) {
	tests := []struct{ in, want string }{
		{"# R\n\n## Restart\n\nx\n## History\n\n- a\n", "## History\n\n- a\n"},
		{"## History\n- b\n", "## History\n- b\n"},
		{"# R\n\nno history\n", ""},
		{"# R\n\ntext ## History inline\n", ""},
	}
	for _, tc := range tests {
		if got := preservedHistory([]byte(tc.in)); got != tc.want {
			t.Errorf("preservedHistory(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestChart(t *testing.T) {
	c := sampleResults().chart()
	var titles []string
	bars := 0
	for _, s := range c.Sections {
		titles = append(titles, s.Title)
		bars += len(s.Bars)
	}
	// strings -P 1 (SET), strings -P 16 (GET); collections has no rows; the
	// bigger-than-memory bar needs a Redis mix, which the sample lacks.
	want := []string{"strings (everysec), -P 1", "strings (everysec), -P 16"}
	if !slices.Equal(titles, want) || bars != 2 {
		t.Errorf("sections %q with %d bars; want %q with 2", titles, bars, want)
	}
	if v := c.Sections[1].Bars[0].Value; v != 0.5 {
		t.Errorf("GET -P 16 bar = %v, want 0.5", v)
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct{ got, want string }{
		{fmtOps(1234567.4), "1,234,567"},
		{fmtOps(999), "999"},
		{fmtOps(math.NaN()), "–"},
		{fmtBytes(512), "512 B"},
		{fmtBytes(3 << 20), "3.0 MiB"},
		{fmtBytes(5 << 30), "5.0 GiB"},
		{fmtFigure(0.1234), "0.123"},
		{fmtFigure(12.34), "12.3"},
		{fmtRatio(0.8), "0.80×"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestCommandLine(t *testing.T) {
	p := &procs.Process{Spec: procs.Spec{Bin: "/usr/bin/redis-server", Args: []string{"--port", "7001", "--dir", "/tmp/x", "--save", "", "--appendonly", "no"}}}
	if got, want := commandLine(p), `redis-server --port <port> --dir <fresh dir> --save "" --appendonly no`; got != want {
		t.Errorf("commandLine = %q, want %q", got, want)
	}
}

func TestWorkloadsMatchRedisBenchmarkNames(t *testing.T) {
	// Every workload must be a -t name redis-benchmark knows; the durable
	// pair only holds writes.
	known := []string{"ping_inline", "ping_mbulk", "set", "get", "incr", "lpush", "rpush", "lpop", "rpop", "sadd", "hset", "spop", "zadd", "zpopmin", "lrange_100", "mset"}
	for _, w := range workloads {
		if !slices.Contains(known, w.test()) {
			t.Errorf("workload %s is not a redis-benchmark test", w.Name)
		}
		if w.Durable && (w.Prefill != nil || strings.HasPrefix(w.Name, "PING")) {
			t.Errorf("durable workload %s is not a plain write", w.Name)
		}
		if w.Group == "collections" && w.Probe == nil {
			t.Errorf("collection workload %s has no probe", w.Name)
		}
	}
}

func TestCalibrated(t *testing.T) {
	s := settings{Clients: 50, RunSeconds: 2}
	tests := []struct {
		nominal, pipeline int
		rps               float64
		want              int
	}{
		{50000, 1, 10000, 20000},      // 2 s at the slower server's speed
		{50000, 1, 1e6, 50000},        // never above the nominal count
		{200000, 16, 100, 4000},       // never below 50 clients × 16 × 5
		{50000, 1, 10, 1000},          // nor below 1000
		{50000, 1, math.NaN(), 50000}, // no calibration: as given
	}
	for _, tc := range tests {
		if got := s.calibrated(tc.nominal, tc.pipeline, tc.rps); got != tc.want {
			t.Errorf("calibrated(%d, -P %d, %v) = %d, want %d", tc.nominal, tc.pipeline, tc.rps, got, tc.want)
		}
	}
	s.RunSeconds = 0
	if got := s.calibrated(50000, 1, 10); got != 50000 {
		t.Errorf("without RunSeconds calibrated = %d, want the nominal 50000", got)
	}
}

func TestRedisVersion(t *testing.T) {
	if got := redisVersion("Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0"); got != "7.0.15" {
		t.Errorf("redisVersion = %q", got)
	}
	if got := redisVersion("unknown"); got != "unknown" {
		t.Errorf("redisVersion(unknown) = %q", got)
	}
}

func TestLatencyPercentiles(t *testing.T) {
	info := "# Latencystats\r\n" +
		"latency_percentiles_usec_zrangebyscore:p50=10.001,p99=20.003,p99.9=30.003\r\n" +
		"latency_percentiles_usec_zrange:p50=4.063,p99=12.031,p99.9=40.191\r\n" +
		"latency_percentiles_usec_ping:\r\n"
	us := func(f float64) time.Duration { return time.Duration(math.Round(f * 1000)) }
	for _, tc := range []struct {
		info, cmd string
		want      map[string]time.Duration
		ok        bool
	}{
		{info, "zrange", map[string]time.Duration{"p50": us(4.063), "p99": us(12.031), "p99.9": us(40.191)}, true},
		{info, "zrangebyscore", map[string]time.Duration{"p50": us(10.001), "p99": us(20.003), "p99.9": us(30.003)}, true},
		{info, "zadd", nil, false},
		{"latency_percentiles_usec_zrange:p50=x\r\n", "zrange", nil, false},
		{"latency_percentiles_usec_zrange:p50=-1\r\n", "zrange", nil, false},
		{"latency_percentiles_usec_zrange:50=1\r\n", "zrange", nil, false},
		{"latency_percentiles_usec_zrange:p0=0.001,p100=2.007\n", "zrange", map[string]time.Duration{"p0": us(0.001), "p100": us(2.007)}, true},
		{"", "zrange", nil, false},
	} {
		got, ok := latencyPercentiles(tc.info, tc.cmd)
		if ok != tc.ok || (ok && !maps.Equal(got, tc.want)) {
			t.Errorf("latencyPercentiles(%q, %q) = %v, %v; want %v, %v", tc.info, tc.cmd, got, ok, tc.want, tc.ok)
		}
	}
}
