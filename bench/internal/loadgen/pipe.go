package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Op is the unit of a pipelined run: what redis-benchmark calls a request,
// except that it may be a sequence of commands (MULTI, five SETs, EXEC)
// counted, timed and checked as one.
type Op struct {
	Name string // for errors: "EVALSHA", "MULTI/SET×5/EXEC"
	// Append appends one unit's commands, RESP-encoded, to buf, drawing
	// any random keys from rng.
	Append func(buf []byte, rng *rand.Rand) []byte
	// Replies is how many replies one unit gets (MULTI, five SETs and
	// EXEC: 7).
	Replies int
	// Check, if set, checks reply i (0 ≤ i < Replies) of a unit. Error
	// replies never reach it: any of them ends the run.
	Check func(i int, r Reply) error
}

// PipeConfig sets the shape of a pipelined run.
type PipeConfig struct {
	Addr     string
	Conns    int   // connections, each with its own goroutine
	Pipeline int   // units sent together on a connection before reading their replies (-P)
	Units    int64 // units in all, shared out among the connections
	Seed     uint64
	// Timeout bounds each batch's round trip; a server that stops
	// answering fails the run instead of hanging it (default 30 s).
	Timeout time.Duration
}

// PipeResult describes a pipelined run.
type PipeResult struct {
	Units   int64
	Elapsed time.Duration
	// Latency is each unit's, from its batch's send to its last reply,
	// as redis-benchmark measures a pipelined request.
	Latency Latency
}

// UnitsPerSec is the run's throughput.
func (r PipeResult) UnitsPerSec() float64 { return float64(r.Units) / r.Elapsed.Seconds() }

// Pipelined runs cfg.Units units of op from cfg.Conns connections, closed
// loop: each connection sends up to cfg.Pipeline units, reads all their
// replies, and sends the next batch, until the units are used up. Any error
// reply, failed check or I/O error ends the run with that error; a reply
// "unknown command" matches ErrUnknownCommand.
func Pipelined(ctx context.Context, cfg PipeConfig, op Op) (PipeResult, error) {
	if cfg.Conns <= 0 || cfg.Pipeline <= 0 || cfg.Units <= 0 || op.Replies <= 0 || op.Append == nil {
		return PipeResult{}, errors.New("loadgen: Conns, Pipeline, Units and Replies must be positive")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	errc := make(chan error, cfg.Conns)
	conns, err := dialAll(ctx, cfg.Addr, cfg.Conns)
	if err != nil {
		return PipeResult{}, err
	}
	defer closeAll(conns)
	// The first failure, or the caller's cancel, closes every connection:
	// the other goroutines stop at once instead of running on.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(rctx, func() { closeAll(conns) })
	defer stop()
	fail := func(err error) {
		if rctx.Err() == nil {
			errc <- err
		}
		cancel()
	}

	var next atomic.Int64
	recs := make([]*Recorder, len(conns))
	var wg sync.WaitGroup
	start := time.Now()
	for w, conn := range conns {
		recs[w] = NewRecorder()
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(w)+1))
			rr := newReplyReader(conn)
			var buf []byte
			for {
				first := next.Add(int64(cfg.Pipeline)) - int64(cfg.Pipeline)
				if first >= cfg.Units || rctx.Err() != nil {
					return
				}
				k := int(min(int64(cfg.Pipeline), cfg.Units-first))
				buf = buf[:0]
				for range k {
					buf = op.Append(buf, rng)
				}
				t0 := time.Now()
				_ = conn.SetDeadline(t0.Add(timeout))
				if _, err := conn.Write(buf); err != nil {
					fail(fmt.Errorf("%s: write: %w", op.Name, err))
					return
				}
				for range k {
					for i := range op.Replies {
						rep, err := rr.read()
						if err != nil {
							fail(fmt.Errorf("%s: read reply: %w", op.Name, err))
							return
						}
						if rep.Type == '-' {
							fail(fmt.Errorf("%s: reply %d: %w", op.Name, i+1, &ReplyError{Msg: string(rep.Str)}))
							return
						}
						if op.Check != nil {
							if err := op.Check(i, rep); err != nil {
								fail(fmt.Errorf("%s: reply %d: %w", op.Name, i+1, err))
								return
							}
						}
					}
					recs[w].Record(time.Since(t0))
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errc)
	if err := ctx.Err(); err != nil {
		return PipeResult{}, err
	}
	if errs := collect(errc); len(errs) > 0 {
		return PipeResult{}, errs[0] // the first failure; the others are mostly its echo
	}
	all := NewRecorder()
	for _, r := range recs {
		all.Merge(r)
	}
	return PipeResult{Units: cfg.Units, Elapsed: elapsed, Latency: all.Latency()}, nil
}

// dialAll opens n connections to addr and checks each answers PING, so
// that connecting is not part of a measurement.
func dialAll(ctx context.Context, addr string, n int) ([]net.Conn, error) {
	conns := make([]net.Conn, 0, n)
	var d net.Dialer
	for range n {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			closeAll(conns)
			return nil, fmt.Errorf("connect to %s: %w", addr, err)
		}
		conns = append(conns, c)
	}
	// All PINGs first, then all replies: n round trips would take a while
	// for a few hundred connections on a busy machine.
	for _, c := range conns {
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := c.Write(AppendCommand(nil, "PING")); err != nil {
			closeAll(conns)
			return nil, fmt.Errorf("PING %s: %w", addr, err)
		}
	}
	for _, c := range conns {
		rep, err := newReplyReader(c).read()
		if err == nil && (rep.Type != '+' || string(rep.Str) != "PONG") {
			err = fmt.Errorf("got %s", rep)
		}
		if err != nil {
			closeAll(conns)
			return nil, fmt.Errorf("PING %s: %w", addr, err)
		}
	}
	return conns, nil
}

func closeAll(conns []net.Conn) {
	for _, c := range conns {
		_ = c.Close()
	}
}
