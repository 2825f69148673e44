package loadgen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

func TestAppendCommand(t *testing.T) {
	got := string(AppendCommand([]byte("x"), "SET", "k", ""))
	if want := "x*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"; got != want {
		t.Errorf("AppendCommand = %q, want %q", got, want)
	}
}

func TestReplyReader(t *testing.T) {
	in := "+OK\r\n-ERR unknown command 'X'\r\n:-42\r\n$3\r\nf\no\r\n$-1\r\n*-1\r\n" +
		"*3\r\n$7\r\nmessage\r\n*2\r\n:1\r\n$0\r\n\r\n+QUEUED\r\n$5\r\nhello\r\n"
	rr := newReplyReader(strings.NewReader(in))
	var got []string
	for {
		r, err := rr.read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(r.Type)+describe(r))
	}
	want := []string{`+"OK"`, `-"ERR unknown command 'X'"`, ":-42", `$"f\no"`, "$(nil)", "*(nil)",
		`*["message" [1 ""] "QUEUED"]`, `$"hello"`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("replies\n got %q\nwant %q", got, want)
	}
	for _, bad := range []string{"?x\r\n", ":x\r\n", "$-2\r\n", "$3\r\nabcde", "$99999999999\r\n", "+OK\n", "*1\r\n"} {
		if _, err := newReplyReader(strings.NewReader(bad)).read(); err == nil {
			t.Errorf("read(%q) accepted malformed input", bad)
		}
	}
	nested := strings.Repeat("*1\r\n", 20) + ":1\r\n"
	if _, err := newReplyReader(strings.NewReader(nested)).read(); err == nil {
		t.Error("20 nested arrays accepted")
	}
}

func TestReplyErrorUnknownCommand(t *testing.T) {
	err := fmt.Errorf("x: %w", &ReplyError{Msg: "ERR unknown command 'EVALSHA', with args beginning with: "})
	if !errors.Is(err, ErrUnknownCommand) {
		t.Error("unknown command reply does not match ErrUnknownCommand")
	}
	if errors.Is(&ReplyError{Msg: "NOSCRIPT No matching script"}, ErrUnknownCommand) {
		t.Error("NOSCRIPT matches ErrUnknownCommand")
	}
}

func redisAddr(t *testing.T) (string, *redistest.Conn) {
	c := redistest.Start(t)
	return c.Addr(), c
}

func incrOp(keys int) Op {
	return Op{
		Name: "INCR",
		Append: func(buf []byte, rng *rand.Rand) []byte {
			return AppendCommand(buf, "INCR", fmt.Sprintf("k:%d", rng.IntN(keys)))
		},
		Replies: 1,
		Check: func(_ int, r Reply) error {
			if r.Type != ':' || r.Int < 1 {
				return fmt.Errorf("INCR gave %s", r)
			}
			return nil
		},
	}
}

// TestPipelinedAgainstRedis runs exactly Units INCRs: the counters add up
// to it, whatever the pipeline depth and however the units split among
// the connections.
func TestPipelinedAgainstRedis(t *testing.T) {
	addr, c := redisAddr(t)
	for _, p := range []int{1, 7} {
		if _, err := c.Do("FLUSHALL"); err != nil {
			t.Fatal(err)
		}
		res, err := Pipelined(context.Background(), PipeConfig{Addr: addr, Conns: 3, Pipeline: p, Units: 1000, Seed: 1}, incrOp(10))
		if err != nil {
			t.Fatalf("-P %d: %v", p, err)
		}
		var sum int64
		for i := range 10 {
			v, err := c.Do("GET", fmt.Sprintf("k:%d", i))
			if err != nil {
				t.Fatal(err)
			}
			if b, ok := v.([]byte); ok {
				var n int64
				fmt.Sscan(string(b), &n)
				sum += n
			}
		}
		if sum != 1000 || res.Units != 1000 || res.Latency.Count != 1000 || !(res.UnitsPerSec() > 0) {
			t.Errorf("-P %d: counters sum to %d, result %+v; want 1000 INCRs", p, sum, res)
		}
	}
}

func TestPipelinedTransaction(t *testing.T) {
	addr, c := redisAddr(t)
	op := Op{
		Name: "MULTI/SET×2/EXEC",
		Append: func(buf []byte, rng *rand.Rand) []byte {
			buf = AppendCommand(buf, "MULTI")
			buf = AppendCommand(buf, "SET", fmt.Sprintf("t:%d", rng.IntN(50)), "v")
			buf = AppendCommand(buf, "SET", fmt.Sprintf("t:%d", rng.IntN(50)), "v")
			return AppendCommand(buf, "EXEC")
		},
		Replies: 4,
		Check: func(i int, r Reply) error {
			want := map[int]string{0: "OK", 1: "QUEUED", 2: "QUEUED"}[i]
			if i == 3 {
				if r.Type != '*' || len(r.Elems) != 2 || string(r.Elems[0].Str) != "OK" {
					return fmt.Errorf("EXEC gave %s", describe(r))
				}
				return nil
			}
			if string(r.Str) != want {
				return fmt.Errorf("got %s, want %s", r, want)
			}
			return nil
		},
	}
	res, err := Pipelined(context.Background(), PipeConfig{Addr: addr, Conns: 2, Pipeline: 16, Units: 500}, op)
	if err != nil {
		t.Fatal(err)
	}
	if res.Units != 500 {
		t.Errorf("units = %d", res.Units)
	}
	if n, err := c.Do("DBSIZE"); err != nil || n.(int64) == 0 {
		t.Errorf("DBSIZE = %v, %v after the transactions", n, err)
	}
	// A check that fails ends the run with its error.
	op.Check = func(int, Reply) error { return errors.New("rejected") }
	if _, err := Pipelined(context.Background(), PipeConfig{Addr: addr, Conns: 2, Pipeline: 4, Units: 100}, op); err == nil || !strings.Contains(err.Error(), "rejected") {
		t.Errorf("failing check: err = %v", err)
	}
}

func TestPipelinedUnknownCommand(t *testing.T) {
	addr, _ := redisAddr(t)
	op := Op{Name: "NOSUCH", Replies: 1, Append: func(buf []byte, _ *rand.Rand) []byte { return AppendCommand(buf, "NOSUCH", "x") }}
	_, err := Pipelined(context.Background(), PipeConfig{Addr: addr, Conns: 4, Pipeline: 16, Units: 10000}, op)
	if !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("err = %v, want ErrUnknownCommand", err)
	}
}

func TestPipelinedRejectsBadConfig(t *testing.T) {
	op := incrOp(1)
	for _, cfg := range []PipeConfig{{Conns: 0, Pipeline: 1, Units: 1}, {Conns: 1, Pipeline: 0, Units: 1}, {Conns: 1, Pipeline: 1, Units: 0}} {
		if _, err := Pipelined(context.Background(), cfg, op); err == nil {
			t.Errorf("Pipelined(%+v) accepted a bad config", cfg)
		}
	}
}

func TestPubSubAgainstRedis(t *testing.T) {
	addr, _ := redisAddr(t)
	for _, tc := range []struct{ subs, pubs, p int }{{1, 2, 1}, {5, 3, 8}} {
		cfg := PubSubConfig{Addr: addr, Channel: "bench", Subscribers: tc.subs, Publishers: tc.pubs, Pipeline: tc.p, Messages: 700, PayloadSize: 40}
		res, err := PubSub(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		want := int64(700 * tc.subs)
		if res.Published != 700 || res.Delivered != want || res.Delivery.Count != want || res.Publish.Count != 700 {
			t.Errorf("%+v: %+v; want 700 published, %d delivered", tc, res, want)
		}
		if !(res.PublishesPerSec() > 0) || !(res.DeliveredPerSec() > 0) || res.DeliverElapsed < res.Publish.P50 {
			t.Errorf("%+v: rates %v/s, %v/s, elapsed %v", tc, res.PublishesPerSec(), res.DeliveredPerSec(), res.DeliverElapsed)
		}
	}
}

// TestPubSubCountsReceivers fails a run whose PUBLISH reaches more
// subscribers than the run's own: the figures would not be what they say.
func TestPubSubCountsReceivers(t *testing.T) {
	addr, _ := redisAddr(t)
	other := redistest.Dial(t, addr)
	if _, err := other.Do("SUBSCRIBE", "bench"); err != nil {
		t.Fatal(err)
	}
	_, err := PubSub(context.Background(), PubSubConfig{Addr: addr, Channel: "bench", Subscribers: 2, Publishers: 1, Pipeline: 1, Messages: 10, PayloadSize: 16})
	if err == nil || !strings.Contains(err.Error(), "reached 3 receivers, want 2") {
		t.Errorf("err = %v", err)
	}
}

// TestPubSubLostMessages: a server that confirms every PUBLISH but
// delivers nothing fails the run once the drain time is up.
func TestPubSubLostMessages(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					args, err := readCommand(r)
					if err != nil {
						return
					}
					reply := ":1\r\n"
					switch strings.ToUpper(args[0]) {
					case "PING":
						reply = "+PONG\r\n"
					case "SUBSCRIBE":
						reply = "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n"
					}
					if _, err := io.WriteString(c, reply); err != nil {
						return
					}
				}
			}()
		}
	}()
	start := time.Now()
	_, err = PubSub(context.Background(), PubSubConfig{Addr: ln.Addr().String(), Channel: "c", Subscribers: 1, Publishers: 1, Pipeline: 2, Messages: 5, PayloadSize: 16, Drain: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "received 0 of 5 messages") {
		t.Errorf("err = %v, want lost messages", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %v to notice", time.Since(start))
	}
}

func TestPubSubUnknownCommand(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					args, err := readCommand(r)
					if err != nil {
						return
					}
					reply := "-ERR unknown command '" + args[0] + "', with args beginning with: \r\n"
					if strings.EqualFold(args[0], "PING") {
						reply = "+PONG\r\n"
					}
					if _, err := io.WriteString(c, reply); err != nil {
						return
					}
				}
			}()
		}
	}()
	_, err = PubSub(context.Background(), PubSubConfig{Addr: ln.Addr().String(), Channel: "c", Subscribers: 1, Publishers: 1, Pipeline: 1, Messages: 5, PayloadSize: 16})
	if !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("err = %v, want ErrUnknownCommand", err)
	}
}
