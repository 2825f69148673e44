package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

// exporterMissing are the metrics redis_exporter derives from a real
// Redis that it cannot from Cairn, each for the reason its INFO field or
// setting is absent (see infoOmitted). The settings among them are the
// configuration's to add.
var exporterMissing = map[string]string{
	"redis_aof_last_cow_size_bytes":            "no fork",
	"redis_rdb_last_cow_size_bytes":            "no fork",
	"redis_latest_fork_seconds":                "no fork",
	"redis_module_fork_in_progress":            "no modules, no fork",
	"redis_module_fork_last_cow_size":          "no modules, no fork",
	"redis_config_io_threads":                  "the io-threads setting",
	"redis_config_maxmemory":                   "the maxmemory setting",
	"redis_cpu_sys_main_thread_seconds_total":  "no main thread",
	"redis_cpu_user_main_thread_seconds_total": "no main thread",
	"redis_defrag_hits":                        "no defragmentation",
	"redis_defrag_misses":                      "no defragmentation",
	"redis_defrag_key_hits":                    "no defragmentation",
	"redis_defrag_key_misses":                  "no defragmentation",
	"redis_dump_payload_sanitizations":         "no sanitize-dump-payload",
	"redis_expired_stale_percentage":           "nothing is sampled",
	"redis_io_threaded_reads_processed":        "no I/O threads",
	"redis_io_threaded_writes_processed":       "no I/O threads",
	"redis_memory_used_dataset_bytes":          "the dataset is on disk",
	"redis_memory_used_overhead_bytes":         "the dataset is on disk",
	"redis_memory_used_lua_bytes":              "gopher-lua does not report its memory",
	"redis_memory_used_scripts_bytes":          "gopher-lua does not report its memory",
	"redis_migrate_cached_sockets_total":       "no MIGRATE",
	"redis_slave_expires_tracked_keys":         "no replication",
	"redis_unexpected_error_replies":           "no AOF load, no primary",
}

// TestRedisExporterMetrics scrapes Cairn and a real Redis with Prometheus's
// redis_exporter (Debian's prometheus-redis-exporter) after the same
// commands: every metric it finds for Redis it finds for Cairn too, but
// those exporterMissing names.
func TestRedisExporterMetrics(t *testing.T) {
	bin, err := exec.LookPath("prometheus-redis-exporter")
	if err != nil {
		if bin, err = exec.LookPath("redis_exporter"); err != nil {
			t.Skip("redis_exporter is not installed (apt-get install prometheus-redis-exporter)")
		}
	}
	real := redistest.Start(t)
	ts := startServer(t)
	ours := redistest.Dial(t, ts.addr)
	for _, c := range []*redistest.Conn{real, ours} {
		for _, args := range redisInfoSetup {
			if _, err := c.Do(args...); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
		}
		_, _ = c.Do("NOSUCHCOMMAND")
	}
	redisNames, _ := scrapeExporter(t, bin, real.Addr())
	cairnNames, cairnText := scrapeExporter(t, bin, ts.addr)
	if !strings.Contains(cairnText, "\nredis_up 1\n") {
		t.Fatalf("redis_exporter does not see Cairn up:\n%s", cairnText)
	}
	for name := range redisNames {
		if cairnNames[name] {
			continue
		}
		if _, ok := exporterMissing[name]; !ok {
			t.Errorf("redis_exporter finds %s for Redis but not for Cairn", name)
		}
	}
	t.Logf("redis_exporter: %d metric names for Redis, %d for Cairn", len(redisNames), len(cairnNames))
}

// scrapeExporter runs redis_exporter against addr, scrapes it once, and
// returns the names of the metrics about the server (not the exporter's
// own Go and process metrics) and the scrape's text.
func scrapeExporter(t *testing.T, bin, addr string) (map[string]bool, string) {
	t.Helper()
	for attempt := 0; attempt < 5; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		web := ln.Addr().String()
		ln.Close()
		cmd := exec.Command(bin, "-redis.addr", "redis://"+addr, "-web.listen-address", web)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		body, ok := func() (string, bool) {
			defer func() { _ = cmd.Process.Kill(); <-exited }()
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				select {
				case <-exited:
					return "", false // lost the port to someone else
				default:
				}
				resp, err := http.Get("http://" + web + "/metrics")
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				return string(b), true
			}
			t.Fatalf("redis_exporter on %s did not answer", web)
			return "", false
		}()
		if !ok {
			continue
		}
		names := map[string]bool{}
		sc := bufio.NewScanner(strings.NewReader(body))
		for sc.Scan() {
			l := sc.Text()
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			name := l[:strings.IndexAny(l, "{ ")]
			if strings.HasPrefix(name, "redis_") && !strings.HasPrefix(name, "redis_exporter_") {
				names[name] = true
			}
		}
		return names, body
	}
	t.Fatal(fmt.Errorf("redis_exporter could not start"))
	return nil, ""
}
