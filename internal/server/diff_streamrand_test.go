package server

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestStreamRandomDiff runs random stream and consumer-group commands with
// explicit ids on redis-server 7.0.15 and Cairn and compares every reply.
// It leaves out what depends on the clock (idle times, * ids), XINFO
// CONSUMERS and STREAM FULL, and keeps each stream under 100 entries ever
// added, so that Redis holds it in one radix-tree node (XINFO STREAM's
// radix-tree figures are Cairn's estimate). Lag and entries-read follow
// Redis 7.2 where it differs from 7.0: see TestStreamInfoDiff for the
// cases both agree on; here XINFO GROUPS is compared only without XDEL.
func TestStreamRandomDiff(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			diffSeeds(t, proto, []uint64{1, 2, 3}, 700, streamRandomGen)
		})
	}
}

func streamRandomGen(d *diffRun, seed uint64) func() {
	rng := rand.New(rand.NewPCG(seed, 20))
	keys := []string{"s1", "s2", "str"}
	d.same("SET", "str", "x")
	added := map[string]int{}
	id := func() string {
		return strconv.Itoa(rng.IntN(40)) + "-" + strconv.Itoa(rng.IntN(3))
	}
	bound := func() string {
		switch rng.IntN(6) {
		case 0:
			return "-"
		case 1:
			return "+"
		case 2:
			return "(" + id()
		case 3:
			return strconv.Itoa(rng.IntN(40))
		}
		return id()
	}
	groups := []string{"g1", "g2"}
	consumers := []string{"a", "b", "c"}
	return func() {
		k := keys[rng.IntN(len(keys))]
		g := groups[rng.IntN(len(groups))]
		c := consumers[rng.IntN(len(consumers))]
		switch op := rng.IntN(24); op {
		case 0, 1, 2, 3:
			if added[k] >= 90 {
				d.same("DEL", k)
				added[k] = 0
				return
			}
			added[k]++
			args := []string{"XADD", k}
			switch rng.IntN(6) {
			case 0:
				args = append(args, "MAXLEN", "=", strconv.Itoa(rng.IntN(8)))
			case 1:
				args = append(args, "MINID", id())
			case 2:
				args = append(args, "NOMKSTREAM")
			}
			if rng.IntN(4) == 0 {
				args = append(args, strconv.Itoa(rng.IntN(40))+"-*")
			} else {
				args = append(args, id())
			}
			d.same(append(args, "f", strconv.Itoa(rng.IntN(100)))...)
		case 4:
			d.same("XDEL", k, id(), id())
		case 5:
			if rng.IntN(2) == 0 {
				d.same("XTRIM", k, "MAXLEN", strconv.Itoa(rng.IntN(6)))
			} else {
				d.same("XTRIM", k, "MINID", "=", id())
			}
		case 6:
			d.same("XRANGE", k, bound(), bound(), "COUNT", strconv.Itoa(rng.IntN(5)-1))
		case 7:
			d.same("XREVRANGE", k, bound(), bound())
		case 8:
			d.same("XLEN", k)
			d.same("XINFO", "STREAM", k)
		case 9:
			d.same("XREAD", "COUNT", strconv.Itoa(rng.IntN(4)), "STREAMS", k, "s2", id(), "$")
		case 10:
			args := []string{"XGROUP", "CREATE", k, g, []string{"$", "0", id()}[rng.IntN(3)]}
			if rng.IntN(2) == 0 {
				args = append(args, "MKSTREAM")
			}
			d.same(args...)
		case 11:
			d.same("XGROUP", "SETID", k, g, []string{"$", "0", id()}[rng.IntN(3)])
		case 12:
			d.same("XGROUP", "DESTROY", k, g)
		case 13:
			d.same("XGROUP", []string{"CREATECONSUMER", "DELCONSUMER"}[rng.IntN(2)], k, g, c)
		case 14, 15, 16:
			// Redis 7.2 creates the consumer of an XREADGROUP, XCLAIM
			// or XAUTOCLAIM that serves or claims nothing, 7.0 does
			// not: create it first.
			d.same("XGROUP", "CREATECONSUMER", k, g, c)
			args := []string{"XREADGROUP", "GROUP", g, c, "COUNT", strconv.Itoa(rng.IntN(4))}
			if rng.IntN(5) == 0 {
				args = append(args, "NOACK")
			}
			d.same(append(args, "STREAMS", k, []string{">", ">", "0", id()}[rng.IntN(4)])...)
		case 17:
			// One to eight ids: from three on, XACK reads their
			// pending records with one iterator.
			args := []string{"XACK", k, g}
			for range 1 + rng.IntN(8) {
				args = append(args, id())
			}
			d.same(args...)
		case 18:
			d.same("XPENDING", k, g)
		case 19:
			d.same("XGROUP", "CREATECONSUMER", k, g, c)
			d.same("XCLAIM", k, g, c, "0", id(), id(), "JUSTID")
		case 20:
			d.same("XGROUP", "CREATECONSUMER", k, g, c)
			args := []string{"XAUTOCLAIM", k, g, c, "0", bound(), "COUNT", strconv.Itoa(1 + rng.IntN(3))}
			if rng.IntN(2) == 0 {
				args = append(args, "JUSTID")
			}
			d.same(args...)
		case 21:
			d.same("XPENDING", k, g, "IDLE", "100000", "-", "+", "5")
			d.same("XINFO", "GROUPS", k)
		case 22:
			// Beyond every id the test adds: Redis 7.2 (Cairn) also
			// refuses an id below the max deleted id, 7.0 does not.
			if rng.IntN(4) == 0 {
				d.same("XSETID", k, "40-"+strconv.Itoa(rng.IntN(3)), "ENTRIESADDED", "95")
			}
		case 23:
			if rng.IntN(10) == 0 {
				d.same("DEL", k)
				added[k] = 0
			}
		}
	}
}
