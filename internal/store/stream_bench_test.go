package store

import (
	"fmt"
	"testing"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/rdb"
)

// BenchmarkStreamXAdd is XADD * of one small field, and XADD MAXLEN ~ 1000
// (a capped stream trimming a node at a time).
func BenchmarkStreamXAdd(b *testing.B) {
	for _, capped := range []bool{false, true} {
		b.Run(fmt.Sprintf("capped=%t", capped), func(b *testing.B) {
			s := openBenchStore(b, 64<<20, nil)
			key := []byte("s")
			a := &XAddArgs{Fields: byteSlices("field", "value")}
			if capped {
				a.Trim = StreamTrim{Strategy: TrimMaxLen, MaxLen: 1000, Limit: 10000, Approx: true, Node: 100}
			}
			b.ReportAllocs()
			for b.Loop() {
				benchWrite(b, s, key, func(tx *Tx) error {
					_, _, _, err := tx.XAdd(0, key, a)
					return err
				})
			}
		})
	}
}

// BenchmarkStreamXRange is XRANGE COUNT 10 from the start, middle and end
// of a stream of n entries: the cost must not grow with n.
func BenchmarkStreamXRange(b *testing.B) {
	const n = 200_000
	s := openBenchStore(b, 64<<20, nil)
	key := []byte("s")
	for i := 0; i < n; i += 1000 {
		benchWrite(b, s, key, func(tx *Tx) error {
			for j := i; j < i+1000; j++ {
				if _, _, _, err := tx.XAdd(0, key, &XAddArgs{ID: StreamID{Ms: uint64(j + 1)}, IDGiven: true, SeqGiven: true, Fields: byteSlices("f", "v")}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	for _, at := range []uint64{1, n / 2, n - 10} {
		b.Run(fmt.Sprintf("from=%d", at), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tx := s.Read(false)
				e, _, err := tx.XRange(0, key, StreamID{Ms: at}, encoding.MaxStreamID, 10, false)
				tx.Close()
				if err != nil || len(e) != 10 {
					b.Fatal(len(e), err)
				}
			}
		})
	}
}

// BenchmarkStreamGroupReadAck is a consumer's XREADGROUP COUNT 10 > then
// XACK of what it read.
func BenchmarkStreamGroupReadAck(b *testing.B) {
	s := openBenchStore(b, 64<<20, nil)
	key, group, consumer := []byte("s"), []byte("g"), []byte("c")
	benchWrite(b, s, key, func(tx *Tx) error {
		return tx.XGroupCreate(0, key, group, StreamID{}, false, true, InvalidEntriesRead)
	})
	next := uint64(1)
	b.ReportAllocs()
	for b.Loop() {
		benchWrite(b, s, key, func(tx *Tx) error {
			for range 10 {
				if _, _, _, err := tx.XAdd(0, key, &XAddArgs{ID: StreamID{Ms: next}, IDGiven: true, SeqGiven: true, Fields: byteSlices("f", "v")}); err != nil {
					return err
				}
				next++
			}
			return nil
		})
		var ids []StreamID
		benchWrite(b, s, key, func(tx *Tx) error {
			r, err := tx.XReadGroup(0, key, group, consumer, StreamID{}, false, 10, false, false)
			for _, e := range r.Entries {
				ids = append(ids, e.ID)
			}
			return err
		})
		benchWrite(b, s, key, func(tx *Tx) error {
			_, err := tx.XAck(0, key, group, ids)
			return err
		})
	}
}

// BenchmarkStreamTrimPrefix is XTRIM MINID and XTRIM MAXLEN dropping all
// but the last 10 of n entries, XTRIM MINID and MAXLEN dropping about half
// of them (the most a walk to the cut would read), DEL of such
// a stream (with a consumer group of 1000 pending entries), and for the
// floor an XSETID (a write of the metadata alone). Each iteration builds its stream first, off the
// clock (RESTORE's writer: one batch).
func BenchmarkStreamTrimPrefix(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		st := &rdb.Stream{EntriesAdded: uint64(n)}
		for i := range n {
			st.Entries = append(st.Entries, rdb.StreamEntry{ID: rdb.StreamID{Ms: uint64(i + 1)}, Fields: byteSlices("f", "v")})
		}
		st.LastID, st.FirstID = st.Entries[n-1].ID, st.Entries[0].ID
		g := rdb.StreamGroup{Name: []byte("g"), LastID: st.LastID, Consumers: []rdb.StreamConsumer{{Name: []byte("c")}}}
		for i := 0; i < n; i += n / 1000 {
			g.Pending = append(g.Pending, rdb.StreamPending{ID: st.Entries[i].ID, Count: 1, Consumer: []byte("c")})
		}
		st.Groups = []rdb.StreamGroup{g}
		for _, op := range []string{"minid", "maxlen", "minid-half", "maxlen-half", "del", "none"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, op), func(b *testing.B) {
				s := openBenchStore(b, 64<<20, nil)
				key := []byte("s")
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					benchWrite(b, s, key, func(tx *Tx) error {
						_, err := tx.WriteValue(0, key, Value{Type: encoding.TypeStream, Stream: st}, 0)
						return err
					})
					b.StartTimer()
					benchWrite(b, s, key, func(tx *Tx) error {
						var err error
						var got int64
						switch op {
						case "minid":
							got, err = tx.XTrim(0, key, &StreamTrim{Strategy: TrimMinID, MinID: StreamID{Ms: uint64(n - 9)}})
						case "maxlen":
							got, err = tx.XTrim(0, key, &StreamTrim{Strategy: TrimMaxLen, MaxLen: 10})
						case "minid-half":
							// The worst case: as many kept as dropped.
							got, err = tx.XTrim(0, key, &StreamTrim{Strategy: TrimMinID, MinID: StreamID{Ms: uint64(n/2 + 1)}})
							got += int64(n/2 - 10)
						case "maxlen-half":
							got, err = tx.XTrim(0, key, &StreamTrim{Strategy: TrimMaxLen, MaxLen: int64(n/2 + 10)})
							got += int64(n / 2)
						case "none":
							// The floor: a write of the metadata alone.
							got, err = tx.XTrim(0, key, &StreamTrim{Strategy: TrimMaxLen, MaxLen: int64(n)})
							if err == nil {
								err = tx.XSetID(0, key, StreamID{Ms: uint64(n + 5)}, -1, StreamID{})
							}
							got += int64(n - 10)
						default:
							var ok bool
							ok, err = tx.Delete(0, key)
							if ok {
								got = int64(n - 10)
							}
						}
						if err == nil && got != int64(n-10) {
							err = fmt.Errorf("%s removed %d", op, got)
						}
						return err
					})
				}
			})
		}
	}
}
