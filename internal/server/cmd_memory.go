package server

import (
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/cairndb/cairn/internal/rconv"
)

// memoryCommands is MEMORY: USAGE estimates a key's stored bytes (see
// store.Tx.MemoryUsage); STATS and DOCTOR report the figures Cairn has.
func memoryCommands() cmdEntry {
	const shards = "request_policy:all_shards"
	return container("memory", "server", "4.0.0", "A container for memory diagnostics commands.", 0,
		def("memory|usage", -3, readonly, keys{2, 2, 1}, 0, "server", "4.0.0", "Estimates the memory usage of a key.", untouched(cmdMemoryUsage)),
		withTips(def("memory|stats", 2, 0, noKeys, 0, "server", "4.0.0", "Returns details about memory usage.", cmdMemoryStats),
			tipOutput, shards, "response_policy:special"),
		withTips(def("memory|doctor", 2, 0, noKeys, 0, "server", "4.0.0", "Outputs a memory problems report.", cmdMemoryDoctor),
			tipOutput, shards, "response_policy:special"),
		withTips(def("memory|malloc-stats", 2, 0, noKeys, 0, "server", "4.0.0", "Returns the allocator statistics.", cmdMemoryMallocStats),
			tipOutput, shards, "response_policy:special"),
		withTips(def("memory|purge", 2, 0, noKeys, 0, "server", "4.0.0", "Asks the allocator to release memory.", cmdMemoryPurge),
			shards, "response_policy:all_succeeded"),
		def("memory|help", 2, loading|stale, noKeys, 0, "server", "4.0.0", "Outputs helpful text about memory usage.", cmdMemoryHelp),
	)
}

// defaultMemorySamples is how many elements MEMORY USAGE reads of a
// collection without SAMPLES, as Redis's default.
const defaultMemorySamples = 5

func cmdMemoryUsage(x *ctx) {
	samples := defaultMemorySamples
	for j := 3; j < len(x.args); j++ {
		if !optIs(x.arg(j), "SAMPLES") || j+1 >= len(x.args) {
			x.syntaxError()
			return
		}
		n, ok := rconv.ParseInt(x.arg(j + 1))
		switch {
		case !ok:
			x.notInteger()
			return
		case n < 0:
			x.syntaxError()
			return
		}
		// 0 reads every element; a count past any collection's size is
		// the same.
		samples = int(min(n, 1<<40))
		j++
	}
	size, found, err := x.tx.MemoryUsage(x.db(), x.arg(2), samples)
	switch {
	case err != nil:
		x.storeError(err)
	case !found:
		x.w.NullBulk()
	default:
		x.w.Int(size)
	}
}

func cmdMemoryStats(x *ctx) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s := x.srv
	type dbCount struct {
		db            int
		keys, expires int64
	}
	var dbs []dbCount
	var total int64
	for db := range s.cfg.Databases() {
		n := s.st.DBSize(db)
		if n == 0 {
			continue
		}
		exp, err := s.st.KeysWithExpiry(db)
		if err != nil {
			x.storeError(err)
			return
		}
		dbs = append(dbs, dbCount{db, n, exp})
		total += n
	}
	engine := s.st.Engine().Stats()
	x.w.Map(5 + len(dbs) + len(engine))
	// The Go heap in use and reserved: Cairn's own memory, not the data,
	// which lives in Pebble (on disk, its memtables and block cache).
	x.w.Bulk([]byte("total.allocated"))
	x.w.Int(int64(m.HeapAlloc))
	x.w.Bulk([]byte("heap.reserved"))
	x.w.Int(int64(m.HeapSys))
	x.w.Bulk([]byte("rss"))
	x.w.Int(int64(rss()))
	x.w.Bulk([]byte("gc.count"))
	x.w.Int(int64(m.NumGC))
	for _, d := range dbs {
		x.w.Bulk([]byte("db." + strconv.Itoa(d.db)))
		x.w.Map(2)
		x.w.Bulk([]byte("keys"))
		x.w.Int(d.keys)
		x.w.Bulk([]byte("expires"))
		x.w.Int(d.expires)
	}
	x.w.Bulk([]byte("keys.count"))
	x.w.Int(total)
	for _, st := range engine {
		x.w.Bulk([]byte(st.Name))
		if n, err := strconv.ParseInt(st.Value, 10, 64); err == nil {
			x.w.Int(n)
		} else {
			x.w.Bulk([]byte(st.Value))
		}
	}
}

func cmdMemoryDoctor(x *ctx) {
	x.w.Verbatim("txt", "Hi Sam, Cairn keeps its data in Pebble, on disk: its memory is the Go heap (MEMORY STATS total.allocated), "+
		"Pebble's memtables and its block cache (cache-size). There is no allocator fragmentation or eviction to report; "+
		"INFO memory and MEMORY STATS show the figures. MEMORY USAGE estimates a key's stored bytes.\n")
}

func cmdMemoryMallocStats(x *ctx) {
	x.w.Verbatim("txt", "Stats not supported for the current allocator")
}

// cmdMemoryPurge returns the Go heap's free memory to the system.
func cmdMemoryPurge(x *ctx) {
	debug.FreeOSMemory()
	x.ok()
}

func cmdMemoryHelp(x *ctx) {
	x.helpReply("MEMORY",
		"DOCTOR",
		"    Return memory problems reports.",
		"MALLOC-STATS",
		"    Return internal statistics report from the memory allocator.",
		"PURGE",
		"    Attempt to purge dirty pages for reclamation by the allocator.",
		"STATS",
		"    Return information about the memory usage of the server.",
		"USAGE <key> [SAMPLES <count>]",
		"    Return memory in bytes used by <key> and its value. Nested values are",
		"    sampled up to <count> times (default: 5, 0 means sample all).",
	)
}
