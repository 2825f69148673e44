package main

import (
	"fmt"
	"io"
	"time"
)

// writeLoadgenIntro lists what the workloads of the streams and hll-geo
// scenarios send.
func writeLoadgenIntro(b io.Writer, scenario string, s settings) {
	var wls []workload
	var desc map[string]string
	switch scenario {
	case streams:
		wls, desc = streamWorkloads, streamDescriptions(s)
	case hllGeo:
		wls, desc = hllGeoWorkloads, hllGeoDescriptions(s)
	default:
		return
	}
	fmt.Fprintf(b, "Every workload here runs on Cairn's own load generator, for both servers alike (see Versions and settings). ")
	if scenario == hllGeo {
		fmt.Fprintf(b, "The HyperLogLogs and the geo set are loaded once into each server before the first run; no run empties the server. ")
	}
	fmt.Fprintf(b, "Compare Cairn with Redis within this table, not with the redis-benchmark tables above: the client differs.\n\n")
	for _, w := range wls {
		fmt.Fprintf(b, "- %s: %s\n", w.Name, desc[w.Name])
	}
	fmt.Fprintf(b, "\n")
}

// streamTargetReads are the reads each latency target of issue 20 judges.
var streamTargetReads = []struct {
	what  string
	names []string
}{
	{"XRANGE COUNT 10 from the start, middle and end of a %s-entry stream, p99", []string{streamReads[0].Name, streamReads[1].Name, streamReads[2].Name}},
	{"XPENDING summary and XINFO GROUPS, %s pending entries, p99", []string{"XPENDING summary", "XINFO GROUPS"}},
}

// writeStreamTargets adds issue 20's latency goals to the targets table.
func (r *results) writeStreamTargets(b io.Writer, status func(ok, measured bool) string) {
	t := r.Streams
	for i, tr := range streamTargetReads {
		size := "10M"
		if i == 1 {
			size = "1M"
		}
		cell, worst, ok, measured := "–", time.Duration(0), false, false
		if t != nil {
			if i == 0 {
				size = fmtOps(float64(t.Entries))
			} else {
				size = fmtOps(float64(t.Pending))
			}
			var worstName string
			found := 0
			for _, name := range tr.names {
				if l, have := t.Cairn.Reads[name]; have && l.Count > 0 {
					found++
					if l.P99 >= worst {
						worst, worstName = l.P99, name
					}
				}
			}
			if measured = found == len(tr.names); measured {
				ok = worst < time.Millisecond
				cell = fmt.Sprintf("%s (worst: %s", fmtDur(worst), worstName)
				if sl, have := t.Cairn.ReadsServer[worstName]; have {
					cell += "; in the server p99 " + fmtMicros(sl.P99)
				}
				cell += ")"
				if l, have := t.Cairn.SmallReads[worstName]; have && i == 0 {
					cell += fmt.Sprintf("; in a %s-entry stream %s", fmtOps(float64(t.Small)), fmtDur(l.P99))
					if sl, have := t.Cairn.SmallServer[worstName]; have {
						cell += ", in the server " + fmtMicros(sl.P99)
					}
				}
			}
		}
		fmt.Fprintf(b, "| %s | < 1 ms | %s | %s |\n", fmt.Sprintf(tr.what, size), cell, status(ok, measured))
	}
	size, cell, ok, measured := "1M", "–", false, false
	if t != nil && t.Cairn.Trim > 0 && t.Cairn.Del > 0 {
		size, measured = fmtOps(float64(t.Pending)), true
		ok = t.Cairn.Trim < 5*time.Millisecond && t.Cairn.Del < 5*time.Millisecond
		cell = fmt.Sprintf("XTRIM %s, DEL %s", fmtDur(t.Cairn.Trim), fmtDur(t.Cairn.Del))
	}
	fmt.Fprintf(b, "| XTRIM MINID dropping %s entries, and DEL of a stream of %s entries all pending | < 5 ms | %s | %s |\n", size, size, cell, status(ok, measured))
}

func (r *results) writeStreams(b io.Writer) {
	t := r.Streams
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## A big stream\n\n")
	p("One stream `%s` of %s entries, ids from %s on, %d to a millisecond, one field each; its group `%s` has its first %s entries pending, all held by one consumer. ",
		bigStream, fmtOps(float64(t.Entries)), streamID(0), streamPerMs, streamGroup, fmtOps(float64(t.Pending)))
	p("A second stream `%s` has %s entries, all pending in a group likewise. Both are filled by pipelined XADD (%d in flight) on one connection and the pending lists by XREADGROUP COUNT %d; the same way for both servers. ",
		delStream, fmtOps(float64(t.Pending)), streamFillDepth, streamReadCount)
	p("Reads: %s calls each, one at a time on one connection (service time plus one loopback round trip), every reply checked; the servers take turns going first. ",
		fmtOps(float64(t.Samples)))
	p("\"In the server\" is each server's own measure of the same calls (INFO latencystats, reset before each read's calls; Redis records whole microseconds): what the command cost without the network and the wait for a processor. ")
	p("Then `XTRIM %s MINID <id of entry %s>` drops the first %s entries (exact trimming) and `DEL %s` deletes the other stream: one call each, a single sample. ",
		bigStream, fmtOps(float64(t.Pending)), fmtOps(float64(t.Pending)), delStream)
	p("The reads that do not involve the group run in a stream of %s entries too, right after, to show what the length costs. ", fmtOps(float64(t.Small)))
	p("XRANGE from the start runs again after the trim, over whatever the trimmed entries left behind; last, DEL of what is left of the big stream.\n\n")
	p("- Cairn: `%s`\n- Redis: `%s`\n\n", t.CairnCmd, t.RedisCmd)
	p("| read in the %s-entry stream | Cairn p50 / p99 / p99.9 / max ms | Redis p50 / p99 / p99.9 / max ms | in the server, Cairn p50 / p99 µs | in the server, Redis p50 / p99 µs |\n|---|---:|---:|---:|---:|\n",
		fmtOps(float64(t.Entries)))
	for _, rd := range streamReads {
		p("| %s | %s | %s | %s | %s |\n", rd.Name, latencyCellsMax(t.Cairn.Reads[rd.Name]), latencyCellsMax(t.Redis.Reads[rd.Name]),
			serverMicros(t.Cairn.ReadsServer[rd.Name]), serverMicros(t.Redis.ReadsServer[rd.Name]))
	}
	for _, rd := range streamReads {
		if rd.Small {
			p("| %s, in a %s-entry stream | %s | %s | %s | %s |\n", rd.Name, fmtOps(float64(t.Small)),
				latencyCellsMax(t.Cairn.SmallReads[rd.Name]), latencyCellsMax(t.Redis.SmallReads[rd.Name]),
				serverMicros(t.Cairn.SmallServer[rd.Name]), serverMicros(t.Redis.SmallServer[rd.Name]))
		}
	}
	dur := func(d time.Duration) string {
		if d <= 0 {
			return "–"
		}
		return fmtDur(d)
	}
	p("\n| one call | Cairn | Redis |\n|---|---:|---:|\n")
	p("| XTRIM MINID dropping %s entries | %s | %s |\n", fmtOps(float64(t.Pending)), dur(t.Cairn.Trim), dur(t.Redis.Trim))
	p("| DEL of a %s-entry stream, all pending | %s | %s |\n", fmtOps(float64(t.Pending)), dur(t.Cairn.Del), dur(t.Redis.Del))
	p("| DEL of the big stream after the trim (%s entries, %s pending) | %s | %s |\n",
		fmtOps(float64(t.Entries-t.Pending)), fmtOps(float64(t.Pending)), dur(t.Cairn.DelRest), dur(t.Redis.DelRest))
	rate := func(n int, d time.Duration) string {
		if d <= 0 {
			return "–"
		}
		return fmtOps(float64(n)/d.Seconds()) + "/s"
	}
	p("| filling: entries added | %s | %s |\n", rate(t.Entries+t.Pending, t.Cairn.Fill), rate(t.Entries+t.Pending, t.Redis.Fill))
	p("| filling: entries read into pending lists | %s | %s |\n\n", rate(2*t.Pending, t.Cairn.PEL), rate(2*t.Pending, t.Redis.PEL))
}

// serverMicros shows a server's own p50 and p99 in microseconds.
func serverMicros(l serverLatency) string {
	if l == (serverLatency{}) {
		return "–"
	}
	return fmtFigure(float64(l.P50)/float64(time.Microsecond)) + " / " + fmtFigure(float64(l.P99)/float64(time.Microsecond))
}

// streamsComplete reports what a smoke run's stream result lacks.
func streamsComplete(t *streamResult) error {
	for _, side := range []struct {
		name string
		s    streamSide
	}{{"cairn", t.Cairn}, {"redis", t.Redis}} {
		n, small, wantSmall := 0, 0, 0
		for _, rd := range streamReads {
			if side.s.Reads[rd.Name].Count > 0 {
				n++
			}
			if rd.Small {
				wantSmall++
				if side.s.SmallReads[rd.Name].Count > 0 {
					small++
				}
			}
		}
		if n != len(streamReads) || small != wantSmall || side.s.Trim <= 0 || side.s.Del <= 0 || side.s.DelRest <= 0 || side.s.Fill <= 0 || side.s.PEL <= 0 {
			return fmt.Errorf("smoke: streams: %s has %d/%d reads, trim %v, del %v, del rest %v", side.name, n, len(streamReads), side.s.Trim, side.s.Del, side.s.DelRest)
		}
	}
	return nil
}

// smallerThanAsked lists the sizes of issues 20 and 21 that this run
// measured smaller, for "Not yet measured".
func (r *results) smallerThanAsked() []string {
	var out []string
	if t := r.Streams; t != nil && (t.Entries < 10_000_000 || t.Pending < 1_000_000) {
		out = append(out, fmt.Sprintf("The big stream of issue 20 (10,000,000 entries, 1,000,000 pending): this run used %s and %s; `bench/run --stream-entries 10000000 --stream-pending 1000000 streams` measures it.",
			fmtOps(float64(t.Entries)), fmtOps(float64(t.Pending))))
	}
	if r.ran(hllGeo) && r.Settings.GeoMembers < 1_000_000 {
		out = append(out, fmt.Sprintf("GEOSEARCH in a 1,000,000-member geo set, as issue 21 asks: this run used %s members; `bench/run --geo-members 1000000 hll-geo` measures it.",
			fmtOps(float64(r.Settings.GeoMembers))))
	}
	return out
}
