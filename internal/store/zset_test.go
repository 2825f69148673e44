package store

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/encoding"
)

// zreadLatency times reading range r of key from a reading Tx, which must
// return want members: the median of 11 batches of n calls' mean, so that
// a burst of other work on the machine (a compaction, another process)
// does not pass for the cost of the read.
func zreadLatency(b *testing.B, s *Store, key []byte, r ZRange, want, n int) time.Duration {
	var batches [11]time.Duration
	for i := range batches {
		start := time.Now()
		for range n {
			tx := s.Read(false)
			ms, err := tx.ZRange(0, key, r)
			tx.Close()
			if err != nil || len(ms) != want {
				b.Fatalf("ZRANGE %+v = %d members, %v; want %d", r, len(ms), err, want)
			}
		}
		batches[i] = time.Since(start) / time.Duration(n)
	}
	slices.Sort(batches[:])
	return batches[len(batches)/2]
}

// zremEndRangeTombstone removes the lowest member with a range tombstone
// of its own over its score index entry, however short the run: the
// alternative to zdropRun's point tombstones that BenchmarkZSetHeadChurn
// compares with. It keeps the bounds as the real paths do.
func zremEndRangeTombstone(tx *Tx, key []byte) error {
	z, err := tx.openZSet(0, key)
	if err != nil || !z.c.Exists {
		return err
	}
	p := z.c.Prefix(encoding.FamilyScore)
	it, err := tx.r.NewIter(zboundKeys(p, z.bounds))
	if err != nil {
		return err
	}
	var k []byte
	if it.First() {
		k = bytes.Clone(it.Key())
	}
	if err := it.Close(); err != nil || k == nil {
		return err
	}
	score, m, err := zentry(k, len(p))
	if err != nil {
		return err
	}
	if err := tx.del(z.c, z.subKey(m)); err != nil {
		return err
	}
	if err := tx.b.DeleteRange(k, append(k, 0)); err != nil {
		return err
	}
	z.left(encoding.ScoreBits(score), nil)
	z.c.Meta.Size--
	return z.save()
}

var zchurnSteps = flag.Int("zset-churn", 20_000, "churn steps of BenchmarkZSetHeadChurn (the RangeTombstoneEach variant does a tenth)")

// BenchmarkZSetHeadChurn is the hot-zset churn of issue 3, bounded: a
// sorted set of 1,000 members gets a new member at one end and loses one
// at the other, 20,000 times (-zset-churn), and reads are timed before
// and after: the end that loses members (ZRANGE 0 10 for head churn,
// ZREVRANGE 0 10 for tail churn: "end-before", "end-after", and their
// ratio "after/before") and the middle (ZRANGE 495 505: "mid-before",
// "mid-after"). Variants:
//
//   - head/...: a new highest member each step, the lowest removed by
//     ZREMRANGEBYRANK 0 0, ZPOPMIN, ZREMRANGEBYSCORE -inf <score>, ZREM of
//     its name, or (ZREMRANGEBYRANK64) ZREMRANGEBYRANK 0 63 every 64 steps,
//     a run long enough for one range tombstone;
//   - head/RangeTombstoneEach: a range tombstone for every removal instead
//     of zdropRun's point tombstones (the alternative it rejects);
//   - tail/...: a new lowest member each step, the highest removed by
//     ZREMRANGEBYRANK -1 -1 or ZPOPMAX;
//   - middle/ZADD: the set's size stays, a member in the middle third gets
//     a new score in the middle third each step (a leaderboard): its old
//     entry is a tombstone inside the live range.
//
// Every removed entry stays a tombstone until a flush and compactions drop
// it. The score bounds in the metadata keep reads from the churned end
// (and the removals' own walks) off the dead entries beyond them, so
// end-after stays at end-before whatever the churn. They do nothing for
// tombstones inside the live range (middle/ZADD), which a walk through the
// middle still steps over, nor for the re-fragmentation of a memtable's
// range tombstones by each new iterator (RangeTombstoneEach).
func BenchmarkZSetHeadChurn(b *testing.B) {
	const size = 1000
	name := func(i int) []byte { return []byte(fmt.Sprintf("member:%d", i)) }
	add := func(b *testing.B, s *Store, key []byte, m int, score float64) {
		benchWrite(b, s, key, func(tx *Tx) error {
			_, err := tx.ZAdd(0, key, ZAddArgs{}, []ZMember{{Member: name(m), Score: score}})
			return err
		})
	}
	rem := func(b *testing.B, s *Store, key []byte, r ZRange) {
		benchWrite(b, s, key, func(tx *Tx) error {
			n, err := tx.ZRemRange(0, key, r)
			if err == nil && n == 0 {
				err = errors.New("removed nothing")
			}
			return err
		})
	}
	pop := func(b *testing.B, s *Store, key []byte, highest bool) {
		benchWrite(b, s, key, func(tx *Tx) error {
			ms, err := tx.ZPop(0, key, highest, 1)
			if err == nil && len(ms) != 1 {
				err = errors.New("popped nothing")
			}
			return err
		})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, v := range []struct {
		name  string
		tail  bool
		steps int
		// step makes the i-th churn step.
		step func(b *testing.B, s *Store, key []byte, i int)
	}{
		{"head/ZREMRANGEBYRANK", false, 1, func(b *testing.B, s *Store, key []byte, i int) {
			add(b, s, key, size+i, float64(size+i))
			rem(b, s, key, ZRange{By: ZByRank, Start: 0, Stop: 0})
		}},
		{"head/ZPOPMIN", false, 1, func(b *testing.B, s *Store, key []byte, i int) {
			add(b, s, key, size+i, float64(size+i))
			pop(b, s, key, false)
		}},
		{"head/ZREMRANGEBYSCORE", false, 1, func(b *testing.B, s *Store, key []byte, i int) {
			add(b, s, key, size+i, float64(size+i))
			rem(b, s, key, ZRange{By: ZByScore, Min: ScoreBound{Score: math.Inf(-1)}, Max: ScoreBound{Score: float64(i)}})
		}},
		{"head/ZREM", false, 1, func(b *testing.B, s *Store, key []byte, i int) {
			add(b, s, key, size+i, float64(size+i))
			benchWrite(b, s, key, func(tx *Tx) error {
				_, err := tx.ZRem(0, key, [][]byte{name(i)})
				return err
			})
		}},
		{"head/ZREMRANGEBYRANK64", false, 1, func(b *testing.B, s *Store, key []byte, i int) {
			add(b, s, key, size+i, float64(size+i))
			if i%64 == 63 {
				rem(b, s, key, ZRange{By: ZByRank, Start: 0, Stop: 63})
			}
		}},
		{"head/RangeTombstoneEach", false, 10, func(b *testing.B, s *Store, key []byte, i int) {
			add(b, s, key, size+i, float64(size+i))
			benchWrite(b, s, key, func(tx *Tx) error { return zremEndRangeTombstone(tx, key) })
		}},
		{"tail/ZREMRANGEBYRANK", true, 1, func(b *testing.B, s *Store, key []byte, i int) {
			add(b, s, key, size+i, float64(-1-i))
			rem(b, s, key, ZRange{By: ZByRank, Start: -1, Stop: -1})
		}},
		{"tail/ZPOPMAX", true, 1, func(b *testing.B, s *Store, key []byte, i int) {
			add(b, s, key, size+i, float64(-1-i))
			pop(b, s, key, true)
		}},
		{"middle/ZADD", false, 1, func(b *testing.B, s *Store, key []byte, i int) {
			add(b, s, key, size/3+rng.IntN(size/3), float64(size/3)+rng.Float64()*size/3)
		}},
	} {
		b.Run(v.name, func(b *testing.B) {
			churn := *zchurnSteps / v.steps
			end := ZRange{By: ZByRank, Start: 0, Stop: 10, Rev: v.tail}
			mid := ZRange{By: ZByRank, Start: size/2 - 5, Stop: size/2 + 5}
			for range b.N {
				s := openBenchStore(b, 0, nil)
				key := []byte("hot")
				benchWrite(b, s, key, func(tx *Tx) error {
					pairs := make([]ZMember, size)
					for i := range pairs {
						pairs[i] = ZMember{Member: name(i), Score: float64(i)}
					}
					_, err := tx.ZAdd(0, key, ZAddArgs{}, pairs)
					return err
				})
				endBefore := zreadLatency(b, s, key, end, 11, 100)
				midBefore := zreadLatency(b, s, key, mid, 11, 100)
				t0 := time.Now()
				for i := range churn {
					v.step(b, s, key, i)
				}
				elapsed := time.Since(t0)
				endAfter := zreadLatency(b, s, key, end, 11, 100)
				midAfter := zreadLatency(b, s, key, mid, 11, 100)
				b.ReportMetric(float64(endBefore.Nanoseconds()), "ns/end-before")
				b.ReportMetric(float64(endAfter.Nanoseconds()), "ns/end-after")
				b.ReportMetric(float64(endAfter)/float64(endBefore), "after/before")
				b.ReportMetric(float64(midBefore.Nanoseconds()), "ns/mid-before")
				b.ReportMetric(float64(midAfter.Nanoseconds()), "ns/mid-after")
				b.ReportMetric(float64(churn)/elapsed.Seconds(), "steps/s")
			}
		})
	}
}

// --- Helpers -------------------------------------------------------------------

// zadd adds "member score" pairs written as alternating strings.
func zadd(t testing.TB, s *Store, key string, pairs ...any) {
	t.Helper()
	var ms []ZMember
	for i := 0; i < len(pairs); i += 2 {
		ms = append(ms, ZMember{Member: []byte(pairs[i].(string)), Score: toFloat(pairs[i+1])})
	}
	writeTx(t, s, []string{key}, func(tx *Tx) (ZAddResult, error) { return tx.ZAdd(0, []byte(key), ZAddArgs{}, ms) })
}

func toFloat(v any) float64 {
	switch v := v.(type) {
	case int:
		return float64(v)
	case float64:
		return v
	}
	panic(fmt.Sprintf("score %v", v))
}

// zstr renders members as "m:score m:score".
func zstr(ms []ZMember) string {
	var b strings.Builder
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%g", m.Member, m.Score)
	}
	return b.String()
}

func zall(t testing.TB, s *Store, key string) string {
	t.Helper()
	return zstr(readTx(t, s, func(tx *Tx) ([]ZMember, error) {
		return tx.ZRange(0, []byte(key), ZRange{By: ZByRank, Start: 0, Stop: -1})
	}))
}

// zmakeSet writes a plain set (docs/encoding.md: member → empty value)
// without going through the set type's code.
func zmakeSet(t testing.TB, s *Store, key string, members ...string) {
	t.Helper()
	writeTx(t, s, []string{key}, func(tx *Tx) (bool, error) {
		c, err := tx.openCollection(0, []byte(key), encoding.TypeSet)
		if err != nil {
			return false, err
		}
		if err := tx.create(c); err != nil {
			return false, err
		}
		for _, m := range members {
			if err := tx.set(c, c.SubKey([]byte(m)), nil); err != nil {
				return false, err
			}
			c.Meta.Size++
		}
		return true, tx.save(c)
	})
}

// --- ZADD ------------------------------------------------------------------------

func TestZAddConditions(t *testing.T) {
	type pair = ZMember
	p := func(m string, s float64) pair { return pair{Member: []byte(m), Score: s} }
	for _, tc := range []struct {
		name    string
		args    ZAddArgs
		pairs   []pair
		want    ZAddResult
		after   string
		wantErr error
	}{
		{"add and update", ZAddArgs{}, []pair{p("a", 5), p("n", 9)}, ZAddResult{Added: 1, Updated: 1, Score: 9, Done: true}, "b:2 c:3 a:5 n:9", nil},
		{"same score is no update", ZAddArgs{}, []pair{p("a", 1)}, ZAddResult{Score: 1, Done: true}, "a:1 b:2 c:3", nil},
		{"NX skips existing", ZAddArgs{NX: true}, []pair{p("a", 7), p("n", 4)}, ZAddResult{Added: 1, Score: 4, Done: true}, "a:1 b:2 c:3 n:4", nil},
		{"XX skips new", ZAddArgs{XX: true}, []pair{p("a", 7), p("n", 4)}, ZAddResult{Updated: 1, Score: 7, Done: true}, "b:2 c:3 a:7", nil},
		{"GT only raises", ZAddArgs{GT: true}, []pair{p("a", 0), p("b", 10), p("n", -1)}, ZAddResult{Added: 1, Updated: 1, Score: -1, Done: true}, "n:-1 a:1 c:3 b:10", nil},
		{"LT only lowers", ZAddArgs{LT: true}, []pair{p("a", 0), p("b", 10)}, ZAddResult{Updated: 1, Score: 0, Done: true}, "a:0 b:2 c:3", nil},
		{"INCR", ZAddArgs{Incr: true}, []pair{p("b", 2.5)}, ZAddResult{Updated: 1, Score: 4.5, Done: true}, "a:1 c:3 b:4.5", nil},
		{"INCR new member", ZAddArgs{Incr: true}, []pair{p("n", 2.5)}, ZAddResult{Added: 1, Score: 2.5, Done: true}, "a:1 b:2 n:2.5 c:3", nil},
		{"INCR NX existing", ZAddArgs{Incr: true, NX: true}, []pair{p("b", 1)}, ZAddResult{}, "a:1 b:2 c:3", nil},
		{"INCR XX absent", ZAddArgs{Incr: true, XX: true}, []pair{p("n", 1)}, ZAddResult{}, "a:1 b:2 c:3", nil},
		{"INCR GT refused", ZAddArgs{Incr: true, GT: true}, []pair{p("b", -1)}, ZAddResult{}, "a:1 b:2 c:3", nil},
		{"INCR LT accepted", ZAddArgs{Incr: true, LT: true}, []pair{p("b", -1)}, ZAddResult{Updated: 1, Score: 1, Done: true}, "a:1 b:1 c:3", nil},
		{"INCR zero", ZAddArgs{Incr: true}, []pair{p("b", 0)}, ZAddResult{Score: 2, Done: true}, "a:1 b:2 c:3", nil},
		{"repeated member", ZAddArgs{}, []pair{p("n", 1), p("n", 8)}, ZAddResult{Added: 1, Updated: 1, Score: 8, Done: true}, "a:1 b:2 c:3 n:8", nil},
		{"equal scores order by member", ZAddArgs{}, []pair{p("aa", 1), p("0", 1)}, ZAddResult{Added: 2, Score: 1, Done: true}, "0:1 a:1 aa:1 b:2 c:3", nil},
		{"infinities", ZAddArgs{}, []pair{p("x", math.Inf(1)), p("y", math.Inf(-1))}, ZAddResult{Added: 2, Score: math.Inf(-1), Done: true}, "y:-Inf a:1 b:2 c:3 x:+Inf", nil},
		{"negative and zero", ZAddArgs{}, []pair{p("x", -0.5), p("y", math.Copysign(0, -1))}, ZAddResult{Added: 2, Score: 0, Done: true}, "x:-0.5 y:0 a:1 b:2 c:3", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openTestStore(t)
			zadd(t, s, "z", "a", 1, "b", 2, "c", 3)
			got := writeTx(t, s, []string{"z"}, func(tx *Tx) (ZAddResult, error) { return tx.ZAdd(0, []byte("z"), tc.args, tc.pairs) })
			if got != tc.want {
				t.Errorf("ZAdd = %+v, want %+v", got, tc.want)
			}
			if a := zall(t, s, "z"); a != tc.after {
				t.Errorf("set = %q, want %q", a, tc.after)
			}
		})
	}
}

func TestZAddIncrNaN(t *testing.T) {
	s, _ := openTestStore(t)
	zadd(t, s, "z", "a", math.Inf(1))
	tx := s.Begin(byteSlices("z"))
	defer tx.Close()
	_, err := tx.ZAdd(0, []byte("z"), ZAddArgs{Incr: true}, []ZMember{{Member: []byte("a"), Score: math.Inf(-1)}})
	if err != ErrScoreNaN {
		t.Fatalf("inf + -inf: %v, want %v", err, ErrScoreNaN)
	}
}

func TestZAddXXOnAbsentKeyCreatesNothing(t *testing.T) {
	s, _ := openTestStore(t)
	got := writeTx(t, s, []string{"z"}, func(tx *Tx) (ZAddResult, error) {
		return tx.ZAdd(0, []byte("z"), ZAddArgs{XX: true}, []ZMember{{Member: []byte("a"), Score: 1}})
	})
	if got != (ZAddResult{}) || s.DBSize(0) != 0 {
		t.Fatalf("ZADD XX on no key = %+v, dbsize %d", got, s.DBSize(0))
	}
}

func TestZSetKeepsDeadlineAndExpires(t *testing.T) {
	s, clock := openTestStore(t)
	zadd(t, s, "z", "a", 1)
	writeTx(t, s, []string{"z"}, func(tx *Tx) (bool, error) { return tx.Expire(0, []byte("z"), clock.ms.Load()+1000, ExpireAlways) })
	zadd(t, s, "z", "b", 2)
	if d := readTx(t, s, func(tx *Tx) (int64, error) { return tx.Deadline(0, []byte("z")) }); d != clock.ms.Load()+1000 {
		t.Fatalf("deadline after ZADD = %d", d)
	}
	clock.advance(2 * time.Second)
	if n := readTx(t, s, func(tx *Tx) (int64, error) { return tx.ZCard(0, []byte("z")) }); n != 0 {
		t.Fatalf("ZCARD of an expired zset = %d", n)
	}
	// A new zset under the name does not see the old members.
	zadd(t, s, "z", "c", 3)
	if a := zall(t, s, "z"); a != "c:3" {
		t.Fatalf("new zset over an expired one = %q", a)
	}
}

// --- Wrong types ------------------------------------------------------------------

func TestZSetWrongType(t *testing.T) {
	s, _ := openTestStore(t)
	set(t, s, 0, "str", "x", SetArgs{})
	writeTx(t, s, []string{"hash"}, func(tx *Tx) (int64, error) { return tx.HSet(0, []byte("hash"), byteSlices("f", "v")) })
	k := []byte("z")
	for _, key := range []string{"str", "hash"} {
		kb := []byte(key)
		for name, op := range map[string]func(tx *Tx) error{
			"ZAdd": func(tx *Tx) error {
				_, err := tx.ZAdd(0, kb, ZAddArgs{}, []ZMember{{Member: k}})
				return err
			},
			"ZRem":    func(tx *Tx) error { _, err := tx.ZRem(0, kb, [][]byte{k}); return err },
			"ZCard":   func(tx *Tx) error { _, err := tx.ZCard(0, kb); return err },
			"ZScore":  func(tx *Tx) error { _, _, err := tx.ZScore(0, kb, k); return err },
			"ZMScore": func(tx *Tx) error { _, _, err := tx.ZMScore(0, kb, [][]byte{k}); return err },
			"ZRank":   func(tx *Tx) error { _, _, _, err := tx.ZRank(0, kb, k, false); return err },
			"ZCount":  func(tx *Tx) error { _, err := tx.ZCount(0, kb, ScoreBound{}, ScoreBound{}); return err },
			"ZLexCount": func(tx *Tx) error {
				_, err := tx.ZLexCount(0, kb, LexBound{Kind: LexMinInf}, LexBound{Kind: LexMaxInf})
				return err
			},
			"ZRange":      func(tx *Tx) error { _, err := tx.ZRange(0, kb, ZRange{Stop: -1, Count: -1}); return err },
			"ZRangeStore": func(tx *Tx) error { _, err := tx.ZRangeStore(0, k, kb, ZRange{Stop: -1, Count: -1}); return err },
			"ZRemRange":   func(tx *Tx) error { _, err := tx.ZRemRange(0, kb, ZRange{Stop: -1, Count: -1}); return err },
			"ZPop":        func(tx *Tx) error { _, err := tx.ZPop(0, kb, false, 1); return err },
			"ZPop count 0": func(tx *Tx) error {
				_, err := tx.ZPop(0, kb, false, 0)
				return err
			},
			"ZMPop": func(tx *Tx) error {
				_, _, err := tx.ZMPop(0, [][]byte{[]byte("none"), kb}, false, 1, false)
				return err
			},
			"ZRandMember":   func(tx *Tx) error { _, _, err := tx.ZRandMember(0, kb); return err },
			"ZRandMembers":  func(tx *Tx) error { _, err := tx.ZRandMembers(0, kb, 2); return err },
			"ZRandSampler":  func(tx *Tx) error { _, err := tx.NewZRandSampler(0, kb); return err },
			"ZSetOperate":   func(tx *Tx) error { _, err := tx.ZSetOperate(0, ZUnion, [][]byte{k, kb}, nil, ZSum); return err },
			"ZSetOpCheck":   func(tx *Tx) error { return tx.ZSetOpCheck(0, [][]byte{k, kb}) },
			"ZInterCard":    func(tx *Tx) error { _, err := tx.ZInterCard(0, [][]byte{kb}, 0); return err },
			"ZScan":         func(tx *Tx) error { _, _, err := tx.ZScan(0, kb, 0, ZScanArgs{Count: 10}); return err },
			"ZSetEncoding":  func(tx *Tx) error { _, _, err := tx.ZSetEncoding(0, kb); return err },
			"ZSetOperateSt": func(tx *Tx) error { _, err := tx.ZSetOperateStore(0, k, ZInter, [][]byte{kb}, nil, ZSum); return err },
		} {
			t.Run(key+"/"+name, func(t *testing.T) {
				tx := s.Begin([][]byte{k, kb})
				defer tx.Close()
				if err := op(tx); err != ErrWrongType {
					t.Fatalf("%s on a %s: %v, want WRONGTYPE", name, key, err)
				}
			})
		}
	}
}

// --- Ranges ---------------------------------------------------------------------------

func TestZRangeByRank(t *testing.T) {
	s, _ := openTestStore(t)
	zadd(t, s, "z", "a", 1, "b", 2, "c", 3, "d", 4, "e", 5)
	for _, tc := range []struct {
		start, stop int64
		rev         bool
		want        string
	}{
		{0, -1, false, "a b c d e"},
		{0, 0, false, "a"},
		{-1, -1, false, "e"},
		{-100, 100, false, "a b c d e"},
		{3, 1, false, ""},
		{5, 10, false, ""},
		{-2, -1, true, "b a"},
		{1, 3, true, "d c b"},
		{0, 1, true, "e d"},
		{4, 4, true, "a"},
		{-3, 2, false, "c"},
		{2, -3, false, "c"},
		{-6, -6, false, ""},
	} {
		got := readTx(t, s, func(tx *Tx) ([]ZMember, error) {
			return tx.ZRange(0, []byte("z"), ZRange{By: ZByRank, Start: tc.start, Stop: tc.stop, Rev: tc.rev, Count: -1})
		})
		if m := members(got); m != tc.want {
			t.Errorf("ZRANGE %d %d rev=%v = %q, want %q", tc.start, tc.stop, tc.rev, m, tc.want)
		}
	}
}

func members(ms []ZMember) string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m.Member))
	}
	return strings.Join(out, " ")
}

func TestZRangeByScore(t *testing.T) {
	s, _ := openTestStore(t)
	zadd(t, s, "z", "n", math.Inf(-1), "a", 1, "b", 2, "b2", 2, "c", 3, "z0", 0, "p", math.Inf(1))
	inc := func(f float64) ScoreBound { return ScoreBound{Score: f} }
	exc := func(f float64) ScoreBound { return ScoreBound{Score: f, Exclusive: true} }
	inf := math.Inf(1)
	for _, tc := range []struct {
		min, max      ScoreBound
		rev           bool
		offset, count int64
		want          string
	}{
		{inc(-inf), inc(inf), false, 0, -1, "n z0 a b b2 c p"},
		{exc(-inf), exc(inf), false, 0, -1, "z0 a b b2 c"},
		{inc(1), inc(2), false, 0, -1, "a b b2"},
		{exc(1), inc(2), false, 0, -1, "b b2"},
		{inc(2), exc(3), false, 0, -1, "b b2"},
		{exc(2), exc(3), false, 0, -1, ""},
		{inc(2), inc(2), false, 0, -1, "b b2"},
		{exc(2), inc(2), false, 0, -1, ""},
		{inc(3), inc(1), false, 0, -1, ""},
		{inc(math.Copysign(0, -1)), inc(0), false, 0, -1, "z0"},
		{exc(0), inc(1), false, 0, -1, "a"},
		{inc(-inf), inc(inf), false, 2, 3, "a b b2"},
		{inc(-inf), inc(inf), true, 2, 3, "b2 b a"},
		{inc(-inf), inc(inf), false, -1, 3, ""},
		{inc(-inf), inc(inf), false, 1, 0, ""},
		{inc(-inf), inc(inf), false, 6, -5, "p"},
		{inc(-inf), inc(inf), false, 7, -1, ""},
		{inc(1), inc(3), true, 0, -1, "c b2 b a"},
	} {
		got := readTx(t, s, func(tx *Tx) ([]ZMember, error) {
			return tx.ZRange(0, []byte("z"), ZRange{By: ZByScore, Min: tc.min, Max: tc.max, Rev: tc.rev, Offset: tc.offset, Count: tc.count})
		})
		if m := members(got); m != tc.want {
			t.Errorf("ZRANGEBYSCORE %+v %+v rev=%v limit %d %d = %q, want %q", tc.min, tc.max, tc.rev, tc.offset, tc.count, m, tc.want)
		}
	}
}

func lexb(s string) LexBound {
	switch s {
	case "-":
		return LexBound{Kind: LexMinInf, Exclusive: true}
	case "+":
		return LexBound{Kind: LexMaxInf, Exclusive: true}
	}
	return LexBound{Value: []byte(s[1:]), Exclusive: s[0] == '('}
}

func TestZRangeByLex(t *testing.T) {
	// One score: the range is a run of the index, found by seeking. Mixed
	// scores: Redis's listpack walk (first member in range, up to the
	// first one past the end).
	for _, tc := range []struct {
		set           []any
		min, max      string
		rev           bool
		offset, count int64
		want          string
		count2        int64
	}{
		{[]any{"a", 0, "b", 0, "c", 0, "d", 0}, "-", "+", false, 0, -1, "a b c d", 4},
		{[]any{"a", 0, "b", 0, "c", 0, "d", 0}, "[b", "(d", false, 0, -1, "b c", 2},
		{[]any{"a", 0, "b", 0, "c", 0, "d", 0}, "(b", "[d", false, 0, -1, "c d", 2},
		{[]any{"a", 0, "b", 0, "c", 0, "d", 0}, "[", "[c", false, 0, -1, "a b c", 3},
		{[]any{"a", 0, "b", 0, "c", 0, "d", 0}, "+", "-", false, 0, -1, "", 0},
		{[]any{"a", 0, "b", 0, "c", 0, "d", 0}, "-", "-", false, 0, -1, "", 0},
		{[]any{"a", 0, "b", 0, "c", 0, "d", 0}, "[c", "[b", false, 0, -1, "", 0},
		{[]any{"a", 0, "b", 0, "c", 0, "d", 0}, "[b", "[b", false, 0, -1, "b", 1},
		{[]any{"a", 0, "b", 0, "c", 0, "d", 0}, "(b", "[b", false, 0, -1, "", 0},
		{[]any{"a", 0, "b", 0, "c", 0, "d", 0}, "-", "+", true, 1, 2, "c b", 4},
		{[]any{"a", 0, "b", 0, "c", 0, "d", 0}, "[b", "+", true, 0, -1, "d c b", 3},
		{[]any{"a", 0, "ab", 0, "b\x00", 0, "b", 0}, "(a", "[b", false, 0, -1, "ab b", 2},
		{[]any{"a", 0, "ab", 0, "b\x00", 0, "b", 0}, "[b", "+", false, 0, -1, "b b\x00", 2},
		{[]any{"b", 1, "a", 2, "d", 3, "c", 4}, "-", "+", false, 0, -1, "b a d c", 4},
		{[]any{"b", 1, "a", 2, "d", 3, "c", 4}, "[a", "[c", false, 0, -1, "b a", 2},
		{[]any{"b", 1, "a", 2, "d", 3, "c", 4}, "[b", "[c", false, 0, -1, "b a", 2},
		{[]any{"b", 1, "a", 2, "d", 3, "c", 4}, "[a", "[c", true, 0, -1, "c d a b", 2},
		{[]any{"b", 1, "a", 2, "d", 3, "c", 4}, "[b", "[d", true, 0, -1, "c d", 3},
		{[]any{"b", 1, "a", 2, "d", 3, "c", 4}, "[x", "+", false, 0, -1, "", 0},
	} {
		s, _ := openTestStore(t)
		zadd(t, s, "z", tc.set...)
		got := readTx(t, s, func(tx *Tx) ([]ZMember, error) {
			return tx.ZRange(0, []byte("z"), ZRange{By: ZByLex, LexMin: lexb(tc.min), LexMax: lexb(tc.max), Rev: tc.rev, Offset: tc.offset, Count: tc.count})
		})
		if m := members(got); m != tc.want {
			t.Errorf("%v: ZRANGEBYLEX %s %s rev=%v = %q, want %q", tc.set, tc.min, tc.max, tc.rev, m, tc.want)
		}
		if !tc.rev {
			n := readTx(t, s, func(tx *Tx) (int64, error) { return tx.ZLexCount(0, []byte("z"), lexb(tc.min), lexb(tc.max)) })
			if n != tc.count2 {
				t.Errorf("%v: ZLEXCOUNT %s %s = %d, want %d", tc.set, tc.min, tc.max, n, tc.count2)
			}
		}
	}
}

func TestZRangeAbsentKey(t *testing.T) {
	s, _ := openTestStore(t)
	for _, r := range []ZRange{{By: ZByRank, Stop: -1, Count: -1}, {By: ZByScore, Count: -1}, {By: ZByLex, LexMin: lexb("-"), LexMax: lexb("+"), Count: -1}} {
		if ms := readTx(t, s, func(tx *Tx) ([]ZMember, error) { return tx.ZRange(0, []byte("none"), r) }); len(ms) != 0 {
			t.Errorf("ZRange %+v of no key = %v", r, ms)
		}
	}
}

// --- Model-based test -------------------------------------------------------------------

// zmodel is the sorted set a sequence of commands should produce.
type zmodel map[string]float64

func (m zmodel) sorted() []ZMember {
	out := make([]ZMember, 0, len(m))
	for k, v := range m {
		out = append(out, ZMember{Member: []byte(k), Score: v})
	}
	slices.SortFunc(out, func(a, b ZMember) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return bytes.Compare(a.Member, b.Member)
	})
	return out
}

// TestZSetAgainstModel runs random writes on one sorted set and checks
// every read against a model after each of them. Sizes cross the run
// length from which removals write range tombstones.
func TestZSetAgainstModel(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	s, _ := openTestStore(t)
	key := []byte("z")
	model := zmodel{}
	member := func() string { return fmt.Sprintf("m%03d", rng.IntN(400)) }
	score := func() float64 { return float64(rng.IntN(60)) / 2 }
	for step := range 1500 {
		var op string
		tx := s.Begin([][]byte{key})
		switch r := rng.IntN(100); {
		case r < 40:
			op = "zadd"
			var pairs []ZMember
			for range 1 + rng.IntN(20) {
				pairs = append(pairs, ZMember{Member: []byte(member()), Score: score()})
			}
			if _, err := tx.ZAdd(0, key, ZAddArgs{}, pairs); err != nil {
				t.Fatal(err)
			}
			for _, p := range pairs {
				model[string(p.Member)] = p.Score
			}
		case r < 55:
			op = "zrem"
			ms := [][]byte{[]byte(member()), []byte(member())}
			n, err := tx.ZRem(0, key, ms)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, m := range ms {
				if _, ok := model[string(m)]; ok {
					delete(model, string(m))
					want++
				}
			}
			if int(n) != want {
				t.Fatalf("step %d: ZREM = %d, want %d", step, n, want)
			}
		case r < 65:
			op = "zpop"
			highest := rng.IntN(2) == 0
			count := int64(1 + rng.IntN(80))
			got, err := tx.ZPop(0, key, highest, count)
			if err != nil {
				t.Fatal(err)
			}
			sorted := model.sorted()
			if highest {
				slices.Reverse(sorted)
			}
			want := sorted[:min(int(count), len(sorted))]
			if zstr(got) != zstr(want) {
				t.Fatalf("step %d: ZPOP highest=%v %d = %s, want %s", step, highest, count, zstr(got), zstr(want))
			}
			for _, m := range want {
				delete(model, string(m.Member))
			}
		case r < 75:
			op = "zremrangebyrank"
			a, b := int64(rng.IntN(120)-40), int64(rng.IntN(120)-40)
			n, err := tx.ZRemRange(0, key, ZRange{By: ZByRank, Start: a, Stop: b})
			if err != nil {
				t.Fatal(err)
			}
			sorted := model.sorted()
			lo, hi, ok := clampRanks(a, b, int64(len(sorted)))
			var want int64
			if ok {
				for _, m := range sorted[lo : hi+1] {
					delete(model, string(m.Member))
				}
				want = hi - lo + 1
			}
			if n != want {
				t.Fatalf("step %d: ZREMRANGEBYRANK %d %d = %d, want %d", step, a, b, n, want)
			}
		case r < 85:
			op = "zremrangebyscore"
			lo, hi := ScoreBound{Score: score(), Exclusive: rng.IntN(2) == 0}, ScoreBound{Score: score(), Exclusive: rng.IntN(2) == 0}
			n, err := tx.ZRemRange(0, key, ZRange{By: ZByScore, Min: lo, Max: hi})
			if err != nil {
				t.Fatal(err)
			}
			var want int64
			for k, v := range model {
				if (v > lo.Score || (v == lo.Score && !lo.Exclusive)) && (v < hi.Score || (v == hi.Score && !hi.Exclusive)) {
					delete(model, k)
					want++
				}
			}
			if n != want {
				t.Fatalf("step %d: ZREMRANGEBYSCORE %+v %+v = %d, want %d", step, lo, hi, n, want)
			}
		default:
			op = "zincrby"
			m := member()
			res, err := tx.ZAdd(0, key, ZAddArgs{Incr: true}, []ZMember{{Member: []byte(m), Score: score() - 15}})
			if err != nil {
				t.Fatal(err)
			}
			model[m] = res.Score
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		tx.Close()
		zcheckModel(t, s, key, model, rng, fmt.Sprintf("step %d (%s)", step, op))
	}
}

// zcheckModel compares every read of key with the model.
func zcheckModel(t *testing.T, s *Store, key []byte, model zmodel, rng *rand.Rand, where string) {
	t.Helper()
	sorted := model.sorted()
	n := int64(len(sorted))
	tx := s.Read(false)
	defer tx.Close()
	if c, err := tx.ZCard(0, key); err != nil || c != n {
		t.Fatalf("%s: ZCARD = %d, %v; want %d", where, c, err, n)
	}
	if n > 0 {
		// Every write leaves the bounds on the extreme scores.
		want := [2]float64{sorted[0].Score, sorted[n-1].Score}
		if got := zbounds(t, s, string(key)); got != want {
			t.Fatalf("%s: score bounds %v, want %v", where, got, want)
		}
	}
	all, err := tx.ZRange(0, key, ZRange{By: ZByRank, Start: 0, Stop: -1})
	if err != nil || zstr(all) != zstr(sorted) {
		t.Fatalf("%s: ZRANGE 0 -1 = %s, %v; want %s", where, zstr(all), err, zstr(sorted))
	}
	a, b := int64(rng.IntN(int(n)+20)-10), int64(rng.IntN(int(n)+20)-10)
	rev := rng.IntN(2) == 0
	got, err := tx.ZRange(0, key, ZRange{By: ZByRank, Start: a, Stop: b, Rev: rev})
	var want []ZMember
	if lo, hi, ok := clampRanks(a, b, n); ok {
		src := slices.Clone(sorted)
		if rev {
			slices.Reverse(src)
		}
		want = src[lo : hi+1]
	}
	if err != nil || zstr(got) != zstr(want) {
		t.Fatalf("%s: ZRANGE %d %d rev=%v = %s, %v; want %s", where, a, b, rev, zstr(got), err, zstr(want))
	}
	if n > 0 {
		i := rng.IntN(int(n))
		m := sorted[i]
		r, sc, ok, err := tx.ZRank(0, key, m.Member, false)
		if err != nil || !ok || r != int64(i) || sc != m.Score {
			t.Fatalf("%s: ZRANK %s = %d %g %v %v; want %d", where, m.Member, r, sc, ok, err, i)
		}
		r, _, _, _ = tx.ZRank(0, key, m.Member, true)
		if r != n-1-int64(i) {
			t.Fatalf("%s: ZREVRANK %s = %d; want %d", where, m.Member, r, n-1-int64(i))
		}
	}
	lo, hi := ScoreBound{Score: float64(rng.IntN(60)) / 2, Exclusive: rng.IntN(2) == 0}, ScoreBound{Score: float64(rng.IntN(60)) / 2, Exclusive: rng.IntN(2) == 0}
	var inRange []ZMember
	for _, m := range sorted {
		if (m.Score > lo.Score || (m.Score == lo.Score && !lo.Exclusive)) && (m.Score < hi.Score || (m.Score == hi.Score && !hi.Exclusive)) {
			inRange = append(inRange, m)
		}
	}
	if c, err := tx.ZCount(0, key, lo, hi); err != nil || c != int64(len(inRange)) {
		t.Fatalf("%s: ZCOUNT %+v %+v = %d, %v; want %d", where, lo, hi, c, err, len(inRange))
	}
	off, cnt := int64(rng.IntN(5)), int64(rng.IntN(8)-1)
	got, err = tx.ZRange(0, key, ZRange{By: ZByScore, Min: lo, Max: hi, Offset: off, Count: cnt})
	want = nil
	if off < int64(len(inRange)) {
		want = inRange[off:]
		if cnt >= 0 && cnt < int64(len(want)) {
			want = want[:cnt]
		}
	}
	if err != nil || zstr(got) != zstr(want) {
		t.Fatalf("%s: ZRANGEBYSCORE %+v %+v LIMIT %d %d = %s, %v; want %s", where, lo, hi, off, cnt, zstr(got), err, zstr(want))
	}
}

// zbounds reads the score bounds in key's metadata, as scores.
func zbounds(t testing.TB, s *Store, key string) [2]float64 {
	t.Helper()
	tx := s.Read(false)
	defer tx.Close()
	m, ok, err := tx.typedMeta(0, []byte(key), encoding.TypeZSet)
	if err != nil || !ok {
		t.Fatalf("zset %q: %v, %v", key, ok, err)
	}
	b, err := encoding.DecodeZSetMeta(m.Value)
	if err != nil {
		t.Fatal(err)
	}
	return [2]float64{encoding.ScoreFromBits(b.Low), encoding.ScoreFromBits(b.High)}
}

// --- Score bounds ------------------------------------------------------------------

// TestZSetBoundsFollowEveryWrite: each kind of write leaves the metadata's
// bounds on the set's lowest and highest scores (the cleanup's Check
// verifies that no member is outside them).
func TestZSetBoundsFollowEveryWrite(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name string
		op   func(tx *Tx, k []byte) error
		want [2]float64
	}{
		{"ZADD below and above", func(tx *Tx, k []byte) error {
			_, err := tx.ZAdd(0, k, ZAddArgs{}, []ZMember{{Member: []byte("lo"), Score: -inf}, {Member: []byte("hi"), Score: 9}})
			return err
		}, [2]float64{-inf, 9}},
		{"ZADD inside", func(tx *Tx, k []byte) error {
			_, err := tx.ZAdd(0, k, ZAddArgs{}, []ZMember{{Member: []byte("x"), Score: 2.5}})
			return err
		}, [2]float64{1, 5}},
		{"ZINCRBY moves the lowest up", func(tx *Tx, k []byte) error {
			_, err := tx.ZAdd(0, k, ZAddArgs{Incr: true}, []ZMember{{Member: []byte("a"), Score: 10}})
			return err
		}, [2]float64{2, 11}},
		{"ZADD XX moves the highest down", func(tx *Tx, k []byte) error {
			_, err := tx.ZAdd(0, k, ZAddArgs{XX: true}, []ZMember{{Member: []byte("e"), Score: 0}})
			return err
		}, [2]float64{0, 4}},
		{"ZREM of both ends", func(tx *Tx, k []byte) error {
			_, err := tx.ZRem(0, k, byteSlices("a", "e"))
			return err
		}, [2]float64{2, 4}},
		{"ZREM of the highest", func(tx *Tx, k []byte) error {
			_, err := tx.ZRem(0, k, byteSlices("e"))
			return err
		}, [2]float64{1, 4}},
		{"ZREM of the lowest", func(tx *Tx, k []byte) error {
			_, err := tx.ZRem(0, k, byteSlices("a"))
			return err
		}, [2]float64{2, 5}},
		{"ZREM of the highest, another at its score after it", func(tx *Tx, k []byte) error {
			if _, err := tx.ZAdd(0, k, ZAddArgs{}, []ZMember{{Member: []byte("f"), Score: 5}}); err != nil {
				return err
			}
			_, err := tx.ZRem(0, k, byteSlices("e"))
			return err
		}, [2]float64{1, 5}},
		{"ZREM of the lowest, another at its score before it", func(tx *Tx, k []byte) error {
			if _, err := tx.ZAdd(0, k, ZAddArgs{}, []ZMember{{Member: []byte("0"), Score: 1}}); err != nil {
				return err
			}
			_, err := tx.ZRem(0, k, byteSlices("a"))
			return err
		}, [2]float64{1, 5}},
		{"ZREM of the highest and ZADD of it again", func(tx *Tx, k []byte) error {
			if _, err := tx.ZRem(0, k, byteSlices("e")); err != nil {
				return err
			}
			_, err := tx.ZAdd(0, k, ZAddArgs{}, []ZMember{{Member: []byte("e"), Score: 5}})
			return err
		}, [2]float64{1, 5}},
		{"ZREM of a middle member", func(tx *Tx, k []byte) error {
			_, err := tx.ZRem(0, k, byteSlices("c"))
			return err
		}, [2]float64{1, 5}},
		{"ZPOPMIN 2", func(tx *Tx, k []byte) error {
			_, err := tx.ZPop(0, k, false, 2)
			return err
		}, [2]float64{3, 5}},
		{"ZPOPMAX", func(tx *Tx, k []byte) error {
			_, err := tx.ZPop(0, k, true, 1)
			return err
		}, [2]float64{1, 4}},
		{"ZREMRANGEBYRANK 0 0", func(tx *Tx, k []byte) error {
			_, err := tx.ZRemRange(0, k, ZRange{By: ZByRank, Start: 0, Stop: 0})
			return err
		}, [2]float64{2, 5}},
		{"ZREMRANGEBYRANK -2 -1", func(tx *Tx, k []byte) error {
			_, err := tx.ZRemRange(0, k, ZRange{By: ZByRank, Start: -2, Stop: -1})
			return err
		}, [2]float64{1, 3}},
		{"ZREMRANGEBYSCORE -inf 2", func(tx *Tx, k []byte) error {
			_, err := tx.ZRemRange(0, k, ZRange{By: ZByScore, Min: ScoreBound{Score: -inf}, Max: ScoreBound{Score: 2}})
			return err
		}, [2]float64{3, 5}},
		{"ZREMRANGEBYLEX [d +", func(tx *Tx, k []byte) error {
			_, err := tx.ZRemRange(0, k, ZRange{By: ZByLex, LexMin: lexb("[d"), LexMax: lexb("+")})
			return err
		}, [2]float64{1, 3}},
		{"ZRANGESTORE", func(tx *Tx, k []byte) error {
			_, err := tx.ZRangeStore(0, k, k, ZRange{By: ZByRank, Start: 1, Stop: 2})
			return err
		}, [2]float64{2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openTestStore(t)
			zadd(t, s, "z", "a", 1, "b", 2, "c", 3, "d", 4, "e", 5)
			if got := zbounds(t, s, "z"); got != [2]float64{1, 5} {
				t.Fatalf("bounds after ZADD = %v", got)
			}
			writeTx(t, s, []string{"z"}, func(tx *Tx) (bool, error) { return true, tc.op(tx, []byte("z")) })
			if got := zbounds(t, s, "z"); got != tc.want {
				t.Fatalf("bounds = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestZSetReadsStayWithinBounds plants a score index entry below the lower
// bound, as a member removed there leaves a tombstone: no read reaches it,
// and Check reports it.
func TestZSetReadsStayWithinBounds(t *testing.T) {
	s, _ := openTestStore(t)
	zadd(t, s, "z", "b", 2, "c", 3)
	writeTx(t, s, []string{"z"}, func(tx *Tx) (bool, error) {
		z, err := tx.openZSet(0, []byte("z"))
		if err != nil {
			return false, err
		}
		return true, tx.set(z.c, z.scoreKey(1, []byte("ghost")), nil)
	})
	if got := zall(t, s, "z"); got != "b:2 c:3" {
		t.Fatalf("ZRANGE 0 -1 = %s", got)
	}
	got := readTx(t, s, func(tx *Tx) ([]ZMember, error) {
		return tx.ZRange(0, []byte("z"), ZRange{By: ZByScore, Min: ScoreBound{Score: math.Inf(-1)}, Max: ScoreBound{Score: math.Inf(1)}, Count: -1})
	})
	if zstr(got) != "b:2 c:3" {
		t.Fatalf("ZRANGEBYSCORE -inf +inf = %s", zstr(got))
	}
	if err := Check(s); err == nil || !strings.Contains(err.Error(), `member "ghost" scores 1, outside the metadata's bounds [2, 3]`) {
		t.Fatalf("Check = %v", err)
	}
	// Put the store right for the cleanup's Check.
	writeTx(t, s, []string{"z"}, func(tx *Tx) (bool, error) {
		z, err := tx.openZSet(0, []byte("z"))
		if err != nil {
			return false, err
		}
		return true, tx.del(z.c, z.scoreKey(1, []byte("ghost")))
	})
}

// TestZSetReadTakesBoundsAndEntriesFromOneState: a read of the live engine
// takes its view's bounds and its iterators from one snapshot. Without
// one, a write committed in between that adds a member below the lower
// bound and removes the lowest would give ranks 0..1 as "c d", a state
// that never existed: the bound hides the new member, the iterator misses
// the removed one.
func TestZSetReadTakesBoundsAndEntriesFromOneState(t *testing.T) {
	s, _ := openTestStore(t)
	zadd(t, s, "z", "b", 2, "c", 3, "d", 4)
	tx := s.Read(false)
	defer tx.Close()
	v, err := tx.zread(0, []byte("z"), true, false)
	if err != nil || v == nil {
		t.Fatalf("zread = %v, %v", v, err)
	}
	defer v.close()
	writeTx(t, s, []string{"z"}, func(tx *Tx) (int64, error) {
		if _, err := tx.ZAdd(0, []byte("z"), ZAddArgs{}, []ZMember{{Member: []byte("a"), Score: 1}}); err != nil {
			return 0, err
		}
		return tx.ZRem(0, []byte("z"), byteSlices("b"))
	})
	var got []string
	err = v.walk(ZRange{By: ZByRank, Start: 0, Stop: 1}, func(k, _ []byte) error {
		_, m, err := zentry(k, len(v.scorePrefix()))
		got = append(got, string(m))
		return err
	})
	if err != nil || strings.Join(got, " ") != "b c" {
		t.Fatalf("ranks 0..1 = %q, %v; want the state the view opened on (b c)", got, err)
	}
}

// --- Removal --------------------------------------------------------------------------

func TestZRemRangeEmptiesAndDeletes(t *testing.T) {
	for _, r := range []ZRange{
		{By: ZByRank, Start: 0, Stop: -1},
		{By: ZByRank, Start: -200, Stop: 200},
		{By: ZByScore, Min: ScoreBound{Score: math.Inf(-1)}, Max: ScoreBound{Score: math.Inf(1)}},
		{By: ZByLex, LexMin: lexb("-"), LexMax: lexb("+")},
	} {
		s, _ := openTestStore(t)
		for i := range 150 {
			zadd(t, s, "z", fmt.Sprintf("m%03d", i), 0)
		}
		n := writeTx(t, s, []string{"z"}, func(tx *Tx) (int64, error) { return tx.ZRemRange(0, []byte("z"), r) })
		if n != 150 || s.DBSize(0) != 0 {
			t.Errorf("ZRemRange %+v = %d, dbsize %d; want 150, 0", r, n, s.DBSize(0))
		}
	}
}

func TestZRemRangeLongRunUsesOneTombstone(t *testing.T) {
	s, _ := openTestStore(t)
	var pairs []any
	for i := range 300 {
		pairs = append(pairs, fmt.Sprintf("m%03d", i), i)
	}
	zadd(t, s, "z", pairs...)
	n := writeTx(t, s, []string{"z"}, func(tx *Tx) (int64, error) {
		return tx.ZRemRange(0, []byte("z"), ZRange{By: ZByScore, Min: ScoreBound{Score: 100}, Max: ScoreBound{Score: 199}})
	})
	if n != 100 {
		t.Fatalf("removed %d", n)
	}
	got := readTx(t, s, func(tx *Tx) ([]ZMember, error) {
		return tx.ZRange(0, []byte("z"), ZRange{By: ZByRank, Start: 98, Stop: 101})
	})
	if zstr(got) != "m098:98 m099:99 m200:200 m201:201" {
		t.Fatalf("around the hole: %s", zstr(got))
	}
	// The range tombstone covers exactly the run: neighbours survive, and
	// the members' own records are gone (Check verifies both indexes at the
	// end).
	if _, ok, _ := zr2(t, s, "m150"); ok {
		t.Fatal("m150 still has a score")
	}
}

func zr2(t *testing.T, s *Store, m string) (float64, bool, error) {
	tx := s.Read(false)
	defer tx.Close()
	return tx.ZScore(0, []byte("z"), []byte(m))
}

// --- Pops -------------------------------------------------------------------------------

func TestZPopAndZMPop(t *testing.T) {
	s, _ := openTestStore(t)
	zadd(t, s, "z", "a", 1, "b", 2, "c", 3)
	set(t, s, 0, "str", "x", SetArgs{})
	got := writeTx(t, s, []string{"z"}, func(tx *Tx) ([]ZMember, error) { return tx.ZPop(0, []byte("z"), true, 2) })
	if zstr(got) != "c:3 b:2" {
		t.Fatalf("ZPOPMAX 2 = %s", zstr(got))
	}
	if got := writeTx(t, s, []string{"z"}, func(tx *Tx) ([]ZMember, error) { return tx.ZPop(0, []byte("z"), false, 0) }); got != nil {
		t.Fatalf("ZPOPMIN 0 = %v", got)
	}
	// ZMPOP skips absent keys, stops at the first zset, and only reports a
	// wrong type met before it.
	type res struct {
		i  int
		ms string
	}
	skip := false
	mpop := func(keys ...string) (res, error) {
		tx := s.Begin(byteSlices(keys...))
		defer tx.Close()
		i, ms, err := tx.ZMPop(0, byteSlices(keys...), false, 5, skip)
		if err == nil {
			err = tx.Commit()
		}
		return res{i, zstr(ms)}, err
	}
	if r, err := mpop("none", "z", "str"); err != nil || r != (res{1, "a:1"}) {
		t.Fatalf("ZMPOP none z str = %+v, %v", r, err)
	}
	if s.DBSize(0) != 1 {
		t.Fatalf("popping the last member left %d keys", s.DBSize(0))
	}
	if _, err := mpop("none", "str", "z"); err != ErrWrongType {
		t.Fatalf("ZMPOP none str = %v", err)
	}
	if r, err := mpop("none", "z"); err != nil || r.i != -1 {
		t.Fatalf("ZMPOP of no zset = %+v, %v", r, err)
	}
	// A woken blocked pop passes over keys of other types.
	skip = true
	zadd(t, s, "z", "a", 1)
	if r, err := mpop("none", "str", "z"); err != nil || r != (res{2, "a:1"}) {
		t.Fatalf("ZMPOP none str z, skipping other types = %+v, %v", r, err)
	}
	if r, err := mpop("str"); err != nil || r.i != -1 {
		t.Fatalf("ZMPOP str, skipping other types = %+v, %v", r, err)
	}
}

// --- Set operations -------------------------------------------------------------------

func TestZSetOperations(t *testing.T) {
	s, _ := openTestStore(t)
	zadd(t, s, "z1", "a", 1, "b", 2, "c", 3)
	zadd(t, s, "z2", "b", 10, "c", 20, "d", 30)
	zmakeSet(t, s, "s", "c", "d", "e")
	zadd(t, s, "inf", "a", math.Inf(1))
	zadd(t, s, "ninf", "a", math.Inf(-1))
	ks := func(k ...string) [][]byte { return byteSlices(k...) }
	for _, tc := range []struct {
		op      ZSetOp
		keys    [][]byte
		weights []float64
		agg     ZAggregate
		want    string
	}{
		{ZUnion, ks("z1", "z2"), nil, ZSum, "a:1 b:12 c:23 d:30"},
		{ZUnion, ks("z1", "z2", "s"), nil, ZSum, "a:1 e:1 b:12 c:24 d:31"},
		{ZUnion, ks("z1", "z2"), nil, ZMin, "a:1 b:2 c:3 d:30"},
		{ZUnion, ks("z1", "z2"), nil, ZMax, "a:1 b:10 c:20 d:30"},
		{ZUnion, ks("z1", "z2"), []float64{2, 3}, ZSum, "a:2 b:34 c:66 d:90"},
		{ZUnion, ks("z1", "none"), nil, ZSum, "a:1 b:2 c:3"},
		{ZUnion, ks("inf", "ninf"), nil, ZSum, "a:0"},
		{ZUnion, ks("inf", "ninf"), []float64{0, 1}, ZSum, "a:-Inf"},
		{ZUnion, ks("inf", "ninf"), nil, ZMin, "a:-Inf"},
		{ZInter, ks("z1", "z2"), nil, ZSum, "b:12 c:23"},
		{ZInter, ks("z1", "z2", "s"), nil, ZSum, "c:24"},
		{ZInter, ks("z1", "z2"), []float64{2, 0.5}, ZMax, "b:5 c:10"},
		{ZInter, ks("z1", "z1"), []float64{1, 2}, ZSum, "a:3 b:6 c:9"},
		{ZInter, ks("z1", "none"), nil, ZSum, ""},
		{ZInter, ks("inf", "ninf"), []float64{0, 0}, ZSum, "a:0"},
		{ZDiff, ks("z1", "z2"), nil, ZSum, "a:1"},
		{ZDiff, ks("z2", "s"), nil, ZSum, "b:10"},
		{ZDiff, ks("s", "z1"), nil, ZSum, "d:1 e:1"},
		{ZDiff, ks("z1", "z1"), nil, ZSum, ""},
		{ZDiff, ks("none", "z1"), nil, ZSum, ""},
	} {
		got := readTx(t, s, func(tx *Tx) ([]ZMember, error) { return tx.ZSetOperate(0, tc.op, tc.keys, tc.weights, tc.agg) })
		if zstr(got) != tc.want {
			t.Errorf("op %d %s w=%v agg=%d = %s, want %s", tc.op, tc.keys, tc.weights, tc.agg, zstr(got), tc.want)
		}
	}
	for _, tc := range []struct {
		keys  [][]byte
		limit int64
		want  int64
	}{
		{ks("z1", "z2"), 0, 2},
		{ks("z1", "z2"), 1, 1},
		{ks("z1", "z2"), 5, 2},
		{ks("z1", "z2", "s"), 0, 1},
		{ks("none", "z1"), 0, 0},
	} {
		if n := readTx(t, s, func(tx *Tx) (int64, error) { return tx.ZInterCard(0, tc.keys, tc.limit) }); n != tc.want {
			t.Errorf("ZINTERCARD %s LIMIT %d = %d, want %d", tc.keys, tc.limit, n, tc.want)
		}
	}
	// Storing replaces the destination, whatever it was; an empty result
	// deletes it.
	set(t, s, 0, "dst", "string", SetArgs{})
	if n := writeTx(t, s, []string{"dst", "z1", "z2"}, func(tx *Tx) (int64, error) {
		return tx.ZSetOperateStore(0, []byte("dst"), ZInter, ks("z1", "z2"), nil, ZSum)
	}); n != 2 || zall(t, s, "dst") != "b:12 c:23" {
		t.Fatalf("ZINTERSTORE = %d, %s", n, zall(t, s, "dst"))
	}
	if n := writeTx(t, s, []string{"z1", "z2"}, func(tx *Tx) (int64, error) {
		return tx.ZSetOperateStore(0, []byte("z1"), ZUnion, ks("z1", "z2"), nil, ZSum)
	}); n != 4 || zall(t, s, "z1") != "a:1 b:12 c:23 d:30" {
		t.Fatalf("ZUNIONSTORE into a source = %d, %s", n, zall(t, s, "z1"))
	}
	if n := writeTx(t, s, []string{"dst", "none"}, func(tx *Tx) (int64, error) {
		return tx.ZSetOperateStore(0, []byte("dst"), ZDiff, ks("none"), nil, ZSum)
	}); n != 0 || zall(t, s, "dst") != "" {
		t.Fatalf("empty ZDIFFSTORE = %d, %s", n, zall(t, s, "dst"))
	}
	if _, ok := get(t, s, 0, "dst"); ok {
		t.Fatal("empty result left the destination")
	}
}

func TestZRangeStore(t *testing.T) {
	s, clock := openTestStore(t)
	zadd(t, s, "src", "a", 1, "b", 2, "c", 3)
	zadd(t, s, "dst", "old", 9)
	writeTx(t, s, []string{"dst"}, func(tx *Tx) (bool, error) { return tx.Expire(0, []byte("dst"), clock.ms.Load()+5000, ExpireAlways) })
	n := writeTx(t, s, []string{"dst", "src"}, func(tx *Tx) (int64, error) {
		return tx.ZRangeStore(0, []byte("dst"), []byte("src"), ZRange{By: ZByScore, Min: ScoreBound{Score: 2}, Max: ScoreBound{Score: 9}, Rev: true, Count: -1})
	})
	if n != 2 || zall(t, s, "dst") != "b:2 c:3" {
		t.Fatalf("ZRANGESTORE = %d, %s", n, zall(t, s, "dst"))
	}
	if d := readTx(t, s, func(tx *Tx) (int64, error) { return tx.Deadline(0, []byte("dst")) }); d != -1 {
		t.Fatalf("the destination kept deadline %d", d)
	}
	n = writeTx(t, s, []string{"src"}, func(tx *Tx) (int64, error) {
		return tx.ZRangeStore(0, []byte("src"), []byte("src"), ZRange{By: ZByRank, Start: 1, Stop: 1, Count: -1})
	})
	if n != 1 || zall(t, s, "src") != "b:2" {
		t.Fatalf("ZRANGESTORE onto its source = %d, %s", n, zall(t, s, "src"))
	}
}

// --- Random members ----------------------------------------------------------------------

func TestZRandMembers(t *testing.T) {
	for _, size := range []int{5, 200} {
		s, _ := openTestStore(t)
		var pairs []any
		for i := range size {
			pairs = append(pairs, fmt.Sprintf("m%03d", i), i)
		}
		zadd(t, s, "z", pairs...)
		all := readTx(t, s, func(tx *Tx) ([]ZMember, error) { return tx.ZRandMembers(0, []byte("z"), int64(size+10)) })
		if len(all) != size || string(all[0].Member) != fmt.Sprintf("m%03d", size-1) {
			t.Fatalf("size %d: count above size gave %d members starting %q (want all, highest first)", size, len(all), all[0].Member)
		}
		for _, count := range []int64{1, 2, int64(size) / 3, int64(size) / 2, int64(size) - 1} {
			got := readTx(t, s, func(tx *Tx) ([]ZMember, error) { return tx.ZRandMembers(0, []byte("z"), count) })
			seen := map[string]bool{}
			for _, m := range got {
				if seen[string(m.Member)] {
					t.Fatalf("size %d count %d: %s twice", size, count, m.Member)
				}
				seen[string(m.Member)] = true
				if want := fmt.Sprintf("m%03d", int(m.Score)); want != string(m.Member) {
					t.Fatalf("member %s came with score %g", m.Member, m.Score)
				}
			}
			if int64(len(got)) != count {
				t.Fatalf("size %d count %d: got %d", size, count, len(got))
			}
		}
		// Draws with repeats are uniform: every member comes up near its
		// expected share.
		tx := s.Read(false)
		smp, err := tx.NewZRandSampler(0, []byte("z"))
		if err != nil || smp == nil {
			t.Fatal(err)
		}
		hits := map[string]int{}
		const draws = 40000
		for range draws / 1000 {
			ms, err := smp.Draw(1000)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				hits[string(m.Member)]++
			}
		}
		smp.Close()
		tx.Close()
		exp := float64(draws) / float64(size)
		for m, h := range hits {
			if math.Abs(float64(h)-exp) > 6*math.Sqrt(exp) {
				t.Errorf("size %d: %s drawn %d times, expected about %.0f", size, m, h, exp)
			}
		}
		if len(hits) != size {
			t.Errorf("size %d: only %d members drawn", size, len(hits))
		}
		one := map[string]int{}
		for range 2000 {
			m, ok, err := zr2m(s)
			if err != nil || !ok {
				t.Fatal(err)
			}
			one[string(m.Member)]++
		}
		if len(one) < min(size, 100) {
			t.Errorf("size %d: ZRANDMEMBER hit only %d members in 2000 calls", size, len(one))
		}
	}
}

func zr2m(s *Store) (ZMember, bool, error) {
	tx := s.Read(false)
	defer tx.Close()
	return tx.ZRandMember(0, []byte("z"))
}

// --- ZSCAN ------------------------------------------------------------------------------------

func TestZScanSmallSetInOneCall(t *testing.T) {
	s, _ := openTestStore(t)
	zadd(t, s, "z", "a", 1, "b", 2, "c", 3)
	next, ms, err := zscan(s, 0, ZScanArgs{Count: 1})
	if err != nil || next != 0 || zstr(ms) != "a:1 b:2 c:3" {
		t.Fatalf("ZSCAN = %d %s %v", next, zstr(ms), err)
	}
	next, ms, _ = zscan(s, 0, ZScanArgs{Count: 1, Pattern: []byte("[ac]")})
	if next != 0 || zstr(ms) != "a:1 c:3" {
		t.Fatalf("ZSCAN MATCH = %d %s", next, zstr(ms))
	}
}

func zscan(s *Store, cursor uint64, a ZScanArgs) (uint64, []ZMember, error) {
	tx := s.Read(false)
	defer tx.Close()
	return tx.ZScan(0, []byte("z"), cursor, a)
}

func TestZScanReturnsEveryMember(t *testing.T) {
	for _, prefix := range []string{"", "user:session:000", strings.Repeat("p", 300)} {
		s, _ := openTestStore(t)
		want := map[string]bool{}
		var pairs []any
		for i := range 1000 {
			m := fmt.Sprintf("%s%d", prefix, i*7919%100003)
			want[m] = true
			pairs = append(pairs, m, i%10)
		}
		zadd(t, s, "z", pairs...)
		got := map[string]bool{}
		var cursor uint64
		calls := 0
		for {
			next, ms, err := zscan(s, cursor, ZScanArgs{Count: 50})
			if err != nil {
				t.Fatal(err)
			}
			calls++
			for _, m := range ms {
				got[string(m.Member)] = true
			}
			if next == 0 {
				break
			}
			if next == cursor {
				t.Fatalf("prefix %q: cursor %d did not move", prefix, cursor)
			}
			cursor = next
		}
		if len(got) != len(want) {
			t.Fatalf("prefix %q: scanned %d of %d members", prefix, len(got), len(want))
		}
		// A cursor holds 255 bytes of common prefix and 7 more: members
		// alike beyond that come back in one call.
		if len(prefix) < 248 && calls < 10 {
			t.Fatalf("prefix %q: %d calls of COUNT 50 for 1000 members", prefix, calls)
		}
	}
}

func TestZScanUnderChurn(t *testing.T) {
	s, _ := openTestStore(t)
	var pairs []any
	for i := range 500 {
		pairs = append(pairs, fmt.Sprintf("stay%04d", i), i)
	}
	zadd(t, s, "z", pairs...)
	got := map[string]bool{}
	var cursor uint64
	for step := 0; ; step++ {
		next, ms, err := zscan(s, cursor, ZScanArgs{Count: 20})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			got[string(m.Member)] = true
		}
		// Members come and go between calls, some sorting before
		// everything (shrinking the common prefix).
		zadd(t, s, "z", fmt.Sprintf("a%d", step), 0, fmt.Sprintf("zz%d", step), 0)
		writeTx(t, s, []string{"z"}, func(tx *Tx) (int64, error) {
			return tx.ZRem(0, []byte("z"), byteSlices(fmt.Sprintf("a%d", step-1)))
		})
		if next == 0 {
			break
		}
		cursor = next
	}
	for i := range 500 {
		if m := fmt.Sprintf("stay%04d", i); !got[m] {
			t.Fatalf("%s, present throughout, was not returned", m)
		}
	}
}

// --- OBJECT ENCODING ------------------------------------------------------------------------

func TestZSetEncoding(t *testing.T) {
	for _, tc := range []struct {
		n    int
		long string
		want string
		// entries and value, when not 0, replace the encoding limits.
		entries, value int64
	}{
		{1, "x", "listpack", 0, 0},
		{128, "x", "listpack", 0, 0},
		{129, "x", "skiplist", 0, 0},
		{3, strings.Repeat("y", 64), "listpack", 0, 0},
		{3, strings.Repeat("y", 65), "skiplist", 0, 0},
		{3, "x", "listpack", 3, 0},
		{4, "x", "skiplist", 3, 0},
		{3, strings.Repeat("y", 65), "listpack", 0, 65},
		{3, strings.Repeat("y", 10), "skiplist", 0, 9},
	} {
		s, _ := openTestStore(t)
		l := DefaultEncodingLimits()
		if tc.entries != 0 {
			l.ZSetEntries = tc.entries
		}
		if tc.value != 0 {
			l.ZSetValue = tc.value
		}
		s.SetEncodingLimits(l)
		pairs := []any{tc.long, 0}
		for i := 1; i < tc.n; i++ {
			pairs = append(pairs, fmt.Sprint(i), i)
		}
		zadd(t, s, "z", pairs...)
		got, ok, err := zr3(s)
		if err != nil || !ok || got != tc.want {
			t.Errorf("%d members, one of %d bytes: %q %v %v, want %q", tc.n, len(tc.long), got, ok, err, tc.want)
		}
	}
}

func zr3(s *Store) (string, bool, error) {
	tx := s.Read(false)
	defer tx.Close()
	return tx.ZSetEncoding(0, []byte("z"))
}

// zbuildBig fills key with n members, "member:<i>" scoring i, in large
// batches.
func zbuildBig(b *testing.B, s *Store, key []byte, n int) {
	const batch = 20_000
	for lo := 0; lo < n; lo += batch {
		benchWrite(b, s, key, func(tx *Tx) error {
			pairs := make([]ZMember, 0, batch)
			for i := lo; i < min(lo+batch, n); i++ {
				pairs = append(pairs, ZMember{Member: []byte(fmt.Sprintf("member:%d", i)), Score: float64(i)})
			}
			_, err := tx.ZAdd(0, key, ZAddArgs{}, pairs)
			return err
		})
	}
}

// BenchmarkZSetBig times reads and writes inside one sorted set of 1,000
// and of 1,000,000 members on an on-disk Pebble: the point reads and
// score-range seeks do not depend on the size; ranks are counted
// (O(distance from the nearer end)), which ZRankMiddle shows at its worst.
func BenchmarkZSetBig(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchZSetOps(b, n) })
	}
}

func benchZSetOps(b *testing.B, n int) {
	s := openBenchStore(b, 0, nil)
	key := []byte("big")
	zbuildBig(b, s, key, n)
	at := func(f float64) float64 { return math.Floor(f * float64(n)) }
	read := func(b *testing.B, fn func(tx *Tx) error) {
		b.ReportAllocs()
		for b.Loop() {
			tx := s.Read(false)
			if err := fn(tx); err != nil {
				b.Fatal(err)
			}
			tx.Close()
		}
	}
	want := func(got, n int) error {
		if got != n {
			return fmt.Errorf("%d members, want %d", got, n)
		}
		return nil
	}
	b.Run("ZScore", func(b *testing.B) {
		i := 0
		read(b, func(tx *Tx) error {
			i = (i + 7919) % n
			_, ok, err := tx.ZScore(0, key, []byte(fmt.Sprintf("member:%d", i)))
			if !ok && err == nil {
				err = fmt.Errorf("member:%d missing", i)
			}
			return err
		})
	})
	b.Run("ZRangeByScoreLimitDeep", func(b *testing.B) {
		// ZRANGEBYSCORE big 700000 +inf LIMIT 0 10
		read(b, func(tx *Tx) error {
			ms, err := tx.ZRange(0, key, ZRange{By: ZByScore, Min: ScoreBound{Score: at(0.7)}, Max: ScoreBound{Score: math.Inf(1)}, Count: 10})
			if err == nil {
				err = want(len(ms), 10)
			}
			return err
		})
	})
	b.Run("ZRevRangeByScoreLimitDeep", func(b *testing.B) {
		read(b, func(tx *Tx) error {
			ms, err := tx.ZRange(0, key, ZRange{By: ZByScore, Rev: true, Min: ScoreBound{Score: math.Inf(-1)}, Max: ScoreBound{Score: at(0.3)}, Count: 10})
			if err == nil {
				err = want(len(ms), 10)
			}
			return err
		})
	})
	b.Run("ZRangeHead", func(b *testing.B) {
		read(b, func(tx *Tx) error {
			ms, err := tx.ZRange(0, key, ZRange{By: ZByRank, Start: 0, Stop: 10})
			if err == nil {
				err = want(len(ms), 11)
			}
			return err
		})
	})
	b.Run("ZRevRangeHead", func(b *testing.B) {
		read(b, func(tx *Tx) error {
			ms, err := tx.ZRange(0, key, ZRange{By: ZByRank, Start: 0, Stop: 10, Rev: true})
			if err == nil {
				err = want(len(ms), 11)
			}
			return err
		})
	})
	b.Run("ZCountAll", func(b *testing.B) {
		read(b, func(tx *Tx) error {
			c, err := tx.ZCount(0, key, ScoreBound{Score: math.Inf(-1)}, ScoreBound{Score: math.Inf(1)})
			if err == nil {
				err = want(int(c), n)
			}
			return err
		})
	})
	b.Run("ZCountNarrow", func(b *testing.B) {
		read(b, func(tx *Tx) error {
			c, err := tx.ZCount(0, key, ScoreBound{Score: at(0.5)}, ScoreBound{Score: at(0.5) + 99})
			if err == nil {
				err = want(int(c), 100)
			}
			return err
		})
	})
	b.Run("ZRankNearEnd", func(b *testing.B) {
		read(b, func(tx *Tx) error {
			r, _, _, err := tx.ZRank(0, key, []byte(fmt.Sprintf("member:%d", n-10)), false)
			if err == nil {
				err = want(int(r), n-10)
			}
			return err
		})
	})
	b.Run("ZRankMiddle", func(b *testing.B) {
		read(b, func(tx *Tx) error {
			r, _, _, err := tx.ZRank(0, key, []byte(fmt.Sprintf("member:%d", n/2)), false)
			if err == nil {
				err = want(int(r), n/2)
			}
			return err
		})
	})
	b.Run("ZAdd", func(b *testing.B) {
		b.ReportAllocs()
		i := n
		for b.Loop() {
			i++
			benchWrite(b, s, key, func(tx *Tx) error {
				_, err := tx.ZAdd(0, key, ZAddArgs{}, []ZMember{{Member: []byte(fmt.Sprintf("member:%d", i)), Score: float64(i)}})
				return err
			})
		}
	})
}

// BenchmarkZPopMinDrain is redis-benchmark's ZPOPMIN workload: one sorted
// set of 60,000 members scored 0..59,999, built in pipelined ZADDs of
// 1,000, popped one member per command; rebuilt when it runs low.
func BenchmarkZPopMinDrain(b *testing.B) {
	const size, batch = 60_000, 1_000
	s := openBenchStore(b, 64<<20, nil)
	key := []byte("myzset")
	fill := func() {
		for first := 0; first < size; first += batch {
			ms := make([]ZMember, batch)
			for i := range ms {
				ms[i] = ZMember{Member: fmt.Appendf(nil, "element:%012d", first+i), Score: float64(first + i)}
			}
			benchWrite(b, s, key, func(tx *Tx) error { _, err := tx.ZAdd(0, key, ZAddArgs{}, ms); return err })
		}
	}
	fill()
	left := size
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if left < size/4 {
			b.StopTimer()
			fill()
			left = size
			b.StartTimer()
		}
		benchWrite(b, s, key, func(tx *Tx) error {
			ms, err := tx.ZPop(0, key, false, 1)
			if err == nil && len(ms) != 1 {
				err = errors.New("popped nothing")
			}
			return err
		})
		left--
	}
}

// A write that changes members but not the collection's metadata (a new
// score inside the set's bounds, an overwritten hash field, LSET) leaves
// the metadata record alone, and still marks the key as modified.
func TestCollectionSaveSkipsUnchangedMeta(t *testing.T) {
	s, _ := openTestStore(t)
	write(t, s, []string{"z", "h", "l"}, func(tx *Tx) error {
		if _, err := tx.ZAdd(0, []byte("z"), ZAddArgs{}, []ZMember{{Member: []byte("a"), Score: 1}, {Member: []byte("b"), Score: 5}, {Member: []byte("m"), Score: 2}}); err != nil {
			return err
		}
		if _, err := tx.HSet(0, []byte("h"), byteSlices("f", "v")); err != nil {
			return err
		}
		_, err := tx.ListPush(0, []byte("l"), ListRight, byteSlices("x", "y"), false)
		return err
	})
	tests := []struct {
		name       string
		key        string
		op         func(tx *Tx) error
		metaWrites int
	}{
		{"zadd inside the bounds", "z", func(tx *Tx) error {
			_, err := tx.ZAdd(0, []byte("z"), ZAddArgs{}, []ZMember{{Member: []byte("m"), Score: 3}})
			return err
		}, 0},
		{"zadd beyond the bounds", "z", func(tx *Tx) error {
			_, err := tx.ZAdd(0, []byte("z"), ZAddArgs{}, []ZMember{{Member: []byte("a"), Score: 9}})
			return err
		}, 1},
		{"zadd of a new member", "z", func(tx *Tx) error {
			_, err := tx.ZAdd(0, []byte("z"), ZAddArgs{}, []ZMember{{Member: []byte("c"), Score: 4}})
			return err
		}, 1},
		{"hset over a field", "h", func(tx *Tx) error {
			_, err := tx.HSet(0, []byte("h"), byteSlices("f", "w"))
			return err
		}, 0},
		{"lset", "l", func(tx *Tx) error { return tx.LSet(0, []byte("l"), 0, []byte("z")) }, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			write(t, s, []string{tc.key}, func(tx *Tx) error {
				if err := tc.op(tx); err != nil {
					return err
				}
				if len(tx.metaWrites) != tc.metaWrites {
					t.Errorf("%d metadata writes, want %d", len(tx.metaWrites), tc.metaWrites)
				}
				if len(tx.touched) != 1 {
					t.Errorf("%d keys touched, want 1", len(tx.touched))
				}
				return nil
			})
		})
	}
	ms := readTx(t, s, func(tx *Tx) ([]ZMember, error) {
		return tx.ZRange(0, []byte("z"), ZRange{By: ZByRank, Start: 0, Stop: -1, Count: -1})
	})
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%s=%g", m.Member, m.Score))
	}
	if strings.Join(got, " ") != "m=3 c=4 b=5 a=9" {
		t.Errorf("z = %v, want m=3 c=4 b=5 a=9", got)
	}
}

// BenchmarkZAddHot is redis-benchmark's ZADD: one sorted set, a random
// member of 100,000 and a random score each time, so that after a warm-up
// almost every call moves an existing member (an old-score read, a score
// index delete and two writes).
func BenchmarkZAddHot(b *testing.B) {
	s := openBenchStore(b, 0, nil)
	key := []byte("myzset")
	zadd := func(member []byte, score float64) {
		tx := s.Begin([][]byte{key})
		_, err := tx.ZAdd(0, key, ZAddArgs{}, []ZMember{{Member: member, Score: score}})
		if err == nil {
			err = tx.Commit()
		}
		tx.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := range 100_000 {
		zadd(fmt.Appendf(nil, "element:%06d", i), float64(i))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	members := make([][]byte, 4096)
	for i := range members {
		members[i] = fmt.Appendf(nil, "element:%06d", rng.IntN(100_000))
	}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		zadd(members[i%len(members)], float64(rng.IntN(100_000)))
		i++
	}
}
