package store

import (
	"strings"
	"testing"
)

func TestZWalkScores(t *testing.T) {
	s, _ := openTestStore(t)
	zadd(t, s, "z", "a", 1, "b", 2, "b2", 2, "c", 3, "d", 10, "e", 11)
	span := func(lo, hi float64) ZRange {
		return ZRange{By: ZByScore, Min: ScoreBound{Score: lo}, Max: ScoreBound{Score: hi, Exclusive: true}, Count: -1}
	}
	walk := func(key string, limit int, ranges ...ZRange) (string, bool) {
		var got []string
		found := readTx(t, s, func(tx *Tx) (bool, error) {
			return tx.ZWalkScores(0, []byte(key), ranges, func(m []byte, _ float64) bool {
				got = append(got, string(m))
				return limit == 0 || len(got) < limit
			})
		})
		return strings.Join(got, " "), found
	}
	for _, tc := range []struct {
		ranges []ZRange
		limit  int
		want   string
	}{
		{[]ZRange{span(2, 3)}, 0, "b b2"},
		{[]ZRange{span(10, 12), span(1, 2)}, 0, "d e a"},
		{[]ZRange{span(3, 3)}, 0, ""},
		{[]ZRange{span(1, 11), span(11, 12)}, 3, "a b b2"},
		{[]ZRange{span(1, 11), span(11, 12)}, 0, "a b b2 c d e"},
		{nil, 0, ""},
	} {
		got, found := walk("z", tc.limit, tc.ranges...)
		if got != tc.want || !found {
			t.Errorf("ZWalkScores(%+v, limit %d) = %q, %v; want %q", tc.ranges, tc.limit, got, found, tc.want)
		}
	}
	if got, found := walk("nope", 0, span(0, 100)); got != "" || found {
		t.Errorf("absent key: %q, %v", got, found)
	}
}

func TestZStore(t *testing.T) {
	s, _ := openTestStore(t)
	n := writeTx(t, s, []string{"d"}, func(tx *Tx) (int64, error) {
		return tx.ZStore(0, []byte("d"), []ZMember{{Member: []byte("x"), Score: 2}, {Member: []byte("y"), Score: 1}})
	})
	if n != 2 {
		t.Fatalf("ZStore stored %d", n)
	}
	ms := readTx(t, s, func(tx *Tx) ([]ZMember, error) {
		return tx.ZRange(0, []byte("d"), ZRange{By: ZByRank, Start: 0, Stop: -1, Count: -1})
	})
	if len(ms) != 2 || string(ms[0].Member) != "y" || string(ms[1].Member) != "x" {
		t.Errorf("after ZStore: %v", ms)
	}
	writeTx(t, s, []string{"d"}, func(tx *Tx) (int64, error) { return tx.ZStore(0, []byte("d"), nil) })
	if c := readTx(t, s, func(tx *Tx) (int64, error) { return tx.ZCard(0, []byte("d")) }); c != 0 {
		t.Errorf("ZStore of nothing left %d members", c)
	}
}
