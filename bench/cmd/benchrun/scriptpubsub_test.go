package main

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/cairndb/cairn/bench/internal/loadgen"
)

func TestIncrSHA(t *testing.T) {
	// sha1sum of the script text, as SCRIPT LOAD returns it.
	if incrSHA != "61636018f4e6b5817b89791bbed242f93fa089e3" {
		t.Errorf("incrSHA = %s", incrSHA)
	}
}

func TestRandKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		k := randKey(rng, 1000)
		n, err := strconv.Atoi(strings.TrimPrefix(k, "key:"))
		if len(k) != 16 || !strings.HasPrefix(k, "key:") || err != nil || n < 0 || n >= 1000 {
			t.Fatalf("randKey = %q, want key:<12 digits> below 1000", k)
		}
	}
}

func TestTxOpCheck(t *testing.T) {
	op := txOp(settings{Keyspace: 10, DataSize: 4})
	ok := func(s string) loadgen.Reply { return loadgen.Reply{Type: '+', Str: []byte(s)} }
	exec := loadgen.Reply{Type: '*', Elems: []loadgen.Reply{ok("OK"), ok("OK"), ok("OK"), ok("OK"), ok("OK")}}
	good := []loadgen.Reply{ok("OK"), ok("QUEUED"), ok("QUEUED"), ok("QUEUED"), ok("QUEUED"), ok("QUEUED"), exec}
	if op.Replies != len(good) {
		t.Fatalf("Replies = %d, want %d", op.Replies, len(good))
	}
	for i, r := range good {
		if err := op.Check(i, r); err != nil {
			t.Errorf("reply %d %s: %v", i, r, err)
		}
	}
	bad := map[int]loadgen.Reply{
		0: ok("QUEUED"),
		3: ok("OK"),
		6: {Type: '*', Null: true}, // aborted by WATCH: not what this workload does
	}
	for i, r := range bad {
		if err := op.Check(i, r); err == nil {
			t.Errorf("reply %d %s accepted", i, r)
		}
	}
	short := exec
	short.Elems = short.Elems[:4]
	if err := op.Check(6, short); err == nil {
		t.Error("EXEC with 4 replies accepted")
	}
	cmds := string(op.Append(nil, rand.New(rand.NewPCG(1, 1))))
	if strings.Count(cmds, "$3\r\nSET\r\n") != 5 || !strings.HasPrefix(cmds, "*1\r\n$5\r\nMULTI\r\n") || !strings.HasSuffix(cmds, "*1\r\n$4\r\nEXEC\r\n") {
		t.Errorf("transaction = %q", cmds)
	}
}

// TestScriptPubSubWorkloadsAgainstRedis runs every workload of the
// scenario, tiny, against a real redis-server: what the harness sends is
// what Redis accepts, and every reply passes the workload's checks.
func TestScriptPubSubWorkloadsAgainstRedis(t *testing.T) {
	srv, c := testRedis(t, "redis")
	p, gc := srv.p, srv.c
	h := smokeHarness(t)
	set := h.set
	ctx := context.Background()
	for _, w := range scriptPubSubWorkloads {
		for _, pl := range []int{1, 4} {
			if w.Prefill != nil {
				if err := w.Prefill(ctx, gc, set, 100); err != nil {
					t.Fatalf("%s prefill: %v", w.Name, err)
				}
			}
			if w.Probe != nil {
				if ok, reason, err := probe(ctx, gc, w); !ok || err != nil {
					t.Fatalf("%s probe: %s %v", w.Name, reason, err)
				}
			}
			r, err := w.Run(ctx, h, p, 100, pl)
			if err != nil {
				t.Fatalf("%s -P %d: %v", w.Name, pl, err)
			}
			if !(r.RPS > 0) || math.IsNaN(r.P50Ms) {
				t.Errorf("%s -P %d: %+v", w.Name, pl, r)
			}
			if pub := w.Subscribers > 0; pub != (r.Delivered > 0) {
				t.Errorf("%s -P %d: %d subscribers, delivered %v msgs/s", w.Name, pl, w.Subscribers, r.Delivered)
			}
		}
	}
	// The script ran: the keys hold counts.
	if n, err := c.Do("DBSIZE"); err != nil || n.(int64) == 0 {
		t.Errorf("DBSIZE = %v, %v", n, err)
	}
}

func TestMarkdownScriptPubSub(t *testing.T) {
	r := sampleResults()
	pub := func(rps, delivered float64) benchRun {
		b := resCPU(rps, 0.5, 1, 20)
		b.Delivered, b.DeliveryP50Ms, b.DeliveryP99Ms = delivered, 0.7, 2
		return b
	}
	r.Matrix = append(r.Matrix, &matrixResult{
		Scenario: scriptPubSub, Title: scenarioTitles[scriptPubSub],
		Rows: []*matrixRow{
			{Workload: "EVALSHA", Pipeline: 1, Requests: 1000,
				Redis: []benchRun{resCPU(50000, 0.3, 0.5, 12), resCPU(50000, 0.3, 0.5, 12), resCPU(50000, 0.3, 0.5, 12)},
				Cairn: []benchRun{resCPU(20000, 0.4, 0.9, 30), resCPU(20000, 0.4, 0.9, 30), resCPU(20000, 0.4, 0.9, 30)}},
			{Workload: "PUBLISH_100", Pipeline: 16, Requests: 4000,
				Redis: []benchRun{pub(10000, 1e6), pub(10000, 1e6), pub(10000, 1e6)},
				Cairn: []benchRun{pub(9000, 8e5), pub(9000, 8e5), pub(9000, 8e5)}},
		},
		Skipped: []skip{{"MULTI_5xSET", "Cairn: ERR unknown command 'MULTI'"}},
	})
	md := r.markdown("")
	for _, want := range []string{
		"## Scripts, transactions and pub/sub",
		"- EVALSHA: `EVALSHA <sha> 1 key:<random>` of `return redis.call('INCR', KEYS[1])`",
		"| EVALSHA | 1,000 | 50,000 (50,000–50,000) | 20,000 (20,000–20,000) | **0.40×** (0.40–0.40) |",
		"### Pub/sub: messages delivered",
		"| PUBLISH_100 | 16 | 1,000,000 (1,000,000–1,000,000) | 800,000 (800,000–800,000) | **0.80×** (0.80–0.80) | 0.700 / 2.000 | 0.700 / 2.000 |",
		"| EVALSHA of a one-key INCR script | ≥ 0.5× Redis | 0.40× | **not met** |",
		"| PUBLISH to 100 subscribers, delivered msgs/s (-P 16) | ≥ 0.7× Redis | 0.80× | met |",
		"| MULTI + 5 SETs + EXEC, transactions/s | ≥ 0.5× Redis | – | not measured |",
		"- MULTI_5xSET — Cairn: ERR unknown command 'MULTI'",
		"- scripting-pubsub: not redis-benchmark but Cairn's own load generator",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// Rows of redis-benchmark have no delivery figures.
	if sm := r.find("strings", "SET", 1).summary(); sm.CairnDelivered.Valid() || !math.IsNaN(sm.DeliveredRatio) {
		t.Errorf("SET has delivery figures: %+v", sm)
	}
}
