package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// settings are every number a run uses; RESULTS.md prints them so that a
// result can be reproduced and two results can be compared.
type settings struct {
	Mode string

	// redis-benchmark matrix.
	Rounds          int
	Clients         int
	DataSize        int
	Keyspace        int
	Pipelines       []int
	Requests        map[int]int // -n per pipeline depth, appendfsync everysec
	DurableRequests map[int]int // -n per pipeline depth, appendfsync always
	MatrixCache     string      // Cairn's --cache-size for the matrix
	// RunSeconds, when positive, caps a run's length: a calibration run
	// before the rounds measures the slower server, and -n is lowered so
	// that server takes about this long (never below minRequests). The
	// Requests figures are then upper bounds. Zero runs -n as given.
	RunSeconds float64
	// Only, when set, limits each redis-benchmark scenario to these
	// workloads (the smoke test samples every code path, not every
	// command); the load generator's workloads are each a code path of
	// their own and always run.
	Only map[string]bool

	// Bigger than memory.
	BTMKeys      int
	BTMValueSize int
	BTMCache     string // as passed to Cairn
	// BTMKeyCache is Cairn's key-cache-size in the scenario: the key cache
	// holds recent records with their values, so it counts towards the
	// memory N must exceed.
	BTMKeyCache  string
	BTMCacheSize int64 // the same in bytes
	BTMConns     int
	BTMGetRatio  float64
	BTMDuration  time.Duration
	BTMMaxOps    int64
	BTMLoadConns int
	BTMLoadBatch int
	RedisBudget  int64 // Redis is loaded with the full N only below this used_memory

	// Open-loop bigger-than-memory latency: the offered rate is this
	// fraction of Cairn's closed-loop (saturated) throughput.
	BTMRateFraction float64
	BTMRateDuration time.Duration

	// Big collections and the hot-zset churn.
	BCMembers       int // members of each big collection
	BCSamples       int // timed calls per read measurement
	BCChurnSize     int // members of the hot zset
	BCChurnDuration time.Duration
	BCChurnConns    int // clients churning at once
	BCChurnBatch    int // ZADD + ZREMRANGEBYRANK pairs per pipeline

	// Streams (issue 20): the big stream of StreamEntries entries, whose
	// group has StreamPending entries pending; XTRIM drops StreamPending
	// entries and DEL deletes a stream of StreamPending entries, all
	// pending. The consumer-group workload runs GroupConsumers consumers
	// reading GroupCount entries at a time.
	StreamEntries  int
	StreamPending  int
	StreamSmall    int // entries of a small stream whose reads the big one's are set against
	GroupConsumers int
	GroupCount     int

	// HyperLogLog and geo (issue 21): HLLKeys HyperLogLogs of HLLFill
	// elements each; a geo set of GeoMembers members spread evenly at a
	// density that puts about GeoPerSearch of them within GeoRadiusKm of
	// a search's centre, whatever GeoMembers is.
	HLLKeys      int
	HLLFill      int
	GeoMembers   int
	GeoRadiusKm  float64
	GeoPerSearch float64
	// Bitmaps: SETBIT/GETBIT offsets below BitmapRange, GETBIT's bitmap
	// prefilled with BitmapPrefill bits; the scans' sparse bitmap has
	// BitmapBits random bits below BitmapHighBit and that bit.
	BitmapRange   int64
	BitmapPrefill int
	BitmapHighBit int64
	BitmapBits    int
	// Sparse bitmaps: SparseKeys bitmaps with bit SparseBit set; Redis
	// gets SparseRedisKeys of them (each is a whole string there).
	SparseKeys      int
	SparseBit       int64
	SparseRedisKeys int

	// RDB import (issue 23): the size of the file Redis makes, and the
	// imports and Redis loads timed.
	RDBSize      int64
	ImportRounds int

	// Restart.
	RestartKeys      int
	RestartValueSize int
	RestartRounds    int
}

func settingsFor(o options) (settings, error) {
	s := settings{
		Mode:             o.mode,
		Rounds:           3,
		Clients:          50,
		DataSize:         128,
		Keyspace:         100000,
		Pipelines:        []int{1, 16},
		MatrixCache:      "256mb",
		BTMValueSize:     1024,
		BTMConns:         50,
		BTMGetRatio:      0.9,
		BTMLoadConns:     8,
		BTMLoadBatch:     100,
		RedisBudget:      2 << 30,
		BTMRateFraction:  0.5,
		BCMembers:        1_000_000,
		BCSamples:        20000,
		BCChurnSize:      1000,
		BCChurnConns:     2,
		BCChurnBatch:     50,
		RestartValueSize: 128,
		RestartRounds:    3,
		ImportRounds:     3,
		RDBSize:          1 << 30,
		StreamEntries:    10_000_000,
		StreamPending:    1_000_000,
		StreamSmall:      10_000,
		GroupConsumers:   10,
		GroupCount:       10,
		HLLKeys:          1000,
		HLLFill:          5000,
		GeoMembers:       1_000_000,
		GeoRadiusKm:      5,
		GeoPerSearch:     100,
		BitmapRange:      100_000_000,
		BitmapPrefill:    100_000,
		BitmapHighBit:    4_000_000_000,
		BitmapBits:       1000,
		SparseKeys:       10_000,
		SparseBit:        4_294_967_295,
		SparseRedisKeys:  1,
	}
	switch o.mode {
	case "default":
		s.Requests = map[int]int{1: 100000, 16: 200000}
		s.DurableRequests = map[int]int{1: 20000, 16: 50000}
		s.RunSeconds = 2
		s.BTMCache = "64mb"
		s.BTMKeyCache = "64mb"
		s.BTMDuration = 15 * time.Second
		s.BTMMaxOps = 20_000_000
		// Long enough to hold the fixed rate's own memtable flushes and
		// compactions (at ~25k ops/s the 10% SETs fill Cairn's 32 MB
		// memtable about every 12 s): a 10 s window held one or none, and
		// its p99 swung with that.
		s.BTMRateDuration = 30 * time.Second
		s.BCChurnDuration = 60 * time.Second
		s.RestartKeys = 1_000_000
	case "quick":
		s.Requests = map[int]int{1: 5000, 16: 20000}
		s.DurableRequests = map[int]int{1: 2000, 16: 5000}
		s.RunSeconds = 0.4
		s.BTMCache = "16mb"
		s.BTMKeyCache = "16mb"
		s.BTMDuration = 5 * time.Second
		s.BTMMaxOps = 2_000_000
		s.BTMRateDuration = 3 * time.Second
		s.BCMembers = 100_000
		s.BCSamples = 2000
		s.BCChurnDuration = 10 * time.Second
		s.RestartKeys = 100_000
		s.RDBSize = 50 << 20
		s.StreamEntries = 1_000_000
		s.StreamPending = 100_000
		s.HLLKeys = 100
		s.GeoMembers = 100_000
		s.BitmapHighBit = 400_000_000
		s.SparseKeys = 1000
	case "smoke":
		s.Requests = map[int]int{1: 300, 16: 1600}
		s.DurableRequests = map[int]int{1: 200, 16: 800}
		s.RunSeconds = 0.05 // exercises calibration; the tiny counts stay as they are
		s.Keyspace = 1000
		s.MatrixCache = "16mb"
		s.BTMCache = "1mb"
		s.BTMKeyCache = "1mb"
		s.BTMDuration = time.Second
		s.BTMMaxOps = 100_000
		s.BTMConns = 8
		s.BTMLoadConns = 2
		s.BTMRateDuration = time.Second
		s.BCMembers = 3000
		s.BCSamples = 100
		s.BCChurnSize = 100
		s.BCChurnDuration = time.Second
		s.BCChurnBatch = 10
		s.RestartKeys = 2000
		s.RDBSize = 1 << 20
		s.StreamEntries = 3000
		s.StreamPending = 1000
		s.StreamSmall = 300
		s.HLLKeys = 10
		s.HLLFill = 300
		s.GeoMembers = 3000
		s.GeoPerSearch = 20
		s.BitmapRange = 1_000_000
		s.BitmapPrefill = 1000
		s.BitmapHighBit = 4_000_000
		s.BitmapBits = 100
		s.SparseKeys = 50
		s.SparseBit = 4_000_000
		s.SparseRedisKeys = 50
		s.Only = map[string]bool{"PING_MBULK": true, "SET": true, "GET": true, "MSET": true, "LPUSH": true, "LPOP": true, "LRANGE_100": true,
			"SET_TLS": true, "GET_TLS": true}
	default:
		return s, fmt.Errorf("unknown mode %q", o.mode)
	}
	if o.big {
		s.BTMCache = "1gb"
		s.BTMKeys = 48_000_000 // ≈ 49 GB of values, ~50 GB on disk
		s.BTMDuration = 2 * time.Minute
		s.BTMMaxOps = 200_000_000
		s.BTMRateDuration = time.Minute
		s.RestartKeys = 10_000_000
	}
	if o.rounds > 0 {
		s.Rounds = o.rounds
		s.RestartRounds = o.rounds
		s.ImportRounds = o.rounds
	}
	if o.rdbSize != "" {
		size, err := parseSize(o.rdbSize)
		if err != nil || size <= 0 {
			return s, fmt.Errorf("--rdb-size: bad size %q", o.rdbSize)
		}
		s.RDBSize = size
	}
	if o.btmCache != "" {
		s.BTMCache = o.btmCache
	}
	size, err := parseSize(s.BTMCache)
	if err != nil {
		return s, fmt.Errorf("--btm-cache: %w", err)
	}
	s.BTMCacheSize = size
	switch {
	case o.btmKeys > 0:
		s.BTMKeys = o.btmKeys
	case s.BTMKeys == 0:
		// At least 4× the memory Cairn caches data in, block cache and key
		// cache together, in raw value bytes.
		keyCache, err := parseSize(s.BTMKeyCache)
		if err != nil {
			return s, fmt.Errorf("key cache size: %w", err)
		}
		cached := size + keyCache
		s.BTMKeys = int((4*cached + int64(s.BTMValueSize) - 1) / int64(s.BTMValueSize))
	}
	if o.btmDuration > 0 {
		s.BTMDuration = o.btmDuration
	}
	if o.restartKeys > 0 {
		s.RestartKeys = o.restartKeys
	}
	if o.btmRate > 0 {
		s.BTMRateFraction = o.btmRate
	}
	if o.bcMembers > 0 {
		s.BCMembers = o.bcMembers
	}
	if o.churnDur > 0 {
		s.BCChurnDuration = o.churnDur
	}
	if o.streamEntries > 0 {
		s.StreamEntries = o.streamEntries
	}
	if o.streamPending > 0 {
		s.StreamPending = o.streamPending
	}
	if o.geoMembers > 0 {
		s.GeoMembers = o.geoMembers
	}
	s.StreamSmall = min(s.StreamSmall, s.StreamEntries)
	if s.StreamPending > s.StreamEntries {
		return s, fmt.Errorf("--stream-pending %d exceeds the stream's %d entries", s.StreamPending, s.StreamEntries)
	}
	return s, nil
}

// minRequests is the smallest -n a calibrated run uses: every client gets
// at least five pipelines' worth of requests.
func (s settings) minRequests(pipeline int) int {
	return max(s.Clients*pipeline*5, 1000)
}

// calibrated returns the -n for a row whose nominal count is nominal, given
// the slower server's throughput in a calibration run.
func (s settings) calibrated(nominal, pipeline int, slowestRPS float64) int {
	if s.RunSeconds <= 0 || !(slowestRPS > 0) {
		return nominal
	}
	n := int(slowestRPS * s.RunSeconds)
	return min(max(n, s.minRequests(pipeline)), nominal)
}

// parseSize reads a memory size in Redis's units: 1k = 1000, 1kb = 1024,
// likewise m/mb and g/gb; a bare number is bytes.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	units := []struct {
		suffix string
		mult   int64
	}{
		{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30},
		{"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000},
		{"b", 1},
	}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || (n > 0 && mult > (1<<62)/n) {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
