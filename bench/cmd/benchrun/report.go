package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairndb/cairn/bench/internal/chart"
	"github.com/cairndb/cairn/bench/internal/loadgen"
	"github.com/cairndb/cairn/bench/internal/machine"
	"github.com/cairndb/cairn/bench/internal/procs"
	"github.com/cairndb/cairn/bench/internal/stats"
)

type versions struct {
	Cairn, Redis, Benchmark, Go, Commit string
}

// results is everything a run measured, rendered into RESULTS.md.
type results struct {
	Mode     string
	Big      bool
	Started  time.Time
	Elapsed  time.Duration
	Settings settings
	Machine  machine.Info
	Versions versions
	Matrix   []*matrixResult
	BigColl  *bcResult
	Churn    *churnResult
	BTM      *btmResult
	Sparse   *sparseResult
	Restart  *restartResult
	Streams  *streamResult
	Import   *importResult
	Profiles []string
	Errors   []string
}

type matrixResult struct {
	Scenario string
	Title    string
	CairnCmd string
	RedisCmd string
	Rows     []*matrixRow
	Skipped  []skip
	// Note, if set, is a scenario's own remark on how it ran (the tls
	// scenario's negotiated protocols).
	Note string
}

// matrixRow holds one workload at one pipeline depth: a result per round
// for each server (RPS NaN where that run failed), in round order.
type matrixRow struct {
	Workload string
	Pipeline int
	Requests int
	Redis    []benchRun
	Cairn    []benchRun
	Errors   []string
}

type skip struct {
	Workload string
	Reason   string
}

type rowSummary struct {
	Redis, Cairn       stats.Summary // ops/s
	RedisP50, RedisP99 stats.Summary // ms
	CairnP50, CairnP99 stats.Summary
	RedisCPU, CairnCPU stats.Summary // server CPU, µs per command
	Ratio              float64       // Cairn/Redis of the median ops/s
	Paired             stats.Summary // per-round Cairn/Redis ratios
	// Pub/sub rows: messages delivered per second and their latency from
	// PUBLISH to receipt (ms), with the ratio of the delivered medians.
	RedisDelivered, CairnDelivered stats.Summary
	RedisDelivP50, RedisDelivP99   stats.Summary
	CairnDelivP50, CairnDelivP99   stats.Summary
	DeliveredRatio                 float64
	DeliveredPaired                stats.Summary
}

func pick(rs []benchRun, f func(benchRun) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

func (r *matrixRow) summary() rowSummary {
	rps := func(x benchRun) float64 { return x.RPS }
	p50 := func(x benchRun) float64 { return x.P50Ms }
	p99 := func(x benchRun) float64 { return x.P99Ms }
	cpu := func(x benchRun) float64 { return x.CPUus }
	s := rowSummary{
		Redis:    stats.Summarize(pick(r.Redis, rps)),
		Cairn:    stats.Summarize(pick(r.Cairn, rps)),
		RedisP50: stats.Summarize(pick(r.Redis, p50)),
		RedisP99: stats.Summarize(pick(r.Redis, p99)),
		CairnP50: stats.Summarize(pick(r.Cairn, p50)),
		CairnP99: stats.Summarize(pick(r.Cairn, p99)),
		RedisCPU: stats.Summarize(pick(r.Redis, cpu)),
		CairnCPU: stats.Summarize(pick(r.Cairn, cpu)),
		Paired:   stats.Summarize(stats.PairedRatios(pick(r.Cairn, rps), pick(r.Redis, rps))),
	}
	s.Ratio = stats.Ratio(s.Cairn.Median, s.Redis.Median)
	// redis-benchmark's runs leave Delivered at zero: no figure.
	delivered := func(x benchRun) float64 {
		if x.Delivered > 0 {
			return x.Delivered
		}
		return math.NaN()
	}
	dp50 := func(x benchRun) float64 { return x.DeliveryP50Ms }
	dp99 := func(x benchRun) float64 { return x.DeliveryP99Ms }
	s.RedisDelivered = stats.Summarize(pick(r.Redis, delivered))
	s.CairnDelivered = stats.Summarize(pick(r.Cairn, delivered))
	s.RedisDelivP50, s.RedisDelivP99 = stats.Summarize(pick(r.Redis, dp50)), stats.Summarize(pick(r.Redis, dp99))
	s.CairnDelivP50, s.CairnDelivP99 = stats.Summarize(pick(r.Cairn, dp50)), stats.Summarize(pick(r.Cairn, dp99))
	s.DeliveredRatio = stats.Ratio(s.CairnDelivered.Median, s.RedisDelivered.Median)
	s.DeliveredPaired = stats.Summarize(stats.PairedRatios(pick(r.Cairn, delivered), pick(r.Redis, delivered)))
	return s
}

// find returns the row of a scenario's workload at a pipeline depth.
func (r *results) find(scenario, workload string, pipeline int) *matrixRow {
	for _, m := range r.Matrix {
		if m.Scenario != scenario {
			continue
		}
		for _, row := range m.Rows {
			if row.Workload == workload && row.Pipeline == pipeline {
				return row
			}
		}
	}
	return nil
}

// Formatting.

func fmtOps(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// fmtFigure formats a latency in milliseconds or a CPU time in
// microseconds per command: finer below 10, whole numbers from 100 on.
func fmtFigure(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v < 10:
		return fmt.Sprintf("%.3f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

func fmtDur(d time.Duration) string {
	return fmtFigure(float64(d)/float64(time.Millisecond)) + " ms"
}

// fmtMicros formats a server's own time per command, which is microseconds
// where a round trip is a fraction of a millisecond.
func fmtMicros(d time.Duration) string {
	return fmtFigure(float64(d)/float64(time.Microsecond)) + " µs"
}

func fmtRatio(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.2f×", v)
}

func fmtBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, exp := float64(n), 0
	for v >= unit && exp < 4 {
		v /= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGT"[exp-1])
}

func fmtRange(s stats.Summary, f func(float64) string) string {
	if !s.Valid() {
		return "–"
	}
	if s.N == 1 {
		return f(s.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", f(s.Median), f(s.Min), f(s.Max))
}

func fmtRatioRange(ratio float64, paired stats.Summary) string {
	if math.IsNaN(ratio) {
		return "–"
	}
	out := "**" + fmtRatio(ratio) + "**"
	if paired.N > 1 {
		out += fmt.Sprintf(" (%.2f–%.2f)", paired.Min, paired.Max)
	}
	return out
}

func durationsMs(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d) / float64(time.Millisecond)
	}
	return out
}

// markdown renders RESULTS.md. history is the preserved "## History"
// section of the previous file, if any.
func (r *results) markdown(history string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	s := r.Settings

	p("# Cairn benchmark results\n\n")
	p("Generated by `bench/run`")
	if r.Mode != "default" {
		p(" --%s", r.Mode)
	}
	if r.Big {
		p(" --big")
	}
	p(" on %s UTC in %v. Regenerate with `bench/run` (about 30 minutes; see the README's \"Benchmarks\"). ",
		r.Started.UTC().Format("2006-01-02 15:04"), r.Elapsed.Round(time.Second))
	p("Everything below is from this one run: both servers on the same machine, at the same time, over loopback.\n\n")
	p("![Cairn/Redis throughput ratios](results.svg)\n\n")

	p("## Machine\n\n| | |\n|---|---|\n")
	m := r.Machine
	p("| CPU | %s, %d logical cores |\n", m.CPUModel, m.Cores)
	p("| memory | %s |\n", fmtBytes(m.MemTotal))
	p("| kernel | %s (%s) |\n", m.Kernel, m.OS)
	d := m.Disk
	disk := fmt.Sprintf("%s on %s (%s, %s", d.MountPoint, d.Device, d.FSType, d.Kind)
	if d.Model != "" {
		disk += ", " + d.Model
	}
	disk += fmt.Sprintf(", %s)", fmtBytes(d.Size))
	p("| disk (data directories) | %s |\n\n", disk)

	p("## Versions and settings\n\n")
	p("- Cairn: `%s`, commit %s, built with %s\n", r.Versions.Cairn, r.Versions.Commit, r.Versions.Go)
	p("- Redis: `%s`; `%s`\n", r.Versions.Redis, r.Versions.Benchmark)
	p("- redis-benchmark: `-c %d -d %d -r %d -P <1|16> -n <see tables> -t <workload> --csv`, one workload per invocation.\n",
		s.Clients, s.DataSize, s.Keyspace)
	p("  Before every run both servers get `FLUSHALL`; GET is preceded by SET of all %d keys, LPOP/RPOP/SPOP/ZPOPMIN by pushing -n + %d elements, so reads hit and pops never find an empty collection.\n",
		s.Keyspace, popMargin(s))
	if s.RunSeconds > 0 {
		p("- -n per row: at most %s (-P 1) and %s (-P 16), %s and %s in the durable pair; lowered, after one calibration run of each server, so that the slower server's run takes about %.1f s, but never below %d × pipeline × 5 requests. The tables show the -n used.\n",
			fmtOps(float64(s.Requests[1])), fmtOps(float64(s.Requests[16])), fmtOps(float64(s.DurableRequests[1])), fmtOps(float64(s.DurableRequests[16])), s.RunSeconds, s.Clients)
	}
	p("- Each workload runs %d rounds; within a round Redis and Cairn run back to back, the order alternating from one workload to the next. Tables show the median with the min–max range over the rounds; the ratio is of the medians, with the range of the per-round (paired) ratios.\n", s.Rounds)
	p("- Server CPU µs/command: the server process's user and system CPU time during the timed run (from /proc), divided by -n (for LRANGE_100, from the end of the LPUSH fill redis-benchmark runs first); the median over the rounds. On a machine whose speed drifts it moves much less than ops/s does, and it shows where a gap comes from: a server that needs more CPU per command, or one that waits.\n")
	if r.ran(scriptPubSub) {
		p("- %s: not redis-benchmark but Cairn's own load generator (bench/internal/loadgen, a minimal RESP2 client), the same for both servers: %d connections, closed loop, -P units in flight on each, random keys `key:<12 digits>` over %d; a unit is one command, or MULTI … EXEC counted as one transaction; latency from a batch's send to the unit's last reply, as redis-benchmark measures it. Pub/sub: the %d connections publish %d-byte messages to one channel that 1 or 100 other connections subscribe to; delivered msgs/s counts what all subscribers received, from the first PUBLISH to the last message received. CPU µs/command is per unit (per transaction, per PUBLISH with all its deliveries).\n",
			scriptPubSub, s.Clients, s.Keyspace, s.Clients, max(s.DataSize, 16))
	}
	if r.ran(streams) || r.ran(hllGeo) {
		p("- %s and %s: the load generator of %s, the same way; a unit is one command, except in the consumer group, where it is one message acknowledged. Their data is described with each table.\n", streams, hllGeo, scriptPubSub)
	}
	for _, mr := range r.Matrix {
		p("- %s: `%s` and `%s`\n", mr.Scenario, mr.RedisCmd, mr.CairnCmd)
	}
	p("\n")

	r.writeTargets(&b)

	for _, mr := range r.Matrix {
		p("## %s\n\n", mr.Title)
		if mr.Scenario == scriptPubSub {
			writeSPIntro(&b)
		}
		writeLoadgenIntro(&b, mr.Scenario, s)
		if mr.Scenario == aclScenario {
			writeACLIntro(&b)
		}
		if mr.Scenario == bitmapsScenario {
			writeBitmapsIntro(&b, s)
		}
		if mr.Scenario == tlsScenario {
			writeTLSIntro(&b, mr)
		}
		if len(mr.Rows) == 0 {
			p("No workload ran.\n\n")
		}
		for _, pl := range s.Pipelines {
			var rows []*matrixRow
			for _, row := range mr.Rows {
				if row.Pipeline == pl {
					rows = append(rows, row)
				}
			}
			if len(rows) == 0 {
				continue
			}
			p("### -P %d\n\n", pl)
			p("| workload | -n | Redis ops/s | Cairn ops/s | Cairn/Redis | Redis p50 / p99 ms | Cairn p50 / p99 ms | server CPU µs/command, Redis / Cairn |\n")
			p("|---|---:|---:|---:|---:|---:|---:|---:|\n")
			for _, row := range rows {
				sm := row.summary()
				name := row.Workload
				if len(row.Errors) > 0 {
					name += fmt.Sprintf(" (%d failed run(s))", len(row.Errors))
				}
				p("| %s | %s | %s | %s | %s | %s / %s | %s / %s | %s / %s |\n", name, fmtOps(float64(row.Requests)),
					fmtRange(sm.Redis, fmtOps), fmtRange(sm.Cairn, fmtOps), fmtRatioRange(sm.Ratio, sm.Paired),
					fmtFigure(sm.RedisP50.Median), fmtFigure(sm.RedisP99.Median), fmtFigure(sm.CairnP50.Median), fmtFigure(sm.CairnP99.Median),
					fmtFigure(sm.RedisCPU.Median), fmtFigure(sm.CairnCPU.Median))
			}
			p("\n")
		}
		if mr.Scenario == scriptPubSub {
			writeDelivered(&b, mr, s.Pipelines)
		}
		if mr.Scenario == aclScenario {
			writeACLCost(&b, mr, s.Pipelines)
		}
		if mr.Scenario == tlsScenario {
			writeTLSCost(&b, mr, s.Pipelines)
		}
		if len(mr.Skipped) > 0 {
			p("Skipped (picked up automatically once Cairn has the command):\n\n")
			for _, sk := range mr.Skipped {
				p("- %s — %s\n", sk.Workload, sk.Reason)
			}
			p("\n")
		}
	}

	if r.BigColl != nil {
		r.writeBigColl(&b)
	}
	if r.Churn != nil {
		r.writeChurn(&b)
	}
	if r.BTM != nil {
		r.writeBTM(&b)
	}
	if r.Sparse != nil {
		r.writeSparse(&b)
	}
	if r.Restart != nil {
		r.writeRestart(&b)
	}
	if r.Streams != nil {
		r.writeStreams(&b)
	}
	if r.Import != nil {
		r.writeImport(&b)
	}

	p("## Not yet measured\n\n")
	missing := false
	if rs := r.Restart; rs != nil && rs.Keys < 10_000_000 {
		missing = true
		p("- Restart with 10,000,000 keys on disk, as issue 4 asks: this run used %s to stay within its time budget; `bench/run --restart-keys 10000000 restart` (or `--big`) measures it.\n",
			fmtOps(float64(rs.Keys)))
	}
	for _, line := range r.smallerThanAsked() {
		missing = true
		p("- %s\n", line)
	}
	var notRun []string
	for _, name := range scenarioNames {
		if !r.ran(name) {
			notRun = append(notRun, name)
		}
	}
	if len(notRun) > 0 {
		missing = true
		p("- Not run this time: %s.\n", strings.Join(notRun, ", "))
	}
	if !missing {
		p("Nothing: every scenario ran at its full size.\n")
	}
	p("\n")

	if len(r.Profiles) > 0 {
		p("## Profiles\n\n")
		for _, f := range r.Profiles {
			p("- `%s` (`go tool pprof -http=: %s`)\n", f, f)
		}
		p("\n")
	}
	if len(r.Errors) > 0 {
		p("## Errors\n\n")
		for _, e := range r.Errors {
			p("- %s\n", strings.ReplaceAll(e, "\n", " "))
		}
		p("\n")
	}
	if history != "" {
		p("%s", history)
		if !strings.HasSuffix(history, "\n") {
			p("\n")
		}
	}
	return b.String()
}

// writeSPIntro explains the scripting-pubsub scenario's workloads.
func writeSPIntro(b io.Writer) {
	fmt.Fprintf(b, "Every workload here runs on Cairn's own load generator, for both servers alike (see Versions and settings); -n counts units: commands, transactions, or PUBLISHes. ")
	fmt.Fprintf(b, "Compare Cairn with Redis within this table, not with the redis-benchmark tables above: the client differs.\n\n")
	for _, w := range scriptPubSubWorkloads {
		fmt.Fprintf(b, "- %s: %s\n", w.Name, spDescriptions[w.Name])
	}
	fmt.Fprintf(b, "\n")
}

// writeDelivered adds the pub/sub rows' delivery figures to the
// scripting-pubsub section.
func writeDelivered(b io.Writer, mr *matrixResult, pipelines []int) {
	var rows []*matrixRow
	for _, pl := range pipelines {
		for _, row := range mr.Rows {
			if row.Pipeline == pl && strings.HasPrefix(row.Workload, "PUBLISH") {
				rows = append(rows, row)
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "### Pub/sub: messages delivered\n\n")
	fmt.Fprintf(b, "| workload | -P | Redis delivered msgs/s | Cairn delivered msgs/s | Cairn/Redis | Redis delivery p50 / p99 ms | Cairn delivery p50 / p99 ms |\n")
	fmt.Fprintf(b, "|---|---:|---:|---:|---:|---:|---:|\n")
	for _, row := range rows {
		sm := row.summary()
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s / %s | %s / %s |\n", row.Workload, row.Pipeline,
			fmtRange(sm.RedisDelivered, fmtOps), fmtRange(sm.CairnDelivered, fmtOps), fmtRatioRange(sm.DeliveredRatio, sm.DeliveredPaired),
			fmtFigure(sm.RedisDelivP50.Median), fmtFigure(sm.RedisDelivP99.Median), fmtFigure(sm.CairnDelivP50.Median), fmtFigure(sm.CairnDelivP99.Median))
	}
	fmt.Fprintf(b, "\nDelivery latency runs from the PUBLISH's send to the message's receipt by a subscriber. ")
	fmt.Fprintf(b, "With 100 subscribers every PUBLISH is 100 messages to write and to read: the subscribers are connections of the load generator, on the same cores as the server.\n\n")
}

func (r *results) ran(scenario string) bool {
	switch scenario {
	case "bigger-than-memory":
		return r.BTM != nil
	case "restart":
		return r.Restart != nil
	case rdbImport:
		return r.Import != nil
	case "big-collections":
		return r.BigColl != nil
	case "zset-churn":
		return r.Churn != nil
	case sparseBitmaps:
		return r.Sparse != nil
	}
	for _, m := range r.Matrix {
		if m.Scenario == scenario {
			return true
		}
	}
	return false
}

// Targets are the goals issue 4 sets for Cairn against Redis.
type target struct {
	what     string
	scenario string
	workload string
	pipeline int
	min      float64
	// delivered judges a pub/sub row on messages delivered per second
	// rather than on PUBLISH ops/s.
	delivered bool
}

var targets = []target{
	{"unpipelined SET", "strings", "SET", 1, 0.8, false},
	{"unpipelined GET", "strings", "GET", 1, 0.8, false},
	{"pipelined SET (-P 16)", "strings", "SET", 16, 0.6, false},
	{"pipelined GET (-P 16)", "strings", "GET", 16, 0.6, false},
	{"SET, always vs AOF always", "durable", "SET", 1, 1.0, false},
	{"SET -P 16, always vs AOF always", "durable", "SET", 16, 1.0, false},
	// Issue 19's goals.
	{"EVALSHA of a one-key INCR script", scriptPubSub, "EVALSHA", 1, 0.5, false},
	{"EVALSHA of a one-key INCR script (-P 16)", scriptPubSub, "EVALSHA", 16, 0.5, false},
	{"MULTI + 5 SETs + EXEC, transactions/s", scriptPubSub, "MULTI_5xSET", 1, 0.5, false},
	{"MULTI + 5 SETs + EXEC, transactions/s (-P 16)", scriptPubSub, "MULTI_5xSET", 16, 0.5, false},
	{"PUBLISH to 1 subscriber, delivered msgs/s", scriptPubSub, "PUBLISH_1", 1, 0.7, true},
	{"PUBLISH to 1 subscriber, delivered msgs/s (-P 16)", scriptPubSub, "PUBLISH_1", 16, 0.7, true},
	{"PUBLISH to 100 subscribers, delivered msgs/s", scriptPubSub, "PUBLISH_100", 1, 0.7, true},
	{"PUBLISH to 100 subscribers, delivered msgs/s (-P 16)", scriptPubSub, "PUBLISH_100", 16, 0.7, true},
	// Issues 20 and 21.
	{"XADD with * ids, unpipelined", streams, "XADD", 1, 0.6, false},
	{"consumer group, 10 consumers XREADGROUP COUNT 10 + XACK: messages acknowledged/s", streams, "XREADGROUP_XACK", 1, 0.5, false},
	{"PFADD of 10 elements", hllGeo, "PFADD_10", 1, 0.6, false},
	{"PFCOUNT of one key", hllGeo, "PFCOUNT_1", 1, 0.6, false},
	{"PFCOUNT of three keys", hllGeo, "PFCOUNT_3", 1, 0.6, false},
	{"GEOSEARCH BYRADIUS 5 km in the geo set (1M members in a full run)", hllGeo, "GEOSEARCH", 1, 0.5, false},
	// Issue 21's goals (BITCOUNT/BITPOS: under 5 ms, read from their p50).
	{"SETBIT at random offsets", bitmapsScenario, "SETBIT", 1, 0.7, false},
	{"GETBIT at random offsets", bitmapsScenario, "GETBIT", 1, 0.7, false},
	// Issue 22: Cairn against Redis, both over TLS.
	{"SET over TLS", tlsScenario, "SET_TLS", 1, 0.7, false},
	{"GET over TLS", tlsScenario, "GET_TLS", 1, 0.7, false},
	{"SET over TLS (-P 16)", tlsScenario, "SET_TLS", 16, 0.7, false},
	{"GET over TLS (-P 16)", tlsScenario, "GET_TLS", 16, 0.7, false},
}

func (r *results) writeTargets(b io.Writer) {
	fmt.Fprintf(b, "## Targets\n\n| goal | target | this run | |\n|---|---:|---:|---|\n")
	status := func(ok, measured bool) string {
		switch {
		case !measured:
			return "not measured"
		case ok:
			return "met"
		default:
			return "**not met**"
		}
	}
	for _, t := range targets {
		ratio := math.NaN()
		if row := r.find(t.scenario, t.workload, t.pipeline); row != nil {
			ratio = row.summary().Ratio
			if t.delivered {
				ratio = row.summary().DeliveredRatio
			}
		}
		fmt.Fprintf(b, "| %s | ≥ %.1f× Redis | %s | %s |\n", t.what, t.min, fmtRatio(ratio), status(ratio >= t.min, !math.IsNaN(ratio)))
	}
	p99 := "–"
	ok, measured := false, false
	if t := r.BTM; t != nil && t.Fixed.Get.Count > 0 {
		measured = true
		p99 = fmt.Sprintf("%s at %s ops/s", fmtDur(t.Fixed.Get.P99), fmtOps(t.Fixed.OpsPerSec()))
		ok = t.Fixed.Get.P99 < 2*time.Millisecond
	}
	fmt.Fprintf(b, "| bigger than memory, GET p99 with N ≥ 4× caches, at a fixed %.0f%% of Cairn's saturated rate | < 2 ms | %s | %s |\n",
		r.Settings.BTMRateFraction*100, p99, status(ok, measured))

	// Issue 3's big-collection goals, measured in this harness.
	var worstDel time.Duration
	var worstDelWhat string
	var worstRead loadgen.Latency
	var worstReadWhat string
	if bc := r.BigColl; bc != nil {
		for _, k := range bcKinds {
			for _, op := range []struct {
				name string
				m    map[string]time.Duration
			}{{"DEL", bc.Cairn.Del}, {"UNLINK", bc.Cairn.Unlink}} {
				if d, ok := op.m[k.Name]; ok && d >= worstDel {
					worstDel, worstDelWhat = d, op.name+" "+k.Name
				}
			}
		}
		for _, rd := range bcReads {
			if l, ok := bc.Cairn.Reads[rd.Name]; ok && l.P99 >= worstRead.P99 {
				worstRead, worstReadWhat = l, strings.SplitN(rd.Name, ",", 2)[0]
			}
		}
	}
	n := "1M"
	if r.BigColl != nil && r.BigColl.Members != 1_000_000 {
		n = fmtOps(float64(r.BigColl.Members))
	}
	cell, measured := "–", worstDelWhat != ""
	if measured {
		cell = fmt.Sprintf("%s (worst: %s)", fmtDur(worstDel), worstDelWhat)
	}
	fmt.Fprintf(b, "| DEL / UNLINK of a %s-member hash, set, list, zset | < 5 ms | %s | %s |\n", n, cell, status(worstDel < 5*time.Millisecond, measured))
	cell, measured = "–", worstReadWhat != ""
	if measured {
		cell = fmt.Sprintf("p99 %s (worst: %s)", fmtDur(worstRead.P99), worstReadWhat)
	}
	fmt.Fprintf(b, "| HGET, middle LINDEX, deep ZRANGEBYSCORE LIMIT 0 10 in %s-member collections | well under 1 ms | %s | %s |\n",
		n, cell, status(worstRead.P99 < time.Millisecond, measured))
	cell, measured, ok = "–", false, false
	if c := r.Churn; c != nil && c.Cairn.After.Count > 0 {
		measured = true
		ratio := durRatio(c.Cairn.AfterServer.P50, c.Cairn.BeforeServer.P50)
		ok = ratio <= 2
		cell = fmt.Sprintf("%s (p50 in the server %s → %s; at the client %s → %s, %s)", fmtRatio(ratio),
			fmtMicros(c.Cairn.BeforeServer.P50), fmtMicros(c.Cairn.AfterServer.P50),
			fmtDur(c.Cairn.Before.P50), fmtDur(c.Cairn.After.P50), fmtRatio(durRatio(c.Cairn.After.P50, c.Cairn.Before.P50)))
	}
	dur := "60 s"
	if c := r.Churn; c != nil {
		dur = c.Duration.String()
	}
	fmt.Fprintf(b, "| ZRANGE 0 10 after %s of hot-zset churn, against before (p50 in the server) | ≤ 2× | %s | %s |\n", dur, cell, status(ok, measured))
	r.writeStreamTargets(b, status)
	fmt.Fprintf(b, "\n")
}

func latencyCells(l loadgen.Latency) string {
	if l.Count == 0 {
		return "–"
	}
	return fmt.Sprintf("%s / %s / %s", fmtFigure(ms(l.P50)), fmtFigure(ms(l.P99)), fmtFigure(ms(l.P999)))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// serverCells is latencyCells for percentiles a server measured itself.
func serverCells(l serverLatency) string {
	if l == (serverLatency{}) {
		return "–"
	}
	return fmt.Sprintf("%s / %s / %s", fmtFigure(ms(l.P50)), fmtFigure(ms(l.P99)), fmtFigure(ms(l.P999)))
}

func (r *results) writeBTM(b io.Writer) {
	t := r.BTM
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	data := int64(t.Keys) * int64(t.ValueSize)
	p("## Bigger than memory\n\n")
	p("%s keys of %d random (incompressible) bytes = %s of values, %.1f× Cairn's %s block cache. ",
		fmtOps(float64(t.Keys)), t.ValueSize, fmtBytes(data), float64(data)/float64(t.CacheSize), fmtBytes(t.CacheSize))
	if t.KeyCacheSize > 0 {
		p("Cairn also keeps its key cache (key-cache-size %s), which holds recently used records with their values: %.1f× the two caches together. ",
			fmtBytes(t.KeyCacheSize), float64(data)/float64(t.CacheSize+t.KeyCacheSize))
	}
	p("Loaded by %d clients pipelining %d SETs each; then uniformly random GET/SET %.0f/%.0f from %d clients, one command in flight each, measured two ways:\n\n",
		t.LoadConns, t.LoadBatch, t.GetRatio*100, (1-t.GetRatio)*100, t.Conns)
	p("- **Saturated (closed loop)**: each client sends its next command as soon as its reply arrives, for %v (or %s operations). This finds the highest throughput; its latencies are mostly time spent queued behind the other %d clients on a %d-core machine that also runs the load generator, so they are not service times.\n",
		t.Duration, fmtOps(float64(t.MaxOps)), t.Conns-1, r.Machine.Cores)
	p("- **Fixed rate (open loop)**: the same clients together offer %.0f%% of Cairn's saturated throughput, each on a fixed schedule, for %v; both servers get the same offered rate. ",
		t.RateFraction*100, t.RateDuration)
	p("Each latency runs from the command's scheduled send time, not from when it went out, so a stall counts against every command it holds up (no coordinated omission, as in wrk2). ")
	p("\"Client lag\" is how late the load generator itself sent against that schedule, and \"client scheduling delay\" how long its goroutines waited for a processor (to send, or to read a reply that had arrived; the Go runtime's bucket bounds): both are part of the latencies, and large figures mean the client ran short of CPU too. ")
	p("The CPU row shows where the machine's cores went during each fixed-rate window: the server, the load generator, other processes (the machine may be shared: anything there competes with both) and the kernel's interrupt work (mostly the loopback network). ")
	p("\"Inside the server\" is each server's own measure of the same GETs (INFO latencystats, reset before the window): the time a GET ran, without its wait for a processor, the network or the client, which tells the engine's tail from the machine's (Redis records whole microseconds). The fixed-rate latencies at the client are the ones to quote.\n\n")
	p("Latencies from HdrHistograms of every operation. One run per server. ")
	p("The machine's page cache is not limited, so reads beyond the block cache may still be served from the OS's memory rather than the disk.\n\n")
	p("- Cairn: `%s`\n- Redis: `%s`\n\n", t.CairnCmd, t.RedisCmd)
	redisMix := func(f func(loadgen.MixResult) string) string {
		if t.RedisMix == nil {
			return "– (does not fit)"
		}
		return f(*t.RedisMix)
	}
	redisFixed := func(f func(loadgen.MixResult) string) string {
		if t.RedisFixed == nil {
			return "– (does not fit)"
		}
		return f(*t.RedisFixed)
	}
	p("| | Cairn | Redis (everything in RAM) |\n|---|---:|---:|\n")
	sample := ""
	if t.RedisExtra {
		sample = fmt.Sprintf(" (sample of %s keys)", fmtOps(float64(t.RedisKeys)))
	}
	p("| load | %s keys/s (%.1f MiB/s) | %s keys/s (%.1f MiB/s)%s |\n",
		fmtOps(t.Load.KeysPerSec()), t.Load.MBPerSec(), fmtOps(t.RedisLoad.KeysPerSec()), t.RedisLoad.MBPerSec(), sample)
	p("| **fixed rate**: ops/s offered / achieved | %s / %s | %s |\n", fmtOps(t.Fixed.Rate), fmtOps(t.Fixed.OpsPerSec()),
		redisFixed(func(m loadgen.MixResult) string { return fmtOps(m.Rate) + " / " + fmtOps(m.OpsPerSec()) }))
	p("| **fixed rate: GET p50 / p99 / p99.9 ms** | %s | %s |\n", latencyCells(t.Fixed.Get), redisFixed(func(m loadgen.MixResult) string { return latencyCells(m.Get) }))
	if t.FixedGetServer != (serverLatency{}) {
		p("| fixed rate: GET inside the server (INFO latencystats), p50 / p99 / p99.9 ms | %s | %s |\n", serverCells(t.FixedGetServer),
			redisFixed(func(loadgen.MixResult) string { return serverCells(t.RedisFixedGetServer) }))
	}
	p("| fixed rate: SET p50 / p99 / p99.9 ms | %s | %s |\n", latencyCells(t.Fixed.Set), redisFixed(func(m loadgen.MixResult) string { return latencyCells(m.Set) }))
	p("| fixed rate: client lag p50 / p99 / p99.9 ms | %s | %s |\n", latencyCells(t.Fixed.Lag), redisFixed(func(m loadgen.MixResult) string { return latencyCells(m.Lag) }))
	if t.Fixed.Sched.Count > 0 {
		p("| fixed rate: client scheduling delay p50 / p99 / p99.9 ms | %s | %s |\n", latencyCells(t.Fixed.Sched), redisFixed(func(m loadgen.MixResult) string { return latencyCells(m.Sched) }))
	}
	if t.FixedCPU != (cpuUse{}) {
		p("| fixed rate: CPU, cores: server / load generator / other processes / interrupts | %s | %s |\n", cpuCells(t.FixedCPU),
			redisFixed(func(loadgen.MixResult) string { return cpuCells(t.RedisFixedCPU) }))
	}
	if t.Fixed.Unsent > 0 || (t.RedisFixed != nil && t.RedisFixed.Unsent > 0) {
		p("| fixed rate: sends still behind schedule at the end | %s | %s |\n", fmtOps(float64(t.Fixed.Unsent)),
			redisFixed(func(m loadgen.MixResult) string { return fmtOps(float64(m.Unsent)) }))
	}
	p("| saturated: GET/SET ops/s | %s | %s |\n", fmtOps(t.Mix.OpsPerSec()), redisMix(func(m loadgen.MixResult) string { return fmtOps(m.OpsPerSec()) }))
	p("| saturated: GET p50 / p99 / p99.9 ms | %s | %s |\n", latencyCells(t.Mix.Get), redisMix(func(m loadgen.MixResult) string { return latencyCells(m.Get) }))
	p("| saturated: SET p50 / p99 / p99.9 ms | %s | %s |\n", latencyCells(t.Mix.Set), redisMix(func(m loadgen.MixResult) string { return latencyCells(m.Set) }))
	p("| saturated: operations (GET / SET) | %s / %s | %s |\n", fmtOps(float64(t.Mix.Gets)), fmtOps(float64(t.Mix.Sets)),
		redisMix(func(m loadgen.MixResult) string { return fmtOps(float64(m.Gets)) + " / " + fmtOps(float64(m.Sets)) }))
	p("| memory | peak RSS %s | ", fmtBytes(t.PeakRSS))
	if t.RedisAtN > 0 {
		if t.RedisExtra {
			p("used_memory %s at %s keys, **extrapolated** to %s at N |\n", fmtBytes(t.RedisUsed), fmtOps(float64(t.RedisKeys)), fmtBytes(t.RedisAtN))
		} else {
			p("used_memory %s (measured at N) |\n", fmtBytes(t.RedisAtN))
		}
	} else {
		p("– |\n")
	}
	p("| on disk | %s | – |\n\n", diskCell(t.Disk, t.Keys))
}

func cpuCells(u cpuUse) string {
	s := fmt.Sprintf("%.2f / %.2f / %.2f / %.2f", u.Server, u.Client, u.Others, u.Interrupts)
	if u.Steal >= 0.01 {
		s += fmt.Sprintf(" (steal %.2f)", u.Steal)
	}
	return s
}

func latencyCellsMax(l loadgen.Latency) string {
	if l.Count == 0 {
		return "–"
	}
	return latencyCells(l) + " / " + fmtFigure(ms(l.Max))
}

func durCell(m map[string]time.Duration, k string) string {
	if d, ok := m[k]; ok {
		return fmtDur(d)
	}
	return "–"
}

func (r *results) writeBigColl(b io.Writer) {
	t := r.BigColl
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Big collections\n\n")
	p("A hash, a set, a list and a sorted set of %s members each (members `member:<10 digits>`, values and list elements `value:<10 digits>`, zset scores 0 … N−1), ",
		fmtOps(float64(t.Members)))
	p("loaded twice into each server by one client per collection sending variadic HSET/SADD/RPUSH/ZADD of %d members, %d commands per pipeline. ", bcFillBatch, bcFillDepth)
	p("Reads: %s calls each, one at a time on one connection, so a latency is service time plus one loopback round trip rather than time queued behind other clients; every reply is checked; percentiles from an HdrHistogram. ",
		fmtOps(float64(t.Samples)))
	p("The servers take turns going first. ")
	p("DEL and UNLINK: one call each on a full collection (copy a is read and then DELeted, copy b UNLINKed), so each figure is a single sample and a millisecond of noise on a busy machine is possible. ")
	p("Redis's UNLINK returns at once and frees the value on a background thread; its DEL frees it before replying.\n\n")
	p("- Cairn: `%s`\n- Redis: `%s`\n\n", t.CairnCmd, t.RedisCmd)
	p("| read in a %s-member collection | Cairn p50 / p99 / p99.9 / max ms | Redis p50 / p99 / p99.9 / max ms |\n|---|---:|---:|\n", fmtOps(float64(t.Members)))
	for _, rd := range bcReads {
		p("| %s | %s | %s |\n", rd.Name, latencyCellsMax(t.Cairn.Reads[rd.Name]), latencyCellsMax(t.Redis.Reads[rd.Name]))
	}
	p("\n| delete a %s-member … | Cairn DEL | Redis DEL | Cairn UNLINK | Redis UNLINK |\n|---|---:|---:|---:|---:|\n", fmtOps(float64(t.Members)))
	for _, k := range bcKinds {
		p("| %s | %s | %s | %s | %s |\n", k.Name, durCell(t.Cairn.Del, k.Name), durCell(t.Redis.Del, k.Name),
			durCell(t.Cairn.Unlink, k.Name), durCell(t.Redis.Unlink, k.Name))
	}
	total := float64(2 * len(bcKinds) * t.Members)
	rate := func(d time.Duration) string {
		if d <= 0 {
			return "–"
		}
		return fmtOps(total/d.Seconds()) + " members/s"
	}
	p("\nLoading all eight collections (%s members): Cairn %s, Redis %s.\n\n", fmtOps(total), rate(t.Cairn.Load), rate(t.Redis.Load))
}

func (r *results) writeChurn(b io.Writer) {
	t := r.Churn
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Hot sorted set under churn\n\n")
	p("One sorted set of %s members used as a queue: %d clients each pipeline %d pairs of `ZADD hot <next score> <new member>` + `ZREMRANGEBYRANK hot 0 0` for %v, ",
		fmtOps(float64(t.Size)), t.Conns, t.Batch, t.Duration)
	p("so the set keeps its size while every removal lands at the head, where `ZRANGE hot 0 10` starts reading — in an LSM store, on top of the tombstones of everything removed before. ")
	p("ZRANGE 0 10 is timed alone (%s calls on one connection) right before and right after the churn, and once a millisecond during it; the first and last tenth of the churn are shown. ",
		fmtOps(float64(t.Samples)))
	p("For the calls before and after, the servers' own percentiles of those calls are shown too (INFO latencystats, reset before each set of calls): the time each ZRANGE ran in the server, which is what tombstones would slow down (Redis records whole microseconds, so its sub-microsecond ZRANGE reads 0.001 or 1.003 µs). The target is judged on them, because the client's figure also holds two processes waking each other up on a virtual machine: on this one, blocks of 5,000 calls on an idle Cairn, processors fixed, measured p50s from 26 to 170 µs with nothing changed in between. ")
	p("During the churn its latency includes waiting behind the churning clients on a machine with %d cores. Each server runs alone, Cairn first.\n\n", r.Machine.Cores)
	p("- Cairn: `%s`\n- Redis: `%s`\n\n", t.CairnCmd, t.RedisCmd)
	p("| | Cairn | Redis |\n|---|---:|---:|\n")
	pairs := func(c churnSide) string {
		if c.Elapsed <= 0 {
			return "–"
		}
		return fmt.Sprintf("%s (%s in total)", fmtOps(c.PairsPerSec()), fmtOps(float64(c.Pairs)))
	}
	p("| churn, pairs/s | %s | %s |\n", pairs(t.Cairn), pairs(t.Redis))
	p("| ZRANGE 0 10 before, p50 / p99 / p99.9 ms | %s | %s |\n", latencyCells(t.Cairn.Before), latencyCells(t.Redis.Before))
	p("| ZRANGE 0 10 after, p50 / p99 / p99.9 ms | %s | %s |\n", latencyCells(t.Cairn.After), latencyCells(t.Redis.After))
	ratio := func(c churnSide) string {
		if c.After.Count == 0 {
			return "–"
		}
		return fmt.Sprintf("%s (p99 %s)", fmtRatio(durRatio(c.After.P50, c.Before.P50)), fmtRatio(durRatio(c.After.P99, c.Before.P99)))
	}
	p("| after / before at the client, p50 | %s | %s |\n", ratio(t.Cairn), ratio(t.Redis))
	server := func(l serverLatency) string {
		if l.P50 <= 0 && l.P99 <= 0 {
			return "–"
		}
		return fmt.Sprintf("%s / %s", fmtMicros(l.P50), fmtMicros(l.P99))
	}
	p("| ZRANGE 0 10 in the server before, p50 / p99 | %s | %s |\n", server(t.Cairn.BeforeServer), server(t.Redis.BeforeServer))
	p("| ZRANGE 0 10 in the server after, p50 / p99 | %s | %s |\n", server(t.Cairn.AfterServer), server(t.Redis.AfterServer))
	serverRatio := func(c churnSide) string {
		// Redis records whole microseconds: a p50 under one reads 0.001 µs,
		// and a ratio against it says nothing.
		if c.BeforeServer.P50 < time.Microsecond {
			return "–"
		}
		return fmt.Sprintf("**%s** (p99 %s)", fmtRatio(durRatio(c.AfterServer.P50, c.BeforeServer.P50)), fmtRatio(durRatio(c.AfterServer.P99, c.BeforeServer.P99)))
	}
	p("| after / before in the server, p50 | %s | %s |\n", serverRatio(t.Cairn), serverRatio(t.Redis))
	slice := func(c churnSide, i int) loadgen.Latency {
		if i < 0 {
			i += len(c.Slices)
		}
		if i < 0 || i >= len(c.Slices) {
			return loadgen.Latency{}
		}
		return c.Slices[i]
	}
	p("| during, first tenth, p50 / p99 / p99.9 ms | %s | %s |\n", latencyCells(slice(t.Cairn, 0)), latencyCells(slice(t.Redis, 0)))
	p("| during, last tenth, p50 / p99 / p99.9 ms | %s | %s |\n", latencyCells(slice(t.Cairn, -1)), latencyCells(slice(t.Redis, -1)))
	during := func(c churnSide) string {
		first, last := slice(c, 0), slice(c, -1)
		if first.Count == 0 || last.Count == 0 {
			return "–"
		}
		return fmtRatio(durRatio(last.P50, first.P50))
	}
	p("| last / first tenth, p50 | %s | %s |\n\n", during(t.Cairn), during(t.Redis))
}

// diskCell describes a data directory: file bytes per key first (what the
// data costs), then the split, then what du reports, which also counts the
// space Pebble preallocates for its write-ahead logs.
func diskCell(u procs.DirUsage, keys int) string {
	return fmt.Sprintf("%s = %.0f B/key (SSTs %s, WAL %s); du %s",
		fmtBytes(u.Apparent), float64(u.Apparent)/float64(max(keys, 1)),
		fmtBytes(u.ByExt[".sst"]), fmtBytes(u.ByExt[".log"]), fmtBytes(u.Allocated))
}

func (r *results) writeRestart(b io.Writer) {
	t := r.Restart
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Restart\n\n")
	p("Time from exec to the first +PONG with %s keys of %d bytes on disk, median (min–max) over %d restarts each, alternating; each restart is checked to have all keys (DBSIZE). ",
		fmtOps(float64(t.Keys)), t.ValueSize, max(len(t.CairnReady), len(t.RedisReady)))
	p("Cairn was stopped cleanly (SIGTERM) after loading; Redis loads the RDB written by SAVE (Redis answers -LOADING until it is done).\n\n")
	p("- Cairn: `%s`\n- Redis: `%s`\n\n", t.CairnCmd, t.RedisCmd)
	p("| | Cairn | Redis |\n|---|---:|---:|\n")
	p("| time to first PONG, ms | %s | %s |\n",
		fmtRange(stats.Summarize(durationsMs(t.CairnReady)), fmtFigure), fmtRange(stats.Summarize(durationsMs(t.RedisReady)), fmtFigure))
	p("| on disk | %s | %s (dump.rdb) |\n", diskCell(t.CairnDisk, t.Keys), fmtBytes(t.RedisRDB))
	p("| loading the keys | %s keys/s | %s keys/s |\n", fmtOps(t.CairnLoad.KeysPerSec()), fmtOps(t.RedisLoad.KeysPerSec()))
	p("| clean stop after load / SAVE | %s | %s |\n\n", fmtDur(t.CairnStop), fmtDur(t.RedisSave))
}

// chart builds the ratio chart: one bar per workload and pipeline depth.
func (r *results) chart() chart.Chart {
	c := chart.Chart{
		Title: "Cairn / Redis throughput (ratio of ops/s; higher is better for Cairn)",
		Subtitle: fmt.Sprintf("%s UTC · %s mode · %d cores · Redis %s · medians of %d alternating runs",
			r.Started.UTC().Format("2006-01-02"), r.Mode, r.Machine.Cores, redisVersion(r.Versions.Redis), r.Settings.Rounds),
		Note:     "Bars: ratio of median ops/s. Whiskers: min–max of the per-round paired ratios. Dashed line: parity with Redis.",
		RefValue: 1,
	}
	for _, mr := range r.Matrix {
		for _, pl := range r.Settings.Pipelines {
			sec := chart.Section{Title: fmt.Sprintf("%s, -P %d", chartScenario(mr.Scenario), pl)}
			for _, row := range mr.Rows {
				if row.Pipeline != pl {
					continue
				}
				sm := row.summary()
				bar := chart.Bar{Label: row.Workload, Value: sm.Ratio, Low: math.NaN(), High: math.NaN()}
				if sm.Paired.N > 1 {
					bar.Low, bar.High = sm.Paired.Min, sm.Paired.Max
				}
				sec.Bars = append(sec.Bars, bar)
			}
			if len(sec.Bars) > 0 {
				c.Sections = append(c.Sections, sec)
			}
		}
	}
	if t := r.BTM; t != nil && t.RedisMix != nil {
		c.Sections = append(c.Sections, chart.Section{
			Title: fmt.Sprintf("bigger than memory (%.0f× caches; Redis all in RAM)", float64(int64(t.Keys)*int64(t.ValueSize))/float64(t.CacheSize+max(t.KeyCacheSize, 0))),
			Bars: []chart.Bar{{Label: "GET/SET 90/10", Value: stats.Ratio(t.Mix.OpsPerSec(), t.RedisMix.OpsPerSec()),
				Low: math.NaN(), High: math.NaN()}},
		})
	}
	return c
}

// redisVersion extracts "7.0.15" from redis-server --version's
// "Redis server v=7.0.15 sha=...".
func redisVersion(v string) string {
	for _, f := range strings.Fields(v) {
		if rest, ok := strings.CutPrefix(f, "v="); ok {
			return rest
		}
	}
	return v
}

func chartScenario(s string) string {
	switch s {
	case "durable":
		return "durable (always vs AOF always)"
	default:
		return s + " (everysec)"
	}
}

// historyMarker starts the hand-written part of RESULTS.md that
// regeneration keeps: before/after notes of optimisation work.
const historyMarker = "## History"

func preservedHistory(old []byte) string {
	s := string(old)
	if strings.HasPrefix(s, historyMarker) {
		return s
	}
	if i := strings.Index(s, "\n"+historyMarker); i >= 0 {
		return s[i+1:]
	}
	return ""
}

func (h *harness) writeResults() error {
	mdPath := filepath.Join(h.out, "RESULTS.md")
	svgPath := filepath.Join(h.out, "results.svg")
	var history string
	if old, err := os.ReadFile(mdPath); err == nil {
		history = preservedHistory(old)
	}
	md := h.res.markdown(history)
	if err := os.WriteFile(mdPath, []byte(md), 0o644); err != nil {
		return fmt.Errorf("write RESULTS.md: %w", err)
	}
	var svg bytes.Buffer
	if err := h.res.chart().WriteSVG(&svg); err != nil {
		return fmt.Errorf("draw results.svg: %w", err)
	}
	if err := os.WriteFile(svgPath, svg.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write results.svg: %w", err)
	}
	fmt.Fprintln(h.stdout, md)
	h.logf("wrote %s and %s", mdPath, svgPath)
	return nil
}

// checkSmoke verifies that a smoke run exercised every part of the harness
// and produced well-formed output.
func (h *harness) checkSmoke() error {
	var errs []error
	r := h.res
	for _, name := range h.opts.scenarios {
		if !r.ran(name) {
			errs = append(errs, fmt.Errorf("smoke: scenario %s produced no result", name))
		}
	}
	for _, mr := range r.Matrix {
		for _, row := range mr.Rows {
			sm := row.summary()
			if sm.Redis.N != r.Settings.Rounds || sm.Cairn.N != r.Settings.Rounds || !(sm.Ratio > 0) {
				errs = append(errs, fmt.Errorf("smoke: %s %s -P %d: %d/%d Redis and %d/%d Cairn runs succeeded",
					mr.Scenario, row.Workload, row.Pipeline, sm.Redis.N, r.Settings.Rounds, sm.Cairn.N, r.Settings.Rounds))
			}
		}
		for _, row := range mr.Rows {
			if sm := row.summary(); strings.HasPrefix(row.Workload, "PUBLISH") && sm.CairnDelivered.N+sm.RedisDelivered.N != 2*r.Settings.Rounds {
				errs = append(errs, fmt.Errorf("smoke: %s -P %d: delivered msgs/s from %d Redis and %d Cairn runs", row.Workload, row.Pipeline, sm.RedisDelivered.N, sm.CairnDelivered.N))
			}
		}
		if (mr.Scenario == "strings" || mr.Scenario == tlsScenario || mr.Scenario == scriptPubSub || mr.Scenario == streams || mr.Scenario == hllGeo) && len(mr.Rows) == 0 {
			errs = append(errs, fmt.Errorf("smoke: no %s workload ran", mr.Scenario))
		}
	}
	if t := r.BTM; t != nil && (t.Mix.OpsPerSec() <= 0 || t.PeakRSS <= 0 || t.Disk.Apparent <= 0 || t.RedisAtN <= 0 || t.Mix.Get.Count == 0) {
		errs = append(errs, fmt.Errorf("smoke: bigger-than-memory result incomplete: %+v", *t))
	}
	if t := r.BTM; t != nil && (t.Fixed.Get.Count == 0 || t.Fixed.Rate <= 0 || (t.RedisMix != nil && t.RedisFixed == nil)) {
		errs = append(errs, fmt.Errorf("smoke: bigger-than-memory fixed-rate result incomplete: %+v", t.Fixed))
	}
	if t := r.BigColl; t != nil {
		for _, side := range []struct {
			name string
			s    bcSide
		}{{"cairn", t.Cairn}, {"redis", t.Redis}} {
			if len(side.s.Reads) != len(bcReads) || len(side.s.Del) != len(bcKinds) || len(side.s.Unlink) != len(bcKinds) || side.s.Load <= 0 {
				errs = append(errs, fmt.Errorf("smoke: big-collections: %s has %d reads, %d DELs, %d UNLINKs", side.name, len(side.s.Reads), len(side.s.Del), len(side.s.Unlink)))
			}
		}
	}
	if t := r.Churn; t != nil {
		for _, side := range []churnSide{t.Cairn, t.Redis} {
			if side.Pairs <= 0 || side.Before.Count == 0 || side.After.Count == 0 || len(side.Slices) != churnSlices {
				errs = append(errs, fmt.Errorf("smoke: zset-churn result incomplete: %+v", side))
			}
		}
	}
	if t := r.Streams; t != nil {
		if err := streamsComplete(t); err != nil {
			errs = append(errs, err)
		}
	} else if slices.Contains(h.opts.scenarios, streams) {
		errs = append(errs, errors.New("smoke: streams: the big stream was not measured"))
	}
	if t := r.Restart; t != nil && (len(t.CairnReady) != r.Settings.RestartRounds || len(t.RedisReady) != r.Settings.RestartRounds) {
		errs = append(errs, fmt.Errorf("smoke: restart measured %d Cairn and %d Redis restarts, want %d",
			len(t.CairnReady), len(t.RedisReady), r.Settings.RestartRounds))
	}
	if t := r.Import; t != nil {
		if err := importComplete(t, r.Settings.ImportRounds); err != nil {
			errs = append(errs, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(h.out, "RESULTS.md"))
	if err != nil {
		errs = append(errs, err)
	} else {
		for _, want := range []string{"# Cairn benchmark results", "## Machine", "## Targets", "## Not yet measured"} {
			if !bytes.Contains(md, []byte(want)) {
				errs = append(errs, fmt.Errorf("smoke: RESULTS.md lacks %q", want))
			}
		}
	}
	svg, err := os.ReadFile(filepath.Join(h.out, "results.svg"))
	if err != nil {
		errs = append(errs, err)
	} else if err := wellFormedXML(svg); err != nil {
		errs = append(errs, fmt.Errorf("smoke: results.svg: %w", err))
	}
	if len(errs) == 0 {
		h.logf("smoke: OK (%d matrix rows, %s; RESULTS.md and results.svg well-formed)", countRows(r), strings.Join(h.opts.scenarios, ", "))
	}
	return errors.Join(errs...)
}

func countRows(r *results) int {
	n := 0
	for _, m := range r.Matrix {
		n += len(m.Rows)
	}
	return n
}

func wellFormedXML(data []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// writeBitmapsIntro explains the bitmaps scenario's workloads.
func writeBitmapsIntro(b io.Writer, s settings) {
	fmt.Fprintf(b, "Every workload here runs on Cairn's own load generator, for both servers alike. BITCOUNT and BITPOS run at -P 1 only, on one connection: compare their p50 latency (issue 21's goal: Cairn under 5 ms).\n\n")
	d := bitmapDescriptions(s)
	for _, w := range bitmapWorkloads {
		fmt.Fprintf(b, "- %s: %s\n", w.Name, d[w.Name])
	}
	fmt.Fprintf(b, "\n")
}
