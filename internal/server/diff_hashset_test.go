package server

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The differential test of the hash and set commands: random command
// sequences over a small keyspace, run on redis-server and on Cairn, with
// every reply compared. The keyspace is small so that types collide and the
// WRONGTYPE paths run, and the pools hold the awkward values (empty, binary,
// not-quite numbers, huge numbers) the parsers must treat as Redis does.
//
// Left out on purpose, since Redis 7.0.15 (the server we compare with)
// predates them and Cairn follows the later versions:
//   - hash field expiry (HEXPIRE, HPEXPIRE, HEXPIREAT, HPEXPIREAT, HTTL,
//     HPTTL, HEXPIRETIME, HPEXPIRETIME, HPERSIST: Redis 7.4; HGETDEL,
//     HGETEX, HSETEX: Redis 8.0);
//   - HSCAN's NOVALUES (Redis 7.4).
//
// Replies that are random by definition (SPOP, SRANDMEMBER, HRANDFIELD) are
// compared by shape and membership only; scan cursors differ by design, so
// a scan is compared by the union of what a full iteration returns; TTL
// only by its sign. OBJECT ENCODING differs by design and is not sent.

var (
	hsKeys = []string{"a", "b", "c", "d", "e", ""}
	// hsItems are the fields and members: numbers a set may hold as
	// integers (Redis's intset), strings that only look like numbers, the
	// empty string, binary bytes and a string over the small encodings'
	// 64-byte limit.
	hsItems = []string{
		"", "x", "y", "z", "f", "g", "1", "2", "3", "10", "-3", "0", "-0", "+1", " 1",
		"01", "inf", "1.5", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "\x00", "\xff\xfe\x00b", strings.Repeat("m", 70),
	}
	hsValues = []string{
		"", "0", "1", "-1", "10", "-0", "+1", " 1", "1 ", "007", "1.5", "-2.5",
		"0.1", "3.0", "1e3", "1e308", "-1e308", "1e-300", "inf", "-inf", "nan",
		"abc", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "\x00\xff", strings.Repeat("v", 70),
	}
	hsIntIncrs = []string{
		"1", "-1", "0", "5", "-100", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "abc", "", "1.5", "+1", " 1", "-0", "0x10", "1e3",
	}
	hsFloatIncrs = []string{
		"1", "-1", "0.1", "-0.1", "1.5", "1e308", "-1e308", "1e-300", "inf", "-inf",
		"+inf", "nan", "abc", "", "1.5e3", "+1", " 1", "1 ", "0x10", "1e400", "-0",
		"5.0e-1", "1.7976931348623157e308", "3", ".5", "5.", "1e", "--1",
	}
	// hsCounts are the counts of SPOP, SRANDMEMBER and HRANDFIELD;
	// hsBadCounts the malformed and extreme ones. A large negative count
	// Redis accepts asks for that many draws, so it is sent only where it
	// meets an empty key or another type (see hrandfield, srandmember).
	hsCounts    = []string{"0", "1", "2", "3", "5", "8", "30", "-1", "-2", "-5", "-12"}
	hsBadCounts = []string{
		"abc", "", "1.5", " 1", "+1", "-0", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "4611686018427387903", "4611686018427387904",
		"-4611686018427387904",
	}
	hsPatterns = []string{
		"*", "x", "?", "*1*", "[a-f]*", "[^x]*", "\\*", "", "[", "*\\", "f*", "[0-9]", "-*", "\x00*", "m1*", "*7",
	}
)

// hsGen draws the commands of one run.
type hsGen struct {
	d *diffRun
	r *rand.Rand
}

func (g *hsGen) pick(pool []string) string { return pool[g.r.IntN(len(pool))] }
func (g *hsGen) key() string               { return g.pick(hsKeys) }
func (g *hsGen) chance(p float64) bool     { return g.r.Float64() < p }

// some is between lo and hi items from pool.
func (g *hsGen) some(pool []string, lo, hi int) []string {
	n := lo + g.r.IntN(hi-lo+1)
	out := make([]string, n)
	for i := range out {
		out[i] = g.pick(pool)
	}
	return out
}

func (g *hsGen) keys(lo, hi int) []string { return g.some(hsKeys, lo, hi) }

func (g *hsGen) pairs(lo, hi int) []string {
	n := lo + g.r.IntN(hi-lo+1)
	out := make([]string, 0, 2*n)
	for range n {
		out = append(out, g.pick(hsItems), g.pick(hsValues))
	}
	return out
}

// mangle sometimes breaks a command's arity, so that the arity errors (the
// central one and each command's own) are compared too.
func (g *hsGen) mangle(args []string) []string {
	switch {
	case g.chance(0.03):
		return args[:1+g.r.IntN(len(args))]
	case g.chance(0.03):
		return append(args, g.pick(hsValues))
	}
	return args
}

// step draws one command and compares it.
func (g *hsGen) step() {
	d := g.d
	k := g.key()
	switch g.r.IntN(45) {
	// Hashes.
	case 0, 1, 2:
		name := "HSET"
		if g.chance(0.2) {
			name = "HMSET"
		}
		args := r3Cmd(name, k, g.pairs(1, 4))
		if g.chance(0.05) {
			args = args[:len(args)-1] // an odd number of arguments
		}
		d.same(g.mangle(args)...)
	case 3:
		d.same(g.mangle(r3Cmd("HSETNX", k, g.pick(hsItems), g.pick(hsValues)))...)
	case 4:
		d.same(g.mangle(r3Cmd("HGET", k, g.pick(hsItems)))...)
	case 5:
		d.same(g.mangle(r3Cmd("HMGET", k, g.some(hsItems, 1, 4)))...)
	case 6:
		d.same(g.mangle(r3Cmd("HDEL", k, g.some(hsItems, 1, 4)))...)
	case 7:
		d.same(g.mangle(r3Cmd("HLEN", k))...)
	case 8:
		d.same(g.mangle(r3Cmd("HSTRLEN", k, g.pick(hsItems)))...)
	case 9:
		d.same(g.mangle(r3Cmd("HEXISTS", k, g.pick(hsItems)))...)
	case 10:
		d.sameUnordered(true, g.mangle(r3Cmd("HGETALL", k))...)
	case 11:
		name := "HKEYS"
		if g.chance(0.5) {
			name = "HVALS"
		}
		d.sameUnordered(false, g.mangle(r3Cmd(name, k))...)
	case 12, 13:
		d.same(g.mangle(r3Cmd("HINCRBY", k, g.pick(hsItems), g.pick(hsIntIncrs)))...)
	case 14, 15:
		d.same(g.mangle(r3Cmd("HINCRBYFLOAT", k, g.pick(hsItems), g.pick(hsFloatIncrs)))...)
	case 16, 17:
		g.hrandfield(k)
	case 18:
		g.scan("HSCAN", k, true)

	// Sets.
	case 19, 20, 21:
		d.same(g.mangle(r3Cmd("SADD", k, g.some(hsItems, 1, 5)))...)
	case 22:
		d.same(g.mangle(r3Cmd("SREM", k, g.some(hsItems, 1, 4)))...)
	case 23:
		d.same(g.mangle(r3Cmd("SISMEMBER", k, g.pick(hsItems)))...)
	case 24:
		d.same(g.mangle(r3Cmd("SMISMEMBER", k, g.some(hsItems, 1, 4)))...)
	case 25:
		d.sameUnordered(false, g.mangle(r3Cmd("SMEMBERS", k))...)
	case 26:
		d.same(g.mangle(r3Cmd("SCARD", k))...)
	case 27:
		g.spop(k)
	case 28, 29:
		g.srandmember(k)
	case 30:
		d.same(g.mangle(r3Cmd("SMOVE", k, g.key(), g.pick(hsItems)))...)
	case 31:
		name := g.pick([]string{"SINTER", "SUNION", "SDIFF"})
		d.sameUnordered(false, g.mangle(r3Cmd(name, g.keys(1, 4)))...)
	case 32:
		name := g.pick([]string{"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"})
		d.same(g.mangle(r3Cmd(name, k, g.keys(1, 4)))...)
	case 33:
		d.same(g.sintercard()...)
	case 34:
		g.scan("SSCAN", k, false)

	// The keyspace, and string keys for the WRONGTYPE paths.
	case 35:
		d.same(g.mangle(r3Cmd("DEL", g.keys(1, 3)))...)
	case 36:
		name := g.pick([]string{"EXISTS", "TYPE"})
		d.same(name, k)
	case 37:
		name := g.pick([]string{"RENAME", "RENAMENX"})
		d.same(name, k, g.key())
	case 38:
		args := r3Cmd("COPY", k, g.key())
		if g.chance(0.4) {
			args = append(args, "REPLACE")
		}
		if g.chance(0.2) {
			args = append(args, "DB", g.pick([]string{"0", "1", "x", "-1"}))
		}
		d.same(args...)
	case 39:
		// Large TTLs, or ones already past (the key goes at once):
		// nothing here depends on the clock.
		var args []string
		if g.chance(0.2) {
			args = r3Cmd("EXPIREAT", k, g.pick([]string{"1", "0", "-5", "99999999999"}))
		} else {
			args = r3Cmd(g.pick([]string{"EXPIRE", "EXPIRE", "PEXPIRE"}), k, g.pick([]string{"100000", "200000000", "abc", "0", "-5"}))
		}
		if g.chance(0.3) {
			args = append(args, g.pick([]string{"NX", "XX", "GT", "LT", "FOO"}))
			if g.chance(0.2) {
				args = append(args, g.pick([]string{"NX", "XX", "GT", "LT"}))
			}
		}
		d.same(args...)
	case 40:
		g.ttl(k)
	case 41:
		d.same("PERSIST", k)
	case 42:
		// Mostly strings; sometimes a list or a sorted set, whose type
		// checks the hash and set commands must make too.
		switch g.r.IntN(8) {
		case 0:
			d.same("RPUSH", k, g.pick(hsValues))
		case 1:
			d.same("ZADD", k, "1", g.pick(hsItems))
		default:
			d.same("SET", k, g.pick(hsValues))
		}
	case 43:
		d.same("GET", k)
	case 44:
		g.grow(k)
	}
}

// grow adds many members or fields at once, past Redis's small encodings
// (128 hash fields, 512 integers in an intset), so that the big
// collections' paths run too: integers only, to keep a set an intset
// until it is large, or names.
func (g *hsGen) grow(k string) {
	n := 100 + g.r.IntN(500)
	ints := g.chance(0.5)
	var items []string
	for i := range n {
		if ints {
			items = append(items, strconv.Itoa(i*7-300))
		} else {
			items = append(items, "m"+strconv.Itoa(i))
		}
	}
	if g.chance(0.5) {
		g.d.same(r3Cmd("SADD", k, items)...)
		return
	}
	args := []string{"HSET", k}
	for _, it := range items {
		args = append(args, it, "v"+it)
	}
	g.d.same(args...)
}

// ttl compares TTL by its sign only: -2 (no key), -1 (no TTL) or a TTL.
func (g *hsGen) ttl(k string) {
	d := g.d
	args := []string{"TTL", k}
	r, c := d.send(args...)
	class := func(b []byte) string {
		s := string(b)
		if !strings.HasPrefix(s, ":") {
			return s
		}
		n, _ := strconv.ParseInt(strings.TrimSpace(s[1:]), 10, 64)
		if n >= 0 {
			return "ttl"
		}
		return s
	}
	if class(r) != class(c) {
		d.mismatch(args, r, c)
	}
}

func (g *hsGen) sintercard() []string {
	ks := g.keys(1, 3)
	numkeys := strconv.Itoa(len(ks))
	if g.chance(0.15) {
		numkeys = g.pick([]string{"0", "-1", "abc", "", "4", "10", "1.5", " 1"})
	}
	args := r3Cmd("SINTERCARD", numkeys, ks)
	if g.chance(0.5) {
		args = append(args, "LIMIT", g.pick([]string{"0", "1", "2", "5", "-1", "abc", "", "9223372036854775807", "9223372036854775808"}))
	}
	switch {
	case g.chance(0.05):
		args = append(args, "LIMIT")
	case g.chance(0.05):
		args = append(args, "LIMIT", "1", "LIMIT", "2")
	case g.chance(0.05):
		args = append(args, g.pick([]string{"FOO", "limit", "1"}))
	}
	return g.mangle(args)
}

// contents reads a hash's pairs or a set's members with a compared
// read, and returns Redis's: field to value (a member maps to "").
func (g *hsGen) contents(k string, hash bool) (map[string]string, bool) {
	var r []byte
	if hash {
		r = g.d.sameUnordered(true, "HGETALL", k)
	} else {
		r = g.d.sameUnordered(false, "SMEMBERS", k)
	}
	v, ok := r3Parse(r)
	if !ok || v.kind != '*' {
		return nil, false
	}
	m := make(map[string]string)
	for i := 0; i < len(v.elems); i++ {
		if hash {
			m[v.elems[i].text] = v.elems[i+1].text
			i++
		} else {
			m[v.elems[i].text] = ""
		}
	}
	return m, true
}

// randCheck compares the replies of a command with a random reply: the
// same kind, the same length, elements (or field and value pairs) taken
// from the key's contents, and no repeats when distinct.
func (g *hsGen) randCheck(args []string, r, c []byte, contents map[string]string, pairs, distinct bool) {
	d := g.d
	rv, rok := r3Parse(r)
	cv, cok := r3Parse(c)
	if !rok || !cok {
		d.mismatch(args, r, c)
		return
	}
	if rv.kind == '-' || rv.kind == ':' || rv.null || cv.null {
		if !bytes.Equal(r, c) {
			d.mismatch(args, r, c)
		}
		return
	}
	if rv.kind != cv.kind || len(rv.elems) != len(cv.elems) {
		d.mismatch(args, r, c)
		return
	}
	elems := cv.elems
	if rv.kind == '$' {
		elems = []r3Value{cv}
	}
	seen := make(map[string]bool)
	step := 1
	if pairs {
		step = 2
	}
	for i := 0; i < len(elems); i += step {
		e := elems[i]
		v, in := contents[e.text]
		if e.kind != '$' || e.null || !in || (pairs && (i+1 >= len(elems) || elems[i+1].text != v)) || (distinct && seen[e.text]) {
			d.mismatch(append([]string{"(random reply not drawn from the key)"}, args...), r, c)
			return
		}
		seen[e.text] = true
	}
}

// randCommand reads the key's contents (a hash's, or a set's) with a
// compared read, then draws a command with a random reply: name and key,
// then no count (with chance bare), a malformed or extreme count, or a
// usual one.
func (g *hsGen) randCommand(name, k string, hash bool, bare float64) ([]string, map[string]string) {
	contents, _ := g.contents(k, hash)
	args := []string{name, k}
	switch {
	case g.chance(bare):
	case g.chance(0.1):
		args = append(args, g.pick(hsBadCounts))
	default:
		args = append(args, g.pick(hsCounts))
	}
	return args, contents
}

func (g *hsGen) hrandfield(k string) {
	args, contents := g.randCommand("HRANDFIELD", k, true, 0.15)
	if len(args) == 3 && g.chance(0.4) {
		args = append(args, g.pick([]string{"WITHVALUES", "withvalues", "WITHVALUE", "x"}))
	}
	if g.chance(0.03) {
		args = append(args, "WITHVALUES")
	}
	if len(contents) > 0 && len(args) > 2 && strings.HasPrefix(args[2], "-") && len(args[2]) > 4 && !hsOutOfRange(args) {
		return // would ask for billions of draws
	}
	r, c := g.d.send(args...)
	distinct := len(args) > 2 && !strings.HasPrefix(args[2], "-")
	g.randCheck(args, r, c, contents, len(args) == 4, distinct)
}

// hsOutOfRange reports whether Redis rejects the count of a HRANDFIELD as
// out of range.
func hsOutOfRange(args []string) bool {
	n, err := strconv.ParseInt(args[2], 10, 64)
	return err != nil || n == -1<<63 || (len(args) == 4 && n < -(1<<62-1))
}

func (g *hsGen) srandmember(k string) {
	args, contents := g.randCommand("SRANDMEMBER", k, false, 0.15)
	if g.chance(0.03) {
		args = append(args, "1")
	}
	if len(contents) > 0 && len(args) > 2 && strings.HasPrefix(args[2], "-") && len(args[2]) > 4 && args[2] != "-9223372036854775808" {
		return
	}
	r, c := g.d.send(args...)
	distinct := len(args) > 2 && !strings.HasPrefix(args[2], "-")
	g.randCheck(args, r, c, contents, false, distinct)
}

// spop compares SPOP's reply by shape, then makes Cairn's set equal to
// Redis's again (it put back what it popped and pops what Redis popped)
// and compares the sets.
func (g *hsGen) spop(k string) {
	d := g.d
	args, contents := g.randCommand("SPOP", k, false, 0.2)
	if g.chance(0.03) {
		args = append(args, "1")
	}
	r, c := d.send(args...)
	g.randCheck(args, r, c, contents, false, true)
	rv, _ := r3Parse(r)
	cv, _ := r3Parse(c)
	popped := func(v r3Value) []string {
		switch {
		case v.kind == '$' && !v.null:
			return []string{v.text}
		case v.kind == '*':
			var out []string
			for _, e := range v.elems {
				out = append(out, e.text)
			}
			return out
		}
		return nil
	}
	rp, cp := popped(rv), popped(cv)
	if len(rp) == 0 || len(rp) >= len(contents) || len(rp) != len(cp) {
		return // nothing popped, or all of it: the sets agree
	}
	g.cairnOnly(r3Cmd("SADD", k, cp)...)
	g.cairnOnly(r3Cmd("SREM", k, rp)...)
	d.sameUnordered(false, "SMEMBERS", k)
}

// cairnOnly runs a command on Cairn alone, to bring it back in step with
// Redis after a random reply, and records it in the history.
func (g *hsGen) cairnOnly(args ...string) {
	g.d.history = append(g.d.history, "(Cairn only) "+quoteCommand(args))
	if _, err := g.d.cairn.DoRaw(args...); err != nil {
		g.d.t.Fatalf("Cairn: %s: %v", quoteCommand(args), err)
	}
}

// scan compares a whole scan by the set of what it returns, and the
// replies exactly when the first call fails.
func (g *hsGen) scan(name, k string, pairs bool) {
	d := g.d
	cursor := "0"
	if g.chance(0.05) {
		cursor = g.pick([]string{"abc", " 1", "1.5", "", "18446744073709551616", "+"})
	}
	var opts []string
	for g.chance(0.5) {
		switch g.r.IntN(6) {
		case 0, 1:
			opts = append(opts, g.pick([]string{"MATCH", "match"}), g.pick(hsPatterns))
		case 2, 3:
			opts = append(opts, g.pick([]string{"COUNT", "Count"}), g.pick([]string{"1", "2", "10", "100"}))
		case 4:
			opts = append(opts, "COUNT", g.pick([]string{"0", "-1", "abc", "", "9223372036854775808"}))
		case 5:
			opts = append(opts, g.pick([]string{"MATCH", "COUNT", "FOO", "NOVALUES_", "TYPE"}))
		}
	}
	if g.chance(0.02) {
		opts = append(opts[:0], "COUNT", "-1") // a bad option on a missing key
		k = "missing"
	}
	args := r3Cmd(name, k, cursor, opts)
	r, c := d.send(args...)
	if (len(r) > 0 && r[0] == '-') || (len(c) > 0 && c[0] == '-') {
		if !bytes.Equal(r, c) {
			d.mismatch(args, r, c)
		}
		return
	}
	rs, rok := hsScanAll(d.redis.DoRaw, r, args, pairs)
	cs, cok := hsScanAll(d.cairn.DoRaw, c, args, pairs)
	if !rok || !cok || !hsSameSet(rs, cs) {
		d.mismatch(append([]string{"(full iteration)"}, args...), []byte(fmt.Sprint(hsSorted(rs))), []byte(fmt.Sprint(hsSorted(cs))))
	}
}

// hsScanAll follows a scan from its first reply to the end and returns the
// set of elements (field and value joined, for pairs) it returned.
func hsScanAll(do func(...string) ([]byte, error), first []byte, args []string, pairs bool) (map[string]bool, bool) {
	out := make(map[string]bool)
	reply := first
	for range 10000 {
		v, ok := r3Parse(reply)
		if !ok || v.kind != '*' || len(v.elems) != 2 || v.elems[1].kind != '*' {
			return nil, false
		}
		es := v.elems[1].elems
		for i := 0; i < len(es); i++ {
			if pairs {
				if i+1 >= len(es) {
					return nil, false
				}
				out[es[i].text+"\x00=\x00"+es[i+1].text] = true
				i++
			} else {
				out[es[i].text] = true
			}
		}
		cursor := v.elems[0].text
		if cursor == "0" {
			return out, true
		}
		next := append([]string(nil), args...)
		next[2] = cursor
		var err error
		if reply, err = do(next...); err != nil {
			return nil, false
		}
	}
	return nil, false
}

func hsSameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func hsSorted(s map[string]bool) []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, strconv.Quote(k))
	}
	slices.Sort(out)
	return out
}

func TestDiffHashSet(t *testing.T) {
	diffSeeds(t, 2, []uint64{1, 2, 3}, 2500, func(d *diffRun, seed uint64) func() {
		g := &hsGen{d: d, r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
		return g.step
	})
}

// hsCase is a directed differential case: commands run in order on both
// servers, each reply compared ("~" before a command compares its array
// as a multiset, "~~" as a multiset of pairs).
type hsCase struct {
	name string
	cmds [][]string
}

func hsRun(t *testing.T, cases []hsCase) {
	d := newDiffRun(t)
	for _, c := range cases {
		before := d.mismatches
		d.same("FLUSHALL")
		for _, cmd := range c.cmds {
			switch cmd[0] {
			case "~":
				d.sameUnordered(false, cmd[1:]...)
			case "~~":
				d.sameUnordered(true, cmd[1:]...)
			default:
				d.same(cmd...)
			}
		}
		if d.mismatches > before {
			t.Logf("in case %q", c.name)
		}
	}
}

func TestDiffHashSetCases(t *testing.T) {
	hsRun(t, []hsCase{
		// HINCRBYFLOAT adds in long double, as Redis does: Cairn added in
		// float64 and printed 1000.1, and refused "1e400" (finite in a
		// long double) as infinite.
		{"hincrbyfloat long double", [][]string{
			{"HSET", "h", "f", "1000"},
			{"HINCRBYFLOAT", "h", "f", "0.1"},
			{"HINCRBYFLOAT", "h", "f", "0.1"},
			{"HGET", "h", "f"},
			{"HINCRBYFLOAT", "h", "g", "3.3"},
			{"HINCRBYFLOAT", "h", "g", "1.1"},
			{"HINCRBYFLOAT", "h", "big", "1e308"},
			{"HINCRBYFLOAT", "h", "big", "1e308"},
			{"HINCRBYFLOAT", "h", "huge", "1e400"},
			{"HSTRLEN", "h", "huge"},
			{"HINCRBYFLOAT", "h", "huge", "-1e400"},
			{"HINCRBYFLOAT", "h", "max", "1.18973149535723176502e+4932"},
			{"HINCRBYFLOAT", "h", "max", "1e4920"},
			{"HINCRBYFLOAT", "h", "max", "1.18973149535723176509e+4932"},
			{"HINCRBYFLOAT", "h", "tiny", "1e-4940"},
			{"HINCRBYFLOAT", "h", "tie", "0.000003814697265625"},
			{"HINCRBYFLOAT", "h", "hex", "0x1.8p3"},
			{"HINCRBYFLOAT", "h", "hex", "-0.3"},
			{"HSET", "h", "i", "9223372036854775807"},
			{"HINCRBYFLOAT", "h", "i", "0.5"},
			{"HINCRBYFLOAT", "h", "i", "0.5"},
			{"HSET", "h", "n", "-0.00000000000000000001"},
			{"HINCRBYFLOAT", "h", "n", "0"},
			{"HSET", "h", "t", "3.0"},
			{"HINCRBYFLOAT", "h", "t", "0"},
			{"~~", "HGETALL", "h"},
		}},
		{"hincrbyfloat errors", [][]string{
			{"HSET", "h", "inf", "inf", "nan", "nan", "sp", " 1", "e", "1e"},
			{"HINCRBYFLOAT", "h", "inf", "1"},
			{"HINCRBYFLOAT", "h", "nan", "1"},
			{"HINCRBYFLOAT", "h", "sp", "1"},
			{"HINCRBYFLOAT", "h", "e", "1"},
			{"HINCRBYFLOAT", "h", "x", "inf"},
			{"HINCRBYFLOAT", "h", "x", "-Infinity"},
			{"HINCRBYFLOAT", "h", "x", "nan"},
			{"HINCRBYFLOAT", "h", "x", "1e5000"},
			{"HINCRBYFLOAT", "h", "x", ""},
			{"HINCRBYFLOAT", "h", "x", " 1"},
			{"HEXISTS", "h", "x"},
			{"SET", "s", "1"},
			{"HINCRBYFLOAT", "s", "f", "abc"},
			{"HINCRBYFLOAT", "s", "f", "inf"},
			{"HINCRBYFLOAT", "s", "f", "1"},
		}},
		{"hincrby", [][]string{
			{"HSET", "h", "max", "9223372036854775807", "f", "1.5", "sp", " 1", "z", "-0", "o", "007"},
			{"HINCRBY", "h", "max", "1"},
			{"HINCRBY", "h", "max", "-9223372036854775808"},
			{"HINCRBY", "h", "max", "0"},
			{"HINCRBY", "h", "f", "1"},
			{"HINCRBY", "h", "sp", "1"},
			{"HINCRBY", "h", "z", "1"},
			{"HINCRBY", "h", "o", "1"},
			{"HINCRBY", "h", "new", "9223372036854775808"},
			{"HINCRBY", "h", "new", "1.0"},
			{"HINCRBY", "h", "new", "-9223372036854775808"},
			{"HINCRBY", "h", "new", "-1"},
			{"SET", "s", "1"},
			{"HINCRBY", "s", "f", "x"},
			{"HINCRBY", "s", "f", "1"},
		}},
		{"hset arity and hmset", [][]string{
			{"HSET", "h", "f"},
			{"HSET", "h", "f", "v", "g"},
			{"HMSET", "h", "f", "v", "g"},
			{"HMSET", "h", "f", "v", "f", "w"},
			{"HSET", "h", "f", "x", "f", "y", "g", "1"},
			{"~~", "HGETALL", "h"},
			{"HSETNX", "h", "f", "z"},
			{"HSETNX", "h", "n", "z"},
			{"HSETNX", "h", "n"},
			{"HSTRLEN", "h", "g"},
			{"HSTRLEN", "h", "nope"},
			{"HSTRLEN", "nope", "nope"},
			{"HMGET", "h", "f", "nope", "g"},
			{"HMGET", "nope", "f", "g"},
			{"HMGET", "h"},
			{"HDEL", "h", "f", "f", "nope"},
			{"HDEL", "h", "g", "n"},
			{"EXISTS", "h"},
			{"HLEN", "h"},
			{"HGETALL", "h"},
			{"HKEYS", "h"},
			{"HVALS", "nope"},
		}},
		{"hash wrongtype", [][]string{
			{"SADD", "s", "a"},
			{"HSET", "s", "f", "v"},
			{"HSETNX", "s", "f", "v"},
			{"HGET", "s", "f"},
			{"HMGET", "s", "f"},
			{"HDEL", "s", "f"},
			{"HLEN", "s"},
			{"HSTRLEN", "s", "f"},
			{"HEXISTS", "s", "f"},
			{"HGETALL", "s"},
			{"HKEYS", "s"},
			{"HVALS", "s"},
			{"HRANDFIELD", "s"},
			{"HRANDFIELD", "s", "2"},
			{"HRANDFIELD", "s", "x"},
			{"HSCAN", "s", "0"},
			{"HSCAN", "s", "x"},
			{"HSET", "s", "f"},
		}},
		{"hrandfield counts", [][]string{
			{"HRANDFIELD", "nope"},
			{"HRANDFIELD", "nope", "5"},
			{"HRANDFIELD", "nope", "-5"},
			{"HRANDFIELD", "nope", "-9223372036854775807"},
			{"HRANDFIELD", "nope", "-9223372036854775808"},
			{"HRANDFIELD", "nope", "5", "WITHVALUES"},
			{"HRANDFIELD", "nope", "x"},
			{"HRANDFIELD", "nope", "5", "x"},
			{"HRANDFIELD", "nope", "5", "WITHVALUES", "x"},
			{"HSET", "h", "a", "1", "b", "2", "c", "3"},
			{"HRANDFIELD", "h", "0"},
			{"HRANDFIELD", "h", "0", "WITHVALUES"},
			{"HRANDFIELD", "h", "-9223372036854775808"},
			{"HRANDFIELD", "h", "9223372036854775808"},
			{"HRANDFIELD", "h", "1.5"},
			{"HRANDFIELD", "h", "4611686018427387904", "WITHVALUES"},
			{"HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES"},
			{"HRANDFIELD", "h", "-9223372036854775807", "WITHVALUES"},
			{"HRANDFIELD", "h", "1", "WITHSCORES"},
			{"~", "HRANDFIELD", "h", "3"},
			{"~", "HRANDFIELD", "h", "10"},
			{"~~", "HRANDFIELD", "h", "10", "withvalues"},
		}},
		{"hscan", [][]string{
			{"HSET", "h", "a", "1", "b", "2"},
			{"HSCAN", "h", "0", "COUNT", "0"},
			{"HSCAN", "h", "0", "COUNT", "-1"},
			{"HSCAN", "h", "0", "COUNT", "x"},
			{"HSCAN", "h", "0", "MATCH"},
			{"HSCAN", "h", "0", "FOO", "bar"},
			{"HSCAN", "h", "x"},
			{"HSCAN", "h", "-"},
			{"HSCAN", "nope", "0", "COUNT", "0"},
			{"HSCAN", "nope", "x"},
			{"HSCAN", "h", "0", "MATCH", "a"},
		}},
		{"sadd srem scard", [][]string{
			{"SADD", "s", "a", "a", "b", "1", "01", "-0", "0"},
			{"SCARD", "s"},
			{"SREM", "s", "a", "a", "nope"},
			{"SISMEMBER", "s", "01"},
			{"SISMEMBER", "s", "1"},
			{"SISMEMBER", "nope", "1"},
			{"SMISMEMBER", "s", "1", "2", "-0"},
			{"SMISMEMBER", "nope", "1", "2"},
			{"SREM", "s", "b", "1", "01", "-0", "0"},
			{"EXISTS", "s"},
			{"SCARD", "s"},
			{"SMEMBERS", "s"},
			{"SREM", "nope", "a"},
			{"SET", "str", "v"},
			{"SADD", "str", "a"},
			{"SREM", "str", "a"},
			{"SISMEMBER", "str", "a"},
			{"SMISMEMBER", "str", "a"},
			{"SCARD", "str"},
			{"SMEMBERS", "str"},
			{"SADD", "s"},
			{"SMISMEMBER", "s"},
		}},
		{"spop and srandmember", [][]string{
			{"SPOP", "nope"},
			{"SPOP", "nope", "0"},
			{"SPOP", "nope", "5"},
			{"SPOP", "nope", "-1"},
			{"SPOP", "nope", "x"},
			{"SPOP", "nope", "1", "2"},
			{"SRANDMEMBER", "nope"},
			{"SRANDMEMBER", "nope", "5"},
			{"SRANDMEMBER", "nope", "-5"},
			{"SRANDMEMBER", "nope", "-9223372036854775807"},
			{"SRANDMEMBER", "nope", "-9223372036854775808"},
			{"SRANDMEMBER", "nope", "x"},
			{"SRANDMEMBER", "nope", "1", "2"},
			{"SADD", "s", "a", "b", "c"},
			{"SPOP", "s", "0"},
			{"SRANDMEMBER", "s", "0"},
			{"~", "SRANDMEMBER", "s", "3"},
			{"~", "SRANDMEMBER", "s", "9223372036854775807"},
			{"~", "SPOP", "s", "9223372036854775807"},
			{"EXISTS", "s"},
			{"SADD", "s", "1", "2", "3"},
			{"EXPIRE", "s", "1000"},
			{"~", "SPOP", "s", "3"},
			{"EXISTS", "s"},
			{"SET", "str", "v"},
			{"SPOP", "str"},
			{"SPOP", "str", "1"},
			{"SPOP", "str", "-1"},
			{"SRANDMEMBER", "str"},
			{"SRANDMEMBER", "str", "1"},
			{"SRANDMEMBER", "str", "x"},
		}},
		{"smove", [][]string{
			{"SADD", "s", "a", "b"},
			{"SET", "str", "v"},
			{"SMOVE", "s", "s", "a"},
			{"SMOVE", "s", "s", "z"},
			{"SMOVE", "s", "str", "a"},
			{"SMOVE", "s", "str", "z"},
			{"SMOVE", "nope", "str", "a"},
			{"SMOVE", "str", "s", "a"},
			{"SMOVE", "s", "t", "a"},
			{"SMOVE", "s", "t", "a"},
			{"SMOVE", "s", "t", "b"},
			{"EXISTS", "s"},
			{"~", "SMEMBERS", "t"},
			{"SADD", "u", "1", "2"},
			{"SMOVE", "t", "u", "b"},
			{"~", "SMEMBERS", "u"},
		}},
		{"set algebra", [][]string{
			{"SADD", "a", "1", "2", "3", "x"},
			{"SADD", "b", "2", "3", "4", "y"},
			{"SET", "str", "v"},
			{"~", "SINTER", "a", "b"},
			{"~", "SINTER", "a", "nope"},
			{"SINTER", "a", "nope", "str"},
			{"SINTER", "nope", "str"},
			{"SINTER", "str", "nope"},
			{"~", "SUNION", "a", "b", "nope"},
			{"SUNION", "a", "str"},
			{"~", "SDIFF", "a", "b"},
			{"~", "SDIFF", "nope", "a"},
			{"SDIFF", "nope", "str"},
			{"SDIFF", "a", "str"},
			{"~", "SDIFF", "a", "a"},
			{"SINTERSTORE", "d", "a", "b"},
			{"~", "SMEMBERS", "d"},
			{"SINTERSTORE", "d", "a", "nope"},
			{"EXISTS", "d"},
			{"SUNIONSTORE", "str", "a", "b"},
			{"TYPE", "str"},
			{"SET", "str", "v"},
			{"SDIFFSTORE", "str", "a", "b"},
			{"TYPE", "str"},
			{"SET", "str", "v"},
			{"SINTERSTORE", "d", "a", "str"},
			{"SUNIONSTORE", "d", "str"},
			{"SDIFFSTORE", "d", "nope", "str"},
			{"SDIFFSTORE", "a", "a", "b"},
			{"~", "SMEMBERS", "a"},
			{"SUNIONSTORE", "a", "nope"},
			{"EXISTS", "a"},
			{"SINTERSTORE", "d"},
		}},
		{"sintercard", [][]string{
			{"SADD", "a", "1", "2", "3", "x"},
			{"SADD", "b", "2", "3", "4", "x"},
			{"SET", "str", "v"},
			{"SINTERCARD", "2", "a", "b"},
			{"SINTERCARD", "2", "a", "b", "LIMIT", "0"},
			{"SINTERCARD", "2", "a", "b", "LIMIT", "2"},
			{"SINTERCARD", "2", "a", "b", "limit", "1", "LIMIT", "5"},
			{"SINTERCARD", "2", "a", "b", "LIMIT", "-1"},
			{"SINTERCARD", "2", "a", "b", "LIMIT", "x"},
			{"SINTERCARD", "2", "a", "b", "LIMIT"},
			{"SINTERCARD", "2", "a", "b", "FOO"},
			{"SINTERCARD", "0", "a"},
			{"SINTERCARD", "-1", "a"},
			{"SINTERCARD", "x", "a"},
			{"SINTERCARD", "3", "a", "b"},
			{"SINTERCARD", "1"},
			{"SINTERCARD", "2", "a", "str"},
			{"SINTERCARD", "2", "nope", "str"},
			{"SINTERCARD", "2", "str", "nope"},
			{"SINTERCARD", "1", "nope"},
			{"SINTERCARD", "2", "a", "str", "LIMIT", "-1"},
		}},
		{"sscan", [][]string{
			{"SADD", "s", "a", "b"},
			{"SSCAN", "s", "0", "COUNT", "0"},
			{"SSCAN", "s", "0", "COUNT", "x"},
			{"SSCAN", "s", "0", "MATCH"},
			{"SSCAN", "s", "0", "NOVALUES"},
			{"SSCAN", "s", "x"},
			{"SSCAN", "nope", "0", "COUNT", "0"},
			{"SSCAN", "s", "0", "MATCH", "a"},
			{"SET", "str", "v"},
			{"SSCAN", "str", "0"},
			{"SSCAN", "str", "x"},
		}},
		{"keyspace on hashes and sets", [][]string{
			{"HSET", "h", "f", "v"},
			{"SADD", "s", "m"},
			{"TYPE", "h"},
			{"TYPE", "s"},
			{"COPY", "h", "s"},
			{"COPY", "h", "s", "REPLACE"},
			{"TYPE", "s"},
			{"~~", "HGETALL", "s"},
			{"HSET", "s", "g", "w"},
			{"HLEN", "h"},
			{"RENAME", "s", "h"},
			{"HLEN", "h"},
			{"EXISTS", "s"},
			{"SADD", "s", "1", "2"},
			{"EXPIRE", "s", "1000"},
			{"SADD", "s", "3"},
			{"PERSIST", "s"},
			{"EXPIRE", "s", "1000"},
			{"~", "SPOP", "s", "3"},
			{"PERSIST", "s"},
			{"EXISTS", "s"},
			{"HDEL", "h", "f", "g"},
			{"EXISTS", "h"},
			{"DEL", "h", "s"},
		}},
	})
}
