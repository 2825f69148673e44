package server

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// SORT and SORT_RO against redis-server 7.0.15: random lists, sets and
// sorted sets with weights, hashes and GET targets around them, and a table
// of invocations over each, the replies compared byte for byte.
//
// Known differences steered clear of:
//   - A set left unsorted (BY without '*') comes in the set's own order,
//     Redis's hash order, Cairn's byte order: compared as a multiset, and
//     never with LIMIT.
//   - Equal ALPHA BY values end in an order that depends on the input's:
//     a list's is the same in both, a set's or a sorted set's hash table
//     order is Redis's own, so those are compared as multisets and not
//     with LIMIT.
//   - ALPHA collates with strcoll: both servers run in the C locale.

// sortNumbers are elements that parse as numbers, some equal in value.
var sortNumbers = []string{"0", "1", "2", "-1", "3", "1.5", "-2.5", "10", "100", "-0", "7", "8", "9", "11", "1e3", "0.25"}

// sortWords are ALPHA elements, non-ASCII and binary bytes included.
var sortWords = []string{"a", "b", "B", "aa", "ab", "\xc3\xa9", "\xe2\x82\xac", "\xff", "z", "Z", "zz", "0", "10", "9", "m\x01", "-"}

// sortWeights are the values BY reads: numbers and strings.
var sortWeights = []string{"1", "2", "3", "-1", "0", "10", "2.5", "1e2", "-inf", "inf", " 4", "5"}

func sortPick(r *rand.Rand, pool []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = pool[r.IntN(len(pool))]
	}
	return out
}

// sortPopulate writes the keys of one seed to both servers: numeric and
// word collections of each type, weights (some missing), hashes (some
// without the field), and GET targets.
func sortPopulate(d *diffRun, r *rand.Rand, words []string) {
	d.same("FLUSHALL")
	n := 2 + r.IntN(12)
	d.same(append([]string{"RPUSH", "ln"}, sortPick(r, sortNumbers, n)...)...)
	d.same(append([]string{"RPUSH", "lw"}, sortPick(r, words, n)...)...)
	d.same(append([]string{"SADD", "sn"}, sortPick(r, sortNumbers, n)...)...)
	d.same(append([]string{"SADD", "sw"}, sortPick(r, words, n)...)...)
	for _, z := range []struct {
		key  string
		pool []string
	}{{"zn", sortNumbers}, {"zw", words}} {
		args := []string{"ZADD", z.key}
		for _, m := range sortPick(r, z.pool, n) {
			args = append(args, strconv.Itoa(r.IntN(5)), m)
		}
		d.same(args...)
	}
	all := append(append([]string{}, sortNumbers...), words...)
	for i, e := range all {
		if r.IntN(4) > 0 {
			d.same("SET", "w_"+e, sortWeights[r.IntN(len(sortWeights))])
		}
		// Distinct ALPHA weights, so that no two elements tie.
		d.same("SET", "u_"+e, fmt.Sprintf("%c%03d", 'a'+r.IntN(3), i))
		if r.IntN(3) > 0 {
			d.same("HSET", "h_"+e, "f", strconv.Itoa(r.IntN(20)-5), "g", "v"+e)
		} else if r.IntN(2) == 0 {
			d.same("HSET", "h_"+e, "g", "only")
		}
		if r.IntN(5) > 0 {
			d.same("SET", "o_"+e, "obj:"+e)
		}
	}
	// Keys of other types where a pattern looks.
	d.same("RPUSH", "w_5", "x")
	d.same("SET", "h_7", "str")
}

// sortForms are the options tried on every collection, besides random ones.
var sortForms = [][]string{
	{},
	{"DESC"},
	{"ASC"},
	{"LIMIT", "0", "3"},
	{"LIMIT", "2", "4", "DESC"},
	{"LIMIT", "-1", "2"},
	{"LIMIT", "1", "-1"},
	{"LIMIT", "-5", "-5"},
	{"LIMIT", "100", "2"},
	{"LIMIT", "0", "0"},
	{"LIMIT", "3", "100"},
	{"BY", "w_*"},
	{"BY", "w_*", "DESC"},
	{"BY", "w_*", "LIMIT", "1", "3"},
	{"BY", "h_*->f"},
	{"BY", "h_*->f", "DESC", "LIMIT", "0", "5"},
	{"BY", "u_*", "ALPHA"},
	{"BY", "u_*", "ALPHA", "DESC", "LIMIT", "1", "4"},
	{"BY", "w_*", "ALPHA"},
	{"BY", "h_*->g", "ALPHA"},
	{"BY", "nosort"},
	{"BY", "nosort", "DESC"},
	{"BY", "nosort", "LIMIT", "1", "3"},
	{"BY", "nosort", "DESC", "LIMIT", "2", "2"},
	{"BY", "nosort", "LIMIT", "-1", "-1", "DESC"},
	{"BY", "nosort", "BY", "w_*"},
	{"BY", "w_*", "BY", "nosort"},
	{"GET", "#"},
	{"GET", "o_*"},
	{"GET", "#", "GET", "o_*", "GET", "h_*->g", "GET", "w_*"},
	{"GET", "fixed", "GET", "h_*->"},
	{"GET", "h_*->f", "BY", "w_*", "DESC"},
	{"ALPHA"},
	{"ALPHA", "DESC"},
	{"ALPHA", "LIMIT", "1", "3"},
	{"ALPHA", "GET", "o_*", "GET", "#"},
	{"alpha", "desc", "limit", "0", "2", "get", "#"},
}

func TestSortMatchesRedis(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			d := newDiffRun(t)
			r := rand.New(rand.NewPCG(seed, 77))
			for range 3 {
				sortPopulate(d, r, sortWords)
				for _, key := range []string{"ln", "lw", "sn", "sw", "zn", "zw", "missing"} {
					forms := append(sortForms[:len(sortForms):len(sortForms)], sortRandomForms(r, 25)...)
					for _, form := range forms {
						// Ordered as the set's (or the sorted set's
						// hash table's) iteration leaves them: compared
						// as multisets, and not at all with LIMIT.
						loose := (key[0] == 's' && sortUnordered(form)) || (key[0] != 'l' && sortTies(form))
						if loose && hasWord(form, "LIMIT") {
							continue
						}
						for _, cmd := range []string{"SORT", "SORT_RO"} {
							args := append([]string{cmd, key}, form...)
							if loose {
								d.sameUnordered(false, args...)
							} else {
								d.same(args...)
							}
						}
						// A failed STORE leaves dst as it was: start empty.
						d.same("DEL", "dst")
						d.same(append(append([]string{"SORT", key}, form...), "STORE", "dst")...)
						if loose && !(key[0] == 's' && sortUnordered(form)) {
							d.sameUnordered(false, "LRANGE", "dst", "0", "-1")
						} else {
							// A set left unsorted is sorted ALPHA for
							// a STORE.
							d.same("LRANGE", "dst", "0", "-1")
						}
						d.same("EXISTS", "dst")
					}
				}
			}
			if d.mismatches > 0 {
				t.FailNow()
			}
		})
	}
}

// sortRandomForms makes n random option lists.
func sortRandomForms(r *rand.Rand, n int) [][]string {
	bys := []string{"w_*", "h_*->f", "h_*->g", "u_*", "nosort", "o_*", "*", "w_*->", "missing_*"}
	gets := []string{"#", "o_*", "w_*", "h_*->f", "h_*->g", "fixed", "*"}
	ints := []string{"0", "1", "2", "-1", "-3", "5", "100", "9223372036854775807", "-9223372036854775808"}
	forms := make([][]string, n)
	for i := range forms {
		var f []string
		for range r.IntN(5) {
			switch r.IntN(6) {
			case 0:
				f = append(f, "BY", bys[r.IntN(len(bys))])
			case 1:
				f = append(f, "LIMIT", ints[r.IntN(len(ints))], ints[r.IntN(len(ints))])
			case 2:
				f = append(f, "GET", gets[r.IntN(len(gets))])
			case 3:
				f = append(f, []string{"ASC", "DESC"}[r.IntN(2)])
			default:
				f = append(f, "ALPHA")
			}
		}
		forms[i] = f
	}
	return forms
}

// sortUnordered reports whether a form leaves a set in its own order.
func sortUnordered(form []string) bool {
	for i := 0; i+1 < len(form); i++ {
		if strings.EqualFold(form[i], "BY") && !strings.Contains(form[i+1], "*") {
			return true
		}
	}
	return false
}

// sortTies reports whether a form sorts ALPHA by values that may be equal
// (missing ones included): their order is then the input's.
func sortTies(form []string) bool {
	if !hasWord(form, "ALPHA") {
		return false
	}
	for i := 0; i+1 < len(form); i++ {
		if strings.EqualFold(form[i], "BY") && strings.Contains(form[i+1], "*") && form[i+1] != "u_*" {
			return true
		}
	}
	return false
}

func hasWord(form []string, w string) bool {
	for _, f := range form {
		if strings.EqualFold(f, w) {
			return true
		}
	}
	return false
}

// TestSortEdgesMatchRedis covers the numbers Redis's strtod takes and
// refuses, errors, STORE over other types and deadlines, and the options'
// parsing.
func TestSortEdgesMatchRedis(t *testing.T) {
	d := newDiffRun(t)
	d.same("RPUSH", "l", "3", "1", "2")
	d.same("SADD", "s", "b", "a", "c")
	d.same("SET", "str", "x")
	d.same("HSET", "h", "f", "1")
	d.same("ZADD", "z", "1", "b", "2", "a", "2", "c", "0", "d")
	for _, v := range []string{"", " 12", "\t7", "1e400", "-1e400", "1e-400", "4e-324", "0x1p-1074", "0x1.0000001p-1060", "-0x1p-1073", "0x1.8p-1070", "2.2250738585072014e-308", "2.2250738585072011e-308", "inf", "-inf", "+inf", "infinity", "nan", "-nan",
		"0x10", "0x1p3", "5\x00abc", "1.5e3", ".5", "5.", "+3", "--3", "3 ", " ", "1_000", "0b1", "x"} {
		d.same("DEL", "n")
		d.same("RPUSH", "n", v, "2", "1")
		// Redis's SORT tests errno without clearing it first: an ERANGE
		// left by an earlier command fails numbers that are fine. An
		// INCRBYFLOAT clears errno (string2ld) before each SORT.
		resetErrno := func() { d.same("INCRBYFLOAT", "errno", "1") }
		resetErrno()
		d.same("SORT", "n")
		resetErrno()
		d.same("SORT", "n", "DESC")
		d.same("SET", "wt_2", v)
		resetErrno()
		d.same("SORT", "l", "BY", "wt_*")
	}
	// Ties: equal numbers keep no order but their bytes'.
	d.same("RPUSH", "t", "1.0", "1", "01", "1e0", "+1", "0.5", "1.00")
	d.same("SORT", "t")
	d.same("SORT", "t", "DESC")
	d.same("SORT", "t", "BY", "nokey_*")
	d.same("SORT", "t", "BY", "nokey_*", "DESC", "LIMIT", "1", "3")
	// Sorted set without BY: its members sorted, not its order.
	d.same("SORT", "z", "ALPHA")
	d.same("SORT", "z")
	d.same("SORT", "z", "BY", "x", "LIMIT", "1", "2")
	d.same("SORT", "z", "BY", "x", "DESC", "LIMIT", "1", "2")
	// Ties under a LIMIT: Redis's partial quicksort decides their order,
	// over lists long enough for its median-of-three steps.
	for _, n := range []int{6, 7, 8, 20, 41, 90, 300} {
		items := make([]string, n)
		for i := range items {
			items[i] = strconv.Itoa(i)
			d.same("SET", "tie_"+items[i], strconv.Itoa(i*7%5))
		}
		d.same("DEL", "tl")
		d.same(append([]string{"RPUSH", "tl"}, items...)...)
		for _, lim := range [][2]int{{0, 1}, {0, 5}, {2, 3}, {n / 2, 4}, {n - 3, 3}, {1, n}} {
			lo, cnt := strconv.Itoa(lim[0]), strconv.Itoa(lim[1])
			d.same("SORT", "tl", "BY", "tie_*", "ALPHA", "LIMIT", lo, cnt)
			d.same("SORT", "tl", "BY", "tie_*", "ALPHA", "DESC", "LIMIT", lo, cnt)
			d.same("SORT", "tl", "BY", "tie_*", "LIMIT", lo, cnt, "GET", "tie_*")
			d.same("SORT", "tl", "BY", "nokey_*", "ALPHA", "LIMIT", lo, cnt)
			d.same("SORT", "tl", "BY", "tie_*", "ALPHA", "LIMIT", lo, cnt, "STORE", "tdst")
			d.same("LRANGE", "tdst", "0", "-1")
		}
		d.same("SORT", "tl", "BY", "tie_*", "ALPHA")
	}
	// Errors, in Redis's order.
	for _, args := range [][]string{
		{"SORT", "str"}, {"SORT_RO", "h"}, {"SORT", "str", "BADOPT"},
		{"SORT", "l", "LIMIT", "1"}, {"SORT", "l", "LIMIT", "a", "1"}, {"SORT", "l", "LIMIT", "1", "1.5"},
		{"SORT", "l", "LIMIT", "99999999999999999999", "1"},
		{"SORT", "l", "BY"}, {"SORT", "l", "GET"}, {"SORT", "l", "STORE"},
		{"SORT_RO", "l", "STORE", "d"}, {"SORT_RO", "str", "STORE", "d"},
		{"SORT", "str", "LIMIT", "x", "1"}, {"SORT", "s"}, {"SORT", "s", "STORE", "d"},
		{"SORT"}, {"SORT_RO"},
	} {
		d.same(args...)
	}
	// STORE: replaces any type, drops the deadline, deletes on empty.
	d.same("SET", "dst", "old", "EX", "100")
	d.same("SORT", "l", "STORE", "dst")
	d.same("TYPE", "dst")
	d.same("TTL", "dst")
	d.same("LRANGE", "dst", "0", "-1")
	d.same("SORT", "s", "BY", "nosort", "STORE", "dst")
	d.same("LRANGE", "dst", "0", "-1")
	d.same("SORT", "s", "BY", "nosort", "GET", "nokey_*", "STORE", "dst")
	d.same("LRANGE", "dst", "0", "-1")
	d.same("SORT", "missing", "STORE", "dst")
	d.same("EXISTS", "dst")
	d.same("SORT", "l", "STORE", "l")
	d.same("LRANGE", "l", "0", "-1")
	d.same("SORT", "l", "STORE", "a", "STORE", "b")
	d.same("EXISTS", "a", "b")
	// In a script, an unsorted set is sorted ALPHA.
	d.same("EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort')", "1", "s")
	d.same("EVAL", "return redis.call('SORT_RO', KEYS[1], 'BY', 'w_*', 'GET', '#')", "1", "l")
	d.same("EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'w_*', 'GET', 'o_*', 'STORE', KEYS[2])", "2", "l", "ds")
	d.same("LRANGE", "ds", "0", "-1")
	d.same("EVAL", "redis.call('SET', 'w_3', '-5') return redis.call('SORT', KEYS[1], 'BY', 'w_*')", "1", "l")
	// In MULTI, the patterns read what the transaction wrote.
	d.same("MULTI")
	d.same("SET", "wm_1", "9")
	d.same("SORT", "l", "BY", "wm_*", "GET", "wm_*")
	d.same("SORT", "l", "BY", "wm_*", "STORE", "dm")
	d.same("LRANGE", "dm", "0", "-1")
	d.same("EXEC")
	// RESP3: a GET that finds nothing is a null.
	d3 := newDiffRunProto(t, 3)
	d3.same("RPUSH", "l", "2", "1", "3")
	d3.same("SET", "o_1", "one")
	d3.same("HSET", "h_2", "f", "x")
	d3.same("SORT", "l", "GET", "#", "GET", "o_*", "GET", "h_*->f", "GET", "fixed")
	d3.same("SORT_RO", "l", "BY", "nosort", "LIMIT", "1", "5", "DESC")
	d3.same("SORT", "l", "GET", "o_*", "STORE", "d")
	d3.same("LRANGE", "d", "0", "-1")
	if d.mismatches+d3.mismatches > 0 {
		t.FailNow()
	}
}

// TestSortNotifyMatchesRedis compares the keyspace events of SORT: "new"
// and "sortstore" for a stored list, "del" for an emptied destination,
// "keymiss" for the keys it looked up in vain.
func TestSortNotifyMatchesRedis(t *testing.T) {
	d := newDiffRun(t)
	rsub := notifySubscriber(t, d.redis.Addr())
	csub := notifySubscriber(t, d.cairn.Addr())
	d.same("CONFIG", "SET", "notify-keyspace-events", "KEAm")
	for _, cmd := range [][]string{
		{"RPUSH", "l", "2", "1"},
		{"SET", "w_1", "5"},
		{"SORT", "l", "STORE", "d"},
		{"SORT", "l", "STORE", "d"},
		{"SORT", "nokey", "STORE", "d"},
		{"SORT", "nokey", "STORE", "d"},
		{"SORT", "l", "BY", "w_*", "GET", "#", "GET", "o_*", "GET", "h_*->f"},
		{"SORT_RO", "nokey"},
		{"SORT", "l", "BY", "nosort", "STORE", "l"},
	} {
		d.same(cmd...)
	}
	want := drainEvents(t, d.redis, rsub)
	got := drainEvents(t, d.cairn, csub)
	if !reflect.DeepEqual(want, got) {
		t.Errorf("events differ:\nRedis: %q\nCairn: %q", want, got)
	}
}

// TestSortKeysMatchRedis compares SORT's COMMAND INFO and the keys COMMAND
// GETKEYS finds in its command lines.
func TestSortKeysMatchRedis(t *testing.T) {
	rc := redistest.Start(t)
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx := context.Background()
	for _, name := range []string{"sort", "sort_ro"} {
		want := canonReply(rc.Do("COMMAND", "INFO", name))
		got := canonReply(c.Do(ctx, "COMMAND", "INFO", name).Result())
		if !reflect.DeepEqual(got, want) {
			t.Errorf("COMMAND INFO %s\n  Cairn: %v\n  Redis: %v", name, got, want)
		}
	}
	for _, line := range [][]string{
		{"SORT", "k"}, {"SORT", "k", "STORE", "d"}, {"SORT", "k", "LIMIT", "0", "1", "STORE", "d"},
		{"SORT", "k", "GET", "store", "STORE", "d"}, {"SORT", "k", "BY", "store"}, {"SORT", "k", "STORE", "a", "STORE", "b"},
		{"SORT", "k", "STORE"}, {"SORT", "k", "LIMIT", "store", "x", "STORE", "y"}, {"SORT_RO", "k", "STORE", "d"},
	} {
		for _, sub := range []string{"GETKEYS", "GETKEYSANDFLAGS"} {
			args := append([]any{"COMMAND", sub}, toAny(line)...)
			want := canonReply(rc.Do(args...))
			got := canonReply(c.Do(ctx, args...).Result())
			if !reflect.DeepEqual(got, want) {
				t.Errorf("COMMAND %s %s\n  Cairn: %v\n  Redis: %v", sub, strings.Join(line, " "), got, want)
			}
		}
	}
}

// TestSortReadsOneState runs SORTs whose GET patterns read two keys while
// another client rewrites both in one MSET: every SORT, stored or not, on
// its own, in MULTI or in a script, must see both keys from the same MSET.
// A pipelined write before a SORT is seen by it.
func TestSortReadsOneState(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	c := ts.client(t, 2)
	if err := c.RPush(ctx, "l", "1", "2").Err(); err != nil {
		t.Fatal(err)
	}
	p := c.Pipeline()
	p.Set(ctx, "v_1", "p", 0)
	p.Set(ctx, "v_2", "p", 0)
	sorted := p.Sort(ctx, "l", &redis.Sort{By: "v_*", Get: []string{"v_*"}, Alpha: true})
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if got := sorted.Val(); !reflect.DeepEqual(got, []string{"p", "p"}) {
		t.Fatalf("SORT after pipelined SETs: %q", got)
	}

	done := make(chan struct{})
	writerDone := make(chan error, 1)
	go func() {
		w := ts.client(t, 2)
		var err error
		for i := 0; err == nil; i++ {
			select {
			case <-done:
				writerDone <- nil
				return
			default:
			}
			v := strconv.Itoa(i)
			err = w.MSet(ctx, "v_1", v, "v_2", v).Err()
		}
		writerDone <- err
	}()
	same := func(what string, vals []string) {
		t.Helper()
		if len(vals) != 2 || vals[0] != vals[1] {
			t.Fatalf("%s saw two states: %q", what, vals)
		}
	}
	for range 150 {
		same("SORT", c.Sort(ctx, "l", &redis.Sort{Get: []string{"v_*"}}).Val())
		same("SORT_RO", c.SortRO(ctx, "l", &redis.Sort{Get: []string{"v_*"}}).Val())
		if err := c.SortStore(ctx, "l", "dst", &redis.Sort{By: "v_*", Get: []string{"v_*"}, Alpha: true}).Err(); err != nil {
			t.Fatal(err)
		}
		same("SORT STORE", c.LRange(ctx, "dst", 0, -1).Val())
		tx := c.TxPipeline()
		sv := tx.Sort(ctx, "l", &redis.Sort{Get: []string{"v_*"}})
		if _, err := tx.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		same("SORT in MULTI", sv.Val())
		res, err := c.Eval(ctx, "return redis.call('SORT', KEYS[1], 'GET', 'v_*')", []string{"l"}).StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		same("SORT in a script", res)
	}
	close(done)
	if err := <-writerDone; err != nil {
		t.Fatal(err)
	}
}

// FuzzSortArgs checks the pure parts of SORT: the keys sortGetKeys finds
// are the sorted key and the argument after a STORE; a pattern's key is the
// pattern around the element, with a hash field only after "->"; a number
// sortScore accepts in plain decimal is the one strconv reads.
func FuzzSortArgs(f *testing.F) {
	for _, s := range []string{"", "STORE d", "LIMIT 0 1 STORE d", "GET store STORE x", "BY w_* GET # GET h_*->f STORE",
		"limit store x store y", "store a store b", "BY nosort ALPHA DESC"} {
		f.Add(s, "w_*->f", "elem", " 1.5")
	}
	f.Add("", "*", "", "")
	f.Add("", "a->*->", "x", "1e400")
	f.Add("", "#", "x", "-0x1p3")
	f.Add("", "->*", "x->y", "4e-324")
	f.Fuzz(func(t *testing.T, line, pattern, elem, num string) {
		args := [][]byte{[]byte("sort"), []byte("k")}
		for w := range strings.FieldsSeq(line) {
			args = append(args, []byte(w))
		}
		keys := sortGetKeys(args)
		if keys[0] != 1 || len(keys) > 2 {
			t.Fatalf("%q: keys %v", line, keys)
		}
		if len(keys) == 2 && (keys[1] >= len(args) || !strings.EqualFold(string(args[keys[1]-1]), "store")) {
			t.Fatalf("%q: destination at %d", line, keys[1])
		}
		spec := &command.Spec{Name: "sort"}
		if sortDerefs(spec, args) && !strings.Contains(line, "*") {
			t.Fatalf("%q: derefs without a '*'", line)
		}

		key, field, ok := sortPatternKey([]byte(pattern), []byte(elem))
		star := strings.IndexByte(pattern, '*')
		if ok != (star >= 0) {
			t.Fatalf("pattern %q: ok %v", pattern, ok)
		}
		if ok {
			rebuilt := string(key)
			if field != nil {
				rebuilt += "->" + string(field)
			}
			if !strings.HasPrefix(rebuilt, pattern[:star]+elem) || pattern[:star]+"*"+rebuilt[star+len(elem):] != pattern {
				t.Fatalf("pattern %q elem %q: key %q field %q", pattern, elem, key, field)
			}
			if field != nil && (len(field) == 0 || !strings.Contains(pattern[star+1:], "->")) {
				t.Fatalf("pattern %q: field %q", pattern, field)
			}
		}

		f, ok := sortScore([]byte(num))
		plain := strings.TrimLeft(num, " \t\n\v\f\r")
		if ok && math.IsNaN(f) {
			t.Fatalf("%q: NaN accepted", num)
		}
		if plain != "" && strings.Trim(plain, "0123456789.-+eE") == "" && !strings.ContainsRune(num, 0) {
			want, err := strconv.ParseFloat(plain, 64)
			if ok && (err != nil || want != f) {
				t.Fatalf("%q: %v, strconv says %v (%v)", num, f, want, err)
			}
			if !ok && err == nil && want != 0 && math.Abs(want) >= 0x1p-1022 && !math.IsInf(want, 0) {
				t.Fatalf("%q refused, strconv reads %v", num, want)
			}
		}
	})
}
