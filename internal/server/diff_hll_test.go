package server

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/hll"
	"github.com/cairndb/cairn/internal/redistest"
)

// The differential tests of the HyperLogLog commands: the same elements
// added on redis-server and on Cairn give the same replies and the same
// bytes (GET) in the sparse and the dense forms, and an HLL made by Redis
// counts the same in Cairn.

// hllElement is a random element: short text, numbers, binary bytes.
func hllElement(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return strconv.FormatUint(r.Uint64N(1<<40), 10)
	case 1:
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return string(b)
	default:
		return "el:" + strconv.Itoa(r.IntN(1_000_000))
	}
}

// hllFill adds n random elements to key on both servers in random batches,
// comparing the replies and, now and then, the bytes and the count.
func hllFill(d *diffRun, r *rand.Rand, key string, n int) {
	d.t.Helper()
	for n > 0 {
		batch := min(n, 1+r.IntN(1+min(n, 2000)))
		if r.IntN(3) == 0 {
			batch = min(n, 1+r.IntN(8))
		}
		args := []string{"PFADD", key}
		for range batch {
			args = append(args, hllElement(r))
		}
		d.same(args...)
		n -= batch
		if r.IntN(4) == 0 {
			d.same("GET", key)
			d.same("PFCOUNT", key)
			d.same("GET", key)
		}
	}
	d.same("PFCOUNT", key)
	d.same("GET", key)
	d.same("PFDEBUG", "ENCODING", key)
}

func TestDiffHLL(t *testing.T) {
	d := newDiffRun(t)
	r := rand.New(rand.NewPCG(21, 3))
	sizes := []int{0, 1, 2, 10, 100, 300, 700, 1500, 3000, 20000, 100_000}
	for i, n := range sizes {
		key := "h" + strconv.Itoa(i)
		hllFill(d, r, key, n)
		d.same("PFDEBUG", "DECODE", key)
		d.same("PFCOUNT", key, "h0", "missing")
	}
	// Unions and merges of every shape: sparse into sparse, dense into
	// sparse, onto an existing destination, onto itself.
	for range 40 {
		a := "h" + strconv.Itoa(r.IntN(len(sizes)))
		b := "h" + strconv.Itoa(r.IntN(len(sizes)))
		c := "h" + strconv.Itoa(r.IntN(len(sizes)))
		d.same("PFCOUNT", a, b, c)
		dest := []string{"m1", "m2", a}[r.IntN(3)]
		d.same("PFMERGE", dest, a, b)
		d.same("GET", dest)
		d.same("PFCOUNT", dest)
		d.same("GET", dest)
		d.same("PFDEBUG", "ENCODING", dest)
	}
	d.same("PFMERGE", "empty")
	d.same("GET", "empty")
	d.same("PFMERGE", "m3", "nothere")
	d.same("GET", "m3")
	// PFDEBUG turns an HLL dense and shows its registers.
	for _, key := range []string{"h1", "h4", "h9"} {
		d.same("PFDEBUG", "GETREG", key)
		d.same("GET", key)
		d.same("PFDEBUG", "TODENSE", key)
		d.same("PFDEBUG", "DECODE", key)
		d.same("PFADD", key, "more", "elements")
		d.same("GET", key)
	}
	d.same("PFDEBUG", "TODENSE", "h5")
	d.same("GET", "h5")
	d.same("PFDEBUG", "todense", "h5")
}

// TestDiffHLLSparseMaxBytes runs the sparse to dense promotion under other
// limits of hll-sparse-max-bytes.
func TestDiffHLLSparseMaxBytes(t *testing.T) {
	d := newDiffRun(t)
	r := rand.New(rand.NewPCG(7, 7))
	for _, bad := range []string{"-1", "abc", "1kb", "9223372036854775808", ""} {
		d.same("CONFIG", "SET", "hll-sparse-max-bytes", bad)
		d.same("CONFIG", "GET", "hll-sparse-max-bytes")
	}
	for _, limit := range []string{"0", "18", "100", "5000", "12000"} {
		d.same("CONFIG", "SET", "hll-sparse-max-bytes", limit)
		d.same("CONFIG", "GET", "hll-sparse-max-bytes")
		key := "s" + limit
		hllFill(d, r, key, 50)
		hllFill(d, r, key, 2000)
		d.same("PFMERGE", "t"+limit, "h"+limit, key)
		d.same("GET", "t"+limit)
	}
}

func TestDiffHLLErrors(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) { diffHLLErrors(t, proto) })
	}
}

func diffHLLErrors(t *testing.T, proto int) {
	d := newDiffRunProto(t, proto)
	d.same("RPUSH", "list", "a")
	d.same("SET", "str", "hello")
	d.same("SET", "short", "HYLL")
	d.same("SET", "badenc", "HYLL\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff")
	d.same("SET", "baddense", "HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	// Sparse opcodes that do not cover the 16384 registers.
	d.same("SET", "corrupt", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\x00")
	d.same("SET", "corrupt2", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff\x80")
	for _, key := range []string{"list", "str", "short", "badenc", "baddense", "corrupt", "corrupt2", "nokey"} {
		d.same("PFADD", key, "a", "b")
		d.same("PFADD", key)
		d.same("PFCOUNT", key)
		d.same("PFCOUNT", key, "nokey")
		d.same("PFMERGE", "dest", key)
		d.same("PFMERGE", key, "nokey")
		d.same("PFDEBUG", "ENCODING", key)
		d.same("PFDEBUG", "DECODE", key)
		d.same("PFDEBUG", "GETREG", key)
		d.same("PFDEBUG", "TODENSE", key)
		d.same("PFDEBUG", "nosuch", key)
		d.same("GET", key)
		d.same("TYPE", key)
	}
	d.same("PFADD")
	d.same("PFCOUNT")
	d.same("PFMERGE")
	d.same("PFDEBUG", "GETREG")
	d.same("PFSELFTEST", "x")
	d.same("PFADD", "h", "x")
	d.same("PFDEBUG", "Nosuch", "h")
	d.same("PFDEBUG", "decode", "h")
	d.same("EXPIRE", "h", "1000")
	d.same("PFADD", "h", "y")
	d.same("TTL", "h")
	d.same("PFCOUNT", "h")
	d.same("TTL", "h")
	d.same("OBJECT", "ENCODING", "h")
}

// TestDiffHLLCorrupt feeds both servers HLLs with random damage to their
// sparse opcodes and to their cached cardinality: they must agree on every
// reply, and Cairn must not crash.
func TestDiffHLLCorrupt(t *testing.T) {
	for _, n := range []int{40, 400} {
		t.Run(strconv.Itoa(n), func(t *testing.T) { diffHLLCorrupt(t, n) })
	}
}

// hllCorruptRounds is how many damaged HLLs each run tries.
var hllCorruptRounds = 1000

func diffHLLCorrupt(t *testing.T, size int) {
	d := newDiffRun(t)
	r := rand.New(rand.NewPCG(99, uint64(size)))
	hllFill(d, r, "src", size)
	good, err := d.redis.Do("GET", "src")
	if err != nil {
		t.Fatal(err)
	}
	for i := range hllCorruptRounds {
		b := bytes.Clone(good.([]byte))
		for range 1 + r.IntN(3) {
			switch p := hll.HeaderSize + r.IntN(len(b)-hll.HeaderSize+1); {
			case r.IntN(5) == 0:
				b = append(b[:p:p], append([]byte{byte(r.UintN(256))}, b[p:]...)...)
			case p < len(b) && r.IntN(4) == 0:
				b = append(b[:p:p], b[p+1:]...)
			case p < len(b):
				b[p] = byte(r.UintN(256))
			}
		}
		if r.IntN(3) == 0 {
			b[8+r.IntN(8)] = byte(r.UintN(256))
		}
		key := "c" + strconv.Itoa(i%7)
		d.same("SET", key, string(b))
		switch r.IntN(7) {
		case 5:
			d.same("PFDEBUG", "TODENSE", key)
		case 6:
			// A PFADD that meets the damage keeps what it changed
			// before, inside a transaction too.
			multi := r.IntN(2) == 0
			if multi {
				d.same("MULTI")
			}
			d.same("PFADD", key, hllElement(r), hllElement(r))
			d.same("PFADD", key, hllElement(r))
			if multi {
				d.same("EXEC")
			}
		case 0:
			d.same("PFADD", key, hllElement(r), hllElement(r), hllElement(r))
		case 1:
			d.same("PFCOUNT", key)
		case 2:
			d.same("PFMERGE", "dst"+strconv.Itoa(i%3), key)
		case 3:
			d.same("PFDEBUG", "DECODE", key)
		default:
			d.same("PFCOUNT", key, "src")
		}
		d.same("GET", key)
	}
	for i := range 3 {
		d.same("GET", "dst"+strconv.Itoa(i))
	}
}

// TestDiffHLLFromRedis copies HLLs made by Redis into Cairn alone and
// back: each counts the same on the other server.
func TestDiffHLLFromRedis(t *testing.T) {
	d := newDiffRun(t)
	r := rand.New(rand.NewPCG(5, 55))
	for i, n := range []int{5, 500, 5000, 50000} {
		args := []any{"PFADD", "r"}
		for range n {
			args = append(args, hllElement(r))
		}
		if _, err := d.redis.Do(args...); err != nil {
			t.Fatal(err)
		}
		b, err := d.redis.Do("GET", "r")
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("copy%d", i)
		if _, err := d.redis.Do("SET", key, b); err != nil {
			t.Fatal(err)
		}
		if _, err := d.cairn.Do("SET", key, b); err != nil {
			t.Fatal(err)
		}
		d.same("PFCOUNT", key)
		d.same("PFCOUNT", key, "copy0")
		d.same("PFADD", key, "one", "more")
		d.same("GET", key)
		d.same("PFCOUNT", key)

		// And the other way: an HLL Cairn made, read in Redis.
		args[1] = "own"
		if _, err := d.cairn.Do(args...); err != nil {
			t.Fatal(err)
		}
		own, err := d.cairn.Do("GET", "own")
		if err != nil {
			t.Fatal(err)
		}
		back := fmt.Sprintf("back%d", i)
		for _, c := range []*redistest.Conn{d.redis, d.cairn} {
			if _, err := c.Do("SET", back, own); err != nil {
				t.Fatal(err)
			}
		}
		d.same("PFCOUNT", back)
		d.same("PFCOUNT", back, key)
		d.same("PFMERGE", back, key)
		d.same("GET", back)
	}
}

// TestDiffHLLCommandInfo compares the commands' table entries: flags, key
// specifications, ACL categories. PFCOUNT is left out: Redis 7.2 lists its
// may_replicate flag, which the redis-server 7.0.15 at hand does not print.
func TestDiffHLLCommandInfo(t *testing.T) {
	d := newDiffRun(t)
	for _, name := range []string{"pfadd", "pfmerge", "pfdebug", "pfselftest"} {
		d.same("COMMAND", "INFO", name)
	}
	d.same("COMMAND", "GETKEYSANDFLAGS", "PFMERGE", "d", "a", "b")
	d.same("COMMAND", "GETKEYSANDFLAGS", "PFCOUNT", "a", "b")
	d.same("COMMAND", "GETKEYS", "PFDEBUG", "GETREG", "k")
	// Not compared: COMMAND GETKEYS PFMERGE with no source key, which Redis
	// refuses (its second key spec fails) and Cairn answers with the
	// destination, the key the command must lock.
}

// TestNotifyHLLMatchesRedis compares the keyspace events of the
// HyperLogLog commands with Redis's: "pfadd" for PFADD and PFMERGE,
// "new" for a created key, "keymiss" for PFCOUNT's and PFMERGE's reads.
func TestNotifyHLLMatchesRedis(t *testing.T) {
	seq := cmds("PFADD h a b c", "PFADD h a", "PFADD h", "PFADD e", "PFCOUNT h", "PFCOUNT h",
		"PFCOUNT nope", "PFCOUNT h nope", "PFMERGE m h nope", "PFMERGE m", "PFMERGE m2",
		"PFDEBUG TODENSE h", "PFDEBUG GETREG m", "PFADD h x y z", "SET s x", "PFADD s a",
		"PFCOUNT s", "PFMERGE m s", "LPUSH l x", "PFADD l a", "EXPIRE h 100", "PFADD h q")
	for _, classes := range []string{"KEA", "KEAmn", "E$m"} {
		t.Run(classes, func(t *testing.T) {
			d := newDiffRun(t)
			rsub := notifySubscriber(t, d.redis.Addr())
			csub := notifySubscriber(t, d.cairn.Addr())
			d.same("CONFIG", "SET", "notify-keyspace-events", classes)
			for _, c := range seq {
				d.same(c...)
			}
			want := drainEvents(t, d.redis, rsub)
			got := drainEvents(t, d.cairn, csub)
			if i := firstDifference(want, got); i >= 0 {
				t.Errorf("events differ from #%d\nRedis:\n  %s\nCairn:\n  %s", i,
					strings.Join(want, "\n  "), strings.Join(got, "\n  "))
			}
		})
	}
}

// TestHLLCacheWriteBack checks that PFCOUNT of one key stores the
// cardinality it computed, as a write: a WATCH on the key fails, inside
// MULTI the cache is written too, and a read-only script only reads.
func TestHLLCacheWriteBack(t *testing.T) {
	d := newDiffRun(t)
	d.same("PFADD", "h", "a", "b", "c")
	d.same("GET", "h")
	d.same("WATCH", "h")
	d.same("PFCOUNT", "h")
	d.same("MULTI")
	d.same("SET", "other", "1")
	d.same("EXEC")
	d.same("GET", "h")
	d.same("PFADD", "h", "d")
	d.same("MULTI")
	d.same("PFCOUNT", "h")
	d.same("PFCOUNT", "h", "h")
	d.same("EXEC")
	d.same("GET", "h")
	d.same("PFADD", "h", "e")
	d.same("EVAL_RO", "return redis.call('pfcount', KEYS[1])", "1", "h")
	d.same("EVAL", "return redis.call('pfcount', KEYS[1])", "1", "h")
	d.same("GET", "h")
	d.same("PFSELFTEST")
}

// TestDiffHLLRandom runs random sequences of every HyperLogLog command over
// a few keys, with hll-sparse-max-bytes changing under them, comparing
// every reply and the keys' bytes.
func TestDiffHLLRandom(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			d := newDiffRun(t)
			r := rand.New(rand.NewPCG(seed, 21))
			keys := []string{"a", "b", "c", "d"}
			key := func() string { return keys[r.IntN(len(keys))] }
			for range 400 {
				k := key()
				switch r.IntN(10) {
				case 0, 1, 2:
					hllFill(d, r, k, r.IntN(1+[]int{10, 200, 3000}[r.IntN(3)]))
				case 3:
					d.same("PFMERGE", k, key(), key())
				case 4:
					d.same("PFCOUNT", k, key(), key())
				case 5:
					d.same("PFDEBUG", []string{"TODENSE", "ENCODING", "DECODE", "GETREG"}[r.IntN(4)], k)
				case 6:
					d.same("CONFIG", "SET", "hll-sparse-max-bytes", []string{"0", "50", "500", "3000", "10000"}[r.IntN(5)])
				case 7:
					d.same("PFADD", k)
				case 8:
					d.same("COPY", k, key(), "REPLACE")
				default:
					d.same("PFCOUNT", k)
				}
				d.same("GET", k)
			}
		})
	}
}

// TestDiffHLLRestore restores Redis's DUMP of an HLL, sparse and dense,
// into Cairn: it counts, merges and grows the same.
func TestDiffHLLRestore(t *testing.T) {
	d := newDiffRun(t)
	r := rand.New(rand.NewPCG(8, 80))
	for i, n := range []int{20, 20000} {
		src := "src" + strconv.Itoa(i)
		hllFill(d, r, src, n)
		payload, err := d.redis.Do("DUMP", src)
		if err != nil {
			t.Fatal(err)
		}
		dst := "restored" + strconv.Itoa(i)
		d.same("RESTORE", dst, "0", string(payload.([]byte)))
		d.same("GET", dst)
		d.same("PFCOUNT", dst)
		d.same("PFCOUNT", dst, src)
		d.same("PFADD", dst, "x", "y", "z")
		d.same("GET", dst)
	}
}
