package server

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestStreamDiff runs stream commands with explicit ids on redis-server
// 7.0.15 and on Cairn and compares the replies byte for byte. Approximate
// trims (~) are compared in TestStreamApproxTrimDiff and
// TestStreamApproxTrimRandomDiff.
func TestStreamDiff(t *testing.T) {
	for _, proto := range []int{2, 3} {
		d := newDiffRunProto(t, proto)
		cmds := [][]string{
			{"XADD", "s", "1-1", "a", "1"},
			{"XADD", "s", "1-1", "a", "1"},
			{"XADD", "s", "1-0", "a", "1"},
			{"XADD", "s", "0-0", "a", "1"},
			{"XADD", "s", "1-*", "b", "2", "c", "3"},
			{"XADD", "s", "5-*", "b", "2"},
			{"XADD", "s", "5", "x", ""},
			{"XADD", "s", "7-3", "f", "v"},
			{"XADD", "s", "7-*", "f", "v"},
			{"XADD", "s", "7-2", "f", "v"},
			{"XADD", "s", "6-*", "f", "v"},
			{"XADD", "s", "bad", "f", "v"},
			{"XADD", "s", "1-x", "f", "v"},
			{"XADD", "s", "-1", "f", "v"},
			{"XADD", "s", "-", "f", "v"},
			{"XADD", "s", "+", "f", "v"},
			{"XADD", "s", "8-1", "f"},
			{"XADD", "s", "8-1"},
			{"XADD", "s", "MAXLEN"},
			{"XADD", "s", "MAXLEN", "-1", "*", "f", "v"},
			{"XADD", "s", "MAXLEN", "x", "*", "f", "v"},
			{"XADD", "s", "LIMIT", "5", "*", "f", "v"},
			{"XADD", "s", "MAXLEN", "5", "LIMIT", "5", "*", "f", "v"},
			{"XADD", "s", "MAXLEN", "5", "MINID", "5", "*", "f", "v"},
			{"XADD", "s", "LIMIT", "-1", "*", "f", "v"},
			{"XADD", "nokey", "NOMKSTREAM", "1-1", "f", "v"},
			{"EXISTS", "nokey"},
			{"XADD", "s", "0-*", "f", "v"},
			{"XADD", "z", "0-*", "f", "v"},
			{"XADD", "z2", "0-0", "f", "v"},
			{"EXISTS", "z2"},
			{"XLEN", "s"}, {"XLEN", "nokey"},
			{"XRANGE", "s", "-", "+"},
			{"XRANGE", "s", "-", "+", "COUNT", "2"},
			{"XRANGE", "s", "-", "+", "COUNT", "0"},
			{"XRANGE", "s", "-", "+", "COUNT", "-3"},
			{"XRANGE", "nokey", "-", "+", "COUNT", "0"},
			{"XRANGE", "s", "-", "+", "COUNT"},
			{"XRANGE", "s", "-", "+", "COUNT", "x"},
			{"XRANGE", "s", "(1-1", "+"},
			{"XRANGE", "s", "(1-1", "(7-3"},
			{"XRANGE", "s", "1", "5"},
			{"XRANGE", "s", "5", "5"},
			{"XRANGE", "s", "(-", "+"},
			{"XRANGE", "s", "-", "(+"},
			{"XRANGE", "s", "(18446744073709551615-18446744073709551615", "+"},
			{"XRANGE", "s", "-", "(0-0"},
			{"XRANGE", "s", "9", "1"},
			{"XRANGE", "s", "x", "+"},
			{"XRANGE", "s", "-", "18446744073709551616"},
			{"XREVRANGE", "s", "+", "-"},
			{"XREVRANGE", "s", "+", "-", "COUNT", "2"},
			{"XREVRANGE", "s", "(7-3", "(1"},
			{"XREVRANGE", "nokey", "+", "-"},
			{"XDEL", "s", "1-1", "5-0", "99-0", "5-0"},
			{"XDEL", "s", "bad"},
			{"XDEL", "nokey", "bad"},
			{"XRANGE", "s", "-", "+"},
			{"XLEN", "s"},
			{"XTRIM", "s"},
			{"XTRIM", "s", "MAXLEN"},
			{"XTRIM", "s", "MAXLEN", "2", "LIMIT", "1"},
			{"XTRIM", "s", "FOO", "2"},
			{"XTRIM", "s", "MAXLEN", "=", "3"},
			{"XRANGE", "s", "-", "+"},
			{"XTRIM", "s", "MINID", "7-3"},
			{"XTRIM", "s", "MINID", "=", "+"},
			{"XTRIM", "nokey", "MINID", "0"},
			{"XRANGE", "s", "-", "+"},
			{"XADD", "s", "MAXLEN", "=", "2", "10-1", "a", "b"},
			{"XADD", "s", "MINID", "10", "10-2", "a", "b"},
			{"XADD", "s", "MAXLEN", "0", "10-3", "a", "b"},
			{"XLEN", "s"},
			{"XRANGE", "s", "-", "+"},
			{"XADD", "s", "11-0", "k", "v"},
			{"XSETID", "s", "10-0"},
			{"XSETID", "s", "20-0", "ENTRIESADDED", "0"},
			{"XSETID", "s", "20-0", "ENTRIESADDED", "-1"},
			{"XSETID", "s", "20-0", "MAXDELETEDID", "21-0"},
			{"XSETID", "s", "20-0", "MAXDELETEDID", "15-0", "ENTRIESADDED", "50"},
			// 7.2 refuses a last id below the max deleted id (7.0 does
			// not): see TestStreamXSetIDMaxDeleted.
			{"XSETID", "s", "20-0", "FOO"},
			{"XSETID", "nokey", "1-0"},
			{"XSETID", "s", "+"},
			{"XADD", "s", "20-0", "k", "v"},
			{"XADD", "s", "20-*", "k", "v"},
			{"XADD", "s", "18446744073709551615-18446744073709551615", "k", "v"},
			{"XADD", "s", "*", "k", "v"},
			{"XADD", "s", "18446744073709551615-*", "k", "v"},
			{"XRANGE", "s", "-", "+"},
			{"SET", "str", "x"},
			{"XADD", "str", "1-1", "a", "b"},
			{"XLEN", "str"}, {"XRANGE", "str", "-", "+"}, {"XDEL", "str", "1"}, {"XTRIM", "str", "MAXLEN", "0"},
			{"XSETID", "str", "1"},
			{"TYPE", "s"}, {"OBJECT", "ENCODING", "s"},
			{"XADD", "e", "1-1", "a", "b"}, {"XDEL", "e", "1-1"}, {"EXISTS", "e"}, {"XLEN", "e"}, {"TYPE", "e"},
			{"XRANGE", "e", "-", "+"},
			{"COPY", "s", "s2"}, {"XRANGE", "s2", "-", "+"},
			{"RENAME", "s2", "s3"}, {"XRANGE", "s3", "-", "+"}, {"EXISTS", "s2"},
			{"DEL", "s3"}, {"EXISTS", "s3"},
			{"XADD", "big", "MAXLEN", "3", "1-1", "f", strings.Repeat("v", 5000)},
			{"XREAD", "STREAMS", "s", "0"},
			{"XREAD", "COUNT", "1", "STREAMS", "s", "e", "nokey", "0", "0", "0"},
			{"XREAD", "STREAMS", "s", "e", "$", "$"},
			{"XREAD", "STREAMS", "s"},
			{"XREAD", "STREAMS", "s", ">"},
			{"XREAD", "GROUP", "g", "c", "STREAMS", "s", "0"},
			{"XREAD", "NOACK", "STREAMS", "s", "0"},
			{"XREAD", "COUNT", "x", "STREAMS", "s", "0"},
			{"XREAD", "BLOCK", "-1", "STREAMS", "s", "0"},
			{"XREAD", "BLOCK", "x", "STREAMS", "s", "0"},
			{"XREAD", "FOO", "STREAMS", "s", "0"},
			{"XREAD", "STREAMS", "str", "0"},
			{"XREAD", "STREAMS", "s", "bad"},
			{"XREAD", "BLOCK", "10", "STREAMS", "s", "$"},
			{"XREAD", "BLOCK", "10", "STREAMS", "s", "str", "0", "0"},
			{"MULTI"}, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}, {"EXEC"},
			{"XREAD", "COUNT", "2", "STREAMS", "s", "0-0"},
		}
		for _, c := range cmds {
			d.same(c...)
		}
	}
}

// TestStreamApproxTrimDiff compares trims with ~ with redis-server on
// streams whose radix-tree nodes filled up in turn: Redis removes whole
// nodes of stream-node-max-entries (100) entries, and so does Cairn.
func TestStreamApproxTrimDiff(t *testing.T) {
	d := newDiffRun(t)
	for i := 1; i <= 650; i++ {
		d.send("XADD", "s", strconv.Itoa(i)+"-1", "f", "v")
	}
	for _, c := range [][]string{
		{"XTRIM", "s", "MAXLEN", "~", "600"},
		{"XTRIM", "s", "MAXLEN", "~", "520"},
		{"XLEN", "s"},
		{"XTRIM", "s", "MINID", "~", "130"},
		{"XTRIM", "s", "MINID", "~", "250"},
		{"XRANGE", "s", "-", "+", "COUNT", "1"},
		{"XTRIM", "s", "MAXLEN", "~", "0", "LIMIT", "150"},
		{"XLEN", "s"},
		{"XTRIM", "s", "MAXLEN", "~", "0", "LIMIT", "50"},
		{"XADD", "s", "MAXLEN", "~", "100", "700-1", "f", "v"},
		{"XLEN", "s"},
		// XINFO STREAM's radix-tree-nodes counts Redis's inner radix
		// tree nodes: not compared.
		{"CONFIG", "SET", "stream-node-max-entries", "10"},
		{"XADD", "t", "1-1", "f", "v"},
	} {
		d.same(c...)
	}
	for i := 2; i <= 45; i++ {
		d.same("XADD", "t", "MAXLEN", "~", "20", strconv.Itoa(i)+"-1", "f", "v")
	}
	d.same("XLEN", "t")
	d.same("XRANGE", "t", "-", "+", "COUNT", "1")
	d.same("CONFIG", "SET", "stream-node-max-entries", "100")
}

// TestStreamApproxTrimRandomDiff runs random XADD, XDEL and XTRIM (MAXLEN
// and MINID, exact or ~, with LIMIT) on redis-server and Cairn with small
// radix-tree nodes (stream-node-max-entries 2-12) and compares every
// reply, XLEN and XRANGE after each trim: Cairn emulates Redis's nodes, so
// a ~ trim removes the same whole nodes, after XDELs and exact trims too.
// Entries stay small: Redis's nodes fill by count, not by bytes.
func TestStreamApproxTrimRandomDiff(t *testing.T) {
	diffSeeds(t, 2, []uint64{1, 2, 3, 4}, 600, func(d *diffRun, seed uint64) func() {
		rng := rand.New(rand.NewPCG(seed, 15))
		node := 2 + rng.IntN(11)
		d.same("CONFIG", "SET", "stream-node-max-entries", strconv.Itoa(node))
		d.t.Cleanup(func() { d.send("CONFIG", "SET", "stream-node-max-entries", "100") })
		ms := 0
		var ids []string
		someID := func() string {
			if len(ids) > 0 && rng.IntN(4) > 0 {
				return ids[rng.IntN(len(ids))]
			}
			return strconv.Itoa(rng.IntN(ms+3)) + "-" + strconv.Itoa(rng.IntN(2))
		}
		trimArgs := func() []string {
			var a []string
			if rng.IntN(2) == 0 {
				a = []string{"MAXLEN"}
			} else {
				a = []string{"MINID"}
			}
			approx := rng.IntN(3) > 0
			switch {
			case approx:
				a = append(a, "~")
			case rng.IntN(2) == 0:
				a = append(a, "=")
			}
			if a[0] == "MAXLEN" {
				a = append(a, strconv.Itoa(rng.IntN(4*node)))
			} else {
				a = append(a, someID())
			}
			if approx && rng.IntN(2) == 0 {
				a = append(a, "LIMIT", strconv.Itoa(rng.IntN(3*node)))
			}
			return a
		}
		check := func() {
			d.same("XLEN", "s")
			d.same("XRANGE", "s", "-", "+")
		}
		return func() {
			switch op := rng.IntN(20); {
			case op < 10:
				ms += 1 + rng.IntN(2)
				id := strconv.Itoa(ms) + "-" + strconv.Itoa(rng.IntN(2))
				ids = append(ids, id)
				args := []string{"XADD", "s"}
				if rng.IntN(5) == 0 {
					args = append(args, trimArgs()...)
				}
				d.same(append(args, id, "f", strconv.Itoa(rng.IntN(100)))...)
				if len(args) > 2 {
					check()
				}
			case op < 14:
				n := 1 + rng.IntN(3)
				args := []string{"XDEL", "s"}
				for range n {
					args = append(args, someID())
				}
				d.same(args...)
			case op < 19:
				d.same(append([]string{"XTRIM", "s"}, trimArgs()...)...)
				check()
			default:
				if rng.IntN(4) == 0 {
					d.same("DEL", "s")
					ids = nil
				}
			}
		}
	})
}
