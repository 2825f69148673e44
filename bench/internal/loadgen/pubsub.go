package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// PubSubConfig sets the shape of a publish/subscribe run.
type PubSubConfig struct {
	Addr        string
	Channel     string
	Subscribers int   // connections SUBSCRIBEd to Channel, each counting what it receives
	Publishers  int   // connections sending PUBLISH Channel <payload>
	Pipeline    int   // PUBLISHes a publisher sends together before reading their replies
	Messages    int64 // PUBLISHes in all, shared out among the publishers
	PayloadSize int   // bytes per message, at least 16 (the first 16 carry its send time)
	// Drain bounds the wait, after the last PUBLISH's reply, for the
	// subscribers to receive everything (default 30 s): past it the run
	// fails with the count that was lost.
	Drain   time.Duration
	Timeout time.Duration // bounds each publisher's batch (default 30 s)
}

// PubSubResult describes a publish/subscribe run.
type PubSubResult struct {
	Published int64
	Delivered int64 // messages received, all subscribers together
	// PublishElapsed runs from the start to the last PUBLISH's reply,
	// DeliverElapsed to the last message's receipt.
	PublishElapsed time.Duration
	DeliverElapsed time.Duration
	Publish        Latency // PUBLISH round trip, as Pipelined measures a unit
	// Delivery is each message's latency from its PUBLISH's send to its
	// receipt by a subscriber.
	Delivery Latency
}

// PublishesPerSec is the publishers' throughput.
func (r PubSubResult) PublishesPerSec() float64 {
	return float64(r.Published) / r.PublishElapsed.Seconds()
}

// DeliveredPerSec is the rate at which messages reached subscribers, all
// of them together, over the whole run.
func (r PubSubResult) DeliveredPerSec() float64 {
	return float64(r.Delivered) / r.DeliverElapsed.Seconds()
}

const stampLen = 16 // hex digits of nanoseconds since the run's start

// PubSub subscribes cfg.Subscribers connections to cfg.Channel, then has
// cfg.Publishers connections publish cfg.Messages messages to it, closed
// loop with cfg.Pipeline PUBLISHes in flight each, and waits until every
// subscriber has received every message. Each PUBLISH must report
// cfg.Subscribers receivers. A SUBSCRIBE or PUBLISH answered "unknown
// command" matches ErrUnknownCommand; a subscriber disconnected by the
// server (an output buffer limit) or a message lost fails the run.
func PubSub(ctx context.Context, cfg PubSubConfig) (PubSubResult, error) {
	if cfg.Subscribers <= 0 || cfg.Publishers <= 0 || cfg.Pipeline <= 0 || cfg.Messages <= 0 || cfg.PayloadSize < stampLen {
		return PubSubResult{}, fmt.Errorf("loadgen: Subscribers, Publishers, Pipeline and Messages must be positive and PayloadSize at least %d", stampLen)
	}
	timeout, drain := cfg.Timeout, cfg.Drain
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	if drain <= 0 {
		drain = 30 * time.Second
	}
	subs, err := dialAll(ctx, cfg.Addr, cfg.Subscribers)
	if err != nil {
		return PubSubResult{}, err
	}
	defer closeAll(subs)
	pubs, err := dialAll(ctx, cfg.Addr, cfg.Publishers)
	if err != nil {
		return PubSubResult{}, err
	}
	defer closeAll(pubs)

	readers := make([]*replyReader, len(subs))
	if err := subscribeAll(subs, readers, cfg.Channel); err != nil {
		return PubSubResult{}, err
	}

	errc := make(chan error, len(subs)+len(pubs))
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(rctx, func() { closeAll(subs); closeAll(pubs) })
	defer stop()
	fail := func(err error) {
		if rctx.Err() == nil {
			errc <- err
		}
		cancel()
	}

	start := time.Now()
	var subWG, pubWG sync.WaitGroup
	type subState struct {
		got  int64
		last time.Time
		rec  *Recorder
	}
	states := make([]subState, len(subs))
	want := []byte(cfg.Channel)
	for s, conn := range subs {
		states[s].rec = NewRecorder()
		subWG.Add(1)
		go func() {
			defer subWG.Done()
			st := &states[s]
			rr := readers[s]
			// No deadline while publishing: a subscriber may wait a while
			// for the next message. The drain below sets one.
			_ = conn.SetDeadline(time.Time{})
			for st.got < cfg.Messages {
				rep, err := rr.read()
				if errors.Is(err, os.ErrDeadlineExceeded) {
					fail(fmt.Errorf("subscriber %d received %d of %d messages, none more within %v of the last PUBLISH", s+1, st.got, cfg.Messages, drain))
					return
				}
				if err != nil {
					fail(fmt.Errorf("subscriber %d after %d of %d messages: %w (disconnected by the server? client-output-buffer-limit pubsub)", s+1, st.got, cfg.Messages, err))
					return
				}
				now := time.Now()
				if rep.Type != '*' || len(rep.Elems) != 3 || string(rep.Elems[0].Str) != "message" || !bytes.Equal(rep.Elems[1].Str, want) {
					fail(fmt.Errorf("subscriber %d: expected a message on %s, got %s", s+1, cfg.Channel, describe(rep)))
					return
				}
				msg := rep.Elems[2].Str
				if len(msg) != cfg.PayloadSize {
					fail(fmt.Errorf("subscriber %d: a message of %d bytes, want %d", s+1, len(msg), cfg.PayloadSize))
					return
				}
				sent, err := strconv.ParseInt(string(msg[:stampLen]), 16, 64)
				if err != nil {
					fail(fmt.Errorf("subscriber %d: message payload without its send time: %q", s+1, rep.Elems[2].Str))
					return
				}
				st.rec.Record(now.Sub(start.Add(time.Duration(sent))))
				st.got++
				st.last = now
			}
		}()
	}

	var next atomic.Int64
	pubRecs := make([]*Recorder, len(pubs))
	var lastPub atomic.Int64 // ns since start of the last PUBLISH reply
	pad := bytes.Repeat([]byte{'x'}, cfg.PayloadSize-stampLen)
	for p, conn := range pubs {
		pubRecs[p] = NewRecorder()
		pubWG.Add(1)
		go func() {
			defer pubWG.Done()
			rr := newReplyReader(conn)
			var buf, one []byte
			for {
				first := next.Add(int64(cfg.Pipeline)) - int64(cfg.Pipeline)
				if first >= cfg.Messages || rctx.Err() != nil {
					return
				}
				k := int(min(int64(cfg.Pipeline), cfg.Messages-first))
				t0 := time.Now()
				// One PUBLISH, stamped with the batch's send time, k times.
				one = append(one[:0], "*3\r\n$7\r\nPUBLISH\r\n"...)
				one = AppendBulk(one, cfg.Channel)
				one = append(one, '$')
				one = strconv.AppendInt(one, int64(cfg.PayloadSize), 10)
				one = append(one, '\r', '\n')
				one = fmt.Appendf(one, "%016x", int64(t0.Sub(start)))
				one = append(one, pad...)
				one = append(one, '\r', '\n')
				buf = buf[:0]
				for range k {
					buf = append(buf, one...)
				}
				_ = conn.SetDeadline(t0.Add(timeout))
				if _, err := conn.Write(buf); err != nil {
					fail(fmt.Errorf("PUBLISH: write: %w", err))
					return
				}
				for range k {
					rep, err := rr.read()
					switch {
					case err != nil:
						fail(fmt.Errorf("PUBLISH: read reply: %w", err))
						return
					case rep.Type == '-':
						fail(fmt.Errorf("PUBLISH: %w", &ReplyError{Msg: string(rep.Str)}))
						return
					case rep.Type != ':' || rep.Int != int64(cfg.Subscribers):
						fail(fmt.Errorf("PUBLISH reached %s receivers, want %d", rep, cfg.Subscribers))
						return
					}
					pubRecs[p].Record(time.Since(t0))
				}
				end := int64(time.Since(start))
				for {
					prev := lastPub.Load()
					if end <= prev || lastPub.CompareAndSwap(prev, end) {
						break
					}
				}
			}
		}()
	}
	pubWG.Wait()
	// Every message is published: the subscribers get drain to receive
	// the rest.
	deadline := time.Now().Add(drain)
	for _, c := range subs {
		_ = c.SetReadDeadline(deadline)
	}
	subWG.Wait()
	close(errc)
	if err := ctx.Err(); err != nil {
		return PubSubResult{}, err
	}
	if errs := collect(errc); len(errs) > 0 {
		return PubSubResult{}, errs[0]
	}
	res := PubSubResult{Published: cfg.Messages, PublishElapsed: time.Duration(lastPub.Load())}
	pubAll, delivery := NewRecorder(), NewRecorder()
	for _, r := range pubRecs {
		pubAll.Merge(r)
	}
	var last time.Time
	for _, st := range states {
		res.Delivered += st.got
		delivery.Merge(st.rec)
		if st.last.After(last) {
			last = st.last
		}
	}
	res.DeliverElapsed = last.Sub(start)
	res.Publish, res.Delivery = pubAll.Latency(), delivery.Latency()
	return res, nil
}

// subscribeAll sends SUBSCRIBE channel on every connection, then reads
// every confirmation, leaving each connection's reader in readers.
func subscribeAll(conns []net.Conn, readers []*replyReader, channel string) error {
	cmd := AppendCommand(nil, "SUBSCRIBE", channel)
	for i, c := range conns {
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := c.Write(cmd); err != nil {
			return fmt.Errorf("SUBSCRIBE (subscriber %d): %w", i+1, err)
		}
	}
	for i, c := range conns {
		readers[i] = newReplyReader(c)
		rep, err := readers[i].read()
		if err != nil {
			return fmt.Errorf("SUBSCRIBE (subscriber %d): %w", i+1, err)
		}
		if rep.Type == '-' {
			return fmt.Errorf("SUBSCRIBE: %w", &ReplyError{Msg: string(rep.Str)})
		}
		if rep.Type != '*' || len(rep.Elems) != 3 || string(rep.Elems[0].Str) != "subscribe" || rep.Elems[2].Int != 1 {
			return fmt.Errorf("SUBSCRIBE (subscriber %d): unexpected confirmation %s", i+1, describe(rep))
		}
	}
	return nil
}

// describe renders a reply, arrays with their elements, for errors.
func describe(r Reply) string {
	if r.Type != '*' || r.Null {
		return r.String()
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range r.Elems {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(describe(e))
	}
	b.WriteByte(']')
	return b.String()
}
