// Package metrics serves a Cairn server's figures to Prometheus.
//
// A Collector reads a Snapshot from its Source (the server) at every
// scrape, so the figures are those of that moment and nothing is counted
// twice: the server keeps its counters as it does for INFO, and this
// package only names them. Figures that Redis also has carry the names
// Prometheus's redis_exporter gives them (redis_connected_clients,
// redis_commands_total{cmd=...}, redis_db_keys{db=...}, ...), so dashboards
// and alerts written for Redis work on Cairn; the storage engine's figures,
// which Redis has no counterpart for, are named cairn_*. Nothing is
// estimated or invented: a figure Cairn does not keep is not exported.
//
// Each server has its own registry (NewRegistry): there is no global state,
// and several servers in one process (tests) do not collide.
//
// The endpoint has no authentication. Like pprof-addr, metrics-addr belongs
// on loopback or behind a firewall.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/cairndb/cairn/internal/engine"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Source gives the figures of one server. MetricsSnapshot is called once per
// scrape, from the HTTP server's goroutine: it must be safe to call
// concurrently with the server's work.
type Source interface {
	MetricsSnapshot() Snapshot
}

// Snapshot is a server's figures at one moment, as INFO reports them.
type Snapshot struct {
	Version      string
	RedisVersion string
	RunID        string
	TCPPort      int
	Uptime       time.Duration

	ConnectedClients int
	BlockedClients   int64
	MaxClients       int

	ConnectionsReceived int64
	RejectedConnections int64
	CommandsProcessed   int64
	ExpiredKeys         int64
	KeyspaceHits        int64
	KeyspaceMisses      int64
	PubsubChannels      int
	PubsubPatterns      int
	ErrorReplies        int64
	AuthFailures        int64
	// Errors counts error replies by their code (the first word: ERR,
	// WRONGTYPE, ...), INFO's errorstats.
	Errors map[string]int64

	// NetInputBytes and NetOutputBytes count the bytes read from and
	// written to clients; InstOps, InstInputKbps and InstOutputKbps are
	// INFO's instantaneous figures (averages over the last 1.6 s).
	NetInputBytes, NetOutputBytes int64
	InstOps                       float64
	InstInputKbps, InstOutputKbps float64
	// MemoryUsed is INFO's used_memory (the Go heap in use), MemoryPeak
	// its peak, MemoryRSS the process's resident memory, MemoryMax the
	// maxmemory setting (0: none).
	MemoryUsed, MemoryPeak, MemoryRSS, MemoryMax uint64

	// Commands holds the commands called or rejected at least once.
	Commands []CommandStats
	// DBs holds the databases that have keys.
	DBs []DBStats

	// Commits counts the store's commits to the engine; CommitErrors the
	// ones that failed.
	Commits      int64
	CommitErrors int64
	// LastDurable is when writes were last made durable (Unix seconds).
	LastDurable int64

	// Engine is the storage engine's figures, nil if the engine has none.
	Engine *engine.Metrics
}

// CommandStats is one command's counters, INFO's commandstats line.
type CommandStats struct {
	Name     string
	Calls    int64
	Rejected int64
	Failed   int64
	Time     time.Duration
}

// DBStats is one database's key counts, INFO's keyspace line.
type DBStats struct {
	DB       int
	Keys     int64
	Expiring int64
	// AvgTTL is the mean time left of the keys with a deadline ahead.
	AvgTTL time.Duration
}

// NewRegistry returns a registry holding src's collector and Go's runtime
// and process collectors.
func NewRegistry(src Source) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(src))
	reg.MustRegister(collectors.NewGoCollector())
	reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Handler serves src's metrics in Prometheus's exposition formats, at any
// path it is mounted on.
func Handler(src Source) http.Handler {
	reg := NewRegistry(src)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}

// Mux serves src's metrics on /metrics and nothing else.
func Mux(src Source) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", Handler(src))
	return mux
}

// metric describes one exported figure.
type metric struct {
	desc *prometheus.Desc
	kind prometheus.ValueType
}

func newMetric(name, help string, kind prometheus.ValueType, labels ...string) metric {
	return metric{prometheus.NewDesc(name, help, labels, nil), kind}
}

// Collector is a prometheus.Collector over a Source.
type Collector struct {
	src Source
	m   descs
}

type descs struct {
	up, info, uptime, connected, blocked, maxClients                      metric
	connsReceived, rejected, processed, expired, hits, misses             metric
	channels, patterns, errorReplies, authFailures, errs                  metric
	cmdCalls, cmdTime, cmdRejected, cmdFailed, dbKeys, dbExpiring         metric
	commits, commitErrors, lastDurable                                    metric
	netIn, netOut, instOps, instIn, instOut, evicted, dbAvgTTL            metric
	memUsed, memPeak, memRSS, memMax, slaves, replOffset                  metric
	engFailed, engDiskFull, engDisk, engMemtable, engCache, engCacheHits  metric
	engCacheMisses, engCompactions, engCompacting, engFlushes             metric
	engL0Files, engL0Sublevels, engLevelTables, engLevelBytes, engReadAmp metric
	engWAL, engWALSyncs, engStalls, engStallTime, engIters                metric
}

// NewCollector returns a collector reading src at every scrape.
func NewCollector(src Source) *Collector {
	g, c := prometheus.GaugeValue, prometheus.CounterValue
	return &Collector{src: src, m: descs{
		up:            newMetric("redis_up", "Whether the server answers (always 1 when it serves this page).", g),
		info:          newMetric("redis_instance_info", "Information about the server.", g, "redis_version", "cairn_version", "redis_mode", "run_id", "tcp_port"),
		uptime:        newMetric("redis_uptime_in_seconds", "Seconds since the server started.", g),
		connected:     newMetric("redis_connected_clients", "Client connections open now.", g),
		blocked:       newMetric("redis_blocked_clients", "Clients waiting in a blocking command.", g),
		maxClients:    newMetric("redis_config_maxclients", "The maxclients setting.", g),
		connsReceived: newMetric("redis_connections_received_total", "Connections accepted.", c),
		rejected:      newMetric("redis_rejected_connections_total", "Connections refused for maxclients.", c),
		processed:     newMetric("redis_commands_processed_total", "Commands processed.", c),
		expired:       newMetric("redis_expired_keys_total", "Keys deleted because their time to live ran out.", c),
		hits:          newMetric("redis_keyspace_hits_total", "Key lookups that found the key.", c),
		misses:        newMetric("redis_keyspace_misses_total", "Key lookups that did not find the key.", c),
		channels:      newMetric("redis_pubsub_channels", "Channels with at least one subscriber.", g),
		patterns:      newMetric("redis_pubsub_patterns", "Patterns with at least one subscriber.", g),
		errorReplies:  newMetric("redis_total_error_replies", "Error replies sent (INFO's total_error_replies; a gauge, as redis_exporter types it, though it only grows).", g),
		authFailures:  newMetric("redis_acl_access_denied_auth_total", "AUTH and HELLO AUTH refused.", c),
		errs:          newMetric("redis_errors_total", "Error replies by error code.", c, "err"),
		cmdCalls:      newMetric("redis_commands_total", "Calls per command.", c, "cmd"),
		cmdTime:       newMetric("redis_commands_duration_seconds_total", "Time spent per command, in seconds.", c, "cmd"),
		cmdRejected:   newMetric("redis_commands_rejected_calls_total", "Calls refused before running, per command.", c, "cmd"),
		cmdFailed:     newMetric("redis_commands_failed_calls_total", "Calls that ran and replied with an error, per command.", c, "cmd"),
		dbKeys:        newMetric("redis_db_keys", "Keys per database.", g, "db"),
		dbExpiring:    newMetric("redis_db_keys_expiring", "Keys with a time to live per database.", g, "db"),
		netIn:         newMetric("redis_net_input_bytes_total", "Bytes read from clients.", c),
		netOut:        newMetric("redis_net_output_bytes_total", "Bytes written to clients.", c),
		instOps:       newMetric("redis_instantaneous_ops_per_sec", "Commands per second over the last 1.6 seconds.", g),
		instIn:        newMetric("redis_instantaneous_input_kbps", "KiB per second read from clients over the last 1.6 seconds.", g),
		instOut:       newMetric("redis_instantaneous_output_kbps", "KiB per second written to clients over the last 1.6 seconds.", g),
		evicted:       newMetric("redis_evicted_keys_total", "Keys evicted for maxmemory (always 0: Cairn keeps its data on disk and never evicts).", c),
		dbAvgTTL:      newMetric("redis_db_avg_ttl_seconds", "Mean time left of the keys with a time to live, per database.", g, "db"),
		memUsed:       newMetric("redis_memory_used_bytes", "INFO's used_memory: the Go heap in use (Pebble's cache and memtables are outside it in a cgo build).", g),
		memPeak:       newMetric("redis_memory_used_peak_bytes", "The highest used_memory seen since start or CONFIG RESETSTAT.", g),
		memRSS:        newMetric("redis_memory_used_rss_bytes", "Resident memory of the process.", g),
		memMax:        newMetric("redis_memory_max_bytes", "The maxmemory setting (0: none).", g),
		slaves:        newMetric("redis_connected_slaves", "Replicas connected (always 0: no replication yet).", g),
		replOffset:    newMetric("redis_master_repl_offset", "Replication offset (always 0: no replication yet).", g),
		commits:       newMetric("cairn_commits_total", "Commits of the store to the engine.", c),
		commitErrors:  newMetric("cairn_commit_errors_total", "Commits that failed.", c),
		lastDurable:   newMetric("cairn_last_durable_timestamp_seconds", "When writes were last made durable (Unix time).", g),

		engFailed:      newMetric("cairn_engine_failed", "Whether the storage engine has failed (writes refused until restart).", g),
		engDiskFull:    newMetric("cairn_engine_disk_full", "Whether writes are refused for a full disk.", g),
		engDisk:        newMetric("cairn_engine_disk_usage_bytes", "Space the database's files take on disk.", g),
		engMemtable:    newMetric("cairn_engine_memtable_bytes", "Memory held by memtables.", g),
		engCache:       newMetric("cairn_engine_block_cache_bytes", "Size of the block cache.", g),
		engCacheHits:   newMetric("cairn_engine_block_cache_hits_total", "Block cache lookups that hit.", c),
		engCacheMisses: newMetric("cairn_engine_block_cache_misses_total", "Block cache lookups that missed.", c),
		engCompactions: newMetric("cairn_engine_compactions_total", "Compactions completed.", c),
		engCompacting:  newMetric("cairn_engine_compactions_running", "Compactions running now.", g),
		engFlushes:     newMetric("cairn_engine_flushes_total", "Memtable flushes.", c),
		engL0Files:     newMetric("cairn_engine_l0_files", "Tables in L0.", g),
		engL0Sublevels: newMetric("cairn_engine_l0_sublevels", "Sublevels in L0.", g),
		engLevelTables: newMetric("cairn_engine_level_tables", "Tables per LSM level.", g, "level"),
		engLevelBytes:  newMetric("cairn_engine_level_bytes", "Bytes of tables per LSM level.", g, "level"),
		engReadAmp:     newMetric("cairn_engine_read_amplification", "L0 sublevels plus non-empty levels below L0.", g),
		engWAL:         newMetric("cairn_engine_wal_bytes", "Live size of the write-ahead log.", g),
		engWALSyncs:    newMetric("cairn_engine_wal_syncs_total", "Fsyncs of the write-ahead log.", c),
		engStalls:      newMetric("cairn_engine_write_stalls_total", "Times the engine stopped writes for compactions to catch up.", c),
		engStallTime:   newMetric("cairn_engine_write_stall_seconds_total", "Time writes were stopped, in seconds.", c),
		engIters:       newMetric("cairn_engine_open_iterators", "Iterators open now (reads in progress).", g),
	}}
}

func (d *descs) all() []metric {
	return []metric{
		d.up, d.info, d.uptime, d.connected, d.blocked, d.maxClients,
		d.connsReceived, d.rejected, d.processed, d.expired, d.hits, d.misses,
		d.channels, d.patterns, d.errorReplies, d.authFailures, d.errs,
		d.cmdCalls, d.cmdTime, d.cmdRejected, d.cmdFailed, d.dbKeys, d.dbExpiring,
		d.commits, d.commitErrors, d.lastDurable,
		d.netIn, d.netOut, d.instOps, d.instIn, d.instOut, d.evicted, d.dbAvgTTL,
		d.memUsed, d.memPeak, d.memRSS, d.memMax, d.slaves, d.replOffset,
		d.engFailed, d.engDiskFull, d.engDisk, d.engMemtable, d.engCache, d.engCacheHits,
		d.engCacheMisses, d.engCompactions, d.engCompacting, d.engFlushes,
		d.engL0Files, d.engL0Sublevels, d.engLevelTables, d.engLevelBytes, d.engReadAmp,
		d.engWAL, d.engWALSyncs, d.engStalls, d.engStallTime, d.engIters,
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range c.m.all() {
		ch <- m.desc
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.MetricsSnapshot()
	d := &c.m
	emit := func(m metric, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(m.desc, m.kind, v, labels...)
	}
	emit(d.up, 1)
	emit(d.info, 1, s.RedisVersion, s.Version, "standalone", s.RunID, strconv.Itoa(s.TCPPort))
	emit(d.uptime, float64(int64(s.Uptime.Seconds())))
	emit(d.connected, float64(s.ConnectedClients))
	emit(d.blocked, float64(s.BlockedClients))
	emit(d.maxClients, float64(s.MaxClients))
	emit(d.connsReceived, float64(s.ConnectionsReceived))
	emit(d.rejected, float64(s.RejectedConnections))
	emit(d.processed, float64(s.CommandsProcessed))
	emit(d.expired, float64(s.ExpiredKeys))
	emit(d.hits, float64(s.KeyspaceHits))
	emit(d.misses, float64(s.KeyspaceMisses))
	emit(d.channels, float64(s.PubsubChannels))
	emit(d.patterns, float64(s.PubsubPatterns))
	emit(d.errorReplies, float64(s.ErrorReplies))
	emit(d.authFailures, float64(s.AuthFailures))
	for code, n := range s.Errors {
		emit(d.errs, float64(n), code)
	}
	for _, cs := range s.Commands {
		emit(d.cmdCalls, float64(cs.Calls), cs.Name)
		emit(d.cmdTime, cs.Time.Seconds(), cs.Name)
		emit(d.cmdRejected, float64(cs.Rejected), cs.Name)
		emit(d.cmdFailed, float64(cs.Failed), cs.Name)
	}
	for _, db := range s.DBs {
		name := "db" + strconv.Itoa(db.DB)
		emit(d.dbKeys, float64(db.Keys), name)
		emit(d.dbExpiring, float64(db.Expiring), name)
		emit(d.dbAvgTTL, db.AvgTTL.Seconds(), name)
	}
	emit(d.netIn, float64(s.NetInputBytes))
	emit(d.netOut, float64(s.NetOutputBytes))
	emit(d.instOps, s.InstOps)
	emit(d.instIn, s.InstInputKbps)
	emit(d.instOut, s.InstOutputKbps)
	emit(d.evicted, 0)
	emit(d.memUsed, float64(s.MemoryUsed))
	emit(d.memPeak, float64(s.MemoryPeak))
	emit(d.memRSS, float64(s.MemoryRSS))
	emit(d.memMax, float64(s.MemoryMax))
	emit(d.slaves, 0)
	emit(d.replOffset, 0)
	emit(d.commits, float64(s.Commits))
	emit(d.commitErrors, float64(s.CommitErrors))
	emit(d.lastDurable, float64(s.LastDurable))
	if e := s.Engine; e != nil {
		c.collectEngine(e, emit)
	}
}

func (c *Collector) collectEngine(e *engine.Metrics, emit func(metric, float64, ...string)) {
	d := &c.m
	emit(d.engFailed, b2f(e.Failed))
	if e.Failed {
		// A failed engine's other figures cannot be read.
		return
	}
	emit(d.engDiskFull, b2f(e.DiskFull))
	emit(d.engDisk, float64(e.DiskUsageBytes))
	emit(d.engMemtable, float64(e.MemTableBytes))
	emit(d.engCache, float64(e.BlockCacheBytes))
	emit(d.engCacheHits, float64(e.BlockCacheHits))
	emit(d.engCacheMisses, float64(e.BlockCacheMisses))
	emit(d.engCompactions, float64(e.Compactions))
	emit(d.engCompacting, float64(e.CompactionsRunning))
	emit(d.engFlushes, float64(e.Flushes))
	if len(e.Levels) > 0 {
		emit(d.engL0Files, float64(e.Levels[0].Tables))
		emit(d.engL0Sublevels, float64(e.Levels[0].Sublevels))
	}
	for i, l := range e.Levels {
		lv := strconv.Itoa(i)
		emit(d.engLevelTables, float64(l.Tables), lv)
		emit(d.engLevelBytes, float64(l.Bytes), lv)
	}
	emit(d.engReadAmp, float64(e.ReadAmplification))
	emit(d.engWAL, float64(e.WALBytes))
	emit(d.engWALSyncs, float64(e.WALSyncs))
	emit(d.engStalls, float64(e.WriteStalls))
	emit(d.engStallTime, e.WriteStallTime.Seconds())
	emit(d.engIters, float64(e.OpenIterators))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
