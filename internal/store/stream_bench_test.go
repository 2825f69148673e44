package store

import (
	"fmt"
	"testing"

	"github.com/cairndb/cairn/internal/encoding"
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
				a.Trim = StreamTrim{Strategy: TrimMaxLen, MaxLen: 1000, Limit: 10000, Node: 100}
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
