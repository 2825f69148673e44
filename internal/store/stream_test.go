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
}

// TestStreamAgainstModel runs random XADD, XDEL, XTRIM (MAXLEN and
// MINID, with LIMIT and whole nodes), XSETID ENTRIESADDED and RESTORE
// against a model, checking ranges, lengths and the store's invariants
// (Check) as it goes. The odd seeds start from a stream an older Cairn
// wrote: entries without insertion indexes, a 64-byte metadata tail.
func TestStreamAgainstModel(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s, _ := openTestStore(t)
			rng := rand.New(rand.NewPCG(seed, 99))
			m := &streamModel{vals: map[StreamID]string{}}
			key := []byte("s")
			if seed%2 == 1 {
				writeLegacyStream(t, s, key, m, 30+rng.IntN(30))
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
				case op < 8 && len(m.ids) > 0:
					victim := m.ids[rng.IntN(len(m.ids))]
					n := writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) {
						return tx.XDel(0, key, []StreamID{victim, victim, {Ms: 1 << 40}})
					})
					if n != 1 {
						t.Fatalf("step %d: XDEL %s = %d", step, victim, n)
					}
					for i, id := range m.ids {
						if id == victim {
							m.ids = append(m.ids[:i], m.ids[i+1:]...)
							break
						}
					}
					if victim.Compare(m.maxDel) > 0 {
						m.maxDel = victim
					}
				case rng.IntN(2) == 0:
					maxLen := int64(rng.IntN(40))
					limit := int64(rng.IntN(3) * 10)
					node := int64(rng.IntN(2) * 5)
					n := writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) {
						return tx.XTrim(0, key, &StreamTrim{Strategy: TrimMaxLen, MaxLen: maxLen, Limit: limit, Node: node})
					})
					want := max(int64(len(m.ids))-maxLen, 0)
					if limit > 0 {
						want = min(want, limit)
					}
					if node > 0 {
						want -= want % node
					}
					if n != want {
						t.Fatalf("step %d: XTRIM MAXLEN %d LIMIT %d node %d = %d, want %d", step, maxLen, limit, node, n, want)
					}
					m.ids = m.ids[want:]
				default:
					// MINID: an id among or between the entries, or past them.
					minID := StreamID{Ms: uint64(rng.IntN(int(m.last.Ms) + 3)), Seq: uint64(rng.IntN(4))}
					limit := int64(rng.IntN(3) * 10)
					node := int64(rng.IntN(2) * 5)
					n := writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) {
						return tx.XTrim(0, key, &StreamTrim{Strategy: TrimMinID, MinID: minID, Limit: limit, Node: node})
					})
					want := int64(0)
					for want < int64(len(m.ids)) && m.ids[want].Compare(minID) < 0 {
						want++
					}
					if limit > 0 {
						want = min(want, limit)
					}
					if node > 0 {
						want -= want % node
					}
					if n != want {
						t.Fatalf("step %d: XTRIM MINID %s LIMIT %d node %d = %d, want %d", step, minID, limit, node, n, want)
					}
					m.ids = m.ids[want:]
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
			m := &streamModel{vals: map[StreamID]string{}}
			key := []byte("s")
			if legacy > 0 {
				writeLegacyStream(t, s, key, m, legacy)
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
				}
				return 0, nil
			})
			var victims []StreamID
			keep := m.ids[:0:0]
			for _, id := range m.ids {
				if rng.IntN(10) == 0 {
					victims = append(victims, id)
				} else {
					keep = append(keep, id)
				}
			}
			writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.XDel(0, key, victims) })
			m.ids = keep
			for round := range 6 {
				var n int64
				var want int
				if round%2 == 0 {
					maxLen := len(m.ids)/2 + rng.IntN(len(m.ids)/4)
					want = len(m.ids) - maxLen
					n = writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) {
						return tx.XTrim(0, key, &StreamTrim{Strategy: TrimMaxLen, MaxLen: int64(maxLen)})
					})
				} else {
					// MINID with a LIMIT or whole nodes: the cut is
					// stepped back from or bisected to.
					at := len(m.ids) / 2
					limit, node := int64(rng.IntN(2)*(at/2+1)), int64(rng.IntN(2)*7)
					want = at
					if limit > 0 {
						want = min(want, int(limit))
					}
					if node > 0 {
						want -= want % int(node)
					}
					n = writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) {
						return tx.XTrim(0, key, &StreamTrim{Strategy: TrimMinID, MinID: m.ids[at], Limit: limit, Node: node})
					})
				}
				if n != int64(want) {
					t.Fatalf("round %d: trimmed %d, want %d", round, n, want)
				}
				m.ids = m.ids[want:]
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
				return tx.XDel(0, key, []StreamID{{Ms: 3}})
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
