package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/cairndb/cairn/internal/encoding"
)

// testKeyCache is the key cache of the stores the tests open: small, so
// that tests run through hits, misses and evictions alike.
const testKeyCache = 1 << 20

func TestKeyCacheEntries(t *testing.T) {
	c := newKeyCache(cacheShards*1024, 16) // 1 KiB a shard: entries up to 256 bytes
	mk := []byte("mk")
	if _, _, ok, _ := c.lookup(3, mk, nil); ok {
		t.Fatal("empty cache hit")
	}
	c.store(3, mk, []byte("v1"), true)
	raw, found, ok, gen := c.lookup(3, mk, nil)
	if !ok || !found || string(raw) != "v1" {
		t.Fatalf("lookup after store = %q %t %t", raw, found, ok)
	}

	// A fill with a generation taken before a store is refused: it could
	// put back an older value than the writer's.
	c.store(3, mk, []byte("v2"), true)
	c.fill(3, gen, mk, []byte("stale"), true)
	if raw, _, _, _ := c.lookup(3, mk, nil); string(raw) != "v2" {
		t.Fatalf("stale fill replaced the writer's value: %q", raw)
	}
	_, _, _, gen = c.lookup(3, []byte("other"), nil)
	c.fill(3, gen, []byte("other"), nil, false)
	if _, found, ok, _ := c.lookup(3, []byte("other"), nil); !ok || found {
		t.Fatalf("absent key not cached: ok %t found %t", ok, found)
	}

	// Deleted keys are cached as absent, forgotten ones not at all.
	c.store(3, mk, nil, false)
	if _, found, ok, _ := c.lookup(3, mk, nil); !ok || found {
		t.Fatalf("deleted key: ok %t found %t", ok, found)
	}
	c.forget(3, mk)
	if _, _, ok, _ := c.lookup(3, mk, nil); ok {
		t.Fatal("forgotten key still cached")
	}

	// Too large for the cache: not kept, and an older entry goes.
	c.store(3, mk, []byte("small"), true)
	c.store(3, mk, bytes.Repeat([]byte("x"), 300), true)
	if _, _, ok, _ := c.lookup(3, mk, nil); ok {
		t.Fatal("oversized entry cached")
	}

	c.store(5, mk, []byte("v"), true)
	c.clear()
	if _, _, ok, _ := c.lookup(5, mk, nil); ok {
		t.Fatal("entry survived clear")
	}
}

func TestKeyCacheBudget(t *testing.T) {
	c := newKeyCache(cacheShards*1024, 16)
	for i := range 1000 {
		c.store(7, []byte("key"+strconv.Itoa(i)), bytes.Repeat([]byte("v"), 100), true)
		if sh := &c.shards[7]; sh.bytes > c.shardBudget {
			t.Fatalf("after %d entries the shard holds %d bytes, budget %d", i+1, sh.bytes, c.shardBudget)
		}
	}
	// The entry just stored is never the one evicted.
	if _, _, ok, _ := c.lookup(7, []byte("key999"), nil); !ok {
		t.Fatal("newest entry evicted")
	}
	sh := &c.shards[7]
	sum := 0
	for _, slot := range sh.t.slots {
		if slot.h != 0 {
			sum += slot.e.cost()
		}
	}
	if sum != sh.bytes {
		t.Fatalf("shard accounts %d bytes, entries cost %d", sh.bytes, sum)
	}
}

func TestNewKeyCacheDisabled(t *testing.T) {
	if newKeyCache(0, 16) != nil {
		t.Fatal("a zero budget must mean no cache")
	}
}

// TestKeyCacheHeldShard: while a commit holds a shard, its lookups miss
// without proving a key absent and fills are refused, so that readers go to
// the engine; a key put twice meanwhile shows only its last record after
// release (issue 27: reads saw a key between two writes of one group).
func TestKeyCacheHeldShard(t *testing.T) {
	c := newKeyCache(cacheShards*1024, 16)
	c.holdAll(0)
	mk, other := []byte("\x00\x00\x00mk"), []byte("\x00\x00\x00other")
	c.store(3, mk, []byte("0"), true)
	_, _, _, before := c.lookup(3, other, nil)

	c.hold(3)
	if _, _, ok, _ := c.lookup(3, mk, nil); ok {
		t.Fatal("a held shard answered a lookup")
	}
	_, _, _, gen := c.lookup(3, other, nil)
	if c.absent(0, gen) {
		t.Fatal("a miss in a held shard proved a key absent (the commit may create it)")
	}
	c.put(3, mk, []byte("1"), true)
	if _, _, ok, _ := c.lookup(3, mk, nil); ok {
		t.Fatal("the first of two writes was visible before release")
	}
	c.fill(3, gen, other, []byte("stale"), true)
	c.fill(3, before, other, []byte("stale"), true)
	c.put(3, mk, []byte("2"), true)
	c.release(3)

	if raw, found, ok, _ := c.lookup(3, mk, nil); !ok || !found || string(raw) != "2" {
		t.Fatalf("after release: %q %t %t, want the last write", raw, found, ok)
	}
	_, _, ok, gen := c.lookup(3, other, nil)
	if ok {
		t.Fatal("a fill from a held shard's lookup, or from before the hold, was taken")
	}
	if !c.absent(0, gen) {
		t.Fatal("after release a miss in a database held whole is absent again")
	}
	// Other shards are not held.
	c.hold(3)
	c.store(4, mk, []byte("x"), true)
	if raw, _, ok, _ := c.lookup(4, mk, nil); !ok || string(raw) != "x" {
		t.Fatalf("shard 4 while 3 is held: %q %t", raw, ok)
	}
	c.release(3)
}

// TestKeyCacheCoherentUnderConcurrency races writers (INCR, DEL, SET) with
// unlocked readers and checks that no reader ever sees a value go back in
// time, that the counts add up, and (in the test store's cleanup) that the
// cache agrees with the engine.
func TestKeyCacheCoherentUnderConcurrency(t *testing.T) {
	s, _ := openTestStore(t)
	const keys, writers, incrs = 8, 4, 300
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range incrs {
				k := []byte(fmt.Sprintf("counter%d", (i+w)%keys))
				err := commit(s, [][]byte{k}, func(tx *Tx) error {
					_, err := tx.IncrBy(0, k, 1)
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	// Churn other keys of the same shards: set and delete.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 500 {
			k := []byte(fmt.Sprintf("churn%d", i%16))
			err := commit(s, [][]byte{k}, func(tx *Tx) (err error) {
				if i%3 == 2 {
					_, err = tx.Delete(0, k)
				} else {
					_, err = tx.SetString(0, k, []byte(strconv.Itoa(i)), SetArgs{})
				}
				return err
			})
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for r := range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			last := make([]int, keys)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				n := (i + r) % keys
				tx := s.Read(false)
				v, ok, err := tx.GetString(0, []byte(fmt.Sprintf("counter%d", n)))
				got, _ := strconv.Atoi(string(v)) // v lives as long as the Tx
				tx.Close()
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					continue
				}
				if got < last[n] {
					t.Errorf("counter%d went back from %d to %d", n, last[n], got)
					return
				}
				last[n] = got
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	total := 0
	tx := s.Read(false)
	defer tx.Close()
	for n := range keys {
		v, _, err := tx.GetString(0, []byte(fmt.Sprintf("counter%d", n)))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := strconv.Atoi(string(v))
		total += got
	}
	if total != writers*incrs {
		t.Fatalf("counters sum to %d, want %d", total, writers*incrs)
	}
}

// TestKeyCacheFlush: FLUSHALL and FLUSHDB empty the cache, so no key
// survives in it.
func TestKeyCacheFlush(t *testing.T) {
	s, _ := openTestStore(t)
	k := []byte("k")
	write := func(f func(tx *Tx) error, keys ...[]byte) {
		t.Helper()
		var tx *Tx
		if keys == nil {
			tx = s.BeginAll()
		} else {
			tx = s.Begin(keys)
		}
		defer tx.Close()
		if err := f(tx); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	get := func() bool {
		tx := s.Read(false)
		defer tx.Close()
		_, ok, err := tx.GetString(0, k)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for _, flush := range []func(tx *Tx) error{
		func(tx *Tx) error { return tx.FlushAll() },
		func(tx *Tx) error { return tx.FlushDB(0) },
	} {
		write(func(tx *Tx) error { _, err := tx.SetString(0, k, []byte("v"), SetArgs{}); return err }, k)
		if !get() {
			t.Fatal("key not set")
		}
		write(flush)
		if get() {
			t.Fatal("key still readable after the flush")
		}
	}
}

// TestRollbackCommand shares one Tx between three commands and rolls the
// second back after it wrote: the first and third commit, the second leaves
// nothing behind — records, key counts, cached metadata or touched keys.
func TestRollbackCommand(t *testing.T) {
	s, _ := openTestStore(t)
	a, b, set := []byte("a"), []byte("b"), []byte("set")
	tx := s.Begin([][]byte{a})
	tx.StartCommand()
	if _, err := tx.SetString(0, a, []byte("1"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	if !tx.TryLock([][]byte{b, set}) {
		t.Fatal("TryLock of free stripes failed")
	}
	mark := tx.StartCommand()
	if _, err := tx.SetString(0, b, []byte("2"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.SAdd(0, set, [][]byte{[]byte("m1"), []byte("m2")}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Delete(0, a); err != nil {
		t.Fatal(err)
	}
	if err := tx.RollbackCommand(mark); err != nil {
		t.Fatal(err)
	}
	tx.StartCommand()
	if _, err := tx.SAdd(0, set, [][]byte{[]byte("m3")}); err != nil {
		t.Fatal(err)
	}
	var touched []string
	tx.EachTouched(func(_ int, k []byte) { touched = append(touched, string(k)) })
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	if got := fmt.Sprint(touched); got != "[a set]" {
		t.Errorf("touched keys %s, want [a set]", got)
	}
	if n := s.DBSize(0); n != 2 {
		t.Errorf("DBSIZE %d, want 2", n)
	}
	r := s.Read(false)
	defer r.Close()
	if v, ok, err := r.GetString(0, a); err != nil || !ok || string(v) != "1" {
		t.Errorf("a = %q %t %v, want 1", v, ok, err)
	}
	if _, ok, err := r.GetString(0, b); err != nil || ok {
		t.Errorf("b exists after its command was rolled back (%v)", err)
	}
	if n, err := r.SCard(0, set); err != nil || n != 1 {
		t.Errorf("SCARD set = %d %v, want 1", n, err)
	}
}

// TestTryLockRefusesHeldStripes: a pipeline transaction never waits for a
// stripe another transaction holds.
func TestTryLockRefusesHeldStripes(t *testing.T) {
	s, _ := openTestStore(t)
	holder := s.Begin([][]byte{[]byte("k")})
	defer holder.Close()
	tx := s.Begin([][]byte{[]byte("other")})
	defer tx.Close()
	if tx.TryLock([][]byte{[]byte("k")}) {
		t.Fatal("TryLock took a stripe another Tx holds")
	}
	if !tx.TryLock([][]byte{[]byte("other")}) {
		t.Fatal("TryLock refused a stripe the Tx already holds")
	}
}

// TestUnsyncedUntilWALSync: a commit that left its sync to the caller
// (appendfsync always) counts as unsynced, for readers' replies too, until
// a WAL sync covers it.
func TestUnsyncedUntilWALSync(t *testing.T) {
	s, _ := openTestStore(t)
	s.SetSyncMode(SyncAlways)
	if s.Unsynced() {
		t.Fatal("a fresh store has unsynced commits")
	}
	k := []byte("k")
	if err := commit(s, [][]byte{k}, func(tx *Tx) error {
		tx.DeferSync()
		_, err := tx.SetString(0, k, []byte("v"), SetArgs{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !s.Unsynced() {
		t.Fatal("a deferred commit is not reported unsynced")
	}
	if err := s.SyncWAL(); err != nil {
		t.Fatal(err)
	}
	if s.Unsynced() {
		t.Fatal("still unsynced after a WAL sync")
	}
}

// The check catches a database wrongly marked whole.
func TestKeyCacheCheckCatchesWrongHold(t *testing.T) {
	s, _ := openTestStore(t)
	tx := s.Begin(byteSlices("k"))
	if _, err := tx.SetString(1, []byte("k"), []byte("v"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	s.keys.clear()
	s.keys.holdAll(1)
	if err := checkKeyCache(s); err == nil {
		t.Fatal("check passed with database 1 held whole and its key not cached")
	}
	s.keys.clear() // leave the store consistent for the cleanup's check
}

// BenchmarkKeyCache looks up and then replaces the entry of a random key
// out of 100,000, as a SET of redis-benchmark -r 100000 does: the cache's
// share of a write's cost.
func BenchmarkKeyCache(b *testing.B) {
	const keys = 100_000
	c := newKeyCache(256<<20, 16)
	mks := make([][]byte, keys)
	raw := bytes.Repeat([]byte("v"), 140)
	for i := range mks {
		key := fmt.Appendf(nil, "key:%012d", i)
		mks[i] = encoding.AppendMetaKey(nil, 0, key)
		c.store(stripeOf(key), mks[i], raw, true)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var dst []byte
	for b.Loop() {
		i := rng.IntN(keys)
		st := stripeOf(mks[i][encoding.MetaPrefixLen:])
		var ok bool
		dst, _, ok, _ = c.lookup(st, mks[i], dst)
		if !ok {
			b.Fatal("miss")
		}
		c.store(st, mks[i], raw, true)
	}
}

// A cache smaller than the data evicts on every miss; the evicted entry's
// buffer serves the next one, so the churn allocates nothing.
func TestKeyCacheChurnReusesBuffers(t *testing.T) {
	c := newKeyCache(cacheShards*8<<10, 1)
	val := bytes.Repeat([]byte("v"), 1024)
	mk := func(i int) []byte { return fmt.Appendf(nil, "\x01\x00\x00key:%08d", i) }
	for i := range 64 {
		c.store(0, mk(i), val, true) // fills shard 0 past its budget
	}
	keys := make([][]byte, 1000)
	for i := range keys {
		keys[i] = mk(1000 + i)
	}
	i := 0
	allocs := testing.AllocsPerRun(len(keys)-1, func() {
		c.store(0, keys[i], val, true)
		i++
	})
	if allocs > 0.1 {
		t.Errorf("%.2f allocations per store into a full shard, want none", allocs)
	}
	if sh := &c.shards[0]; sh.bytes > c.shardBudget {
		t.Errorf("shard holds %d bytes, budget %d", sh.bytes, c.shardBudget)
	}
}

// The table behind each shard agrees with a map through random puts and
// deletes, with hashes that collide on their home slots.
func TestEntryTable(t *testing.T) {
	var tbl entryTable
	model := map[uint64]uint32{}
	rng := rand.New(rand.NewPCG(3, 4))
	for step := range 20000 {
		// Few distinct hashes, many sharing low bits: long probe runs.
		h := uint64(rng.IntN(300))<<20 | uint64(rng.IntN(8)) | 1
		if rng.IntN(3) == 0 {
			if i := tbl.find(h); i >= 0 {
				tbl.deleteAt(i)
			}
			delete(model, h)
		} else {
			tbl.put(h, cacheEntry{klen: uint32(step)})
			model[h] = uint32(step)
		}
		if tbl.n != len(model) {
			t.Fatalf("step %d: table holds %d, model %d", step, tbl.n, len(model))
		}
	}
	for h, v := range model {
		i := tbl.find(h)
		if i < 0 || tbl.slots[i].e.klen != v {
			t.Fatalf("hash %#x: found at %d, want value %d", h, i, v)
		}
	}
	for _, s := range tbl.slots {
		if _, ok := model[s.h]; s.h != 0 && !ok {
			t.Fatalf("hash %#x left in the table", s.h)
		}
	}
	tbl.clear()
	if tbl.n != 0 || tbl.find(1) >= 0 {
		t.Fatal("clear left entries")
	}
}
