package digest

import (
	"math"
	"testing"

	"github.com/cairndb/cairn/internal/rdb"
)

// The expected digests were computed by redis-server 7.0.15 with DEBUG
// DIGEST-VALUE and DEBUG DIGEST (one key in database 0) over the same
// data.
func TestValueMatchesRedis(t *testing.T) {
	str := rdb.Object{Kind: rdb.KindString, String: []byte("1")}
	if got, want := Value(str, false).String(), "b4fc66738120fba0b5aa500ab5c2bf89cea1c5da"; got != want {
		t.Errorf("DIGEST-VALUE of the string 1: %s, want %s", got, want)
	}
	var ds Dataset
	ds.StartDB(0)
	ds.Add(KeyValue([]byte("a"), str, false))
	if got, want := ds.Sum().String(), "943d800368fb9c0e951138f1bc0e313ac769d91f"; got != want {
		t.Errorf("DIGEST of a=1: %s, want %s", got, want)
	}
}

// Every type, against redis-server 7.0.15: RPUSH l a b c; SADD s x y z;
// ZADD z 1 a 2.5 b 0.1 c; HSET h f 1 g hello; XADD x 1-1 f v; XADD x 2-0
// a b c d; SET e v with a deadline; then DEBUG DIGEST-VALUE l s z h x e and
// DEBUG DIGEST.
func TestTypesMatchRedis(t *testing.T) {
	b := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, x := range s {
			out[i] = []byte(x)
		}
		return out
	}
	stream := &rdb.Stream{Entries: []rdb.StreamEntry{
		{ID: rdb.StreamID{Ms: 1, Seq: 1}, Fields: b("f", "v")},
		{ID: rdb.StreamID{Ms: 2}, Fields: b("a", "b", "c", "d")},
	}}
	keys := []struct {
		key     string
		o       rdb.Object
		expires bool
		want    string
	}{
		{"l", rdb.Object{Kind: rdb.KindList, Items: b("a", "b", "c")}, false, "8bf72d812571eea9b927f3c11beb0c4165a6ff89"},
		{"s", rdb.Object{Kind: rdb.KindSet, Items: b("z", "x", "y")}, false, "0fd9977d57e46b1b9b87439f5ac5b338416ccc24"},
		{"z", rdb.Object{Kind: rdb.KindZSet, ZSet: []rdb.ScoredMember{{Member: []byte("c"), Score: 0.1}, {Member: []byte("a"), Score: 1}, {Member: []byte("b"), Score: 2.5}}}, false, "ac3f88f74ce0703ae2c86046b8b8e8180f672692"},
		{"h", rdb.Object{Kind: rdb.KindHash, Pairs: b("g", "hello", "f", "1")}, false, "1fd8276123c99aa11e79329c4ab80b55d47f84f3"},
		{"x", rdb.Object{Kind: rdb.KindStream, Stream: stream}, false, "d127ad1a764bddf9f56363e13b514ba7995a1775"},
		{"e", rdb.Object{Kind: rdb.KindString, String: []byte("v")}, true, "311b17018163335616e089f6b951c82c477335ac"},
	}
	var ds Dataset
	ds.StartDB(0)
	for _, k := range keys {
		if got := Value(k.o, k.expires).String(); got != k.want {
			t.Errorf("DIGEST-VALUE %s: %s, want %s", k.key, got, k.want)
		}
		ds.Add(KeyValue([]byte(k.key), k.o, k.expires))
	}
	if got, want := ds.Sum().String(), "f3a4911d688d3985acbcecedfcde52036772b3a4"; got != want {
		t.Errorf("DIGEST: %s, want %s", got, want)
	}
}

func TestEmptyDatasetIsZeros(t *testing.T) {
	var ds Dataset
	if got := ds.Sum().String(); got != "0000000000000000000000000000000000000000" {
		t.Errorf("empty dataset: %s", got)
	}
}

// Unordered elements give the same digest in any order; ordered ones do
// not; a deadline changes the digest.
func TestOrderAndExpiry(t *testing.T) {
	b := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, x := range s {
			out[i] = []byte(x)
		}
		return out
	}
	set1 := Value(rdb.Object{Kind: rdb.KindSet, Items: b("a", "b", "c")}, false)
	set2 := Value(rdb.Object{Kind: rdb.KindSet, Items: b("c", "a", "b")}, false)
	if set1 != set2 {
		t.Error("a set's digest depends on member order")
	}
	l1 := Value(rdb.Object{Kind: rdb.KindList, Items: b("a", "b")}, false)
	l2 := Value(rdb.Object{Kind: rdb.KindList, Items: b("b", "a")}, false)
	if l1 == l2 {
		t.Error("a list's digest ignores element order")
	}
	if Value(rdb.Object{Kind: rdb.KindList, Items: b("a", "b")}, true) == l1 {
		t.Error("a deadline leaves the digest unchanged")
	}
	if l1 == Value(rdb.Object{Kind: rdb.KindSet, Items: b("a", "b")}, false) {
		t.Error("a list and a set of the same elements digest alike")
	}
	h1 := Value(rdb.Object{Kind: rdb.KindHash, Pairs: b("f", "1", "g", "2")}, false)
	h2 := Value(rdb.Object{Kind: rdb.KindHash, Pairs: b("g", "2", "f", "1")}, false)
	if h1 != h2 {
		t.Error("a hash's digest depends on field order")
	}
}

func TestFormatScore(t *testing.T) {
	for f, want := range map[float64]string{1: "1", 0.1: "0.10000000000000001", 1e20: "1e+20", -2.25: "-2.25",
		math.Inf(1): "inf", math.Inf(-1): "-inf", 1e16: "10000000000000000"} {
		if got := formatScore(f); got != want {
			t.Errorf("formatScore(%v) = %q, want %q", f, got, want)
		}
	}
}
