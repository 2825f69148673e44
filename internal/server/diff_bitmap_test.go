package server

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
)

// The differential tests of the bitmap commands: random SETBIT, GETBIT,
// BITCOUNT, BITPOS, BITOP and BITFIELD sequences, mixed with the string
// commands that see the same bytes, over small bitmaps and bitmaps large
// enough to live in fragments (up to ~200 KB, sparse), sent to redis-server
// and Cairn, every reply compared. BITOP DIFF, DIFF1, ANDOR and ONE are
// Redis 8.2's and not in the redis-server here: TestBitOpNewOps checks
// them against their definitions.

// bitOffset draws a bit offset: mostly near fragment and threshold edges
// of a sparse bitmap, sometimes anywhere below ~1 MB, sometimes invalid.
func diffBitOffset(r *rand.Rand) string {
	edges := []int64{0, 7, 8, 1024 * 8, 16 * 1024 * 8, 16*1024*8 + 1, 100_000, 1_600_000}
	switch r.IntN(12) {
	case 0:
		return []string{"-1", "abc", "4294967296", "1.5", "", "4294967295"}[r.IntN(6)]
	case 1, 2:
		return strconv.FormatInt(r.Int64N(1_700_000), 10)
	}
	return strconv.FormatInt(max(0, edges[r.IntN(len(edges))]+r.Int64N(24)-12), 10)
}

func diffBitRange(r *rand.Rand) string {
	vals := []int64{0, 1, -1, 2, -2, 5, -5, 100, -100, 1023, 1024, 16383, 16384, 16385, 20000, -20000, 200_000, -200_000}
	v := vals[r.IntN(len(vals))]
	if r.IntN(3) == 0 {
		v = r.Int64N(400_000) - 200_000
	}
	return strconv.FormatInt(v, 10)
}

func diffBitfieldType(r *rand.Rand) string {
	if r.IntN(20) == 0 {
		return []string{"u64", "i65", "i0", "x8", "u", "i-1", "u1a"}[r.IntN(7)]
	}
	if r.IntN(2) == 0 {
		return "i" + strconv.Itoa(1+r.IntN(64))
	}
	return "u" + strconv.Itoa(1+r.IntN(63))
}

func diffBitfieldValue(r *rand.Rand) string {
	vals := []string{"0", "1", "-1", "100", "-100", "255", "256", "9223372036854775807", "-9223372036854775808", "12345678901", "-2147483648", "x"}
	if r.IntN(3) == 0 {
		return strconv.FormatInt(r.Int64()>>r.IntN(64), 10)
	}
	return vals[r.IntN(len(vals))]
}

func diffBitfield(r *rand.Rand, key string, ro bool) []string {
	cmd := "BITFIELD"
	if ro {
		cmd = "BITFIELD_RO"
	}
	args := []string{cmd, key}
	for range 1 + r.IntN(5) {
		off := diffBitOffset(r)
		if r.IntN(4) == 0 {
			off = "#" + strconv.Itoa(r.IntN(40))
		}
		switch r.IntN(8) {
		case 0, 1, 2:
			args = append(args, "GET", diffBitfieldType(r), off)
		case 3, 4:
			args = append(args, "SET", diffBitfieldType(r), off, diffBitfieldValue(r))
		case 5, 6:
			args = append(args, "INCRBY", diffBitfieldType(r), off, diffBitfieldValue(r))
		default:
			args = append(args, "OVERFLOW", []string{"WRAP", "SAT", "FAIL", "sat", "bad"}[r.IntN(5)])
		}
	}
	return args
}

func TestDiffBitmapRandom(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			d := newDiffRun(t)
			r := rand.New(rand.NewPCG(seed, 21))
			keys := []string{"b1", "b2", "b3", "{b}big", "list"}
			d.same("RPUSH", "list", "x")
			key := func() string { return keys[r.IntN(len(keys))] }
			for range 700 {
				k := key()
				switch r.IntN(20) {
				case 0, 1, 2, 3:
					d.same("SETBIT", k, diffBitOffset(r), []string{"1", "0", "1", "2", "-1", "x"}[r.IntN(6)])
				case 4, 5:
					d.same("GETBIT", k, diffBitOffset(r))
				case 6, 7:
					args := []string{"BITCOUNT", k}
					switch r.IntN(4) {
					case 1:
						args = append(args, diffBitRange(r), diffBitRange(r))
					case 2:
						args = append(args, diffBitRange(r), diffBitRange(r), []string{"BIT", "BYTE", "bit", "bad"}[r.IntN(4)])
					case 3:
						args = append(args, diffBitRange(r))
					}
					d.same(args...)
				case 8, 9:
					args := []string{"BITPOS", k, []string{"0", "1", "1", "0", "2", "x"}[r.IntN(6)]}
					switch r.IntN(5) {
					case 1:
						args = append(args, diffBitRange(r))
					case 2:
						args = append(args, diffBitRange(r), diffBitRange(r))
					case 3:
						args = append(args, diffBitRange(r), diffBitRange(r), []string{"BIT", "BYTE", "byte", "x"}[r.IntN(4)])
					}
					d.same(args...)
				case 10, 11:
					op := []string{"AND", "OR", "XOR", "NOT", "and", "nand"}[r.IntN(6)]
					args := []string{"BITOP", op, key()}
					for range 1 + r.IntN(3) {
						args = append(args, key())
					}
					if op == "NOT" && r.IntN(2) == 0 {
						args = args[:4]
					}
					d.same(args...)
				case 12, 13:
					d.same(diffBitfield(r, k, false)...)
				case 14:
					d.same(diffBitfield(r, k, true)...)
				case 15:
					d.same("STRLEN", k)
					d.same("GETRANGE", k, diffBitRange(r), diffBitRange(r))
				case 16:
					d.same("SETRANGE", k, strconv.Itoa(r.IntN(40_000)), []string{"\x00\x00", "hello", "\xff\xff\xff", ""}[r.IntN(4)])
				case 17:
					d.same("APPEND", k, []string{"\x00", "ab", "\xff\x80"}[r.IntN(3)])
				case 18:
					if k != "list" && r.IntN(3) == 0 {
						d.same("DEL", k)
					} else {
						d.same("SET", k, []string{"", "foobar", "123", "\xff\xf0\x00"}[r.IntN(4)])
					}
				default:
					if r.IntN(4) == 0 {
						d.same("GET", k)
					} else {
						d.same("EXISTS", k)
						d.same("TYPE", k)
					}
				}
			}
			for _, k := range keys {
				d.same("GET", k)
			}
		})
	}
}

// TestDiffBitmapErrors compares the replies to bad input one by one.
func TestDiffBitmapErrors(t *testing.T) {
	d := newDiffRun(t)
	d.same("SET", "s", "foobar")
	d.same("RPUSH", "l", "x")
	for _, c := range [][]string{
		{"SETBIT", "k", "-1", "1"}, {"SETBIT", "k", "4294967296", "1"}, {"SETBIT", "k", "x", "1"},
		{"SETBIT", "k", "0", "2"}, {"SETBIT", "k", "0", "-1"}, {"SETBIT", "k", "0", "x"}, {"SETBIT", "l", "0", "1"},
		{"SETBIT", "k", "#1", "1"}, {"GETBIT", "k", "-1"}, {"GETBIT", "l", "0"}, {"GETBIT", "k", "0"},
		{"BITCOUNT", "s", "0"}, {"BITCOUNT", "nokey", "0"}, {"BITCOUNT", "s", "x", "1"}, {"BITCOUNT", "s", "0", "x"},
		{"BITCOUNT", "s", "-1", "-5", "bad"}, {"BITCOUNT", "s", "0", "1", "bad"}, {"BITCOUNT", "s", "0", "1", "bit", "x"},
		{"BITCOUNT", "l"}, {"BITCOUNT", "nokey", "a", "b", "c"}, {"BITCOUNT", "s", "1", "1", "BIT"},
		{"BITPOS", "s", "2"}, {"BITPOS", "s", "x"}, {"BITPOS", "nokey", "0"}, {"BITPOS", "nokey", "1"}, {"BITPOS", "l", "1"},
		{"BITPOS", "s", "1", "x"}, {"BITPOS", "s", "1", "0", "x"}, {"BITPOS", "s", "1", "0", "1", "bad"},
		{"BITPOS", "s", "0", "0", "-1", "bit", "x"}, {"BITPOS", "s", "0", "2", "-1", "BIT"},
		{"BITOP", "nand", "d", "s"}, {"BITOP", "NOT", "d", "s", "s"}, {"BITOP", "AND", "d", "l"}, {"BITOP", "AND", "d", "s", "l"},
		{"BITOP", "OR", "d", "nokey", "nokey2"}, {"EXISTS", "d"},
		{"BITFIELD", "s", "GET", "u64", "0"}, {"BITFIELD", "s", "GET", "i65", "0"}, {"BITFIELD", "s", "GET", "i0", "0"},
		{"BITFIELD", "s", "GET", "x8", "0"}, {"BITFIELD", "s", "GET", "u8", "-1"}, {"BITFIELD", "s", "GET", "u8", "#-1"},
		{"BITFIELD", "s", "GET", "u8"}, {"BITFIELD", "s", "SET", "u8", "0"}, {"BITFIELD", "s", "SET", "u8", "0", "x"},
		{"BITFIELD", "s", "OVERFLOW", "bad"}, {"BITFIELD", "s", "OVERFLOW"}, {"BITFIELD", "s", "FOO"}, {"BITFIELD", "l", "GET", "u8", "0"},
		{"BITFIELD", "l"}, {"BITFIELD", "s"}, {"BITFIELD_RO", "s", "SET", "u8", "0", "1"}, {"BITFIELD_RO", "s", "GET", "u8", "0", "INCRBY", "u8", "0", "1"},
		{"BITFIELD_RO", "s", "GET", "i8", "#1"}, {"BITFIELD", "s", "GET", "u8", "4294967296"}, {"BITFIELD", "s", "GET", "u8", "#536870912"},
		{"BITFIELD", "f", "OVERFLOW", "FAIL", "INCRBY", "u2", "100", "5"}, {"STRLEN", "f"}, {"GET", "f"},
		{"BITFIELD", "f", "OVERFLOW", "SAT", "SET", "u8", "0", "-1", "SET", "i8", "8", "-1000", "GET", "u16", "0"},
		{"BITFIELD", "g", "SET", "i32", "0", "-9223372036854775808", "OVERFLOW", "SAT", "SET", "i32", "32", "-9223372036854775808", "GET", "i64", "0"},
		{"BITFIELD", "g", "INCRBY", "i64", "0", "9223372036854775807", "OVERFLOW", "SAT", "INCRBY", "i64", "0", "9223372036854775807", "OVERFLOW", "FAIL", "INCRBY", "i64", "0", "1"},
		{"SETBIT", "s", "0", "0"}, {"SETBIT", "s", "1", "1"},
		// Bit commands leave the strings they write raw, even unchanged.
		{"SETBIT", "e", "3", "1"}, {"OBJECT", "ENCODING", "e"}, {"SET", "n", "123"}, {"SETBIT", "n", "0", "0"},
		{"OBJECT", "ENCODING", "n"}, {"GET", "n"}, {"SET", "m", "12"}, {"BITFIELD", "m", "SET", "u8", "0", "49"},
		{"OBJECT", "ENCODING", "m"}, {"SET", "o", "7"}, {"BITFIELD", "o", "GET", "u8", "0"}, {"OBJECT", "ENCODING", "o"},
		{"BITOP", "AND", "p", "n", "m"}, {"OBJECT", "ENCODING", "p"}, {"GETBIT", "n", "2"}, {"BITCOUNT", "n"},
		// Inside a transaction and a script, later commands see the
		// fragments earlier ones wrote, before the commit.
		{"MULTI"}, {"SETBIT", "t", "1000000", "1"}, {"BITCOUNT", "t"}, {"SETRANGE", "t", "124990", "\xff\xff"},
		{"BITPOS", "t", "1"}, {"BITOP", "OR", "u", "t", "t"}, {"GETRANGE", "u", "124990", "125010"}, {"DEL", "t"}, {"BITCOUNT", "t"}, {"EXEC"},
		// The limit follows proto-max-bulk-len.
		{"CONFIG", "SET", "proto-max-bulk-len", "1mb"}, {"SETBIT", "lim", "8388608", "1"}, {"SETBIT", "lim", "8388607", "1"},
		{"BITFIELD", "lim", "GET", "u8", "8388608"}, {"SETRANGE", "lim", "1048575", "xy"}, {"APPEND", "lim", "x"}, {"STRLEN", "lim"},
		{"CONFIG", "SET", "proto-max-bulk-len", "512mb"},
		{"EVAL", "redis.call('SETBIT', KEYS[1], 300000, 1); redis.call('APPEND', KEYS[1], 'xy'); return {redis.call('BITCOUNT', KEYS[1]), redis.call('STRLEN', KEYS[1]), redis.call('GETRANGE', KEYS[1], -3, -1)}", "1", "v"},
	} {
		d.same(c...)
	}
}

// TestDiffBitmapFragmented builds bitmaps with bits far apart on both
// servers (megabytes, as fragments in Cairn) and compares counts,
// searches, ranges and operations over them.
func TestDiffBitmapFragmented(t *testing.T) {
	d := newDiffRun(t)
	r := rand.New(rand.NewPCG(4, 44))
	for _, k := range []string{"x", "y"} {
		for range 60 {
			d.same("SETBIT", k, strconv.FormatInt(r.Int64N(40_000_000), 10), "1")
		}
	}
	d.same("SETRANGE", "y", "4999990", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff")
	for range 100 {
		k := []string{"x", "y"}[r.IntN(2)]
		a, b := strconv.FormatInt(r.Int64N(12_000_000)-6_000_000, 10), strconv.FormatInt(r.Int64N(12_000_000)-6_000_000, 10)
		switch r.IntN(6) {
		case 0:
			d.same("BITCOUNT", k, a, b)
		case 1:
			d.same("BITCOUNT", k, a, b, "BIT")
		case 2:
			d.same("BITPOS", k, []string{"0", "1"}[r.IntN(2)], a)
		case 3:
			d.same("BITPOS", k, []string{"0", "1"}[r.IntN(2)], a, b, []string{"BIT", "BYTE"}[r.IntN(2)])
		case 4:
			d.same("GETRANGE", k, a, strconv.FormatInt(r.Int64N(5_000_000), 10))
		default:
			d.same("BITFIELD", k, "GET", "u63", a[1:], "GET", "i17", b[1:])
		}
	}
	d.same("BITCOUNT", "x")
	d.same("BITPOS", "y", "1")
	for _, op := range []string{"AND", "OR", "XOR"} {
		d.same("BITOP", op, "z", "x", "y")
		d.same("BITCOUNT", "z")
		d.same("BITPOS", "z", "1", "100")
		d.same("STRLEN", "z")
	}
	d.same("BITOP", "NOT", "n", "y")
	d.same("BITCOUNT", "n")
	d.same("BITPOS", "n", "0")
	d.same("GET", "z")
	d.same("APPEND", "z", "tail")
	d.same("GETRANGE", "z", "-10", "-1")
	d.same("SETBIT", "z", "0", "1")
	d.same("GET", "z")
	// DUMP payloads cross over: Redis restores Cairn's DUMP of a
	// fragmented string and Cairn Redis's, with the same bytes.
	for i, from := range []interface {
		Do(args ...any) (any, error)
	}{d.redis, d.cairn} {
		payload, err := from.Do("DUMP", "y")
		if err != nil {
			t.Fatalf("DUMP: %v", err)
		}
		k := "restored" + strconv.Itoa(i)
		d.same("RESTORE", k, "0", string(payload.([]byte)))
		d.same("GET", k)
		d.same("BITCOUNT", k)
	}
	d.same("RENAME", "z", "w")
	d.same("BITCOUNT", "w")
	d.same("GETDEL", "w")
	d.same("EXISTS", "w")
}

// TestBitOpNewOps runs Redis 8.2's BITOP DIFF, DIFF1, ANDOR and ONE on
// the example of Redis's bitmap documentation (A = 11011000, B = 00011001,
// C = 01101100), and their argument errors, which the installed Redis 7
// lacks.
func TestBitOpNewOps(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		runSteps(t, c, []step{
			stepOf("OK", "SET", "A", "\xd8"),
			stepOf("OK", "SET", "B", "\x19"),
			stepOf("OK", "SET", "C", "\x6c"),
			stepOf(int64(1), "BITOP", "DIFF", "R", "A", "B", "C"),
			stepOf("\x80", "GET", "R"),
			stepOf(int64(1), "BITOP", "diff1", "R", "A", "B", "C"),
			stepOf("\x25", "GET", "R"),
			stepOf(int64(1), "BITOP", "ANDOR", "R", "A", "B", "C"),
			stepOf("\x58", "GET", "R"),
			stepOf(int64(1), "BITOP", "ONE", "R", "A", "B", "C"),
			stepOf("\xa5", "GET", "R"),
			stepOf(int64(1), "BITOP", "ONE", "R", "A"),
			stepOf("\xd8", "GET", "R"),
			// A missing X is zeros: DIFF1 is then the disjunction.
			stepOf(int64(1), "BITOP", "DIFF1", "R", "nope", "B", "C"),
			stepOf("\x7d", "GET", "R"),
			stepOf(replyErr("ERR BITOP DIFF must be called with at least two source keys."), "BITOP", "DIFF", "R", "A"),
			stepOf(replyErr("ERR BITOP DIFF1 must be called with at least two source keys."), "BITOP", "diff1", "R", "A"),
			stepOf(replyErr("ERR BITOP ANDOR must be called with at least two source keys."), "BITOP", "AndOr", "R", "A"),
			stepOf(replyErr("ERR BITOP NOT must be called with a single source key."), "BITOP", "NOT", "R", "A", "B"),
			stepOf(int64(0), "BITOP", "ONE", "R", "nope"),
			stepOf(int64(0), "EXISTS", "R"),
		})
	})
}

// TestDiffBitmapRESP3 compares the replies with a null in them (BITFIELD's
// failed overflow) in RESP3.
func TestDiffBitmapRESP3(t *testing.T) {
	d := newDiffRunProto(t, 3)
	d.same("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "7", "GET", "u2", "0", "INCRBY", "i8", "8", "-1")
	d.same("BITFIELD_RO", "k", "GET", "i4", "#1")
	d.same("BITPOS", "k", "1", "0", "-1", "BIT")
	d.same("BITCOUNT", "k", "0", "-1", "BIT")
}
