package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// GroupConfig sets the shape of a consumer-group run: Consumers
// connections drain a stream that holds Messages entries none of which the
// group has delivered yet.
type GroupConfig struct {
	Addr      string
	Key       string // the stream
	Group     string // an existing consumer group, its last-delivered id before every entry
	Consumers int    // connections, each a consumer named "c<i>"
	Count     int    // COUNT of each XREADGROUP
	Messages  int64  // entries in the stream, all of which the run must acknowledge
	// Timeout bounds each round trip (default 30 s).
	Timeout time.Duration
}

// GroupResult describes a consumer-group run.
type GroupResult struct {
	Acked   int64 // messages acknowledged, all consumers together
	Reads   int64 // XREADGROUP + XACK cycles that delivered messages
	Elapsed time.Duration
	// Latency is one cycle's: from the XREADGROUP's send to the XACK's
	// reply.
	Latency Latency
}

// AckedPerSec is the run's throughput in messages acknowledged per second.
func (r GroupResult) AckedPerSec() float64 { return float64(r.Acked) / r.Elapsed.Seconds() }

// ConsumeGroup runs cfg.Consumers consumers of one group, closed loop:
// each sends XREADGROUP GROUP <group> c<i> COUNT <count> STREAMS <key> >,
// then XACKs every id it got, and reads again, until the group has nothing
// more to deliver (a null reply). Every message must be delivered once and
// acknowledged: a total other than cfg.Messages, an XACK that acknowledges
// fewer ids than it names, or any error reply fails the run.
func ConsumeGroup(ctx context.Context, cfg GroupConfig) (GroupResult, error) {
	if cfg.Consumers <= 0 || cfg.Count <= 0 || cfg.Messages <= 0 || cfg.Key == "" || cfg.Group == "" {
		return GroupResult{}, errors.New("loadgen: Consumers, Count and Messages must be positive, Key and Group set")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	conns, err := dialAll(ctx, cfg.Addr, cfg.Consumers)
	if err != nil {
		return GroupResult{}, err
	}
	defer closeAll(conns)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(rctx, func() { closeAll(conns) })
	defer stop()
	errc := make(chan error, len(conns))
	fail := func(err error) {
		if rctx.Err() == nil {
			errc <- err
		}
		cancel()
	}

	var acked, reads atomic.Int64
	recs := make([]*Recorder, len(conns))
	var wg sync.WaitGroup
	start := time.Now()
	for w, conn := range conns {
		recs[w] = NewRecorder()
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, cycles, err := consume(rctx, conn, cfg, "c"+strconv.Itoa(w), timeout, recs[w])
			acked.Add(n)
			reads.Add(cycles)
			if err != nil {
				fail(fmt.Errorf("consumer c%d: %w", w, err))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errc)
	if err := ctx.Err(); err != nil {
		return GroupResult{}, err
	}
	if errs := collect(errc); len(errs) > 0 {
		return GroupResult{}, errs[0]
	}
	if got := acked.Load(); got != cfg.Messages {
		return GroupResult{}, fmt.Errorf("consumers acknowledged %d messages, want the stream's %d", got, cfg.Messages)
	}
	all := NewRecorder()
	for _, r := range recs {
		all.Merge(r)
	}
	return GroupResult{Acked: acked.Load(), Reads: reads.Load(), Elapsed: elapsed, Latency: all.Latency()}, nil
}

// consume is one consumer's loop; it returns the messages it acknowledged
// and its cycles.
func consume(ctx context.Context, conn net.Conn, cfg GroupConfig, name string, timeout time.Duration, rec *Recorder) (int64, int64, error) {
	rr := newReplyReader(conn)
	read := AppendCommand(nil, "XREADGROUP", "GROUP", cfg.Group, name, "COUNT", strconv.Itoa(cfg.Count), "STREAMS", cfg.Key, ">")
	var buf []byte
	var ids []string
	var acked, cycles int64
	for ctx.Err() == nil {
		t0 := time.Now()
		_ = conn.SetDeadline(t0.Add(timeout))
		if _, err := conn.Write(read); err != nil {
			return acked, cycles, fmt.Errorf("XREADGROUP: write: %w", err)
		}
		rep, err := rr.read()
		if err != nil {
			return acked, cycles, fmt.Errorf("XREADGROUP: read reply: %w", err)
		}
		if rep.Type == '-' {
			return acked, cycles, fmt.Errorf("XREADGROUP: %w", &ReplyError{Msg: string(rep.Str)})
		}
		if rep.Null {
			return acked, cycles, nil // the group has delivered every entry
		}
		if ids, err = entryIDs(ids[:0], rep, cfg.Key); err != nil {
			return acked, cycles, fmt.Errorf("XREADGROUP: %w", err)
		}
		if len(ids) == 0 || len(ids) > cfg.Count {
			return acked, cycles, fmt.Errorf("XREADGROUP COUNT %d delivered %d entries", cfg.Count, len(ids))
		}
		buf = appendXAck(buf[:0], cfg.Key, cfg.Group, ids)
		if _, err := conn.Write(buf); err != nil {
			return acked, cycles, fmt.Errorf("XACK: write: %w", err)
		}
		rep, err = rr.read()
		if err != nil {
			return acked, cycles, fmt.Errorf("XACK: read reply: %w", err)
		}
		if rep.Type != ':' || rep.Int != int64(len(ids)) {
			return acked, cycles, fmt.Errorf("XACK of %d ids gave %s", len(ids), rep)
		}
		rec.Record(time.Since(t0))
		acked += int64(len(ids))
		cycles++
	}
	return acked, cycles, ctx.Err()
}

// entryIDs appends to ids the entry ids of an XREADGROUP reply for one
// stream, RESP2: [[key, [[id, [field, value, ...]], ...]]].
func entryIDs(ids []string, rep Reply, key string) ([]string, error) {
	if rep.Type != '*' || len(rep.Elems) != 1 {
		return ids, fmt.Errorf("got %s, want one stream", rep)
	}
	s := rep.Elems[0]
	if s.Type != '*' || len(s.Elems) != 2 || string(s.Elems[0].Str) != key || s.Elems[1].Type != '*' {
		return ids, fmt.Errorf("got %s for the stream, want [%q, entries]", s, key)
	}
	for _, e := range s.Elems[1].Elems {
		if e.Type != '*' || len(e.Elems) != 2 || e.Elems[0].Type != '$' || e.Elems[0].Null {
			return ids, fmt.Errorf("malformed entry %s", e)
		}
		ids = append(ids, string(e.Elems[0].Str))
	}
	return ids, nil
}

func appendXAck(buf []byte, key, group string, ids []string) []byte {
	buf = append(buf, '*')
	buf = strconv.AppendInt(buf, int64(3+len(ids)), 10)
	buf = append(buf, '\r', '\n')
	buf = AppendBulk(buf, "XACK")
	buf = AppendBulk(buf, key)
	buf = AppendBulk(buf, group)
	for _, id := range ids {
		buf = AppendBulk(buf, id)
	}
	return buf
}
