package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cairndb/cairn/bench/internal/loadgen"
	"github.com/cairndb/cairn/bench/internal/procs"
)

// The streams scenario (issue 20) has two parts. Its matrix runs XADD with
// `*` ids into one stream at -P 1 and -P 16, and a consumer group drained
// by GroupConsumers consumers (XREADGROUP COUNT GroupCount, then XACK of
// what they got), on the load generator, as the scripting-pubsub scenario
// does. Then streamLatency builds one big stream in each server and times
// single calls in it: XRANGE COUNT 10 from its start, middle and end,
// XPENDING and XINFO GROUPS on a group with StreamPending entries pending,
// XTRIM MINID dropping StreamPending entries and DEL of a stream of that
// many entries, all pending.

const streams = "streams"

// streamKey is the stream of the matrix's workloads; streamGroup their
// consumer group and the big stream's.
const (
	streamKey   = "mystream"
	streamGroup = "g"
)

var streamWorkloads = []workload{
	{Name: "XADD", Group: streams, Probe: []any{"XADD", probeKey, "*", "f", "v"}, Run: runOp(xaddOp)},
	{Name: "XREADGROUP_XACK", Group: streams, Probe: []any{"XACK", probeKey, streamGroup, "0-1"}, Pipelines: []int{1},
		Prefill: prefillGroup, Run: runGroup},
}

// streamDescriptions say what each workload of the scenario sends, for
// RESULTS.md.
func streamDescriptions(s settings) map[string]string {
	return map[string]string{
		"XADD": fmt.Sprintf("`XADD %s * field <%d bytes>` from %d connections into one stream", streamKey, s.DataSize, s.Clients),
		"XREADGROUP_XACK": fmt.Sprintf("%d consumers of one group, each `XREADGROUP GROUP %s c<i> COUNT %d STREAMS %s >` and then `XACK` of the ids it got, until the group has delivered the whole stream, which holds -n entries (`XADD`ed before the run); ops/s are **messages acknowledged per second**, CPU per message, latency of one read + acknowledge",
			s.GroupConsumers, streamGroup, s.GroupCount, streamKey),
	}
}

func wantStreamID(_ int, r loadgen.Reply) error {
	if r.Type != '$' || r.Null || !strings.Contains(string(r.Str), "-") {
		return fmt.Errorf("got %s, want an entry id", r)
	}
	return nil
}

func xaddOp(s settings) loadgen.Op {
	value := strings.Repeat("x", s.DataSize)
	return loadgen.Op{
		Name:    "XADD",
		Replies: 1,
		Append: func(buf []byte, _ *rand.Rand) []byte {
			return loadgen.AppendCommand(buf, "XADD", streamKey, "*", "field", value)
		},
		Check: wantStreamID,
	}
}

// prefillGroup adds n entries to the stream and creates the group before
// them all.
func prefillGroup(ctx context.Context, c *redis.Client, s settings, n int) error {
	value := strings.Repeat("x", s.DataSize)
	pipe := c.Pipeline()
	for i := range n {
		pipe.Do(ctx, "XADD", streamKey, "*", "field", value)
		if pipe.Len() == prefillBatch || i == n-1 {
			if _, err := pipe.Exec(ctx); err != nil {
				return fmt.Errorf("XADD: %w", err)
			}
		}
	}
	if err := c.Do(ctx, "XGROUP", "CREATE", streamKey, streamGroup, "0").Err(); err != nil {
		return fmt.Errorf("XGROUP CREATE: %w", err)
	}
	return nil
}

// runGroup drains the prefilled stream's n entries through the group.
func runGroup(ctx context.Context, h *harness, p *procs.Process, n, _ int) (benchRun, error) {
	res, err := loadgen.ConsumeGroup(ctx, loadgen.GroupConfig{
		Addr: p.Addr(), Key: streamKey, Group: streamGroup,
		Consumers: h.set.GroupConsumers, Count: h.set.GroupCount, Messages: int64(n),
	})
	if err != nil {
		return benchRun{}, err
	}
	return benchRun{Result: loadgenResult("XREADGROUP+XACK", res.AckedPerSec(), res.Latency), CPUus: math.NaN(),
		Delivered: math.NaN(), DeliveryP50Ms: math.NaN(), DeliveryP99Ms: math.NaN()}, nil
}

// The big stream.

const (
	bigStream   = "st:big"   // StreamEntries entries; its group has StreamPending pending
	smallStream = "st:small" // StreamSmall entries, for reads to compare with the big stream's
	delStream   = "st:del"   // StreamPending entries, all pending: DELeted whole
	// streamBaseMs is the first entry's millisecond; streamPerMs entries
	// share each millisecond, as a busy stream's do.
	streamBaseMs = 1_700_000_000_000
	streamPerMs  = 10
	// streamReadCount entries are read into the pending list per
	// XREADGROUP while building it; streamFillDepth commands are in
	// flight while filling.
	streamReadCount = 1000
	streamFillDepth = 1000
)

// streamID is the id of entry i of the big streams.
func streamID(i int) string {
	return strconv.FormatInt(streamBaseMs+int64(i/streamPerMs), 10) + "-" + strconv.Itoa(i%streamPerMs)
}

// streamRead is one timed read in the big stream: the command for sample
// i and the check of its reply, given the stream's entries and pending
// entries.
type streamRead struct {
	Name string
	// Stat names the command in INFO latencystats.
	Stat string
	// AfterTrim reads run after the XTRIM.
	AfterTrim bool
	// Small reads also run in the small stream, to show whether their
	// cost depends on the stream's length.
	Small bool
	Cmd   func(rng *rand.Rand, key string, entries, pending int) (args []any, check func(any) error)
}

var streamReads = []streamRead{
	{Name: "XRANGE - + COUNT 10 (the start)", Stat: "xrange", Small: true, Cmd: func(_ *rand.Rand, key string, n, _ int) ([]any, func(any) error) {
		return []any{"XRANGE", key, "-", "+", "COUNT", 10}, wantEntries(streamID(0), min(10, n))
	}},
	{Name: "XRANGE <id> + COUNT 10, id in the middle half", Stat: "xrange", Small: true, Cmd: func(rng *rand.Rand, key string, n, _ int) ([]any, func(any) error) {
		i := middle(rng, n)
		return []any{"XRANGE", key, streamID(i), "+", "COUNT", 10}, wantEntries(streamID(i), min(10, n-i))
	}},
	{Name: "XRANGE <id> + COUNT 10, the last 10 entries", Stat: "xrange", Small: true, Cmd: func(_ *rand.Rand, key string, n, _ int) ([]any, func(any) error) {
		i := max(n-10, 0)
		return []any{"XRANGE", key, streamID(i), "+", "COUNT", 10}, wantEntries(streamID(i), n-i)
	}},
	{Name: "XREVRANGE + - COUNT 10 (the end)", Stat: "xrevrange", Small: true, Cmd: func(_ *rand.Rand, key string, n, _ int) ([]any, func(any) error) {
		return []any{"XREVRANGE", key, "+", "-", "COUNT", 10}, wantEntries(streamID(n-1), min(10, n))
	}},
	{Name: "XPENDING summary", Stat: "xpending", Cmd: func(_ *rand.Rand, key string, _, pending int) ([]any, func(any) error) {
		return []any{"XPENDING", key, streamGroup}, wantPendingSummary(pending)
	}},
	{Name: "XINFO GROUPS", Stat: "xinfo|groups", Cmd: func(_ *rand.Rand, key string, _, pending int) ([]any, func(any) error) {
		return []any{"XINFO", "GROUPS", key}, wantGroupPending(pending)
	}},
	{Name: "XRANGE - + COUNT 10 after the XTRIM", Stat: "xrange", AfterTrim: true, Cmd: func(_ *rand.Rand, key string, n, pending int) ([]any, func(any) error) {
		return []any{"XRANGE", key, "-", "+", "COUNT", 10}, wantEntries(streamID(pending), min(10, n-pending))
	}},
}

// wantEntries checks an XRANGE reply: count entries, the first with id
// first.
func wantEntries(first string, count int) func(any) error {
	return func(v any) error {
		a, ok := v.([]any)
		if !ok || len(a) != count {
			return fmt.Errorf("got %v, want %d entries", v, count)
		}
		if count == 0 {
			return nil
		}
		if e, ok := a[0].([]any); !ok || len(e) != 2 || e[0] != first {
			return fmt.Errorf("first entry %v, want id %s", a[0], first)
		}
		return nil
	}
}

// wantPendingSummary checks XPENDING's summary form: count, smallest and
// greatest id, and one consumer "c" holding them all.
func wantPendingSummary(pending int) func(any) error {
	return func(v any) error {
		a, ok := v.([]any)
		if !ok || len(a) != 4 || a[0] != int64(pending) || a[1] != streamID(0) || a[2] != streamID(pending-1) {
			return fmt.Errorf("got %v, want %d pending from %s to %s", v, pending, streamID(0), streamID(pending-1))
		}
		cs, ok := a[3].([]any)
		if !ok || len(cs) != 1 {
			return fmt.Errorf("consumers %v, want one", a[3])
		}
		if c, ok := cs[0].([]any); !ok || len(c) != 2 || c[0] != "c" || c[1] != strconv.Itoa(pending) {
			return fmt.Errorf("consumer %v, want [c %d]", cs[0], pending)
		}
		return nil
	}
}

// wantGroupPending checks XINFO GROUPS: one group, "g", with pending
// entries.
func wantGroupPending(pending int) func(any) error {
	return func(v any) error {
		a, ok := v.([]any)
		if !ok || len(a) != 1 {
			return fmt.Errorf("got %v, want one group", v)
		}
		g, ok := a[0].([]any)
		if !ok || len(g)%2 != 0 {
			return fmt.Errorf("group %v is not a field-value list", a[0])
		}
		fields := map[string]any{}
		for i := 0; i < len(g); i += 2 {
			if k, ok := g[i].(string); ok {
				fields[k] = g[i+1]
			}
		}
		if fields["name"] != streamGroup || fields["pending"] != int64(pending) {
			return fmt.Errorf("group %v, want %s with %d pending", g, streamGroup, pending)
		}
		return nil
	}
}

// streamResult is the big-stream part's outcome.
type streamResult struct {
	Entries  int
	Pending  int
	Small    int // entries of the small stream
	Samples  int
	CairnCmd string
	RedisCmd string
	Cairn    streamSide
	Redis    streamSide
}

type streamSide struct {
	Fill  time.Duration              // XADD of both streams' entries
	PEL   time.Duration              // XREADGROUP of both groups' pending entries
	Reads map[string]loadgen.Latency // by streamRead.Name
	// ReadsServer are the same reads as the server measured them (INFO
	// latencystats, reset before each read's calls): without the round
	// trip and the wait for a processor on a busy machine.
	ReadsServer map[string]serverLatency
	// SmallReads and SmallServer are the Small reads in the small stream.
	SmallReads  map[string]loadgen.Latency
	SmallServer map[string]serverLatency
	Trim        time.Duration // XTRIM MINID dropping Pending entries
	Del         time.Duration // DEL of the Pending-entry stream, all pending
	DelRest     time.Duration // DEL of the big stream after the trim
}

func (r *streamResult) side(name string) *streamSide {
	if name == "cairn" {
		return &r.Cairn
	}
	return &r.Redis
}

// streamLatency is the streams scenario's second part.
func (h *harness) streamLatency(ctx context.Context) error {
	s := h.set
	r := &streamResult{Entries: s.StreamEntries, Pending: s.StreamPending, Small: s.StreamSmall, Samples: s.BCSamples}
	for _, side := range []*streamSide{&r.Cairn, &r.Redis} {
		side.Reads, side.ReadsServer = map[string]loadgen.Latency{}, map[string]serverLatency{}
		side.SmallReads, side.SmallServer = map[string]loadgen.Latency{}, map[string]serverLatency{}
	}
	h.logf("streams: starting Redis and Cairn for the %s-entry stream", fmtOps(float64(r.Entries)))
	rp, err := h.startRedis(ctx, "bigstream", redisConfig{})
	if err != nil {
		return err
	}
	defer rp.Stop(time.Minute)
	cp, err := h.startCairn(ctx, "bigstream", cairnConfig{appendfsync: "everysec", cacheSize: s.MatrixCache})
	if err != nil {
		return err
	}
	defer cp.Stop(time.Minute)
	r.CairnCmd, r.RedisCmd = commandLine(cp), commandLine(rp)
	if h.opts.pprof {
		prof := h.startProfiler(ctx, cp, "streams-big")
		defer prof.stop()
	}
	servers := []server{{"cairn", cp, loadgen.NewClient(cp.Addr(), 2)}, {"redis", rp, loadgen.NewClient(rp.Addr(), 2)}}
	for _, sv := range servers {
		defer sv.c.Close()
	}
	h.res.Streams = r

	for _, sv := range servers {
		side := r.side(sv.name)
		t0 := time.Now()
		if err := h.fillStream(ctx, sv, bigStream, r.Entries); err != nil {
			return err
		}
		if err := h.fillStream(ctx, sv, delStream, r.Pending); err != nil {
			return err
		}
		side.Fill = time.Since(t0)
		t0 = time.Now()
		for _, key := range []string{bigStream, delStream} {
			if err := readPending(ctx, sv, key, r.Pending); err != nil {
				return err
			}
		}
		side.PEL = time.Since(t0)
		h.logf("streams: %s: %s entries added in %v (%s/s), %s read into pending lists in %v (%s/s)", sv.name,
			fmtOps(float64(r.Entries+r.Pending)), side.Fill.Round(time.Millisecond), fmtOps(float64(r.Entries+r.Pending)/side.Fill.Seconds()),
			fmtOps(float64(2*r.Pending)), side.PEL.Round(time.Millisecond), fmtOps(float64(2*r.Pending)/side.PEL.Seconds()))
	}

	// The small stream's reads come right after the big one's, so that
	// the two differ in length only.
	for _, sv := range servers {
		if err := h.fillStream(ctx, sv, smallStream, r.Small); err != nil {
			return err
		}
	}

	seed := uint64(h.start.UnixNano())
	timeReads := func(afterTrim, small bool) error {
		key, entries := bigStream, r.Entries
		if small {
			key, entries = smallStream, r.Small
		}
		for i, rd := range streamReads {
			if rd.AfterTrim != afterTrim || (small && !rd.Small) {
				continue
			}
			for _, sv := range alternate(servers, i) {
				side := r.side(sv.name)
				reads, inServer, label := side.Reads, side.ReadsServer, rd.Name
				if small {
					reads, inServer, label = side.SmallReads, side.SmallServer, rd.Name+" (small stream)"
				}
				if err := exitedEarly(sv.p); err != nil {
					return err
				}
				if err := sv.c.ConfigResetStat(ctx).Err(); err != nil {
					return fmt.Errorf("%s: CONFIG RESETSTAT: %w", sv.name, err)
				}
				lat, err := timeCalls(ctx, sv.c, r.Samples, seed+uint64(i), func(rng *rand.Rand) ([]any, func(any) error) {
					return rd.Cmd(rng, key, entries, r.Pending)
				})
				if err != nil {
					return fmt.Errorf("%s: %s: %w", sv.name, label, err)
				}
				reads[rd.Name] = lat
				sl, err := serverLatencyOf(ctx, sv.c, rd.Stat)
				if err != nil {
					// The client's figures stand without it.
					h.logf("streams: %s: %s: no latency of its own: %v", sv.name, label, err)
				} else {
					inServer[rd.Name] = sl
				}
				h.logf("streams: %-5s %-65s p50 %s  p99 %s  max %s; in the server p50 %s  p99 %s", sv.name, label,
					fmtDur(lat.P50), fmtDur(lat.P99), fmtDur(lat.Max), fmtMicros(sl.P50), fmtMicros(sl.P99))
			}
		}
		return nil
	}
	if err := timeReads(false, false); err != nil {
		return err
	}
	if err := timeReads(false, true); err != nil {
		return err
	}
	steps := []struct {
		what string
		args []any
		want int64
		dst  func(*streamSide) *time.Duration
	}{
		{fmt.Sprintf("XTRIM MINID dropping %s entries", fmtOps(float64(r.Pending))), []any{"XTRIM", bigStream, "MINID", streamID(r.Pending)}, int64(r.Pending),
			func(s *streamSide) *time.Duration { return &s.Trim }},
		{fmt.Sprintf("DEL of a %s-entry stream", fmtOps(float64(r.Pending))), []any{"DEL", delStream}, 1,
			func(s *streamSide) *time.Duration { return &s.Del }},
	}
	for i, st := range steps {
		for _, sv := range alternate(servers, i) {
			d, err := timeOnce(ctx, sv.c, st.args, st.want)
			if err != nil {
				return fmt.Errorf("%s: %w", sv.name, err)
			}
			*st.dst(r.side(sv.name)) = d
			h.logf("streams: %-5s %s: %s", sv.name, st.what, fmtDur(d))
		}
	}
	if err := timeReads(true, false); err != nil {
		return err
	}
	for _, sv := range alternate(servers, len(steps)) {
		d, err := timeOnce(ctx, sv.c, []any{"DEL", bigStream}, 1)
		if err != nil {
			return fmt.Errorf("%s: %w", sv.name, err)
		}
		if err := sv.c.Del(ctx, smallStream).Err(); err != nil {
			return fmt.Errorf("%s: DEL %s: %w", sv.name, smallStream, err)
		}
		r.side(sv.name).DelRest = d
		h.logf("streams: %-5s DEL of the rest of the big stream: %s", sv.name, fmtDur(d))
	}
	for _, sv := range servers {
		if left, err := sv.c.DBSize(ctx).Result(); err != nil || left != 0 {
			return fmt.Errorf("%s: after deleting both streams DBSIZE = %d (%v), want 0", sv.name, left, err)
		}
	}
	return nil
}

// fillStream XADDs entries 0 … n-1 (ids streamID(i)) to key, pipelined on
// one connection, and checks XLEN.
func (h *harness) fillStream(ctx context.Context, sv server, key string, n int) error {
	const chunk = 1_000_000 // progress is reported between chunks
	start := time.Now()
	for first := 0; first < n; first += chunk {
		last := min(first+chunk, n)
		next := first
		// One connection: Append runs in order, so the ids rise.
		op := loadgen.Op{
			Name:    "XADD " + key,
			Replies: 1,
			Append: func(buf []byte, _ *rand.Rand) []byte {
				id := streamID(next)
				v := strconv.Itoa(next)
				next++
				return loadgen.AppendCommand(buf, "XADD", key, id, "n", v)
			},
			Check: wantStreamID,
		}
		if _, err := loadgen.Pipelined(ctx, loadgen.PipeConfig{Addr: sv.p.Addr(), Conns: 1, Pipeline: streamFillDepth, Units: int64(last - first)}, op); err != nil {
			return fmt.Errorf("%s: fill %s: %w", sv.name, key, err)
		}
		if n > chunk {
			h.logf("streams: %s: %s: %s/%s entries (%s/s)", sv.name, key, fmtOps(float64(last)), fmtOps(float64(n)),
				fmtOps(float64(last)/time.Since(start).Seconds()))
		}
	}
	if got, err := sv.c.XLen(ctx, key).Result(); err != nil || got != int64(n) {
		return fmt.Errorf("%s: XLEN %s = %d (%v) after adding %d entries", sv.name, key, got, err, n)
	}
	return nil
}

// readPending creates the group on key at its start and has consumer "c"
// read its first n entries, which the group then holds pending.
func readPending(ctx context.Context, sv server, key string, n int) error {
	if err := sv.c.Do(ctx, "XGROUP", "CREATE", key, streamGroup, "0").Err(); err != nil {
		return fmt.Errorf("%s: XGROUP CREATE %s: %w", sv.name, key, err)
	}
	left := n
	op := loadgen.Op{
		Name:    "XREADGROUP " + key,
		Replies: 1,
		Append: func(buf []byte, _ *rand.Rand) []byte {
			c := min(left, streamReadCount)
			left -= c
			return loadgen.AppendCommand(buf, "XREADGROUP", "GROUP", streamGroup, "c", "COUNT", strconv.Itoa(c), "STREAMS", key, ">")
		},
		Check: func(_ int, r loadgen.Reply) error {
			if r.Type != '*' || len(r.Elems) != 1 || len(r.Elems[0].Elems) != 2 || len(r.Elems[0].Elems[1].Elems) == 0 {
				return fmt.Errorf("got %s, want entries of one stream", r)
			}
			return nil
		},
	}
	units := (n + streamReadCount - 1) / streamReadCount
	if units > 0 {
		if _, err := loadgen.Pipelined(ctx, loadgen.PipeConfig{Addr: sv.p.Addr(), Conns: 1, Pipeline: 4, Units: int64(units)}, op); err != nil {
			return fmt.Errorf("%s: read %s into the pending list: %w", sv.name, key, err)
		}
	}
	v, err := sv.c.Do(ctx, "XPENDING", key, streamGroup).Slice()
	if err != nil || len(v) == 0 || v[0] != int64(n) {
		return fmt.Errorf("%s: XPENDING %s = %v (%v), want %d pending", sv.name, key, v, err, n)
	}
	return nil
}

// timeOnce times one command, whose reply must be the integer want.
func timeOnce(ctx context.Context, c *redis.Client, args []any, want int64) (time.Duration, error) {
	conn := c.Conn()
	defer conn.Close()
	if err := conn.Ping(ctx).Err(); err != nil {
		return 0, err
	}
	t0 := time.Now()
	n, err := conn.Do(ctx, args...).Int64()
	d := time.Since(t0)
	if err != nil {
		return 0, fmt.Errorf("%v: %w", args, err)
	}
	if n != want {
		return 0, fmt.Errorf("%v = %d, want %d", args, n, want)
	}
	return d, nil
}
