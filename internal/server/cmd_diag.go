package server

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairndb/cairn/internal/rconv"
)

// diagCommands are SLOWLOG and MONITOR (LATENCY's subcommands are with
// its container in cmd_server.go, MEMORY's in cmd_memory.go).
func diagCommands() []cmdEntry {
	const allNodes = "request_policy:all_nodes"
	return []cmdEntry{
		container("slowlog", "server", "2.2.12", "A container for slow log commands.", 0,
			withTips(def("slowlog|get", -2, admin|loading|stale, noKeys, 0, "server", "2.2.12", "Returns the slow log's entries.", cmdSlowlogGet),
				allNodes, tipOutput),
			withTips(def("slowlog|len", 2, admin|loading|stale, noKeys, 0, "server", "2.2.12", "Returns the number of entries in the slow log.", cmdSlowlogLen),
				allNodes, "response_policy:agg_sum", tipOutput),
			withTips(def("slowlog|reset", 2, admin|loading|stale, noKeys, 0, "server", "2.2.12", "Clears all entries from the slow log.", cmdSlowlogReset),
				allNodes, "response_policy:all_succeeded"),
			def("slowlog|help", 2, loading|stale, noKeys, 0, "server", "6.2.0", "Show helpful text about the different subcommands", cmdSlowlogHelp),
		),
		def("monitor", 1, admin|noscript|loading|stale, noKeys, 0, "server", "1.0.0", "Listens for all requests received by the server in real-time.", cmdMonitor),
		memoryCommands(),
	}
}

// latencyMonitorCommands are LATENCY's subcommands for the latency
// monitor's events.
func latencyMonitorCommands() []cmdEntry {
	const f = admin | noscript | loading | stale
	special := []string{tipOutput, "request_policy:all_nodes", "response_policy:special"}
	return []cmdEntry{
		withTips(def("latency|latest", 2, f, noKeys, 0, "server", "2.8.13", "Returns the latest latency samples for all events.", cmdLatencyLatest), special...),
		withTips(def("latency|history", 3, f, noKeys, 0, "server", "2.8.13", "Returns timestamp-latency samples for an event.", cmdLatencyHistory), special...),
		withTips(def("latency|graph", 3, f, noKeys, 0, "server", "2.8.13", "Returns a latency graph for an event.", cmdLatencyGraph), special...),
		withTips(def("latency|doctor", 2, f, noKeys, 0, "server", "2.8.13", "Returns a human-readable latency analysis report.", cmdLatencyDoctor), special...),
		withTips(def("latency|reset", -2, f, noKeys, 0, "server", "2.8.13", "Resets the latency data for one or more events.", cmdLatencyReset),
			"request_policy:all_nodes", "response_policy:all_succeeded"),
	}
}

func cmdSlowlogGet(x *ctx) {
	count := 10
	if len(x.args) > 3 {
		x.subcommandSyntaxError()
		return
	}
	if len(x.args) == 3 {
		n, ok := rconv.ParseInt(x.arg(2))
		switch {
		case !ok || n < -1:
			x.errorReply("ERR count should be greater than or equal to -1")
			return
		case n == -1:
			count = x.srv.diag.slow.len()
		default:
			count = int(min(n, 1<<31))
		}
	}
	entries := x.srv.diag.slow.newest(count)
	x.w.Array(len(entries))
	for _, e := range entries {
		x.w.Array(6)
		x.w.Int(e.id)
		x.w.Int(e.unix)
		x.w.Int(e.micros)
		x.w.Array(len(e.args))
		for _, a := range e.args {
			x.w.Bulk(a)
		}
		x.w.Bulk([]byte(e.peer))
		x.w.Bulk([]byte(e.clientNm))
	}
}

func cmdSlowlogLen(x *ctx) { x.w.Int(int64(x.srv.diag.slow.len())) }

func cmdSlowlogReset(x *ctx) {
	x.srv.diag.slow.reset()
	x.ok()
}

func cmdSlowlogHelp(x *ctx) {
	x.helpReply("SLOWLOG",
		"GET [<count>]",
		"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
		"    Entries are made of:",
		"    id, timestamp, time in microseconds, arguments array, client IP and port,",
		"    client name",
		"LEN",
		"    Return the length of the slowlog.",
		"RESET",
		"    Reset the slowlog.",
	)
}

// cmdMonitor puts the client in MONITOR mode: every command any client
// runs from now on reaches it as a line (see feedMonitors). A second
// MONITOR gets no reply, as in Redis.
func cmdMonitor(x *ctx) {
	if x.inGroup() {
		x.errorReply("ERR MONITOR isn't allowed for DENY BLOCKING client")
		return
	}
	if x.srv.diag.monitors.add(x.cl) {
		x.ok()
	}
}

func cmdLatencyLatest(x *ctx) {
	events := x.srv.diag.latency.snapshot("")
	x.w.Array(len(events))
	for _, ev := range events {
		last := ev.samples[len(ev.samples)-1]
		x.w.Array(4)
		x.w.Bulk([]byte(ev.name))
		x.w.Int(last.unix)
		x.w.Int(last.ms)
		x.w.Int(ev.max)
	}
}

func cmdLatencyHistory(x *ctx) {
	events := x.srv.diag.latency.snapshot(x.argStr(2))
	if len(events) == 0 {
		x.w.Array(0)
		return
	}
	ev := events[0]
	x.w.Array(len(ev.samples))
	for _, sm := range ev.samples {
		x.w.Array(2)
		x.w.Int(sm.unix)
		x.w.Int(sm.ms)
	}
}

func cmdLatencyReset(x *ctx) {
	x.w.Int(int64(x.srv.diag.latency.reset(x.args[2:])))
}

// cmdLatencyGraph draws an event's samples as Redis's sparkline does:
// a header, a rule of 80 dashes, then 4 rows of bars scaled between the
// lowest and the highest sample, and under each bar its age, written
// vertically.
func cmdLatencyGraph(x *ctx) {
	events := x.srv.diag.latency.snapshot(x.argStr(2))
	if len(events) == 0 {
		x.errorReply("ERR No samples available for event '" + x.argStr(2) + "'")
		return
	}
	x.w.Verbatim("txt", latencyGraph(events[0], time.Now().Unix()))
}

func latencyGraph(ev latencyEvent, now int64) string {
	lo, hi := ev.samples[0].ms, ev.samples[0].ms
	labels := make([]string, len(ev.samples))
	for i, sm := range ev.samples {
		lo, hi = min(lo, sm.ms), max(hi, sm.ms)
		age := now - sm.unix
		switch {
		case age < 60:
			labels[i] = strconv.FormatInt(age, 10) + "s"
		case age < 3600:
			labels[i] = strconv.FormatInt(age/60, 10) + "m"
		case age < 86400:
			labels[i] = strconv.FormatInt(age/3600, 10) + "h"
		default:
			labels[i] = strconv.FormatInt(age/86400, 10) + "d"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", ev.name, hi, lo, ev.max)
	b.WriteString(strings.Repeat("-", 80) + "\n")
	// Redis's sparkline: chunks of 80 columns, each 4 rows of bars
	// filled from the bottom ('_', 'o', '#' for the top of a bar, '|'
	// below it), a blank line, then the samples' ages written
	// vertically.
	const rows, charset = 4, "_o#"
	const steps = rows * len(charset)
	rel := float64(hi - lo)
	if rel == 0 {
		rel = 1
	}
	for start := 0; start < len(ev.samples); start += 80 {
		if start > 0 {
			b.WriteByte('\n')
		}
		chunk := ev.samples[start:min(start+80, len(ev.samples))]
		line := make([]byte, len(chunk))
		for row := range rows {
			for i, sm := range chunk {
				step := min(max(int(float64(sm.ms-lo)*float64(steps)/rel), 0), steps-1)
				line[i] = ' '
				switch idx := step - (rows-row-1)*len(charset); {
				case idx >= len(charset):
					line[i] = '|'
				case idx >= 0:
					line[i] = charset[idx]
				}
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		labels := labels[start : start+len(chunk)]
		b.WriteString(strings.Repeat(" ", len(chunk)) + "\n")
		for r := 0; ; r++ {
			any := false
			for i, l := range labels {
				line[i] = ' '
				if r < len(l) {
					line[i] = l[r]
					any = true
				}
			}
			if !any {
				break
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// cmdLatencyDoctor reports the events the latency monitor has seen, with
// plain advice for the ones Cairn measures. Shorter than Redis's prose.
func cmdLatencyDoctor(x *ctx) {
	var b strings.Builder
	threshold := x.srv.cfg.LatencyMonitorThreshold()
	events := x.srv.diag.latency.snapshot("")
	switch {
	case threshold == 0 && len(events) == 0:
		b.WriteString("I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Cairn instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it.\n")
	case len(events) == 0:
		fmt.Fprintf(&b, "No latency spikes of %d milliseconds or more were observed by this Cairn instance. Dave, no problems.\n", threshold)
	default:
		b.WriteString("Dave, I have observed latency spikes in this Cairn instance. You don't mind talking about it, do you Dave?\n\n")
		for i, ev := range events {
			var sum int64
			for _, sm := range ev.samples {
				sum += sm.ms
			}
			fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %s). Worst all time event %dms.\n",
				i+1, ev.name, len(ev.samples), sum/int64(len(ev.samples)), meanDeviation(ev.samples, sum), samplePeriod(ev.samples), ev.max)
		}
		b.WriteString("\nI have a few advices for you:\n\n")
		for _, ev := range events {
			switch ev.name {
			case "command", "fast-command":
				b.WriteString("- Check your slow log (SLOWLOG GET) for the commands that take longest; commands reading or writing big collections in one call (KEYS, SMEMBERS, HGETALL, LRANGE 0 -1, ZRANGE on large sets, DEL of big keys) are the usual cause. Prefer the SCAN family and smaller ranges.\n")
			case "aof-fsync-always":
				b.WriteString("- WAL syncs are slow: with appendfsync always every write waits for the disk. A faster disk, or appendfsync everysec, shortens them.\n")
			}
		}
	}
	x.w.Verbatim("txt", b.String())
}

func meanDeviation(samples []latencySample, sum int64) int64 {
	mean := float64(sum) / float64(len(samples))
	var dev float64
	for _, sm := range samples {
		d := float64(sm.ms) - mean
		if d < 0 {
			d = -d
		}
		dev += d
	}
	return int64(dev / float64(len(samples)))
}

// samplePeriod is the mean time between an event's samples.
func samplePeriod(samples []latencySample) string {
	if len(samples) < 2 {
		return "n/a"
	}
	secs := (samples[len(samples)-1].unix - samples[0].unix) / int64(len(samples)-1)
	return strconv.FormatInt(secs, 10) + " sec"
}
