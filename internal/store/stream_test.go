package store

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// streamModel is an in-memory stream: what the store must agree with.
type streamModel struct {
	ids    []StreamID
	vals   map[StreamID]string
	last   StreamID
	maxDel StreamID
	added  uint64
	// legacy is how many of the first ids an older Cairn wrote, without
	// insertion indexes; nodes holds the others as Redis would.
	legacy int
	nodes  redisNodes
}

// redisNodes is Redis's radix tree of a stream, as t_stream.c keeps it:
// nodes of up to n entries (counting deleted ones), filled by XADD in
// turn, a node dropped when XDEL removes its last live entry, trimmed as
// streamTrim does. The store emulates it without nodes.
type redisNodes struct {
	n     int
	nodes [][]*nodeSlot
}

type nodeSlot struct {
	id   StreamID
	dead bool
}

func liveIn(nd []*nodeSlot) int {
	live := 0
	for _, e := range nd {
		if !e.dead {
			live++
		}
	}
	return live
}

func (r *redisNodes) add(id StreamID) {
	if k := len(r.nodes); k == 0 || len(r.nodes[k-1]) >= r.n {
		r.nodes = append(r.nodes, nil)
	}
	r.nodes[len(r.nodes)-1] = append(r.nodes[len(r.nodes)-1], &nodeSlot{id: id})
}

func (r *redisNodes) del(id StreamID) {
	for i, nd := range r.nodes {
		for _, e := range nd {
			if e.id == id && !e.dead {
				e.dead = true
				if liveIn(nd) == 0 {
					r.nodes = append(r.nodes[:i:i], r.nodes[i+1:]...)
				}
				return
			}
		}
	}
}

// trim is Redis's streamTrim over length live entries; it returns how
// many it removed.
func (r *redisNodes) trim(t *StreamTrim, length int) int {
	deleted := 0
	for len(r.nodes) > 0 {
		if t.Strategy == TrimMaxLen && int64(length) <= t.MaxLen {
			break
		}
		nd := r.nodes[0]
		entries := liveIn(nd)
		if t.Limit > 0 && int64(deleted+entries) > t.Limit {
			break
		}
		var remove bool
		if t.Strategy == TrimMaxLen {
			remove = int64(length-entries) >= t.MaxLen
		} else {
			remove = nd[len(nd)-1].id.Compare(t.MinID) < 0
		}
		if remove {
			r.nodes = r.nodes[1:]
			length -= entries
			deleted += entries
			continue
		}
		if t.Approx {
			break
		}
		for _, e := range nd {
			if t.Strategy == TrimMaxLen && int64(length) <= t.MaxLen || t.Strategy == TrimMinID && e.id.Compare(t.MinID) >= 0 {
				break
			}
			if !e.dead {
				e.dead = true
				length--
				deleted++
			}
		}
		break
	}
	return deleted
}

// xdel removes id from the model.
func (m *streamModel) xdel(id StreamID) {
	for i, x := range m.ids {
		if x == id {
			m.ids = append(m.ids[:i], m.ids[i+1:]...)
			if i < m.legacy {
				m.legacy--
			} else {
				m.nodes.del(id)
			}
			return
		}
	}
}

// trim is what the store's trim must remove: Redis's, once no entry of an
// older Cairn is left; before, an exact count, or for ~ the multiple of
// whole nodes below it (what the store did before it emulated nodes).
func (m *streamModel) trim(t *StreamTrim) int {
	if m.legacy == 0 {
		n := m.nodes.trim(t, len(m.ids))
		m.ids = m.ids[n:]
		return n
	}
	want := 0
	switch t.Strategy {
	case TrimMaxLen:
		want = max(len(m.ids)-int(t.MaxLen), 0)
	case TrimMinID:
		for want < len(m.ids) && m.ids[want].Compare(t.MinID) < 0 {
			want++
		}
	}
	if t.Limit > 0 {
		want = min(want, int(t.Limit))
	}
	if t.Approx {
		want -= want % int(t.Node)
	}
	for _, id := range m.ids[:want] {
		if m.legacy > 0 {
			m.legacy--
			continue
		}
		for _, nd := range m.nodes.nodes {
			for _, e := range nd {
				if e.id == id {
					e.dead = true
				}
			}
		}
	}
	m.ids = m.ids[want:]
	if len(m.ids) == 0 {
		m.nodes.nodes = nil
	}
	return want
}

// restored is the model after RESTORE: every entry indexed, in nodes
// filled in turn.
func (m *streamModel) restored() {
	m.legacy = 0
	m.nodes.nodes = nil
	for _, id := range m.ids {
		m.nodes.add(id)
	}
}

// TestStreamAgainstModel runs random XADD, XDEL, XTRIM (MAXLEN and
// MINID, exact, or ~ with LIMIT: whole nodes of Redis's radix tree),
// XSETID ENTRIESADDED and RESTORE against a model, checking ranges,
// lengths and the store's invariants (Check) as it goes. The odd seeds
// start from a stream an older Cairn wrote: entries without insertion
// indexes, a 64-byte metadata tail.
func TestStreamAgainstModel(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s, _ := openTestStore(t)
			rng := rand.New(rand.NewPCG(seed, 99))
			node := 2 + rng.IntN(6)
			m := &streamModel{vals: map[StreamID]string{}, nodes: redisNodes{n: node}}
			key := []byte("s")
			if seed%2 == 1 {
				writeLegacyStream(t, s, key, m, 30+rng.IntN(30))
				m.legacy = len(m.ids)
			}
			for step := range 800 {
				switch op := rng.IntN(10); {
				case op == 9 && rng.IntN(4) == 0 && len(m.ids) > 0:
					// XSETID ENTRIESADDED lowers the counter to the length;
					// or RESTORE writes the stream again.
					if rng.IntN(2) == 0 {
						writeTx(t, s, []string{"s"}, func(tx *Tx) (int, error) {
							return 0, tx.XSetID(0, key, m.last, int64(len(m.ids)), StreamID{})
						})
						m.added = uint64(len(m.ids))
						break
					}
					v := readTx(t, s, func(tx *Tx) (Value, error) {
						v, _, _, err := tx.ReadValue(0, key)
						return v, err
					})
					writeTx(t, s, []string{"s"}, func(tx *Tx) (bool, error) { return tx.WriteValue(0, key, v, 0) })
					m.restored()
				case op < 6:
					id := StreamID{Ms: m.last.Ms + uint64(rng.IntN(3)), Seq: uint64(rng.IntN(4))}
					v := fmt.Sprint(step)
					got, err := func() (StreamID, error) {
						tx := s.Begin([][]byte{key})
						defer tx.Close()
						id, _, _, err := tx.XAdd(0, key, &XAddArgs{ID: id, IDGiven: true, SeqGiven: true, Fields: byteSlices("f", v)})
						if err != nil {
							return id, err
						}
						return id, tx.Commit()
					}()
					if id.Compare(m.last) <= 0 {
						if err != ErrStreamIDSmall {
							t.Fatalf("step %d: XADD %s after %s: %v", step, id, m.last, err)
						}
						continue
					}
					if err != nil || got != id {
						t.Fatalf("step %d: XADD %s = %s, %v", step, id, got, err)
					}
					m.ids = append(m.ids, id)
					m.vals[id] = v
					m.last = id
					m.added++
					m.nodes.add(id)
				case op < 8 && len(m.ids) > 0:
					victim := m.ids[rng.IntN(len(m.ids))]
					n := writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) {
						return tx.XDel(0, key, []StreamID{victim, victim, {Ms: 1 << 40}}, int64(node))
					})
					if n != 1 {
						t.Fatalf("step %d: XDEL %s = %d", step, victim, n)
					}
					m.xdel(victim)
					if victim.Compare(m.maxDel) > 0 {
						m.maxDel = victim
					}
				default:
					// MAXLEN, or MINID: an id among or between the
					// entries, or past them. LIMIT only with ~, as Redis.
					tr := StreamTrim{Strategy: TrimMaxLen, MaxLen: int64(rng.IntN(40)), Approx: rng.IntN(2) == 0, Node: int64(node)}
					if rng.IntN(2) == 0 {
						tr.Strategy, tr.MaxLen = TrimMinID, 0
						tr.MinID = StreamID{Ms: uint64(rng.IntN(int(m.last.Ms) + 3)), Seq: uint64(rng.IntN(4))}
					}
					if tr.Approx {
						tr.Limit = int64(rng.IntN(3) * 7)
					}
					n := writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.XTrim(0, key, &tr) })
					if want := m.trim(&tr); n != int64(want) {
						t.Fatalf("step %d: XTRIM %+v = %d, want %d (nodes of %d, legacy %d)", step, tr, n, want, node, m.legacy)
					}
				}
				if err := Check(s); err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				entries := readTx(t, s, func(tx *Tx) ([]StreamEntry, error) {
					e, _, err := tx.XRange(0, key, StreamID{}, StreamID{Ms: ^uint64(0), Seq: ^uint64(0)}, 0, false)
					return e, err
				})
				var got []StreamID
				for _, e := range entries {
					got = append(got, e.ID)
					if string(e.Fields[1]) != m.vals[e.ID] {
						t.Fatalf("step %d: entry %s holds %q", step, e.ID, e.Fields)
					}
				}
				if !reflect.DeepEqual(got, append([]StreamID(nil), m.ids...)) && !(len(got) == 0 && len(m.ids) == 0) {
					t.Fatalf("step %d: entries %v, model %v", step, got, m.ids)
				}
				sm, length, ok := readTx(t, s, func(tx *Tx) (streamMetaResult, error) {
					sm, l, ok, err := tx.StreamMeta(0, key)
					return streamMetaResult{sm.LastID, sm.MaxDeletedID, sm.EntriesAdded, l, ok}, err
				}).split()
				if ok && (sm.last != m.last || sm.maxDel != m.maxDel || sm.added != m.added || length != uint64(len(m.ids))) {
					t.Fatalf("step %d: metadata %+v (length %d), model last %s maxdel %s added %d length %d", step, sm, length, m.last, m.maxDel, m.added, len(m.ids))
				}
			}
		})
	}
}

// TestStreamTrimLong trims long streams (with entries XDEL removed, and
// one an older Cairn wrote in part) by MAXLEN and MINID far from both
// ends, where the first entry kept is found by bisecting ids rather than
// walked to, and checks the count and the entries left against a model.
func TestStreamTrimLong(t *testing.T) {
	for _, legacy := range []int{0, 2500} {
		t.Run(fmt.Sprint("legacy=", legacy), func(t *testing.T) {
			s, _ := openTestStore(t)
			rng := rand.New(rand.NewPCG(uint64(legacy), 7))
			m := &streamModel{vals: map[StreamID]string{}, nodes: redisNodes{n: 7}}
			key := []byte("s")
			if legacy > 0 {
				writeLegacyStream(t, s, key, m, legacy)
				m.legacy = legacy
			}
			writeTx(t, s, []string{"s"}, func(tx *Tx) (int, error) {
				for i := range 12000 {
					id := StreamID{Ms: m.last.Ms + uint64(rng.IntN(1000)), Seq: uint64(rng.IntN(1 << 20))}
					if id.Compare(m.last) <= 0 {
						id = StreamID{Ms: m.last.Ms, Seq: m.last.Seq + 1}
					}
					v := fmt.Sprint(i)
					if _, _, _, err := tx.XAdd(0, key, &XAddArgs{ID: id, IDGiven: true, SeqGiven: true, Fields: byteSlices("f", v)}); err != nil {
						return 0, err
					}
					m.ids, m.vals[id], m.last = append(m.ids, id), v, id
					m.nodes.add(id)
				}
				return 0, nil
			})
			var victims []StreamID
			for _, id := range m.ids {
				if rng.IntN(10) == 0 {
					victims = append(victims, id)
				}
			}
			writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.XDel(0, key, victims, 7) })
			for _, id := range victims {
				m.xdel(id)
			}
			for round := range 6 {
				var tr StreamTrim
				if round%2 == 0 {
					tr = StreamTrim{Strategy: TrimMaxLen, MaxLen: int64(len(m.ids)/2 + rng.IntN(len(m.ids)/4))}
				} else {
					// MINID with a LIMIT or whole nodes: the cut is
					// stepped back from or bisected to.
					at := len(m.ids) / 2
					tr = StreamTrim{Strategy: TrimMinID, MinID: m.ids[at], Node: 7, Approx: rng.IntN(2) == 0}
					if tr.Approx && rng.IntN(2) == 0 {
						tr.Limit = int64(at/2 + 1)
					}
				}
				n := writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.XTrim(0, key, &tr) })
				if want := m.trim(&tr); n != int64(want) {
					t.Fatalf("round %d: %+v trimmed %d, want %d", round, tr, n, want)
				}
				if err := Check(s); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				e := readTx(t, s, func(tx *Tx) ([]StreamEntry, error) {
					e, _, err := tx.XRange(0, key, StreamID{}, encoding.MaxStreamID, 1, false)
					return e, err
				})
				if len(e) != 1 || e[0].ID != m.ids[0] {
					t.Fatalf("round %d: first entry %v, want %s", round, e, m.ids[0])
				}
				l := readTx(t, s, func(tx *Tx) (int64, error) { n, _, err := tx.XLen(0, key); return n, err })
				if l != int64(len(m.ids)) {
					t.Fatalf("round %d: XLEN %d, want %d", round, l, len(m.ids))
				}
			}
		})
	}
}

func TestMidID(t *testing.T) {
	id := func(ms, seq uint64) StreamID { return StreamID{Ms: ms, Seq: seq} }
	for _, c := range []struct{ lo, hi, want StreamID }{
		{id(1, 0), id(1, 10), id(1, 5)},
		{id(0, ^uint64(0)), id(1, 1), id(1, 0)},
		{id(0, 0), encoding.MaxStreamID, id(1<<63-1, ^uint64(0))},
		{id(3, 4), id(3, 5), id(3, 4)},
		{id(2, 7), id(2, 7), id(2, 7)},
	} {
		if got := midID(c.lo, c.hi); got != c.want {
			t.Errorf("midID(%s, %s) = %s, want %s", c.lo, c.hi, got, c.want)
		}
	}
}

// TestStreamIndexCheck checks that Check notices insertion indexes that
// would make a trim miscount: a deleted-entry record between neighbours
// with consecutive indexes, one missing from a gap, indexes out of order.
func TestStreamIndexCheck(t *testing.T) {
	key := []byte("s")
	for _, c := range []struct {
		name   string
		damage func(tx *Tx, ss *streamState) error
	}{
		{"extra deleted record", func(tx *Tx, ss *streamState) error {
			return tx.set(&ss.collection, encoding.AppendStreamDeletedKey(nil, ss.Prefix(encoding.FamilySub), StreamID{Ms: 1, Seq: 5}), nil)
		}},
		{"missing deleted record", func(tx *Tx, ss *streamState) error {
			return tx.del(&ss.collection, encoding.AppendStreamDeletedKey(nil, ss.Prefix(encoding.FamilySub), StreamID{Ms: 3}))
		}},
		{"index out of order", func(tx *Tx, ss *streamState) error {
			return tx.set(&ss.collection, ss.entryKey(StreamID{Ms: 5}), encoding.AppendStreamEntryIndexed(nil, 1, byteSlices("f", "v")))
		}},
		{"index past the next", func(tx *Tx, ss *streamState) error {
			return tx.set(&ss.collection, ss.entryKey(StreamID{Ms: 6}), encoding.AppendStreamEntryIndexed(nil, 6, byteSlices("f", "v")))
		}},
		{"unindexed after indexed", func(tx *Tx, ss *streamState) error {
			return tx.set(&ss.collection, ss.entryKey(StreamID{Ms: 6}), encoding.AppendStreamEntry(nil, byteSlices("f", "v")))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := openTestStore(t)
			writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) {
				for i := range 6 {
					if _, _, _, err := tx.XAdd(0, key, &XAddArgs{ID: StreamID{Ms: uint64(i + 1)}, IDGiven: true, SeqGiven: true, Fields: byteSlices("f", "v")}); err != nil {
						return 0, err
					}
				}
				return tx.XDel(0, key, []StreamID{{Ms: 3}}, 100)
			})
			if err := Check(s); err != nil {
				t.Fatal(err)
			}
			writeTx(t, s, []string{"s"}, func(tx *Tx) (int, error) {
				ss, err := tx.openStream(0, key)
				if err != nil {
					return 0, err
				}
				return 0, c.damage(tx, ss)
			})
			if err := Check(s); err == nil {
				t.Fatal("Check passes")
			} else {
				t.Log(err)
			}
			// The damage goes with the key, for the check at cleanup.
			writeTx(t, s, []string{"s"}, func(tx *Tx) (bool, error) { return tx.Delete(0, key) })
		})
	}
}

// writeLegacyStream writes key as an older Cairn did: n entries without
// insertion indexes and a 64-byte metadata tail.
func writeLegacyStream(t *testing.T, s *Store, key []byte, m *streamModel, n int) {
	t.Helper()
	writeTx(t, s, []string{string(key)}, func(tx *Tx) (int, error) {
		ss, err := tx.openStream(0, key)
		if err != nil {
			return 0, err
		}
		if err := tx.create(&ss.collection); err != nil {
			return 0, err
		}
		for i := range n {
			id := StreamID{Ms: uint64(i/2 + 1), Seq: uint64(i % 2)}
			v := fmt.Sprint("old", i)
			if err := tx.set(&ss.collection, ss.entryKey(id), encoding.AppendStreamEntry(nil, byteSlices("f", v))); err != nil {
				return 0, err
			}
			m.ids = append(m.ids, id)
			m.vals[id] = v
			m.last = id
			m.added++
		}
		ss.Meta.Size = uint64(n)
		ss.s = encoding.StreamMeta{LastID: m.last, FirstID: m.ids[0], EntriesAdded: m.added}
		ss.Meta.Value = encoding.AppendStreamMeta(nil, ss.s)[:64]
		return 0, tx.putMeta(0, key, &ss.Meta)
	})
	if err := Check(s); err != nil {
		t.Fatal(err)
	}
}

type streamMetaResult struct {
	last, maxDel StreamID
	added        uint64
	length       uint64
	ok           bool
}

func (r streamMetaResult) split() (streamMetaResult, uint64, bool) { return r, r.length, r.ok }

// TestStreamDeleteWithRangeTombstones checks that DEL of a long stream
// leaves nothing behind and a new stream under the name starts empty.
func TestStreamDeleteWithRangeTombstones(t *testing.T) {
	s, _ := openTestStore(t)
	key := []byte("s")
	writeTx(t, s, []string{"s"}, func(tx *Tx) (int, error) {
		for i := range 500 {
			if _, _, _, err := tx.XAdd(0, key, &XAddArgs{ID: StreamID{Ms: uint64(i + 1)}, IDGiven: true, SeqGiven: true, Fields: byteSlices("f", "v")}); err != nil {
				return 0, err
			}
		}
		return 0, nil
	})
	writeTx(t, s, []string{"s"}, func(tx *Tx) (bool, error) { return tx.Delete(0, key) })
	writeTx(t, s, []string{"s"}, func(tx *Tx) (int, error) {
		_, _, _, err := tx.XAdd(0, key, &XAddArgs{ID: StreamID{Ms: 1}, IDGiven: true, SeqGiven: true, Fields: byteSlices("f", "v")})
		return 0, err
	})
	n := readTx(t, s, func(tx *Tx) (int64, error) { n, _, err := tx.XLen(0, key); return n, err })
	if n != 1 {
		t.Fatalf("XLEN after DEL and XADD = %d", n)
	}
}

// TestStreamGroupsSurviveReopen checks that a stream's entries, groups,
// consumers and pending entries are all on disk: a store opened again on
// the same files reads them back, and they pass Check.
func TestStreamGroupsSurviveReopen(t *testing.T) {
	fs := vfs.NewMem()
	open := func() (*Store, engine.Engine) {
		eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: fs, CacheSize: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(eng, Options{Databases: 2, KeyCacheSize: testKeyCache, MemberFilterSize: testMemberFilters})
		if err != nil {
			t.Fatal(err)
		}
		return s, eng
	}
	s, eng := open()
	key, group := []byte("s"), []byte("g")
	writeTx(t, s, []string{"s"}, func(tx *Tx) (int, error) {
		for i := range 5 {
			if _, _, _, err := tx.XAdd(0, key, &XAddArgs{ID: StreamID{Ms: uint64(i + 1)}, IDGiven: true, SeqGiven: true, Fields: byteSlices("f", "v")}); err != nil {
				return 0, err
			}
		}
		if err := tx.XGroupCreate(0, key, group, StreamID{}, false, false, InvalidEntriesRead); err != nil {
			return 0, err
		}
		_, err := tx.XReadGroup(0, key, group, []byte("c"), StreamID{}, false, 3, false, false)
		return 0, err
	})
	writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.XAck(0, key, group, []StreamID{{Ms: 2}}) })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	s, eng = open()
	defer eng.Close()
	defer s.Close()
	if err := Check(s); err != nil {
		t.Fatal(err)
	}
	sum := readTx(t, s, func(tx *Tx) (PendingSummary, error) { return tx.XPendingSummary(0, key, group) })
	if sum.Count != 2 || sum.First != (StreamID{Ms: 1}) || sum.Last != (StreamID{Ms: 3}) || len(sum.Consumers) != 1 || string(sum.Consumers[0].Name) != "c" {
		t.Fatalf("pending after reopen: %+v", sum)
	}
	groups := readTx(t, s, func(tx *Tx) ([]GroupInfo, error) { g, _, err := tx.XInfoGroups(0, key); return g, err })
	if len(groups) != 1 || groups[0].LastID != (StreamID{Ms: 3}) || groups[0].EntriesRead != 3 || !groups[0].LagKnown || groups[0].Lag != 2 {
		t.Fatalf("groups after reopen: %+v", groups)
	}
}

// TestXAckManyIDs acknowledges random sets of ids (unsorted, repeated,
// some never delivered, some acknowledged already, spread so that the
// pending records between them are stepped over or sought past) and
// checks each reply and the pending lists against a model.
func TestXAckManyIDs(t *testing.T) {
	s, _ := openTestStore(t)
	key, group := []byte("s"), []byte("g")
	const n = 200
	writeTx(t, s, []string{"s"}, func(tx *Tx) (int, error) {
		for i := range n {
			if _, _, _, err := tx.XAdd(0, key, &XAddArgs{ID: StreamID{Ms: uint64(i + 1)}, IDGiven: true, SeqGiven: true, Fields: byteSlices("f", "v")}); err != nil {
				return 0, err
			}
		}
		if err := tx.XGroupCreate(0, key, group, StreamID{}, false, false, InvalidEntriesRead); err != nil {
			return 0, err
		}
		// Two consumers, interleaved in blocks of 7.
		for i := 0; i < n; i += 7 {
			if _, err := tx.XReadGroup(0, key, group, []byte{'a' + byte(i/7%2)}, StreamID{}, false, 7, false, false); err != nil {
				return 0, err
			}
		}
		return 0, nil
	})
	pending := map[uint64]bool{}
	for i := 1; i <= n; i++ {
		pending[uint64(i)] = true
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 60 {
		var ids []StreamID
		want := int64(0)
		seen := map[uint64]bool{}
		for range 1 + rng.IntN(12) {
			ms := uint64(rng.IntN(n+20) + 1)
			if round%3 == 0 {
				// Close together: the iterator steps.
				ms = uint64(round*3 + rng.IntN(6) + 1)
			}
			ids = append(ids, StreamID{Ms: ms})
			if pending[ms] && !seen[ms] {
				want++
			}
			seen[ms] = true
		}
		got := writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.XAck(0, key, group, ids) })
		if got != want {
			t.Fatalf("round %d: XACK %v = %d, want %d", round, ids, got, want)
		}
		for ms := range seen {
			delete(pending, ms)
		}
		sum := readTx(t, s, func(tx *Tx) (PendingSummary, error) { return tx.XPendingSummary(0, key, group) })
		var perConsumer int64
		for _, c := range sum.Consumers {
			perConsumer += c.Pending
		}
		if sum.Count != int64(len(pending)) || perConsumer != sum.Count {
			t.Fatalf("round %d: pending %d (consumers %d), want %d", round, sum.Count, perConsumer, len(pending))
		}
	}
	if err := Check(s); err != nil {
		t.Fatal(err)
	}
}

// TestStreamApproxTrimNodes: ~ trims remove what Redis 7.0.15 removes,
// whole radix-tree nodes, the last partly filled one included (the want
// counts are redis-server's).
func TestStreamApproxTrimNodes(t *testing.T) {
	key := []byte("s")
	add := func(t *testing.T, s *Store, from, to int) {
		writeTx(t, s, []string{"s"}, func(tx *Tx) (int, error) {
			for i := from; i <= to; i++ {
				if _, _, _, err := tx.XAdd(0, key, &XAddArgs{ID: StreamID{Ms: uint64(i)}, IDGiven: true, SeqGiven: true, Fields: byteSlices("f", "v")}); err != nil {
					return 0, err
				}
			}
			return 0, nil
		})
	}
	trim := func(t *testing.T, s *Store, tr StreamTrim, want int64) {
		t.Helper()
		if n := writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.XTrim(0, key, &tr) }); n != want {
			t.Errorf("XTRIM %+v removed %d, want %d", tr, n, want)
		}
		if err := Check(s); err != nil {
			t.Fatal(err)
		}
	}
	xdel := func(t *testing.T, s *Store, node int64, ids ...int) {
		var sids []StreamID
		for _, i := range ids {
			sids = append(sids, StreamID{Ms: uint64(i)})
		}
		writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.XDel(0, key, sids, node) })
	}
	maxlen := func(n, node int64, approx bool) StreamTrim {
		return StreamTrim{Strategy: TrimMaxLen, MaxLen: n, Approx: approx, Node: node}
	}
	t.Run("maxlen 0 of a partial node", func(t *testing.T) {
		s, _ := openTestStore(t)
		add(t, s, 1, 3)
		trim(t, s, maxlen(0, 100, true), 3)
	})
	t.Run("after exact trims", func(t *testing.T) {
		// 1,000 entries trimmed exactly to 666 then 555: MAXLEN ~ 444
		// drops the partial first node (55 entries) only.
		s, _ := openTestStore(t)
		add(t, s, 1, 1000)
		trim(t, s, maxlen(666, 100, false), 334)
		trim(t, s, maxlen(555, 100, false), 111)
		trim(t, s, maxlen(444, 100, true), 55)
	})
	t.Run("limit", func(t *testing.T) {
		// Redis's "XADD with LIMIT consecutive calls", nodes of 10.
		s, _ := openTestStore(t)
		add(t, s, 1, 100)
		trim(t, s, StreamTrim{Strategy: TrimMaxLen, MaxLen: 55, Limit: 30, Approx: true, Node: 10}, 30)
		trim(t, s, StreamTrim{Strategy: TrimMaxLen, MaxLen: 55, Limit: 30, Approx: true, Node: 10}, 10)
	})
	t.Run("last node emptied by xdel", func(t *testing.T) {
		// Nodes of 4: [1-4] [5 6]; XDEL 5 6 drops the last node, so 7 8
		// 9 10 fill a node of their own and MAXLEN ~ 4 drops [1-4] only.
		s, _ := openTestStore(t)
		add(t, s, 1, 6)
		xdel(t, s, 4, 5, 6)
		add(t, s, 7, 10)
		trim(t, s, maxlen(4, 4, true), 4)
	})
	t.Run("stream emptied by xdel", func(t *testing.T) {
		s, _ := openTestStore(t)
		add(t, s, 1, 3)
		xdel(t, s, 4, 1, 2, 3)
		add(t, s, 4, 8)
		trim(t, s, maxlen(1, 4, true), 4)
	})
	t.Run("exact minid keeps an emptied node", func(t *testing.T) {
		// Nodes of 5: [1 2 3]; XDEL 3; MINID 3 marks 1 and 2 deleted and
		// keeps the node, whose last id is 3. 4 5 fill it and 6 starts
		// the next, so MAXLEN ~ 1 drops 4 and 5.
		s, _ := openTestStore(t)
		add(t, s, 1, 3)
		xdel(t, s, 5, 3)
		trim(t, s, StreamTrim{Strategy: TrimMinID, MinID: StreamID{Ms: 3}, Node: 5}, 2)
		add(t, s, 4, 6)
		trim(t, s, maxlen(1, 5, true), 2)
	})
	t.Run("minid on a deleted entry", func(t *testing.T) {
		// Nodes of 4: [1-4] [5-8]; XDEL 4: MINID ~ 4 keeps the first
		// node, whose last id is 4.
		s, _ := openTestStore(t)
		add(t, s, 1, 8)
		xdel(t, s, 4, 4)
		trim(t, s, StreamTrim{Strategy: TrimMinID, MinID: StreamID{Ms: 4}, Approx: true, Node: 4}, 0)
		trim(t, s, StreamTrim{Strategy: TrimMinID, MinID: StreamID{Ms: 5}, Approx: true, Node: 4}, 3)
	})
}
