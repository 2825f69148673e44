package server

// INFO: Redis 7.2's sections and fields, each computed from what Cairn
// actually does (src/server.c genRedisInfoString is the reference for
// names and order), and an "engine" section with Pebble's figures. A Redis
// field that has no meaning for a disk store built without fork, an
// allocator of its own or an event loop (copy-on-write sizes, defrag,
// io-threads, eventloop_*) is left out rather than shown as a made-up
// zero; one whose feature Cairn lacks but whose figure is a true zero
// (evicted_keys: Cairn never evicts; connected_slaves: no replication) is
// shown, since tools such as redis_exporter read it.

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/store"
)

// infoSections are INFO's sections in Redis's order, with the title of
// their "# Title" line, whether INFO without arguments (or "default")
// shows them, and whether "all" does. "engine" is Cairn's own and, like a
// Redis module's section, is shown by name or with "everything" only.
var infoSections = []struct {
	name, title    string
	inDefault      bool
	inAll          bool
	alsoCalledThis string
}{
	{"server", "Server", true, true, ""},
	{"clients", "Clients", true, true, ""},
	{"memory", "Memory", true, true, ""},
	{"persistence", "Persistence", true, true, ""},
	{"stats", "Stats", true, true, ""},
	{"replication", "Replication", true, true, ""},
	{"cpu", "CPU", true, true, ""},
	{"modules", "Modules", true, true, "module_list"},
	{"commandstats", "Commandstats", false, true, ""},
	{"errorstats", "Errorstats", true, true, ""},
	{"latencystats", "Latencystats", false, true, ""},
	{"cluster", "Cluster", true, true, ""},
	{"keyspace", "Keyspace", true, true, ""},
	{"engine", "Engine", false, false, ""},
}

func cmdInfo(x *ctx) {
	want := make([]bool, len(infoSections))
	all, everything, dflt := false, false, len(x.args) == 1
	for _, a := range x.args[1:] {
		// Redis lower-cases a section name with tolower, ASCII only,
		// up to the NUL.
		switch sec := optName(a); sec {
		case "DEFAULT":
			dflt = true
		case "ALL":
			all = true
		case "EVERYTHING":
			all, everything = true, true
		default:
			// An unknown section adds nothing, as in Redis.
			for i, s := range infoSections {
				if strings.ToUpper(s.name) == sec || (s.alsoCalledThis != "" && strings.ToUpper(s.alsoCalledThis) == sec) {
					want[i] = true
				}
			}
		}
	}
	var b strings.Builder
	for i, sec := range infoSections {
		if !want[i] && !everything && !(all && sec.inAll) && !(dflt && sec.inDefault) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString("# " + sec.title + "\r\n")
		for _, kv := range x.srv.infoSection(sec.name) {
			b.WriteString(kv[0])
			b.WriteByte(':')
			b.WriteString(kv[1])
			b.WriteString("\r\n")
		}
	}
	x.w.Verbatim("txt", b.String())
}

// infoLines collects one section's key:value lines.
type infoLines [][2]string

func (f *infoLines) add(k, v string)           { *f = append(*f, [2]string{k, v}) }
func (f *infoLines) int(k string, n int64)     { f.add(k, strconv.FormatInt(n, 10)) }
func (f *infoLines) uint(k string, n uint64)   { f.add(k, strconv.FormatUint(n, 10)) }
func (f *infoLines) flag(k string, b bool)     { f.int(k, int64(boolToInt(b))) }
func (f *infoLines) float(k string, v float64) { f.add(k, strconv.FormatFloat(v, 'f', 2, 64)) }

func (s *Server) infoSection(sec string) [][2]string {
	var f infoLines
	switch sec {
	case "server":
		s.infoServer(&f)
	case "clients":
		s.infoClients(&f)
	case "memory":
		s.infoMemory(&f)
	case "persistence":
		s.infoPersistence(&f)
	case "stats":
		s.infoStats(&f)
	case "replication":
		s.infoReplication(&f)
	case "cpu":
		u, sys, cu, csys := cpuTimes()
		f.add("used_cpu_sys", fmt.Sprintf("%.6f", sys))
		f.add("used_cpu_user", fmt.Sprintf("%.6f", u))
		f.add("used_cpu_sys_children", fmt.Sprintf("%.6f", csys))
		f.add("used_cpu_user_children", fmt.Sprintf("%.6f", cu))
	case "modules":
	case "cluster":
		f.int("cluster_enabled", 0)
	case "errorstats":
		s.stats.errors.mu.Lock()
		codes := make([]string, 0, len(s.stats.errors.byCode))
		for code := range s.stats.errors.byCode {
			codes = append(codes, code)
		}
		slices.Sort(codes)
		for _, code := range codes {
			f.add("errorstat_"+code, "count="+strconv.FormatInt(s.stats.errors.byCode[code], 10))
		}
		s.stats.errors.mu.Unlock()
	case "commandstats":
		s.infoCommandstats(&f)
	case "latencystats":
		if !s.cfg.LatencyTracking() {
			return nil
		}
		ps := s.cfg.LatencyPercentiles()
		for _, h := range s.histograms() {
			var b strings.Builder
			for i, d := range h.hist.Percentiles(ps) {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "p%s=%.3f", config.FormatPercentile(ps[i]), float64(d)/1000)
			}
			f.add("latency_percentiles_usec_"+h.name, b.String())
		}
		slices.SortFunc(f, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	case "keyspace":
		exp, err := s.st.Expiries(time.Now().UnixMilli())
		if err != nil {
			s.log.Error("info keyspace", "err", err)
		}
		for db := range s.st.Databases() {
			var e store.ExpiryStats
			if db < len(exp) {
				e = exp[db]
			}
			n := s.st.DBSize(db)
			if n == 0 && e.Keys == 0 {
				continue
			}
			f.add("db"+strconv.Itoa(db), fmt.Sprintf("keys=%d,expires=%d,avg_ttl=%d", n, e.Keys, e.AvgTTL))
		}
	case "engine":
		s.infoEngine(&f)
	}
	return f
}

func (s *Server) infoServer(f *infoLines) {
	up := time.Since(s.started)
	exe, _ := os.Executable()
	sha, dirty := buildVCS()
	f.add("redis_version", RedisVersion)
	f.add("redis_git_sha1", sha)
	f.flag("redis_git_dirty", dirty)
	f.add("redis_build_id", buildID())
	f.add("redis_mode", "standalone")
	f.add("os", osName())
	f.int("arch_bits", strconv.IntSize)
	// Go's clock for durations is the kernel's monotonic clock, read
	// through clock_gettime (vDSO), and its network poller is epoll.
	f.add("monotonic_clock", "POSIX clock_gettime")
	f.add("multiplexing_api", "epoll")
	f.add("atomicvar_api", "sync-atomic")
	f.add("gcc_version", "0.0.0")
	f.int("process_id", int64(os.Getpid()))
	f.add("process_supervised", "no")
	f.add("run_id", s.runID)
	port := s.cfg.Port()
	if port == 0 {
		port = s.cfg.TLS().Port
	}
	f.int("tcp_port", int64(port))
	f.int("server_time_usec", time.Now().UnixMicro())
	f.int("uptime_in_seconds", int64(up.Seconds()))
	f.int("uptime_in_days", int64(up.Hours()/24))
	f.int("hz", int64(s.cfg.Hz()))
	f.int("configured_hz", int64(s.cfg.Hz()))
	f.add("executable", exe)
	f.add("config_file", s.configFile)
	f.int("io_threads_active", 0)
	// Redis numbers its listeners by connection type: 0 TCP, 1 Unix
	// socket, 2 TLS.
	bind := ""
	for _, a := range s.cfg.Bind() {
		bind += ",bind=" + a
	}
	if p := s.cfg.Port(); p != 0 {
		f.add("listener0", "name=tcp"+bind+",port="+strconv.Itoa(p))
	}
	if p := s.cfg.TLS().Port; p != 0 {
		f.add("listener2", "name=tls"+bind+",port="+strconv.Itoa(p))
	}
	// Not Redis fields.
	f.add("cairn_version", Version)
	f.add("go_version", runtime.Version())
	// The processors Cairn's code runs on now (the procs setting, or the
	// count package procs chose).
	f.int("procs", int64(runtime.GOMAXPROCS(0)))
}

func (s *Server) infoClients(f *infoLines) {
	clients := s.clientList()
	var maxIn, maxOut int64
	for _, c := range clients {
		maxIn = max(maxIn, c.qbuf.Load())
		maxOut = max(maxOut, c.outputBytes())
	}
	keys, noKey := s.blocked.keyCounts()
	f.int("connected_clients", int64(len(clients)))
	f.int("cluster_connections", 0)
	f.int("maxclients", int64(s.cfg.MaxClients()))
	f.int("client_recent_max_input_buffer", maxIn)
	f.int("client_recent_max_output_buffer", maxOut)
	f.int("blocked_clients", s.blocked.count.Load())
	f.int("tracking_clients", s.tracking.clients.Load())
	f.int("clients_in_timeout_table", s.blocked.withTimeout())
	f.int("total_blocking_keys", keys)
	f.int("total_blocking_keys_on_nokey", noKey)
}

// infoMemory reports the process's memory. used_memory is the Go heap in
// use (live objects and those the collector has not freed yet): Cairn's
// own structures, client buffers, the key cache, member filters, Lua
// states. The data itself lives on disk; Pebble's block cache and
// memtables are allocated outside the Go heap in a build with cgo (the
// default) and inside it without cgo; the Engine section shows them apart.
// used_memory_rss is the resident memory of the whole process.
func (s *Server) infoMemory(f *infoLines) {
	m := readHeap()
	used := m.HeapAlloc
	peak := s.inst.notePeak(used)
	rss := rss()
	sys := systemMemory()
	f.uint("used_memory", used)
	f.add("used_memory_human", humanBytes(used))
	f.uint("used_memory_rss", rss)
	f.add("used_memory_rss_human", humanBytes(rss))
	f.uint("used_memory_peak", peak)
	f.add("used_memory_peak_human", humanBytes(peak))
	f.add("used_memory_peak_perc", fmt.Sprintf("%.2f%%", percent(used, peak)))
	f.uint("used_memory_startup", s.inst.startup)
	f.uint("allocator_allocated", m.HeapAlloc)
	f.uint("allocator_active", m.HeapInuse)
	f.uint("allocator_resident", m.HeapSys-m.HeapReleased)
	f.uint("total_system_memory", sys)
	f.add("total_system_memory_human", humanBytes(sys))
	libs, funcs := s.scripts.FunctionStats()
	f.int("number_of_cached_scripts", int64(s.scripts.Scripts()))
	f.int("number_of_functions", int64(funcs))
	f.int("number_of_libraries", int64(libs))
	maxmem, policy := int64(0), "noeviction"
	for _, kv := range s.cfg.Get("maxmemory", "maxmemory-policy") {
		switch kv[0] {
		case "maxmemory":
			maxmem, _ = strconv.ParseInt(kv[1], 10, 64)
		case "maxmemory-policy":
			policy = kv[1]
		}
	}
	f.int("maxmemory", maxmem)
	f.add("maxmemory_human", humanBytes(uint64(max(maxmem, 0))))
	f.add("maxmemory_policy", policy)
	active, resident := m.HeapInuse, m.HeapSys-m.HeapReleased
	f.float("allocator_frag_ratio", ratio(active, m.HeapAlloc))
	f.int("allocator_frag_bytes", int64(active)-int64(m.HeapAlloc))
	f.float("allocator_rss_ratio", ratio(resident, active))
	f.int("allocator_rss_bytes", int64(resident)-int64(active))
	f.float("rss_overhead_ratio", ratio(rss, resident))
	f.int("rss_overhead_bytes", int64(rss)-int64(resident))
	f.float("mem_fragmentation_ratio", ratio(rss, used))
	f.int("mem_fragmentation_bytes", int64(rss)-int64(used))
	f.int("mem_not_counted_for_evict", 0)
	f.int("mem_replication_backlog", 0)
	f.int("mem_total_replication_buffers", 0)
	f.int("mem_clients_slaves", 0)
	var clientMem int64
	for _, c := range s.clientList() {
		clientMem += c.buffers(nil).total()
	}
	f.int("mem_clients_normal", clientMem)
	f.int("mem_cluster_links", 0)
	f.int("mem_aof_buffer", 0)
	f.add("mem_allocator", "go-"+strings.TrimPrefix(runtime.Version(), "go"))
	f.int("active_defrag_running", 0)
	f.int("lazyfree_pending_objects", 0)
	f.int("lazyfreed_objects", 0)
	// Not Redis fields.
	f.uint("go_heap_sys", m.HeapSys)
	f.uint("go_gc_count", m.NumGC)
	filters, filterBytes := s.st.MemberFilterUsage()
	f.int("member_filters", int64(filters))
	f.int("member_filter_bytes", filterBytes)
}

func (s *Server) infoPersistence(f *infoLines) {
	st := s.st.Stats()
	lastSync := "ok"
	if e := st.LastSyncError.Load(); e != nil {
		lastSync = "err"
	}
	var em engine.Metrics
	if e, ok := s.st.Engine().(interface{ Metrics() engine.Metrics }); ok {
		em = e.Metrics()
	}
	if em.Failed || em.DiskFull {
		lastSync = "err"
	}
	f.int("loading", int64(boolToInt(s.repl.loading.Load())))
	f.int("async_loading", 0)
	saves := s.persistenceInfo()
	changes, saveCount := s.saveCounts()
	f.int("rdb_changes_since_last_save", changes)
	f.add(saves[0][0], saves[0][1]) // rdb_bgsave_in_progress
	f.int("rdb_last_save_time", st.LastDurable.Load())
	*f = append(*f, saves[1:]...)
	f.int("rdb_saves", saveCount)
	// The write-ahead log is Cairn's append-only file: always on, and
	// never rewritten (compactions reclaim its space).
	f.int("aof_enabled", 1)
	f.int("aof_rewrite_in_progress", 0)
	f.int("aof_rewrite_scheduled", 0)
	f.int("aof_last_rewrite_time_sec", -1)
	f.int("aof_current_rewrite_time_sec", -1)
	f.add("aof_last_bgrewrite_status", "ok")
	f.int("aof_rewrites", 0)
	f.int("aof_rewrites_consecutive_failures", 0)
	f.add("aof_last_write_status", lastSync)
	f.uint("aof_current_size", em.WALBytes)
	// Not Redis fields.
	f.add("appendfsync", s.cfg.AppendFsync())
	f.int("commits", st.Commits.Load())
	f.int("commit_errors", st.CommitErrors.Load())
	f.flag("engine_failed", em.Failed)
	f.flag("engine_disk_full", em.DiskFull)
}

func (s *Server) infoStats(f *infoLines) {
	st := s.st.Stats()
	channels, patterns, shard := s.ps.hub.Stats()
	ops, in, out := s.inst.rates()
	trackKeys, trackItems, trackPrefixes := s.tracking.sizes()
	f.int("total_connections_received", s.stats.connections.Load())
	f.int("total_commands_processed", s.stats.commands.Load())
	f.int("instantaneous_ops_per_sec", int64(ops))
	f.int("total_net_input_bytes", s.stats.netIn.Load())
	f.int("total_net_output_bytes", s.stats.netOut.Load())
	f.int("total_net_repl_input_bytes", 0)
	f.int("total_net_repl_output_bytes", 0)
	f.float("instantaneous_input_kbps", in/1024)
	f.float("instantaneous_output_kbps", out/1024)
	f.float("instantaneous_input_repl_kbps", 0)
	f.float("instantaneous_output_repl_kbps", 0)
	f.int("rejected_connections", s.stats.rejected.Load())
	f.int("sync_full", 0)
	f.int("sync_partial_ok", 0)
	f.int("sync_partial_err", 0)
	f.int("expired_keys", st.ExpiredKeys.Load())
	f.int("expired_time_cap_reached_count", st.ExpireTimeCapReached.Load())
	f.int("expire_cycle_cpu_milliseconds", st.ExpireCycleTime.Load()/1e6)
	// Cairn never evicts: maxmemory does not apply to data on disk.
	f.int("evicted_keys", 0)
	f.int("evicted_clients", 0)
	f.int("keyspace_hits", st.KeyspaceHits.Load())
	f.int("keyspace_misses", st.KeyspaceMisses.Load())
	f.int("pubsub_channels", int64(channels))
	f.int("pubsub_patterns", int64(patterns))
	f.int("pubsubshard_channels", int64(shard))
	f.int("migrate_cached_sockets", int64(s.migrates.cached()))
	f.int("tracking_total_keys", int64(trackKeys))
	f.int("tracking_total_items", int64(trackItems))
	f.int("tracking_total_prefixes", int64(trackPrefixes))
	f.int("total_error_replies", s.stats.errors.total.Load())
	f.int("total_reads_processed", s.stats.reads.Load())
	f.int("total_writes_processed", s.stats.writes.Load())
	// Redis 7.4's field: clients closed for their output buffer limit
	// (client-output-buffer-limit).
	f.int("client_output_buffer_limit_disconnections", s.ps.obufDisconnects.Load())
	f.int("acl_access_denied_auth", s.stats.authFailures.Load())
	f.int("acl_access_denied_cmd", s.acl.deniedCmd.Load())
	f.int("acl_access_denied_key", s.acl.deniedKey.Load())
	f.int("acl_access_denied_channel", s.acl.deniedChannel.Load())
	// Not Redis fields.
	f.int("expired_stale_index_entries", st.ExpiredStale.Load())
	// Member lookups a member filter answered.
	f.int("member_lookups_filtered", st.FilteredReads.Load())
}

// infoReplication is the replication role: a primary (Cairn serves no
// replicas), or a replica of a Redis master (replica.go).
func (s *Server) infoReplication(f *infoLines) {
	*f = append(*f, s.replicationInfo()...)
}

func (s *Server) infoCommandstats(f *infoLines) {
	names := make([]string, 0, len(s.handlers))
	byName := map[string]*cmdEntry{}
	for spec, e := range s.handlers {
		if e.stats.calls.Load() == 0 && e.stats.rejected.Load() == 0 && e.stats.failed.Load() == 0 {
			continue
		}
		names = append(names, spec.Name)
		byName[spec.Name] = e
	}
	slices.Sort(names)
	for _, n := range names {
		e := byName[n]
		calls, nanos := e.stats.calls.Load(), e.stats.nanos.Load()
		per := 0.0
		if calls > 0 {
			per = float64(nanos) / 1000 / float64(calls)
		}
		f.add("cmdstat_"+n, fmt.Sprintf("calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d",
			calls, nanos/1000, per, e.stats.rejected.Load(), e.stats.failed.Load()))
	}
}

// infoEngine is Pebble's figures: the store's disk use, its memory outside
// the Go heap, and the shape of its LSM tree.
func (s *Server) infoEngine(f *infoLines) {
	e, ok := s.st.Engine().(interface{ Metrics() engine.Metrics })
	if !ok {
		return
	}
	m := e.Metrics()
	f.add("engine", "pebble")
	f.flag("engine_failed", m.Failed)
	if m.Failed {
		return
	}
	f.flag("engine_disk_full", m.DiskFull)
	f.uint("engine_disk_usage_bytes", m.DiskUsageBytes)
	f.add("engine_disk_usage_human", humanBytes(m.DiskUsageBytes))
	f.uint("engine_memtable_bytes", m.MemTableBytes)
	f.int("engine_block_cache_bytes", m.BlockCacheBytes)
	f.int("engine_block_cache_hits", m.BlockCacheHits)
	f.int("engine_block_cache_misses", m.BlockCacheMisses)
	f.float("engine_block_cache_hit_ratio", ratio(uint64(m.BlockCacheHits), uint64(m.BlockCacheHits+m.BlockCacheMisses)))
	f.int("engine_compactions", m.Compactions)
	f.int("engine_compactions_running", m.CompactionsRunning)
	f.int("engine_flushes", m.Flushes)
	f.int("engine_read_amplification", int64(m.ReadAmplification))
	f.uint("engine_wal_bytes", m.WALBytes)
	f.uint("engine_wal_syncs", m.WALSyncs)
	f.uint("engine_write_stalls", m.WriteStalls)
	f.add("engine_write_stall_seconds", fmt.Sprintf("%.3f", m.WriteStallTime.Seconds()))
	f.int("engine_open_iterators", m.OpenIterators)
	for i, l := range m.Levels {
		f.add("engine_level"+strconv.Itoa(i), fmt.Sprintf("tables=%d,bytes=%d,sublevels=%d", l.Tables, l.Bytes, l.Sublevels))
	}
}

func percent(part, whole uint64) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) * 100 / float64(whole)
}

func ratio(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func humanBytes(n uint64) string {
	switch {
	case n >= 1<<50:
		return fmt.Sprintf("%.2fP", float64(n)/(1<<50))
	case n >= 1<<40:
		return fmt.Sprintf("%.2fT", float64(n)/(1<<40))
	case n >= 1<<30:
		return fmt.Sprintf("%.2fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.2fK", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

// buildVCS returns the commit the binary was built from, as Redis's
// redis_git_sha1 (00000000 when unknown), and whether the tree had
// uncommitted changes.
func buildVCS() (sha string, dirty bool) {
	sha = "00000000"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return sha, false
	}
	for _, st := range bi.Settings {
		switch st.Key {
		case "vcs.revision":
			if len(st.Value) >= 8 {
				sha = st.Value[:8]
			}
		case "vcs.modified":
			dirty = st.Value == "true"
		}
	}
	return sha, dirty
}

// buildID identifies the build, as redis_build_id does: here the module's
// version and checksum-less settings folded into a short hex string.
func buildID() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "0"
	}
	var h uint64 = 14695981039346656037
	for _, b := range []byte(bi.String()) {
		h ^= uint64(b)
		h *= 1099511628211
	}
	return fmt.Sprintf("%x", h)
}

// osName is uname's system, release and machine, as Redis shows them.
func osName() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return runtime.GOOS + " " + runtime.GOARCH
	}
	str := func(a [65]int8) string {
		b := make([]byte, 0, len(a))
		for _, c := range a {
			if c == 0 {
				break
			}
			b = append(b, byte(c))
		}
		return string(b)
	}
	return str(u.Sysname) + " " + str(u.Release) + " " + str(u.Machine)
}

// instSamples is how many samples an instantaneous figure averages, and
// instPeriod how often one is taken: Redis's STATS_METRIC_SAMPLES and the
// 100 ms of its cron, so the figures cover the last 1.6 seconds.
const (
	instSamples = 16
	instPeriod  = 100 * time.Millisecond
)

// instMetric is one of Redis's instantaneous figures: the rate of a
// counter, sampled every instPeriod, averaged over the last instSamples.
type instMetric struct {
	samples [instSamples]float64
	idx     int
	last    int64
	lastAt  time.Time
}

func (m *instMetric) track(v int64, now time.Time) {
	if !m.lastAt.IsZero() {
		if ms := now.Sub(m.lastAt).Milliseconds(); ms > 0 {
			m.samples[m.idx] = float64(v-m.last) * 1000 / float64(ms)
			m.idx = (m.idx + 1) % instSamples
		}
	}
	m.last, m.lastAt = v, now
}

func (m *instMetric) value() float64 {
	var sum float64
	for _, s := range m.samples {
		sum += s
	}
	return sum / instSamples
}

// instState holds the instantaneous figures and the memory peak, sampled
// by a goroutine that runs from the first Serve to Shutdown.
type instState struct {
	mu           sync.Mutex
	ops, in, out instMetric
	peak         uint64
	startup      uint64
	start, stop  sync.Once
	done         chan struct{}
}

// heapStats are the runtime.MemStats figures INFO memory reports.
type heapStats struct {
	HeapAlloc, HeapInuse, HeapSys, HeapReleased, NumGC uint64
}

// readHeap reads the Go heap's figures from runtime/metrics, which, unlike
// runtime.ReadMemStats, does not stop the world: INFO is scraped often.
func readHeap() heapStats {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/gc/cycles/total:gc-cycles"},
	}
	metrics.Read(s)
	v := make([]uint64, len(s))
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	objects, unused, free, released := v[0], v[1], v[2], v[3]
	return heapStats{
		HeapAlloc:    objects,
		HeapInuse:    objects + unused,
		HeapSys:      objects + unused + free + released,
		HeapReleased: released,
		NumGC:        v[4],
	}
}

// heapObjects reads the Go heap in use without stopping the world.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// startSampling starts the sampler once.
func (s *Server) startSampling() {
	s.inst.start.Do(func() {
		s.inst.done = make(chan struct{})
		go func() {
			t := time.NewTicker(instPeriod)
			defer t.Stop()
			for {
				select {
				case <-s.inst.done:
					return
				case now := <-t.C:
					s.inst.sample(s, now)
				}
			}
		}()
	})
}

// stopSampling ends the sampler, if it was started.
func (s *Server) stopSampling() {
	s.inst.stop.Do(func() {
		s.inst.start.Do(func() {}) // never start after this
		if s.inst.done != nil {
			close(s.inst.done)
		}
	})
}

func (i *instState) sample(s *Server, now time.Time) {
	i.notePeak(heapObjects())
	i.mu.Lock()
	i.ops.track(s.stats.commands.Load(), now)
	i.in.track(s.stats.netIn.Load(), now)
	i.out.track(s.stats.netOut.Load(), now)
	i.mu.Unlock()
}

// rates returns the instantaneous commands per second and input and
// output bytes per second.
func (i *instState) rates() (ops, in, out float64) {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.ops.value(), i.in.value(), i.out.value()
}

// notePeak raises the peak to used if it is higher, and returns the peak.
func (i *instState) notePeak(used uint64) uint64 {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.peak = max(i.peak, used)
	return i.peak
}

// reset forgets the peak and the samples (CONFIG RESETSTAT).
func (i *instState) reset() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.peak = 0
	i.ops, i.in, i.out = instMetric{}, instMetric{}, instMetric{}
}
