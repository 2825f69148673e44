package server

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClientReplyMatchesRedis sends CLIENT REPLY sequences as one pipeline
// to a real Redis and to Cairn and compares all that comes back: OFF drops
// every reply (its own included) until ON, SKIP drops its own and the next.
func TestClientReplyMatchesRedis(t *testing.T) {
	seqs := map[string][][]string{
		"off then on": {
			{"CLIENT", "REPLY", "OFF"}, {"SET", "a", "1"}, {"GET", "a"}, {"INCR", "nokey"}, {"LRANGE", "a", "0", "-1"},
			{"CLIENT", "REPLY", "ON"}, {"GET", "a"},
		},
		"skip": {
			{"CLIENT", "REPLY", "SKIP"}, {"SET", "b", "1"}, {"GET", "b"}, {"CLIENT", "REPLY", "SKIP"}, {"CLIENT", "REPLY", "SKIP"}, {"GET", "b"}, {"PING"},
		},
		"skip while off, bad mode": {
			{"CLIENT", "REPLY", "BOGUS"}, {"CLIENT", "REPLY", "OFF"}, {"CLIENT", "REPLY", "SKIP"}, {"PING"}, {"CLIENT", "REPLY", "ON"}, {"PING"},
		},
		"reset turns replies on": {
			{"CLIENT", "REPLY", "OFF"}, {"PING"}, {"RESET"}, {"PING"},
		},
		"multi while off": {
			{"CLIENT", "REPLY", "OFF"}, {"MULTI"}, {"SET", "m", "1"}, {"EXEC"}, {"CLIENT", "REPLY", "ON"}, {"GET", "m"},
		},
		// NO-TOUCH is Redis 7.2's, newer than the Redis installed here:
		// TestClientNoTouch checks it.
		"no-evict, unblock and pause errors": {
			{"CLIENT", "NO-EVICT", "on"}, {"CLIENT", "NO-EVICT", "maybe"}, {"CLIENT", "NO-EVICT", "off"},
			{"CLIENT", "UNBLOCK", "x"}, {"CLIENT", "UNBLOCK", "999999"}, {"CLIENT", "UNBLOCK", "1", "MAYBE"},
			{"CLIENT", "PAUSE", "x"}, {"CLIENT", "PAUSE", "-1"}, {"CLIENT", "PAUSE", "10", "SOME"},
		},
	}
	for name, seq := range seqs {
		t.Run(name, func(t *testing.T) {
			d := newDiffRun(t)
			var req strings.Builder
			for _, c := range seq {
				req.WriteString(wireCmd(c...))
			}
			req.WriteString(wireCmd("ECHO", "end"))
			want := pipelineReplies(t, d.redis.Addr(), req.String())
			ts := startServer(t)
			got := pipelineReplies(t, ts.addr, req.String())
			if got != want {
				t.Fatalf("Redis: %q\nCairn: %q", want, got)
			}
		})
	}
}

// pipelineReplies sends req on a new connection and returns everything
// that arrives up to the final ECHO end's reply.
func pipelineReplies(t *testing.T, addr, req string) string {
	t.Helper()
	p := dialPush(t, addr)
	if _, err := p.nc.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	deadline := time.Now().Add(5 * time.Second)
	for !strings.HasSuffix(got.String(), "$3\r\nend\r\n") && time.Now().Before(deadline) {
		got.WriteString(p.drain(50 * time.Millisecond))
	}
	return got.String()
}

// TestClientNoTouch: keys read by a NO-TOUCH client keep their idle time;
// TOUCH still touches.
func TestClientNoTouch(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.do("SET", "k", "v")
	time.Sleep(2100 * time.Millisecond)
	rc.do("CLIENT", "NO-TOUCH", "ON")
	rc.do("GET", "k")
	if got := rc.do("OBJECT", "IDLETIME", "k"); got == ":0\r\n" {
		t.Fatalf("GET under NO-TOUCH reset the idle time")
	}
	rc.do("TOUCH", "k")
	if got := rc.do("OBJECT", "IDLETIME", "k"); got != ":0\r\n" {
		t.Fatalf("TOUCH under NO-TOUCH left idle time %q", got)
	}
}

// TestClientUnblock: CLIENT UNBLOCK ends a blocking wait as a timeout, or
// with Redis's UNBLOCKED error, and answers 0 for a client not blocked.
func TestClientUnblock(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	blocked, ctl := ts.client(t, 2), ts.client(t, 2)
	id, err := blocked.ClientID(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := ctl.ClientUnblock(ctx, id).Result(); n != 0 {
		t.Fatalf("UNBLOCK of a client not blocked = %d", n)
	}
	for _, withError := range []bool{false, true} {
		done := make(chan error, 1)
		go func() { done <- blocked.BLPop(ctx, 0, "nolist").Err() }()
		var n int64
		for deadline := time.Now().Add(5 * time.Second); n == 0 && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			if withError {
				n, _ = ctl.ClientUnblockWithError(ctx, id).Result()
			} else {
				n, _ = ctl.ClientUnblock(ctx, id).Result()
			}
		}
		if n != 1 {
			t.Fatalf("UNBLOCK of a blocked client = %d", n)
		}
		err := <-done
		switch {
		case withError && (err == nil || err.Error() != "UNBLOCKED client unblocked via CLIENT UNBLOCK"):
			t.Fatalf("BLPOP unblocked with ERROR: %v", err)
		case !withError && !errors.Is(err, redis.Nil):
			t.Fatalf("BLPOP unblocked as a timeout: %v", err)
		}
	}
}

// TestClientPause: PAUSE WRITE holds writes and lets reads through; PAUSE
// ALL holds reads too; UNPAUSE releases them at once.
func TestClientPause(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	ctl, other := ts.client(t, 2), ts.client(t, 3)
	// PAUSE ALL (the default) holds every command of every client until
	// it ends, CLIENT UNPAUSE from another client included, as Redis 7 does.
	if err := ctl.ClientPause(ctx, 500*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := other.Get(ctx, "k").Err(); !errors.Is(err, redis.Nil) {
		t.Fatalf("GET after PAUSE ALL: %v", err)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Fatalf("GET waited %v of a 500 ms PAUSE ALL", waited)
	}
	done := make(chan error, 1)

	if err := ctl.Do(ctx, "CLIENT", "PAUSE", "10000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	if err := other.Get(ctx, "k").Err(); !errors.Is(err, redis.Nil) {
		t.Fatalf("GET during PAUSE WRITE: %v", err)
	}
	go func() { done <- other.Set(ctx, "k", "v", 0).Err() }()
	select {
	case err := <-done:
		t.Fatalf("SET ran during PAUSE WRITE: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := ctl.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("SET after UNPAUSE: %v", err)
	}
	// A short pause ends by itself.
	if err := ctl.Do(ctx, "CLIENT", "PAUSE", "100").Err(); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if err := other.Set(ctx, "k", "w", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < 50*time.Millisecond {
		t.Fatalf("SET did not wait for a 100 ms pause")
	}
}
