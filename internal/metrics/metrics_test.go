package metrics_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/metrics"
	"github.com/cairndb/cairn/internal/server"
	"github.com/cairndb/cairn/internal/store"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/redis/go-redis/v9"
)

// live is a Cairn server and its metrics endpoint, each on a loopback
// listener the test owns.
type live struct {
	redisAddr, metricsURL string
	srv                   *server.Server
}

func startLive(t *testing.T) *live {
	t.Helper()
	cfg := config.Default()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem(), CacheSize: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(eng, store.Options{Databases: cfg.Databases(), Logger: log, ReapInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Options{Config: cfg, Store: st, Logger: log})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()

	mln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: metrics.Mux(srv), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(mln) }()
	t.Cleanup(func() {
		_ = hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-done
		_ = st.Close()
		_ = eng.Close()
	})
	return &live{redisAddr: ln.Addr().String(), metricsURL: "http://" + mln.Addr().String() + "/metrics", srv: srv}
}

// scrape fetches and parses the endpoint's text format.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return fams
}

// value returns the value of the sample of family name whose labels are
// labels (name/value pairs), and whether there is one.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, lp := range m.Label {
				if lp.GetName() == labels[i] && lp.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

func mustValue(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	v, ok := value(fams, name, labels...)
	if !ok {
		t.Fatalf("no sample %s%v in the scrape", name, labels)
	}
	return v
}

func TestScrapeTypes(t *testing.T) {
	l := startLive(t)
	fams := scrape(t, l.metricsURL)
	for _, tc := range []struct {
		name string
		typ  dto.MetricType
	}{
		{"redis_up", dto.MetricType_GAUGE},
		{"redis_instance_info", dto.MetricType_GAUGE},
		{"redis_uptime_in_seconds", dto.MetricType_GAUGE},
		{"redis_connected_clients", dto.MetricType_GAUGE},
		{"redis_blocked_clients", dto.MetricType_GAUGE},
		{"redis_config_maxclients", dto.MetricType_GAUGE},
		{"redis_connections_received_total", dto.MetricType_COUNTER},
		{"redis_commands_processed_total", dto.MetricType_COUNTER},
		{"redis_keyspace_hits_total", dto.MetricType_COUNTER},
		{"redis_keyspace_misses_total", dto.MetricType_COUNTER},
		{"redis_expired_keys_total", dto.MetricType_COUNTER},
		{"redis_pubsub_channels", dto.MetricType_GAUGE},
		{"redis_pubsub_patterns", dto.MetricType_GAUGE},
		{"redis_total_error_replies", dto.MetricType_GAUGE},
		{"redis_net_input_bytes_total", dto.MetricType_COUNTER},
		{"redis_net_output_bytes_total", dto.MetricType_COUNTER},
		{"redis_instantaneous_ops_per_sec", dto.MetricType_GAUGE},
		{"redis_instantaneous_input_kbps", dto.MetricType_GAUGE},
		{"redis_instantaneous_output_kbps", dto.MetricType_GAUGE},
		{"redis_evicted_keys_total", dto.MetricType_COUNTER},
		{"redis_memory_used_bytes", dto.MetricType_GAUGE},
		{"redis_memory_used_peak_bytes", dto.MetricType_GAUGE},
		{"redis_memory_used_rss_bytes", dto.MetricType_GAUGE},
		{"redis_memory_max_bytes", dto.MetricType_GAUGE},
		{"redis_connected_slaves", dto.MetricType_GAUGE},
		{"redis_master_repl_offset", dto.MetricType_GAUGE},
		{"cairn_commits_total", dto.MetricType_COUNTER},
		{"cairn_engine_failed", dto.MetricType_GAUGE},
		{"cairn_engine_disk_usage_bytes", dto.MetricType_GAUGE},
		{"cairn_engine_block_cache_hits_total", dto.MetricType_COUNTER},
		{"cairn_engine_block_cache_misses_total", dto.MetricType_COUNTER},
		{"cairn_engine_compactions_total", dto.MetricType_COUNTER},
		{"cairn_engine_l0_files", dto.MetricType_GAUGE},
		{"cairn_engine_l0_sublevels", dto.MetricType_GAUGE},
		{"cairn_engine_level_tables", dto.MetricType_GAUGE},
		{"cairn_engine_wal_syncs_total", dto.MetricType_COUNTER},
		{"cairn_engine_write_stalls_total", dto.MetricType_COUNTER},
		{"cairn_engine_write_stall_seconds_total", dto.MetricType_COUNTER},
		{"go_goroutines", dto.MetricType_GAUGE},
	} {
		f := fams[tc.name]
		if f == nil {
			t.Errorf("%s: missing", tc.name)
			continue
		}
		if f.GetType() != tc.typ {
			t.Errorf("%s: type %v, want %v", tc.name, f.GetType(), tc.typ)
		}
		if f.GetHelp() == "" {
			t.Errorf("%s: no help text", tc.name)
		}
	}
	if used, peak := mustValue(t, fams, "redis_memory_used_bytes"), mustValue(t, fams, "redis_memory_used_peak_bytes"); used <= 0 || peak < used {
		t.Errorf("redis_memory_used_bytes %v, redis_memory_used_peak_bytes %v", used, peak)
	}
	if v := mustValue(t, fams, "redis_up"); v != 1 {
		t.Errorf("redis_up = %v, want 1", v)
	}
	if v := mustValue(t, fams, "cairn_engine_failed"); v != 0 {
		t.Errorf("cairn_engine_failed = %v, want 0", v)
	}
	if v := mustValue(t, fams, "cairn_engine_level_tables", "level", "6"); v < 0 {
		t.Errorf("cairn_engine_level_tables{level=6} = %v", v)
	}
	if v := mustValue(t, fams, "redis_instance_info", "redis_version", server.RedisVersion, "cairn_version", server.Version); v != 1 {
		t.Errorf("redis_instance_info = %v, want 1", v)
	}
}

func TestScrapeFollowsCommands(t *testing.T) {
	l := startLive(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: l.redisAddr, PoolSize: 1})
	defer c.Close()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	// The second client's connection set-up is done before the first
	// scrape: go-redis's handshake may draw error replies of its own.
	c2 := redis.NewClient(&redis.Options{Addr: l.redisAddr, PoolSize: 1, DB: 3})
	defer c2.Close()
	if err := c2.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	before := scrape(t, l.metricsURL)
	if v := mustValue(t, before, "redis_connected_clients"); v != 2 {
		t.Errorf("redis_connected_clients = %v, want 2", v)
	}
	if _, ok := value(before, "redis_db_keys", "db", "db0"); ok {
		t.Errorf("redis_db_keys{db=db0} present on an empty database")
	}

	c.Set(ctx, "a", "1", 0)
	c.Set(ctx, "b", "x", time.Hour)
	c.Set(ctx, "c", "y", 0)
	c.Get(ctx, "a")
	c.Get(ctx, "missing")
	c.Get(ctx, "missing2")
	if err := c.LPush(ctx, "a", "z").Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
		t.Fatalf("LPUSH on a string: %v", err)
	}
	if err := c.Incr(ctx, "b").Err(); err == nil {
		t.Fatal("INCR on a non-number succeeded")
	}
	if err := c.Do(ctx, "SET", "k").Err(); err == nil {
		t.Fatal("SET with one argument succeeded")
	}
	c2.Set(ctx, "d3", "v", 0)

	after := scrape(t, l.metricsURL)
	delta := func(name string, labels ...string) float64 {
		a := mustValue(t, after, name, labels...)
		b, _ := value(before, name, labels...)
		return a - b
	}
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"redis_commands_total", []string{"cmd", "set"}, 4},
		{"redis_commands_total", []string{"cmd", "get"}, 3},
		{"redis_commands_total", []string{"cmd", "lpush"}, 1},
		{"redis_commands_failed_calls_total", []string{"cmd", "lpush"}, 1},
		{"redis_commands_failed_calls_total", []string{"cmd", "incr"}, 1},
		{"redis_commands_rejected_calls_total", []string{"cmd", "set"}, 1},
		{"redis_keyspace_misses_total", nil, 2},
		{"redis_errors_total", []string{"err", "WRONGTYPE"}, 1},
		{"redis_errors_total", []string{"err", "ERR"}, 2},
		{"redis_total_error_replies", nil, 3},
	} {
		if got := delta(tc.name, tc.labels...); got != tc.want {
			t.Errorf("%s%v grew by %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	if got := delta("redis_keyspace_hits_total"); got < 1 {
		t.Errorf("redis_keyspace_hits_total grew by %v, want >= 1", got)
	}
	// Nine commands ran; the SET refused for its arity did not.
	if got := delta("redis_commands_processed_total"); got != 9 {
		t.Errorf("redis_commands_processed_total grew by %v, want 9", got)
	}
	if got := delta("cairn_commits_total"); got < 4 {
		t.Errorf("cairn_commits_total grew by %v, want >= 4", got)
	}
	if v := mustValue(t, after, "redis_commands_duration_seconds_total", "cmd", "set"); v <= 0 {
		t.Errorf("redis_commands_duration_seconds_total{cmd=set} = %v, want > 0", v)
	}
	for _, tc := range []struct {
		name, db string
		want     float64
	}{
		{"redis_db_keys", "db0", 3},
		{"redis_db_keys_expiring", "db0", 1},
		{"redis_db_keys", "db3", 1},
		{"redis_db_keys_expiring", "db3", 0},
	} {
		if v := mustValue(t, after, tc.name, "db", tc.db); v != tc.want {
			t.Errorf("%s{db=%s} = %v, want %v", tc.name, tc.db, v, tc.want)
		}
	}
	c2.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		fams := scrape(t, l.metricsURL)
		if v := mustValue(t, fams, "redis_connected_clients"); v == 1 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("redis_connected_clients = %v after a client left, want 1", v)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fakeSource serves a fixed snapshot.
type fakeSource struct{ snap metrics.Snapshot }

func (f fakeSource) MetricsSnapshot() metrics.Snapshot { return f.snap }

func TestFailedEngineReportsOnlyFailure(t *testing.T) {
	c := metrics.NewCollector(fakeSource{metrics.Snapshot{Engine: &engine.Metrics{Failed: true, DiskUsageBytes: 7}}})
	if n := testutil.CollectAndCount(c, "cairn_engine_failed"); n != 1 {
		t.Errorf("cairn_engine_failed samples = %d, want 1", n)
	}
	if n := testutil.CollectAndCount(c, "cairn_engine_disk_usage_bytes"); n != 0 {
		t.Errorf("a failed engine reported its disk usage (%d samples)", n)
	}
	const want = `
# HELP cairn_engine_failed Whether the storage engine has failed (writes refused until restart).
# TYPE cairn_engine_failed gauge
cairn_engine_failed 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "cairn_engine_failed"); err != nil {
		t.Error(err)
	}
}

func TestNoEngineFigures(t *testing.T) {
	c := metrics.NewCollector(fakeSource{})
	if n := testutil.CollectAndCount(c, "cairn_engine_failed"); n != 0 {
		t.Errorf("engine figures without an engine: %d samples", n)
	}
}

func TestLint(t *testing.T) {
	snap := metrics.Snapshot{
		Errors:   map[string]int64{"ERR": 1},
		Commands: []metrics.CommandStats{{Name: "get", Calls: 1}},
		DBs:      []metrics.DBStats{{DB: 0, Keys: 1}},
		Engine:   &engine.Metrics{Levels: make([]engine.LevelMetrics, 7)},
	}
	problems, err := testutil.CollectAndLint(metrics.NewCollector(fakeSource{snap}))
	if err != nil {
		t.Fatal(err)
	}
	// redis_exporter's own names, kept so that its dashboards and alerts
	// work unchanged, though the linter would name them otherwise.
	exporterNames := map[string]bool{"redis_instantaneous_ops_per_sec": true}
	for _, p := range problems {
		if exporterNames[p.Metric] {
			continue
		}
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}
