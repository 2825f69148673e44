package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
	"github.com/redis/go-redis/v9"
)

// zrender writes a go-redis reply in a compact form that tells the reply
// types apart: "s" bulk or simple strings, :1 integers, ,1.5 RESP3
// doubles, [a, b] arrays, {k: v} maps, nil for nulls and -ERR ... for
// errors.
func zrender(v any, err error) string {
	var rerr redis.Error
	switch {
	case errors.Is(err, redis.Nil):
		return "nil"
	case errors.As(err, &rerr):
		return "-" + err.Error()
	case err != nil:
		return "!" + err.Error()
	}
	switch v := v.(type) {
	case nil:
		return "nil"
	case string:
		return strconv.Quote(v)
	case int64:
		return ":" + strconv.FormatInt(v, 10)
	case float64:
		return "," + strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return fmt.Sprintf("#%v", v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = zrender(e, nil)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[any]any:
		parts := make([]string, 0, len(v))
		for k, e := range v {
			parts = append(parts, zrender(k, nil)+": "+zrender(e, nil))
		}
		slices.Sort(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("?%T %v", v, v)
}

// zsplit splits a command line on spaces; a token in double quotes is a Go
// string literal (so "" is an empty argument).
func zsplit(t testing.TB, line string) []any {
	var args []any
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			end := 1
			for end < len(line) && (line[end] != '"' || line[end-1] == '\\') {
				end++
			}
			s, err := strconv.Unquote(line[:end+1])
			if err != nil {
				t.Fatalf("bad token in %q: %v", line, err)
			}
			args = append(args, s)
			line = line[end+1:]
			continue
		}
		end := strings.IndexByte(line, ' ')
		if end < 0 {
			end = len(line)
		}
		args = append(args, line[:end])
		line = line[end:]
	}
	return args
}

// zscript runs a script of "command => reply" lines, where the reply is
// as zrender writes it and "RESP2 reply || RESP3 reply" gives the two
// protocols' replies when they differ. Lines starting with # are comments.
func zscript(t *testing.T, c *redis.Client, proto int, script string) {
	t.Helper()
	for n, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmd, want, ok := strings.Cut(line, " => ")
		if !ok {
			t.Fatalf("line %d: no reply in %q", n+1, line)
		}
		if w2, w3, two := strings.Cut(want, " || "); two {
			want = w2
			if proto == 3 {
				want = w3
			}
		}
		got := zrender(c.Do(context.Background(), zsplit(t, cmd)...).Result())
		if got != want {
			t.Errorf("RESP%d line %d: %s\n got: %s\nwant: %s", proto, n+1, cmd, got, want)
		}
	}
}

func zscriptTest(t *testing.T, script string) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ts := startServer(t)
			zscript(t, ts.client(t, proto), proto, script)
		})
	}
}

// TestZSetAddAndRead checks ZADD with every option, ZINCRBY, ZREM, ZCARD, ZSCORE, ZMSCORE, their errors and WRONGTYPE. Replies as Redis 7 gives them.
func TestZSetAddAndRead(t *testing.T) {
	zscriptTest(t, `
ZADD z 1 a 2 b 3 c => :3
ZADD z nx xx 1 a => -ERR XX and NX options at the same time are not compatible
ZADD z gt lt 1 a => -ERR GT, LT, and/or NX options at the same time are not compatible
ZADD z nx gt 1 a => -ERR GT, LT, and/or NX options at the same time are not compatible
ZADD z lt nx 1 a => -ERR GT, LT, and/or NX options at the same time are not compatible
ZADD z incr 1 a 2 b => -ERR INCR option supports a single increment-element pair
ZADD z 1 a 2 => -ERR syntax error
ZADD z abc a => -ERR value is not a valid float
SET str x => "OK"
HSET hash f v => :1
ZADD str 1 a => -WRONGTYPE Operation against a key holding the wrong kind of value
ZADD hash 1 a => -WRONGTYPE Operation against a key holding the wrong kind of value
ZADD str abc a => -ERR value is not a valid float
ZADD z foo 1 a => -ERR syntax error
ZADD z nx => -ERR wrong number of arguments for 'zadd' command
ZADD nokey xx 1 a => :0
ZADD nokey xx incr 1 a => nil
EXISTS nokey => :0
ZADD z incr nx 5 a => nil
ZADD z ch 5 a 6 b 7 d => :3
ZADD z gt ch 1 a 10 b => :1
ZADD z lt ch 1 a 10 b => :1
ZADD z xx ch 100 a 200 new => :1
ZADD z CH XX 100 a => :0
ZRANGE z 0 -1 WITHSCORES => ["c", "3", "d", "7", "b", "10", "a", "100"] || [["c", ,3], ["d", ,7], ["b", ,10], ["a", ,100]]
ZADD z inf x => :1
ZADD z incr -inf x => -ERR resulting score is not a number (NaN)
ZINCRBY z -inf x => -ERR resulting score is not a number (NaN)
ZADD z -0 m => :1
ZSCORE z m => "0" || ,0
ZINCRBY z abc m => -ERR value is not a valid float
ZINCRBY nokey2 1.5 m => "1.5" || ,1.5
ZINCRBY nokey2 -1.5 m => "0" || ,0
ZINCRBY str 1 m => -WRONGTYPE Operation against a key holding the wrong kind of value
ZADD z 1e400 q => -ERR value is not a valid float
ZADD z nan q => -ERR value is not a valid float
ZADD z 0x10 q => :1
ZSCORE z q => "16" || ,16
ZADD z " 1" w => -ERR value is not a valid float
ZADD z "1 " w => -ERR value is not a valid float
ZADD z "" w => -ERR value is not a valid float
ZADD z 1.5 dup 2.5 dup => :1
ZSCORE z dup => "2.5" || ,2.5
ZADD z incr 0 dup => "2.5" || ,2.5
ZADD z xx incr 1 nothere => nil
ZADD z gt incr -1 dup => nil
ZADD z lt incr -1 dup => "1.5" || ,1.5
ZADD z lt xx 0 dup => :0
ZCARD z => :8
ZCARD nokey => :0
ZCARD str => -WRONGTYPE Operation against a key holding the wrong kind of value
ZCARD hash => -WRONGTYPE Operation against a key holding the wrong kind of value
ZSCORE hash f => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANGE hash 0 -1 => -WRONGTYPE Operation against a key holding the wrong kind of value
ZPOPMIN hash => -WRONGTYPE Operation against a key holding the wrong kind of value
ZSCAN hash 0 => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANDMEMBER hash => -WRONGTYPE Operation against a key holding the wrong kind of value
ZREMRANGEBYSCORE hash 0 1 => -WRONGTYPE Operation against a key holding the wrong kind of value
RPUSH list a => :1
ZINCRBY list 1 a => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANK list a => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANGEBYLEX list - + => -WRONGTYPE Operation against a key holding the wrong kind of value
ZMPOP 1 list MAX => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANGESTORE dst list 0 -1 => -WRONGTYPE Operation against a key holding the wrong kind of value
ZREM z a b nothere => :2
ZREM z nothere => :0
ZREM nokey a => :0
ZREM str a => -WRONGTYPE Operation against a key holding the wrong kind of value
ZSCORE nokey a => nil
ZSCORE z nothere => nil
ZSCORE str a => -WRONGTYPE Operation against a key holding the wrong kind of value
ZMSCORE z dup nothere m => ["0", nil, "0"] || [,0, nil, ,0]
ZMSCORE nokey a b => [nil, nil]
ZMSCORE str a => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANGE z 0 -1 WITHSCORES => ["dup", "0", "m", "0", "c", "3", "d", "7", "q", "16", "x", "inf"] || [["dup", ,0], ["m", ,0], ["c", ,3], ["d", ,7], ["q", ,16], ["x", ,+Inf]]
ZREM z c d m new q x dup => :6
EXISTS z => :0
`)
}

// TestZSetRanges checks ZRANGE and its relatives: ranks, scores (strtod parsing, exclusive ends, infinities), lex, LIMIT, REV, WITHSCORES and their errors; ZCOUNT and ZLEXCOUNT. Replies as Redis 7 gives them.
func TestZSetRanges(t *testing.T) {
	zscriptTest(t, `
ZADD z 1 a 2 b 3 c 4 d 5 e => :5
SET str x => "OK"
ZRANGEBYSCORE z (1 3 => ["b", "c"]
ZRANGEBYSCORE z abc 3 => -ERR min or max is not a float
ZRANGEBYSCORE z ((1 3 => -ERR min or max is not a float
ZRANGEBYSCORE z ( 3 => ["a", "b", "c"]
ZRANGEBYSCORE z "" 3 => ["a", "b", "c"]
ZRANGEBYSCORE z " 2" 3 => ["b", "c"]
ZRANGEBYSCORE z "2 " 3 => -ERR min or max is not a float
ZRANGEBYSCORE z (inf +inf => []
ZRANGEBYSCORE z 1e400 +inf => []
ZRANGEBYSCORE z -1e5000 (1e-5000 => []
ZRANGEBYSCORE z 0x2 +inf => ["b", "c", "d", "e"]
ZRANGEBYSCORE z 1 nan => -ERR min or max is not a float
ZRANGEBYSCORE z (nan 3 => -ERR min or max is not a float
ZRANGEBYSCORE z -inf (+inf WITHSCORES LIMIT 1 2 => ["b", "2", "c", "3"] || [["b", ,2], ["c", ,3]]
ZRANGEBYSCORE z -inf +inf LIMIT -1 2 => []
ZRANGEBYSCORE z -inf +inf LIMIT 1 -1 => ["b", "c", "d", "e"]
ZRANGEBYSCORE z -inf +inf LIMIT 1 => -ERR syntax error
ZRANGEBYSCORE z -inf +inf LIMIT a 1 => -ERR value is not an integer or out of range
ZRANGEBYSCORE z -inf +inf LIMIT 0 0 => []
ZRANGEBYSCORE z -inf +inf LIMIT 5 1 => []
ZRANGEBYSCORE z -inf +inf LIMIT 4 1 => ["e"]
ZRANGEBYSCORE z -inf +inf REV => -ERR syntax error
ZRANGE z 0 -1 REV LIMIT 0 1 => -ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX
ZRANGE z 0 -1 LIMIT 0 -1 => ["a", "b", "c", "d", "e"]
ZRANGE z (1 3 BYSCORE REV => []
ZRANGE z 3 (1 BYSCORE REV WITHSCORES => ["c", "3", "b", "2"] || [["c", ,3], ["b", ,2]]
ZRANGE z 3 (1 BYSCORE REV LIMIT 1 5 => ["b"]
ZREVRANGEBYSCORE z 3 (1 => ["c", "b"]
ZREVRANGEBYSCORE z +inf -inf WITHSCORES LIMIT 1 2 => ["d", "4", "c", "3"] || [["d", ,4], ["c", ,3]]
ZREVRANGEBYSCORE z (1 3 => []
ZRANGE z - + BYLEX WITHSCORES => -ERR syntax error, WITHSCORES not supported in combination with BYLEX
ZRANGEBYLEX z - + WITHSCORES => -ERR syntax error, WITHSCORES not supported in combination with BYLEX
ZRANGEBYLEX z a c => -ERR min or max not valid string range item
ZRANGEBYLEX z [a (c => ["a", "b"]
ZRANGEBYLEX z + - => []
ZRANGEBYLEX z - - => []
ZRANGEBYLEX z [ [c => ["a", "b", "c"]
ZRANGEBYLEX z - + LIMIT 1 2 => ["b", "c"]
ZREVRANGEBYLEX z + - LIMIT 1 2 => ["d", "c"]
ZREVRANGEBYLEX z [c [a => ["c", "b", "a"]
ZRANGE z [c [a BYLEX REV => ["c", "b", "a"]
ZRANGE z 0 -1 BYSCORE BYLEX => -ERR syntax error
ZRANGE z 0 -1 WITHSCORES WITHSCORES => ["a", "1", "b", "2", "c", "3", "d", "4", "e", "5"] || [["a", ,1], ["b", ,2], ["c", ,3], ["d", ,4], ["e", ,5]]
ZRANGE z 0 -1 REV REV => -ERR syntax error
ZRANGE z 0 -1 foo => -ERR syntax error
ZCOUNT z (1 (3 => :1
ZCOUNT z a b => -ERR min or max is not a float
ZCOUNT z -inf +inf => :5
ZCOUNT z 5 1 => :0
ZCOUNT z (3 (3 => :0
ZCOUNT z 3 3 => :1
ZCOUNT nokey 0 1 => :0
ZCOUNT str 0 1 => -WRONGTYPE Operation against a key holding the wrong kind of value
ZCOUNT str a 1 => -ERR min or max is not a float
ZLEXCOUNT z a b => -ERR min or max not valid string range item
ZLEXCOUNT z - + => :5
ZLEXCOUNT z [b [d => :3
ZLEXCOUNT z (b [d => :2
ZLEXCOUNT nokey - + => :0
ZLEXCOUNT str - + => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANGE z 0 0 => ["a"]
ZRANGE z -1 -1 => ["e"]
ZRANGE z -100 100 => ["a", "b", "c", "d", "e"]
ZRANGE z 3 1 => []
ZRANGE z 10 20 => []
ZRANGE z -2 -1 REV WITHSCORES => ["b", "2", "a", "1"] || [["b", ,2], ["a", ,1]]
ZRANGE z 1 3 REV => ["d", "c", "b"]
ZREVRANGE z 0 1 WITHSCORES => ["e", "5", "d", "4"] || [["e", ,5], ["d", ,4]]
ZREVRANGE z 0 1 foo => -ERR syntax error
ZREVRANGE z 0 1 REV => -ERR syntax error
ZRANGE z a 1 => -ERR value is not an integer or out of range
ZRANGE nokey 0 -1 => []
ZRANGE str 0 -1 => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANGE str a b => -ERR value is not an integer or out of range
ZRANGEBYSCORE str a b => -ERR min or max is not a float
ZRANGEBYSCORE str 0 1 => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANGEBYLEX str - + => -WRONGTYPE Operation against a key holding the wrong kind of value
ZREVRANGE str 0 1 => -WRONGTYPE Operation against a key holding the wrong kind of value
`)
}

// TestZSetLexRanges checks Lex ranges on a one-score set (a seek) and a mixed-score set (Redis's listpack walk). Replies as Redis 7 gives them.
func TestZSetLexRanges(t *testing.T) {
	zscriptTest(t, `
ZADD z 0 a 0 b 0 c 0 d 0 e 0 f => :6
ZRANGEBYLEX z [b [e => ["b", "c", "d", "e"]
ZRANGEBYLEX z (b (e => ["c", "d"]
ZREVRANGEBYLEX z (e (b => ["d", "c"]
ZRANGEBYLEX z (b (e LIMIT 1 1 => ["d"]
ZLEXCOUNT z (b + => :4
ZREMRANGEBYLEX z [b [c => :2
ZRANGE z 0 -1 => ["a", "d", "e", "f"]
ZREMRANGEBYLEX z - + => :4
EXISTS z => :0
ZADD m 1 b 2 a 3 d 4 c => :4
ZRANGEBYLEX m - + => ["b", "a", "d", "c"]
ZRANGEBYLEX m [a [c => ["b", "a"]
ZRANGEBYLEX m [b [c => ["b", "a"]
ZREVRANGEBYLEX m [c [a => ["c", "d", "a", "b"]
ZREVRANGEBYLEX m [d [b => ["c", "d"]
ZLEXCOUNT m [a [c => :2
ZREMRANGEBYLEX m [b [c => :2
ZRANGE m 0 -1 => ["d", "c"]
`)
}

// TestZSetPops checks ZPOPMIN, ZPOPMAX and ZMPOP: counts, flat and nested replies, key order and type checks, and errors. Replies as Redis 7 gives them.
func TestZSetPops(t *testing.T) {
	zscriptTest(t, `
SET str x => "OK"
ZADD z 1 a 2 b 3 c => :3
ZPOPMIN z 0 => []
ZPOPMIN z -1 => -ERR value is out of range, must be positive
ZPOPMIN z x => -ERR value is out of range, must be positive
ZPOPMIN z 1 2 => -ERR syntax error
ZPOPMIN nokey => []
ZPOPMIN nokey 0 => []
ZPOPMIN nokey 5 => []
ZPOPMIN str => -WRONGTYPE Operation against a key holding the wrong kind of value
ZPOPMIN str 0 => -WRONGTYPE Operation against a key holding the wrong kind of value
ZPOPMAX str => -WRONGTYPE Operation against a key holding the wrong kind of value
ZPOPMIN z => ["a", "1"] || ["a", ,1]
ZPOPMIN z 1 => ["b", "2"] || [["b", ,2]]
ZPOPMAX z 5 => ["c", "3"] || [["c", ,3]]
EXISTS z => :0
ZADD z 1 a 2 b 3 c 4 d => :4
ZPOPMAX z 2 => ["d", "4", "c", "3"] || [["d", ,4], ["c", ,3]]
ZPOPMAX z => ["b", "2"] || ["b", ,2]
ZPOPMIN z 10 => ["a", "1"] || [["a", ,1]]
EXISTS z => :0
ZADD z 1 a 2 b 3 c => :3
ZMPOP 0 z min => -ERR numkeys should be greater than 0
ZMPOP x z min => -ERR numkeys should be greater than 0
ZMPOP -1 z min => -ERR numkeys should be greater than 0
ZMPOP 2 z min => -ERR syntax error
ZMPOP 1 z foo => -ERR syntax error
ZMPOP 1 z min count 0 => -ERR count should be greater than 0
ZMPOP 1 z min count -3 => -ERR count should be greater than 0
ZMPOP 1 z min count x => -ERR count should be greater than 0
ZMPOP 1 z min count 1 count 1 => -ERR syntax error
ZMPOP 1 z min foo => -ERR syntax error
ZMPOP 1 z MIN COUNT => -ERR syntax error
ZMPOP 9223372036854775807 z min => -ERR syntax error
ZMPOP 2 nokey z max count 2 => ["z", [["c", "3"], ["b", "2"]]] || ["z", [["c", ,3], ["b", ,2]]]
ZMPOP 2 nokey z MAX COUNT 2 => ["z", [["a", "1"]]] || ["z", [["a", ,1]]]
EXISTS z => :0
ZMPOP 1 nokey min => nil
ZMPOP 2 nokey str min => -WRONGTYPE Operation against a key holding the wrong kind of value
ZADD z 1 a 2 b 3 c => :3
ZMPOP 2 z str min => ["z", [["a", "1"]]] || ["z", [["a", ,1]]]
ZMPOP 3 nokey z str MAX COUNT 10 => ["z", [["c", "3"], ["b", "2"]]] || ["z", [["c", ,3], ["b", ,2]]]
EXISTS z => :0
`)
}

// TestZSetRankAndRemoveRanges checks ZRANK and ZREVRANK (with 7.2's WITHSCORE), ZREMRANGEBYRANK, ZREMRANGEBYSCORE and ZREMRANGEBYLEX. Replies as Redis 7 gives them.
func TestZSetRankAndRemoveRanges(t *testing.T) {
	zscriptTest(t, `
ZADD z 1 a 2 b 3 c 4 d 5 e => :5
SET str x => "OK"
ZRANK z c => :2
ZRANK z x => nil
ZRANK nokey x => nil
ZREVRANK z c => :2
ZREVRANK z a => :4
ZRANK z a => :0
ZRANK z e => :4
ZRANK z c withscores => -ERR syntax error
ZRANK z c WITHSCORE => [:2, "3"] || [:2, ,3]
ZREVRANK z c withscore => [:2, "3"] || [:2, ,3]
ZRANK z x WITHSCORE => nil
ZRANK nokey x WITHSCORE => nil
ZRANK str a WITHSCORE => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANK z c WITHSCORE extra => -ERR wrong number of arguments for 'zrank' command
ZREVRANK z c WITHSCORE extra => -ERR wrong number of arguments for 'zrevrank' command
ZRANK str a => -WRONGTYPE Operation against a key holding the wrong kind of value
ZREMRANGEBYRANK z 0 0 => :1
ZREMRANGEBYRANK z x 1 => -ERR value is not an integer or out of range
ZREMRANGEBYSCORE z x 1 => -ERR min or max is not a float
ZREMRANGEBYLEX z x 1 => -ERR min or max not valid string range item
ZREMRANGEBYRANK nokey 0 1 => :0
ZREMRANGEBYRANK str 0 1 => -WRONGTYPE Operation against a key holding the wrong kind of value
ZREMRANGEBYSCORE str 0 1 => -WRONGTYPE Operation against a key holding the wrong kind of value
ZREMRANGEBYLEX str - + => -WRONGTYPE Operation against a key holding the wrong kind of value
ZREMRANGEBYRANK str a 1 => -ERR value is not an integer or out of range
ZREMRANGEBYRANK z -2 -1 => :2
ZREMRANGEBYRANK z 5 10 => :0
ZREMRANGEBYRANK z 2 1 => :0
ZRANGE z 0 -1 WITHSCORES => ["b", "2", "c", "3"] || [["b", ,2], ["c", ,3]]
ZADD z 1 a 2 b 3 c 4 d 5 e => :3
ZREMRANGEBYSCORE z (1 2 => :1
ZREMRANGEBYSCORE z (3 (3 => :0
ZREMRANGEBYSCORE z 10 1 => :0
ZREMRANGEBYLEX z [a (b => :1
ZREMRANGEBYLEX z + - => :0
ZRANGE z 0 -1 => ["c", "d", "e"]
ZREMRANGEBYRANK z 0 -1 => :3
EXISTS z => :0
ZADD z 1 a 2 b 3 c 4 d 5 e => :5
ZREMRANGEBYSCORE z -inf +inf => :5
EXISTS z => :0
`)
}

// TestZSetSetOperations checks ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD: WEIGHTS, AGGREGATE, plain sets as inputs, infinities, and the order of their checks. Replies as Redis 7 gives them.
func TestZSetSetOperations(t *testing.T) {
	zscriptTest(t, `
SET str x => "OK"
ZADD z 1 a 2 b 3 c => :3
ZADD z2 10 b 20 c 30 d => :3
ZUNION 2 z z2 WITHSCORES => ["a", "1", "b", "12", "c", "23", "d", "30"] || [["a", ,1], ["b", ,12], ["c", ,23], ["d", ,30]]
ZINTER 2 z z2 WITHSCORES => ["b", "12", "c", "23"] || [["b", ,12], ["c", ,23]]
ZDIFF 2 z z2 WITHSCORES => ["a", "1"] || [["a", ,1]]
ZDIFF 2 z z2 => ["a"]
ZDIFF 1 z WITHSCORES => ["a", "1", "b", "2", "c", "3"] || [["a", ,1], ["b", ,2], ["c", ,3]]
ZDIFF 2 z z => []
ZUNION 0 z => -ERR at least 1 input key is needed for 'zunion' command
ZUNION -1 z => -ERR at least 1 input key is needed for 'zunion' command
ZUNION 5 z => -ERR syntax error
ZUNION x z => -ERR value is not an integer or out of range
ZUNION 2 z str => -WRONGTYPE Operation against a key holding the wrong kind of value
ZUNION 2 str z badopt => -WRONGTYPE Operation against a key holding the wrong kind of value
ZUNION 2 z z2 badopt => -ERR syntax error
ZUNION 2 z z2 WEIGHTS 1 => -ERR syntax error
ZUNION 2 z z2 WEIGHTS 1 x => -ERR weight value is not a float
ZUNION 2 z z2 WEIGHTS 1 2 3 => -ERR syntax error
ZUNION 2 z z2 AGGREGATE foo => -ERR syntax error
ZUNION 2 z z2 AGGREGATE => -ERR syntax error
ZUNION 2 z z2 AGGREGATE min WITHSCORES => ["a", "1", "b", "2", "c", "3", "d", "30"] || [["a", ,1], ["b", ,2], ["c", ,3], ["d", ,30]]
ZUNION 2 z z2 AGGREGATE max WITHSCORES => ["a", "1", "b", "10", "c", "20", "d", "30"] || [["a", ,1], ["b", ,10], ["c", ,20], ["d", ,30]]
ZUNION 2 z z2 aggregate sum weights 2 3 withscores => ["a", "2", "b", "34", "c", "66", "d", "90"] || [["a", ,2], ["b", ,34], ["c", ,66], ["d", ,90]]
ZDIFF 2 z z2 WEIGHTS 1 1 => -ERR syntax error
ZDIFF 2 z z2 AGGREGATE sum => -ERR syntax error
ZINTER 2 z z2 AGGREGATE max WEIGHTS 2 0.5 WITHSCORES => ["b", "5", "c", "10"] || [["b", ,5], ["c", ,10]]
ZINTER 2 z z2 AGGREGATE min WEIGHTS 2 0.5 WITHSCORES => ["b", "4", "c", "6"] || [["b", ,4], ["c", ,6]]
ZINTER 3 z z2 nokey WITHSCORES => []
ZINTER 2 z z WITHSCORES => ["a", "2", "b", "4", "c", "6"] || [["a", ,2], ["b", ,4], ["c", ,6]]
ZINTER 2 z z WEIGHTS 1 2 WITHSCORES => ["a", "3", "b", "6", "c", "9"] || [["a", ,3], ["b", ,6], ["c", ,9]]
ZUNIONSTORE d 2 z z2 WITHSCORES => -ERR syntax error
ZUNIONSTORE d 2 z z2 WEIGHTS 1 inf => :4
ZRANGE d 0 -1 WITHSCORES => ["a", "1", "b", "inf", "c", "inf", "d", "inf"] || [["a", ,1], ["b", ,+Inf], ["c", ,+Inf], ["d", ,+Inf]]
ZINTERSTORE d 2 nokey z => :0
EXISTS d => :0
ZINTERSTORE d 2 z z2 => :2
ZRANGE d 0 -1 WITHSCORES => ["b", "12", "c", "23"] || [["b", ,12], ["c", ,23]]
ZDIFFSTORE d 2 z z2 => :1
ZRANGE d 0 -1 WITHSCORES => ["a", "1"] || [["a", ,1]]
ZDIFFSTORE d 1 nokey => :0
EXISTS d => :0
ZINTERCARD 0 z => -ERR at least 1 input key is needed for 'zintercard' command
ZINTERCARD 2 z z2 LIMIT -1 => -ERR LIMIT can't be negative
ZINTERCARD 2 z z2 LIMIT x => -ERR LIMIT can't be negative
ZINTERCARD 2 z z2 LIMIT 1 => :1
ZINTERCARD 2 z z2 LIMIT 0 => :2
ZINTERCARD 2 z z2 LIMIT => -ERR syntax error
ZINTERCARD 2 z z2 => :2
ZINTERCARD 2 z z2 WITHSCORES => -ERR syntax error
ZINTERCARD 2 z z2 WEIGHTS 1 1 => -ERR syntax error
ZINTERCARD 1 str => -WRONGTYPE Operation against a key holding the wrong kind of value
ZINTERCARD x z => -ERR value is not an integer or out of range
ZINTERCARD 3 z z2 => -ERR syntax error
ZUNION 2 z z2 WEIGHTS 0 inf WITHSCORES => ["a", "0", "b", "inf", "c", "inf", "d", "inf"] || [["a", ,0], ["b", ,+Inf], ["c", ,+Inf], ["d", ,+Inf]]
ZADD inf1 inf a => :1
ZADD inf2 -inf a => :1
ZUNION 2 inf1 inf2 WITHSCORES => ["a", "0"] || [["a", ,0]]
ZUNION 2 inf1 inf2 WEIGHTS 0 1 WITHSCORES => ["a", "-inf"] || [["a", ,-Inf]]
ZUNION 2 inf1 inf2 AGGREGATE min WITHSCORES => ["a", "-inf"] || [["a", ,-Inf]]
ZUNION 2 inf1 inf1 WITHSCORES => ["a", "inf"] || [["a", ,+Inf]]
ZINTER 2 inf1 inf2 WITHSCORES => ["a", "0"] || [["a", ,0]]
ZINTER 2 inf1 inf2 WEIGHTS 0 0 WITHSCORES => ["a", "0"] || [["a", ,0]]
ZUNIONSTORE str 1 z => :3
TYPE str => "zset"
ZRANGE str 0 -1 WITHSCORES => ["a", "1", "b", "2", "c", "3"] || [["a", ,1], ["b", ,2], ["c", ,3]]
ZUNION 1 z WITHSCORES WITHSCORES => ["a", "1", "b", "2", "c", "3"] || [["a", ,1], ["b", ,2], ["c", ,3]]
ZUNIONSTORE z 2 z z2 => :4
ZRANGE z 0 -1 WITHSCORES => ["a", "1", "b", "12", "c", "23", "d", "30"] || [["a", ,1], ["b", ,12], ["c", ,23], ["d", ,30]]
ZINTERSTORE z2 2 z z2 AGGREGATE max => :3
ZRANGE z2 0 -1 WITHSCORES => ["b", "12", "c", "23", "d", "30"] || [["b", ,12], ["c", ,23], ["d", ,30]]
ZUNIONSTORE d 2 z => -ERR syntax error
ZUNIONSTORE d 0 z => -ERR at least 1 input key is needed for 'zunionstore' command
ZINTERSTORE d x z => -ERR value is not an integer or out of range
RPUSH list a => :1
ZUNION 2 z list => -WRONGTYPE Operation against a key holding the wrong kind of value
ZINTERCARD 1 list => -WRONGTYPE Operation against a key holding the wrong kind of value
`)
}

// TestZSetScanStoreAndRandom checks ZSCAN's argument handling on a small set, ZRANGESTORE, and ZRANDMEMBER's deterministic cases. Replies as Redis 7 gives them.
func TestZSetScanStoreAndRandom(t *testing.T) {
	zscriptTest(t, `
SET str x => "OK"
ZADD z 1 a 2 b 3 c 4 d => :4
ZSCAN nokey 0 badopt => ["0", []]
ZSCAN str 0 badopt => -WRONGTYPE Operation against a key holding the wrong kind of value
ZSCAN z x => -ERR invalid cursor
ZSCAN z 0 COUNT 0 => -ERR syntax error
ZSCAN z 0 COUNT x => -ERR value is not an integer or out of range
ZSCAN z 0 MATCH [ab] COUNT 1 => ["0", ["a", "1", "b", "2"]]
ZSCAN z 0 TYPE zset => -ERR syntax error
ZSCAN z 0 NOVALUES => -ERR syntax error
ZSCAN z -1 => ["0", ["a", "1", "b", "2", "c", "3", "d", "4"]]
ZSCAN z 18446744073709551616 => -ERR invalid cursor
ZSCAN z 0 COUNT => -ERR syntax error
ZSCAN z 0 MATCH => -ERR syntax error
ZSCAN z 0 MATCH * => ["0", ["a", "1", "b", "2", "c", "3", "d", "4"]]
ZRANGESTORE d z 0 1 => :2
ZRANGE d 0 -1 WITHSCORES => ["a", "1", "b", "2"] || [["a", ,1], ["b", ,2]]
ZRANGESTORE str z 1 0 => :0
EXISTS str => :0
SET str x => "OK"
ZRANGESTORE d str 0 1 => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANGESTORE d nokey 0 -1 => :0
EXISTS d => :0
ZRANGESTORE z z 1 2 REV => :2
ZRANGE z 0 -1 WITHSCORES => ["b", "2", "c", "3"] || [["b", ,2], ["c", ,3]]
ZRANGESTORE d z - + BYLEX LIMIT 1 1 => :1
ZRANGE d 0 -1 => ["c"]
ZRANGESTORE d z 0 -1 BYSCORE => :0
ZRANGESTORE d z (1 5 BYSCORE LIMIT 0 1 => :1
ZRANGE d 0 -1 WITHSCORES => ["b", "2"] || [["b", ,2]]
ZRANGESTORE d z 0 -1 LIMIT 0 1 => -ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX
ZRANGESTORE d z 0 -1 WITHSCORES => -ERR syntax error
ZADD big 1 m1 2 m2 => :2
ZRANDMEMBER z 0 => []
ZRANDMEMBER z x => -ERR value is not an integer or out of range
ZRANDMEMBER z 1 foo => -ERR syntax error
ZRANDMEMBER z 1 WITHSCORES x => -ERR syntax error
ZRANDMEMBER z -9223372036854775808 => -ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807
ZRANDMEMBER z -9223372036854775807 WITHSCORES => -ERR value is out of range
ZRANDMEMBER z -4611686018427387904 WITHSCORES => -ERR value is out of range
ZRANDMEMBER z 4611686018427387904 WITHSCORES => -ERR value is out of range
ZRANDMEMBER str => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANDMEMBER str 1 => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANDMEMBER nokey => nil
ZRANDMEMBER nokey 1 => []
ZRANDMEMBER nokey -1 => []
ZRANDMEMBER nokey 0 => []
ZRANDMEMBER str 0 => -WRONGTYPE Operation against a key holding the wrong kind of value
ZRANDMEMBER z 10 WITHSCORES => ["c", "3", "b", "2"] || [["c", ,3], ["b", ,2]]
ZRANDMEMBER z 2 => ["c", "b"]
ZADD one 5 only => :1
ZRANDMEMBER one => "only"
ZRANDMEMBER one -3 WITHSCORES => ["only", "5", "only", "5", "only", "5"] || [["only", ,5], ["only", ,5], ["only", ,5]]
ZRANDMEMBER one 3 WITHSCORES => ["only", "5"] || [["only", ,5]]
ZRANDMEMBER one 1 WITHSCORES => ["only", "5"] || [["only", ,5]]
ZRANDMEMBER one -2 => ["only", "only"]
`)
}

// TestZSetSetOperationsOnPlainSets checks that plain sets are inputs whose
// members all score 1, as in Redis.
func TestZSetSetOperationsOnPlainSets(t *testing.T) {
	zscriptTest(t, `
ZADD z2 12 b 23 c 30 d => :3
SADD s b c x => :3
ZUNION 2 z2 s WITHSCORES => ["x", "1", "b", "13", "c", "24", "d", "30"] || [["x", ,1], ["b", ,13], ["c", ,24], ["d", ,30]]
ZINTER 2 z2 s WEIGHTS 1 5 WITHSCORES => ["b", "17", "c", "28"] || [["b", ,17], ["c", ,28]]
ZDIFF 2 s z2 => ["x"]
ZINTERCARD 2 s z2 => :2
ZUNIONSTORE d 1 s => :3
ZRANGE d 0 -1 WITHSCORES => ["b", "1", "c", "1", "x", "1"] || [["b", ,1], ["c", ,1], ["x", ,1]]
`)
}

// TestZSetReplyTypes checks the exact bytes of the replies whose type
// differs between the protocols or between commands: null bulk or null
// array, RESP3 doubles, and ZSCAN's scores, which stay bulk strings. Each
// case runs on a fresh server after ZADD z 1.5 a 3 b and its setup.
func TestZSetReplyTypes(t *testing.T) {
	type cmd = []string
	for _, tc := range []struct {
		setup        []cmd
		args         cmd
		resp2, resp3 string
	}{
		{nil, cmd{"ZSCORE", "z", "a"}, "$3\r\n1.5\r\n", ",1.5\r\n"},
		{nil, cmd{"ZSCORE", "z", "nothere"}, "$-1\r\n", "_\r\n"},
		{nil, cmd{"ZMSCORE", "z", "nothere", "a"}, "*2\r\n$-1\r\n$3\r\n1.5\r\n", "*2\r\n_\r\n,1.5\r\n"},
		{nil, cmd{"ZADD", "z", "XX", "INCR", "1", "nothere"}, "$-1\r\n", "_\r\n"},
		{nil, cmd{"ZINCRBY", "z", "1", "b"}, "$1\r\n4\r\n", ",4\r\n"},
		{nil, cmd{"ZRANK", "z", "nothere"}, "$-1\r\n", "_\r\n"},
		{nil, cmd{"ZRANK", "z", "nothere", "WITHSCORE"}, "*-1\r\n", "_\r\n"},
		{nil, cmd{"ZRANK", "nokey", "a", "WITHSCORE"}, "*-1\r\n", "_\r\n"},
		{nil, cmd{"ZRANK", "z", "b", "WITHSCORE"}, "*2\r\n:1\r\n$1\r\n3\r\n", "*2\r\n:1\r\n,3\r\n"},
		{nil, cmd{"ZMPOP", "1", "nokey", "MIN"}, "*-1\r\n", "_\r\n"},
		{nil, cmd{"ZMPOP", "1", "z", "MAX"}, "*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nb\r\n$1\r\n3\r\n", "*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nb\r\n,3\r\n"},
		{nil, cmd{"ZRANDMEMBER", "nokey"}, "$-1\r\n", "_\r\n"},
		{nil, cmd{"ZRANDMEMBER", "nokey", "-5", "WITHSCORES"}, "*0\r\n", "*0\r\n"},
		{nil, cmd{"ZSCAN", "z", "0"}, "*2\r\n$1\r\n0\r\n*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n3\r\n", "*2\r\n$1\r\n0\r\n*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n3\r\n"},
		{nil, cmd{"ZRANGE", "z", "0", "0", "WITHSCORES"}, "*2\r\n$1\r\na\r\n$3\r\n1.5\r\n", "*1\r\n*2\r\n$1\r\na\r\n,1.5\r\n"},
		{nil, cmd{"ZPOPMIN", "z"}, "*2\r\n$1\r\na\r\n$3\r\n1.5\r\n", "*2\r\n$1\r\na\r\n,1.5\r\n"},
		{nil, cmd{"ZPOPMAX", "z", "1"}, "*2\r\n$1\r\nb\r\n$1\r\n3\r\n", "*1\r\n*2\r\n$1\r\nb\r\n,3\r\n"},
		{[]cmd{{"DEL", "z"}}, cmd{"ZPOPMIN", "z"}, "*0\r\n", "*0\r\n"},
		{[]cmd{{"ZADD", "z", "inf", "i", "-inf", "j"}}, cmd{"ZRANGE", "z", "0", "-1", "WITHSCORES"}, "*8\r\n$1\r\nj\r\n$4\r\n-inf\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n3\r\n$1\r\ni\r\n$3\r\ninf\r\n", "*4\r\n*2\r\n$1\r\nj\r\n,-inf\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n,3\r\n*2\r\n$1\r\ni\r\n,inf\r\n"},
	} {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("RESP%d/%s", proto, strings.Join(tc.args, " ")), func(t *testing.T) {
				ts := startServer(t)
				rc := ts.wireProto(t, proto)
				if got := rc.do("ZADD", "z", "1.5", "a", "3", "b"); got != ":2\r\n" {
					t.Fatalf("ZADD = %q", got)
				}
				for _, c := range tc.setup {
					rc.do(c...)
				}
				want := tc.resp2
				if proto == 3 {
					want = tc.resp3
				}
				if got := rc.do(tc.args...); got != want {
					t.Fatalf("%q = %q, want %q", tc.args, got, want)
				}
			})
		}
	}
}

// TestZSetGoRedisAPI drives the sorted set commands through go-redis's
// typed API, which parses RESP2's flat and RESP3's nested replies itself:
// what a Go application sees.
func TestZSetGoRedisAPI(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ctx := context.Background()
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		n, err := c.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "a"}, redis.Z{Score: 2.5, Member: "b"}, redis.Z{Score: 2.5, Member: "c"}, redis.Z{Score: 10, Member: "d"}).Result()
		must(err)
		if n != 4 {
			t.Fatalf("ZADD = %d", n)
		}
		zs, err := c.ZRangeWithScores(ctx, "z", 0, -1).Result()
		must(err)
		if fmt.Sprint(zs) != "[{1 a} {2.5 b} {2.5 c} {10 d}]" {
			t.Fatalf("ZRANGE WITHSCORES = %v", zs)
		}
		zs, err = c.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: "z", Start: "+inf", Stop: "(1", ByScore: true, Rev: true, Offset: 1, Count: 2}).Result()
		must(err)
		if fmt.Sprint(zs) != "[{2.5 c} {2.5 b}]" {
			t.Fatalf("ZRANGE BYSCORE REV LIMIT = %v", zs)
		}
		ms, err := c.ZRangeByLex(ctx, "z", &redis.ZRangeBy{Min: "[b", Max: "+"}).Result()
		must(err)
		if fmt.Sprint(ms) != "[b c d]" {
			t.Fatalf("ZRANGEBYLEX = %v", ms)
		}
		f, err := c.ZIncrBy(ctx, "z", 0.5, "a").Result()
		must(err)
		if f != 1.5 {
			t.Fatalf("ZINCRBY = %v", f)
		}
		scores, err := c.ZMScore(ctx, "z", "a", "nothere", "d").Result()
		must(err)
		if fmt.Sprint(scores) != "[1.5 0 10]" {
			t.Fatalf("ZMSCORE = %v", scores)
		}
		rs, err := c.ZRankWithScore(ctx, "z", "c").Result()
		must(err)
		if rs.Rank != 2 || rs.Score != 2.5 {
			t.Fatalf("ZRANK WITHSCORE = %+v", rs)
		}
		if _, err := c.ZRankWithScore(ctx, "z", "nothere").Result(); !errors.Is(err, redis.Nil) {
			t.Fatalf("ZRANK WITHSCORE of no member: %v", err)
		}
		cnt, err := c.ZCount(ctx, "z", "(1.5", "+inf").Result()
		must(err)
		if cnt != 3 {
			t.Fatalf("ZCOUNT = %d", cnt)
		}
		must(c.ZAdd(ctx, "y", redis.Z{Score: 100, Member: "b"}, redis.Z{Score: 1, Member: "x"}).Err())
		zs, err = c.ZUnionWithScores(ctx, redis.ZStore{Keys: []string{"z", "y"}, Weights: []float64{2, 1}, Aggregate: "MAX"}).Result()
		must(err)
		if fmt.Sprint(zs) != "[{1 x} {3 a} {5 c} {20 d} {100 b}]" {
			t.Fatalf("ZUNION WEIGHTS AGGREGATE MAX = %v", zs)
		}
		ic, err := c.ZInterCard(ctx, 0, "z", "y").Result()
		must(err)
		if ic != 1 {
			t.Fatalf("ZINTERCARD = %d", ic)
		}
		stored, err := c.ZInterStore(ctx, "dst", &redis.ZStore{Keys: []string{"z", "y"}}).Result()
		must(err)
		if stored != 1 {
			t.Fatalf("ZINTERSTORE = %d", stored)
		}
		key, popped, err := c.ZMPop(ctx, "max", 2, "nokey", "z").Result()
		must(err)
		if key != "z" || fmt.Sprint(popped) != "[{10 d} {2.5 c}]" {
			t.Fatalf("ZMPOP = %s %v", key, popped)
		}
		popped, err = c.ZPopMin(ctx, "z", 5).Result()
		must(err)
		if fmt.Sprint(popped) != "[{1.5 a} {2.5 b}]" {
			t.Fatalf("ZPOPMIN 5 = %v", popped)
		}
		if n, err := c.Exists(ctx, "z").Result(); err != nil || n != 0 {
			t.Fatalf("EXISTS after popping everything = %d, %v", n, err)
		}
		rm, err := c.ZRandMemberWithScores(ctx, "y", -5).Result()
		must(err)
		if len(rm) != 5 {
			t.Fatalf("ZRANDMEMBER -5 WITHSCORES = %v", rm)
		}
		for _, z := range rm {
			if (z.Member != "b" || z.Score != 100) && (z.Member != "x" || z.Score != 1) {
				t.Fatalf("ZRANDMEMBER gave %v", z)
			}
		}
	})
}

// TestZSetScanBigSet scans a sorted set too big to come back in one call,
// through go-redis's iterator, and gets every member with its score.
func TestZSetScanBigSet(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ctx := context.Background()
		want := map[string]float64{}
		var zs []redis.Z
		for i := range 2000 {
			m := fmt.Sprintf("member:%06d", i*7919%1000003)
			want[m] = float64(i) / 4
			zs = append(zs, redis.Z{Member: m, Score: float64(i) / 4})
		}
		if err := c.ZAdd(ctx, "z", zs...).Err(); err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		calls := 0
		var cursor uint64
		for {
			keys, next, err := c.ZScan(ctx, "z", cursor, "", 100).Result()
			if err != nil {
				t.Fatal(err)
			}
			calls++
			for i := 0; i+1 < len(keys); i += 2 {
				f, err := strconv.ParseFloat(keys[i+1], 64)
				if err != nil {
					t.Fatalf("score %q: %v", keys[i+1], err)
				}
				got[keys[i]] = f
			}
			if next == 0 {
				break
			}
			cursor = next
		}
		if len(got) != len(want) || calls < 10 {
			t.Fatalf("ZSCAN: %d of %d members in %d calls", len(got), len(want), calls)
		}
		for m, s := range want {
			if got[m] != s {
				t.Fatalf("ZSCAN: %s scored %v, want %v", m, got[m], s)
			}
		}
		matching := 0
		for m := range want {
			if strings.HasPrefix(m, "member:00000") {
				matching++
			}
		}
		keys, _, err := c.ZScan(ctx, "z", 0, "member:00000*", 100000).Result()
		if err != nil || len(keys) != 2*matching {
			t.Fatalf("ZSCAN MATCH = %v, %v; want %d members", keys, err, matching)
		}
	})
}

// TestZSetKeyspace checks a sorted set among the keyspace commands: TYPE,
// deadlines, RENAME, COPY, and disappearing once emptied by any command
// that removes members.
func TestZSetKeyspace(t *testing.T) {
	zscriptTest(t, `
ZADD z 1 a 2 b 3 c => :3
TYPE z => "zset"
EXPIRE z 100 => :1
ZADD z 4 d => :1
TTL z => :100
ZINCRBY z 1 d => "5" || ,5
TTL z => :100
RENAME z z2 => "OK"
ZRANGE z2 0 -1 WITHSCORES => ["a", "1", "b", "2", "c", "3", "d", "5"] || [["a", ,1], ["b", ,2], ["c", ,3], ["d", ,5]]
TTL z2 => :100
COPY z2 z3 => :1
ZREM z2 a => :1
ZCARD z3 => :4
ZRANGE z3 0 0 => ["a"]
ZREM z2 b c d => :3
EXISTS z2 => :0
ZREMRANGEBYRANK z3 0 -1 => :4
EXISTS z3 => :0
ZADD z 1 a => :1
ZREMRANGEBYSCORE z -inf +inf => :1
EXISTS z => :0
ZADD z 0 a => :1
ZREMRANGEBYLEX z - + => :1
EXISTS z => :0
ZADD z 0 a => :1
ZPOPMAX z => ["a", "0"] || ["a", ,0]
EXISTS z => :0
ZADD z 0 a 1 b => :2
ZMPOP 1 z MIN COUNT 5 => ["z", [["a", "0"], ["b", "1"]]] || ["z", [["a", ,0], ["b", ,1]]]
EXISTS z => :0
ZADD z 0 a => :1
ZRANGESTORE z z 5 10 => :0
EXISTS z => :0
DBSIZE => :0
`)
}

// TestZSetRandMemberDistinct checks ZRANDMEMBER's counts on a set big
// enough to be a skiplist in Redis: distinct members for a positive count,
// repeats allowed for a negative one, the whole set highest first when the
// count covers it.
func TestZSetRandMemberDistinct(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ctx := context.Background()
		var zs []redis.Z
		for i := range 300 {
			zs = append(zs, redis.Z{Member: fmt.Sprintf("m%03d", i), Score: float64(i)})
		}
		if err := c.ZAdd(ctx, "z", zs...).Err(); err != nil {
			t.Fatal(err)
		}
		for _, count := range []int{1, 7, 150, 299} {
			got, err := c.ZRandMemberWithScores(ctx, "z", count).Result()
			if err != nil || len(got) != count {
				t.Fatalf("ZRANDMEMBER %d = %d members, %v", count, len(got), err)
			}
			seen := map[string]bool{}
			for _, z := range got {
				m := z.Member.(string)
				if seen[m] || m != fmt.Sprintf("m%03d", int(z.Score)) {
					t.Fatalf("ZRANDMEMBER %d: %v repeated or with a wrong score", count, z)
				}
				seen[m] = true
			}
		}
		all, err := c.ZRandMember(ctx, "z", 1000).Result()
		if err != nil || len(all) != 300 || all[0] != "m299" || all[299] != "m000" {
			t.Fatalf("ZRANDMEMBER 1000 = %d members from %q, %v", len(all), all[:1], err)
		}
		many, err := c.ZRandMember(ctx, "z", -100000).Result()
		if err != nil || len(many) != 100000 {
			t.Fatalf("ZRANDMEMBER -100000 = %d members, %v", len(many), err)
		}
		hits := map[string]int{}
		for _, m := range many {
			hits[m]++
		}
		if len(hits) != 300 {
			t.Fatalf("100000 draws hit %d of 300 members", len(hits))
		}
	})
}

// TestZSetParseScoreBound checks range ends against what Redis 7 accepts
// (zslParseRange reads them with strtod, unlike ZADD's scores).
func TestZSetParseScoreBound(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		in   string
		want float64
		excl bool
		ok   bool
	}{
		{"1.5", 1.5, false, true},
		{"(1.5", 1.5, true, true},
		{"", 0, false, true},
		{"(", 0, true, true},
		{" 1", 1, false, true},
		{"\t\n(2", 0, false, false},
		{"( 2", 2, true, true},
		{"1 ", 0, false, false},
		{" ", 0, false, false},
		{"1e400", inf, false, true},
		{"-1e400", -inf, false, true},
		{"1e5000", inf, false, true},
		{"(-1e5000", -inf, true, true},
		{"1e-400", 0, false, true},
		{"0x2", 2, false, true},
		{"0x1p99999", inf, false, true},
		{"0x", 0, false, false},
		{"infinity", inf, false, true},
		{"-INF", -inf, false, true},
		{"+inf", inf, false, true},
		{"nan", 0, false, false},
		{"(-nan", 0, false, false},
		{"1\x00abc", 1, false, true},
		{"\x00", 0, false, true},
		{"((1", 0, false, false},
		{"abc", 0, false, false},
		{"+", 0, false, false},
		{".", 0, false, false},
		{"1.", 1, false, true},
		{".5", 0.5, false, true},
		{"1e", 0, false, false},
		{"1e+", 0, false, false},
		{"--1", 0, false, false},
		{"1_0", 0, false, false},
	} {
		got, ok := parseScoreBound([]byte(tc.in))
		if ok != tc.ok || (ok && (got.Score != tc.want || got.Exclusive != tc.excl)) {
			t.Errorf("parseScoreBound(%q) = %+v, %v; want %v excl=%v, %v", tc.in, got, ok, tc.want, tc.excl, tc.ok)
		}
	}
}

func TestZSetParseLexBound(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"[a", "value a", true},
		{"(a", "value a excl", true},
		{"[", "value  ", true},
		{"-", "min", true},
		{"+", "max", true},
		{"+\x00junk", "max", true},
		{"-a", "", false},
		{"++", "", false},
		{"a", "", false},
		{"", "", false},
	} {
		got, ok := parseLexBound([]byte(tc.in))
		var s string
		switch {
		case !ok:
		case got.Kind == store.LexMinInf:
			s = "min"
		case got.Kind == store.LexMaxInf:
			s = "max"
		case got.Exclusive:
			s = "value " + string(got.Value) + " excl"
		default:
			s = "value " + string(got.Value) + " "
		}
		if ok != tc.ok || strings.TrimSpace(s) != strings.TrimSpace(tc.want) {
			t.Errorf("parseLexBound(%q) = %q, %v; want %q, %v", tc.in, s, ok, tc.want, tc.ok)
		}
	}
}

// FuzzZSetRangeBounds checks the range-end parsers on any input: no
// panic, never NaN, the strict score syntax (rconv.ParseFloat) a subset
// giving the same values, and lex ends accepted exactly by their first
// byte.
func FuzzZSetRangeBounds(f *testing.F) {
	for _, s := range []string{"1.5", "(1.5", "", "(", " 1", "1e400", "1e-400", "0x1p-2", "inf", "-infinity", "nan", "[a", "(a", "-", "+", "+\x00", "0x.8", "1e99999999999999999999"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sb, ok := parseScoreBound(b)
		if ok && math.IsNaN(sb.Score) {
			t.Fatalf("parseScoreBound(%q) = NaN", b)
		}
		if strict, sok := rconv.ParseFloat(b); sok {
			if !ok || sb.Exclusive || sb.Score != strict {
				t.Fatalf("parseScoreBound(%q) = %+v, %v; ParseFloat gives %v", b, sb, ok, strict)
			}
		}
		lb, ok := parseLexBound(b)
		wantOK := len(b) > 0 && (b[0] == '[' || b[0] == '(' || ((b[0] == '+' || b[0] == '-') && (len(b) == 1 || b[1] == 0)))
		if ok != wantOK {
			t.Fatalf("parseLexBound(%q) ok = %v, want %v", b, ok, wantOK)
		}
		if ok && lb.Kind == store.LexValue && !bytes.Equal(lb.Value, b[1:]) {
			t.Fatalf("parseLexBound(%q) value %q", b, lb.Value)
		}
	})
}

// --- Blocking pops ------------------------------------------------------------------
//
// The blocking tests use the list tests' helpers for blocked clients
// (listGo, listWaitBlocked, listBlockingBoth).

// TestZSetBlockingPopsServeAtOnce: with a member to pop, BZPOPMIN,
// BZPOPMAX and BZMPOP reply at once as Redis 7.0 does; a short timeout on
// absent keys is a null array; arguments are checked in Redis's order
// (BZMPOP: numkeys, MIN|MAX, COUNT, then the timeout).
func TestZSetBlockingPopsServeAtOnce(t *testing.T) {
	zscriptTest(t, `
SET str x => "OK"
ZADD z 1 a 2 b 3 c => :3
BZPOPMIN z 0 => ["z", "a", "1"] || ["z", "a", ,1]
BZPOPMAX nokey z 0 => ["z", "c", "3"] || ["z", "c", ,3]
BZPOPMIN nokey 0.01 => nil
BZPOPMAX nokey other 0.01 => nil
BZMPOP 0.01 2 nokey z MIN COUNT 5 => ["z", [["b", "2"]]] || ["z", [["b", ,2]]]
EXISTS z => :0
BZMPOP 0.01 1 z MIN => nil
ZADD z 1.5 a 2 b inf c => :3
BZMPOP 0 1 z MAX COUNT 2 => ["z", [["c", "inf"], ["b", "2"]]] || ["z", [["c", ,+Inf], ["b", ,2]]]
BZMPOP 0 1 z min => ["z", [["a", "1.5"]]] || ["z", [["a", ,1.5]]]
EXISTS z => :0
# A wrong type before the first sorted set fails; after it, it is not looked at.
BZPOPMIN str 0 => -WRONGTYPE Operation against a key holding the wrong kind of value
BZPOPMAX nokey str 0 => -WRONGTYPE Operation against a key holding the wrong kind of value
BZMPOP 0 2 nokey str MIN => -WRONGTYPE Operation against a key holding the wrong kind of value
ZADD z -1 a => :1
BZPOPMIN z str 0 => ["z", "a", "-1"] || ["z", "a", ,-1]
# Timeouts.
BZPOPMIN z -1 => -ERR timeout is negative
BZPOPMIN z -0.001 => -ERR timeout is negative
BZPOPMIN z inf => -ERR timeout is negative
BZPOPMIN z x => -ERR timeout is not a float or out of range
BZPOPMIN z " 1" => -ERR timeout is not a float or out of range
BZPOPMAX z nan => -ERR timeout is not a float or out of range
BZPOPMIN z 1e-3 => nil
BZPOPMIN z 0x0.1p-6 => nil
BZMPOP x 1 z MIN => -ERR timeout is not a float or out of range
BZMPOP -1 1 z MAX => -ERR timeout is negative
# BZMPOP's other arguments come first.
BZMPOP x 0 z MIN => -ERR numkeys should be greater than 0
BZMPOP x -1 z MIN => -ERR numkeys should be greater than 0
BZMPOP x 1 z FOO => -ERR syntax error
BZMPOP x 1 z MIN COUNT 0 => -ERR count should be greater than 0
BZMPOP x 1 z MIN COUNT x => -ERR count should be greater than 0
BZMPOP 0 1 z MIN COUNT 1 COUNT 2 => -ERR syntax error
BZMPOP 0 1 z MIN COUNT => -ERR syntax error
BZMPOP 0 2 z MIN => -ERR syntax error
BZMPOP 0 9223372036854775807 z MIN => -ERR syntax error
BZMPOP 9223372036854775807 1 z MIN => -ERR timeout is negative
# Arity.
BZPOPMIN z => -ERR wrong number of arguments for 'bzpopmin' command
BZPOPMAX z => -ERR wrong number of arguments for 'bzpopmax' command
BZMPOP 0 1 z => -ERR wrong number of arguments for 'bzmpop' command
`)
}

// zexpect waits for a blocked command's reply and checks it as zscript
// does ("RESP2 reply || RESP3 reply").
func zexpect(t *testing.T, a *listAsync, proto int, want string) {
	t.Helper()
	if w2, w3, two := strings.Cut(want, " || "); two {
		want = w2
		if proto == 3 {
			want = w3
		}
	}
	if got := zrender(a.wait(t, 5*time.Second)); got != want {
		t.Fatalf("RESP%d reply\n got: %s\nwant: %s", proto, got, want)
	}
}

func TestZSetBlockingPopIsWokenByAWrite(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		for _, v := range []struct {
			cmd    string
			writes []string
			want   string
			after  string // a zscript run afterwards
		}{
			{"BZPOPMIN k 0", []string{"ZADD k 2 y 1 x"}, `["k", "x", "1"] || ["k", "x", ,1]`,
				`ZRANGE k 0 -1 WITHSCORES => ["y", "2"] || [["y", ,2]]`},
			{"BZPOPMAX k 0", []string{"ZADD k 2 y 1 x"}, `["k", "y", "2"] || ["k", "y", ,2]`,
				`ZRANGE k 0 -1 => ["x"]`},
			{"BZPOPMAX k1 k2 k3 0", []string{"ZADD k2 1 a 2 b"}, `["k2", "b", "2"] || ["k2", "b", ,2]`,
				`ZRANGE k2 0 -1 => ["a"]`},
			{"BZMPOP 0 2 k0 k MAX COUNT 2", []string{"ZADD k 1 a 2 b 3 c"}, `["k", [["c", "3"], ["b", "2"]]] || ["k", [["c", ,3], ["b", ,2]]]`,
				`ZRANGE k 0 -1 => ["a"]`},
			{"BZMPOP 0 1 k MIN COUNT 10", []string{"ZADD k 1 a 2 b"}, `["k", [["a", "1"], ["b", "2"]]] || ["k", [["a", ,1], ["b", ,2]]]`,
				`EXISTS k => :0`},
			{"BZMPOP 0.9 1 k MIN", []string{"ZADD k 7 a"}, `["k", [["a", "7"]]] || ["k", [["a", ,7]]]`,
				`EXISTS k => :0`},
			{"BZPOPMIN k 0", []string{"ZINCRBY k 5 m"}, `["k", "m", "5"] || ["k", "m", ,5]`, ``},
			{"BZPOPMIN k 0", []string{"ZADD src 1 a 2 b", "ZUNIONSTORE k 1 src"}, `["k", "a", "1"] || ["k", "a", ,1]`,
				`ZRANGE k 0 -1 => ["b"]`},
			{"BZPOPMIN k 0", []string{"ZADD src 1 a", "RENAME src k"}, `["k", "a", "1"] || ["k", "a", ,1]`,
				`EXISTS src k => :0`},
		} {
			a := listGo(t, ts, proto, zsplit(t, v.cmd)...)
			listWaitBlocked(t, c, 1)
			a.pending(t)
			for _, w := range v.writes {
				ksDo(t, c, zsplit(t, w)...)
			}
			zexpect(t, a, proto, v.want)
			zscript(t, c, proto, v.after)
			listWaitBlocked(t, c, 0)
			ksDo(t, c, "FLUSHALL")
		}
	})
}

func TestZSetBlockedClientsAreServedInOrder(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		// One ZADD of several members serves each blocked client in
		// turn, lowest first.
		var as []*listAsync
		for i := range 3 {
			as = append(as, listGo(t, ts, proto, "BZPOPMIN", "q", "0"))
			listWaitBlocked(t, c, i+1)
		}
		ksDo(t, c, "ZADD", "q", "4", "d", "3", "c", "2", "b", "1", "a")
		for i, a := range as {
			m := string(rune('a' + i))
			zexpect(t, a, proto, fmt.Sprintf(`["q", "%s", "%d"] || ["q", "%s", ,%d]`, m, i+1, m, i+1))
		}
		listWaitBlocked(t, c, 0)
		zscript(t, c, proto, `ZRANGE q 0 -1 => ["d"]
DEL q => :1`)

		// Added one at a time, members go to the clients in the order
		// they blocked, whatever each one pops.
		as = as[:0]
		for i, cmd := range []string{"BZPOPMAX q 0", "BZMPOP 0 1 q MIN", "BZPOPMIN q 0"} {
			as = append(as, listGo(t, ts, proto, zsplit(t, cmd)...))
			listWaitBlocked(t, c, i+1)
		}
		ksDo(t, c, "ZADD", "q", "1", "m0")
		zexpect(t, as[0], proto, `["q", "m0", "1"] || ["q", "m0", ,1]`)
		ksDo(t, c, "ZADD", "q", "2", "m1")
		zexpect(t, as[1], proto, `["q", [["m1", "2"]]] || ["q", [["m1", ,2]]]`)
		ksDo(t, c, "ZADD", "q", "3", "m2")
		zexpect(t, as[2], proto, `["q", "m2", "3"] || ["q", "m2", ,3]`)
		listWaitBlocked(t, c, 0)

		// A BZMPOP with a COUNT takes what it can; the next in line gets
		// the rest.
		as = as[:0]
		for i, cmd := range []string{"BZMPOP 0 1 q MAX COUNT 2", "BZPOPMAX q 0"} {
			as = append(as, listGo(t, ts, proto, zsplit(t, cmd)...))
			listWaitBlocked(t, c, i+1)
		}
		ksDo(t, c, "ZADD", "q", "1", "a", "2", "b", "3", "c")
		zexpect(t, as[0], proto, `["q", [["c", "3"], ["b", "2"]]] || ["q", [["c", ,3], ["b", ,2]]]`)
		zexpect(t, as[1], proto, `["q", "a", "1"] || ["q", "a", ,1]`)
		listWaitBlocked(t, c, 0)
		zscript(t, c, proto, `EXISTS q => :0`)
	})
}

func TestZSetBlockingTimeouts(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		for _, cmd := range []string{"BZPOPMIN k 0.15", "BZPOPMAX k k2 0.15", "BZMPOP 0.15 2 k k2 MAX COUNT 3"} {
			start := time.Now()
			a := listGo(t, ts, proto, zsplit(t, cmd)...)
			listWaitBlocked(t, c, 1)
			a.expect(t, ksNil{})
			if d := time.Since(start); d < 150*time.Millisecond || d > 2*time.Second {
				t.Fatalf("%s timed out after %v", cmd, d)
			}
			listWaitBlocked(t, c, 0)
		}
		// Writes to the key that leave nothing to pop wake the client,
		// which goes back to waiting until its deadline.
		start := time.Now()
		b := listGo(t, ts, proto, "BZPOPMIN", "k", "0.3")
		listWaitBlocked(t, c, 1)
		zscript(t, c, proto, `ZADD k XX 1 a => :0
SET k v => "OK"
ZADD k 1 a => -WRONGTYPE Operation against a key holding the wrong kind of value
DEL k => :1`)
		b.pending(t)
		b.expect(t, ksNil{})
		if d := time.Since(start); d < 300*time.Millisecond || d > 2*time.Second {
			t.Fatalf("BZPOPMIN 0.3 returned after %v", d)
		}
		// Blocking is per database: an add in another one does not serve.
		b = listGo(t, ts, proto, "BZPOPMIN", "k", "0.2")
		listWaitBlocked(t, c, 1)
		zscript(t, c, proto, `SELECT 1 => "OK"
ZADD k 1 a => :1`)
		b.expect(t, ksNil{})
		zscript(t, c, proto, `ZCARD k => :1
SELECT 0 => "OK"`)
	})
}

func TestZSetBlockedClientThatDisconnectsIsCleanedUp(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		for _, cmd := range [][]string{{"BZPOPMIN", "k", "0"}, {"BZMPOP", "0", "1", "k", "MAX", "COUNT", "2"}} {
			rc := ts.wireProto(t, proto)
			rc.write(wireCmd(cmd...))
			listWaitBlocked(t, c, 1)
			_ = rc.nc.Close()
			listWaitBlocked(t, c, 0)
			// Nobody is left to take the member.
			zscript(t, c, proto, `ZADD k 1 a => :1
ZCARD k => :1
DEL k => :1`)
		}
	})
}

// TestZSetBlockedClientIgnoresKeysOfOtherTypes: once blocked, a client
// waits for a sorted set; a key that becomes another type neither ends the
// wait nor fails it, as in Redis 7.0.
func TestZSetBlockedClientIgnoresKeysOfOtherTypes(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		a := listGo(t, ts, proto, "BZPOPMIN", "k", "0")
		listWaitBlocked(t, c, 1)
		ksDo(t, c, "SET", "k", "str")
		a.pending(t)
		ksDo(t, c, "DEL", "k")
		ksDo(t, c, "RPUSH", "k", "item")
		a.pending(t)
		ksDo(t, c, "DEL", "k")
		ksDo(t, c, "ZADD", "k", "1", "x")
		zexpect(t, a, proto, `["k", "x", "1"] || ["k", "x", ,1]`)

		// Another key that gets a member serves it, past the one of
		// another type.
		for _, cmd := range []string{"BZPOPMAX s1 s2 0", "BZMPOP 0 2 s1 s2 MAX"} {
			a = listGo(t, ts, proto, zsplit(t, cmd)...)
			listWaitBlocked(t, c, 1)
			ksDo(t, c, "SET", "s1", "str")
			ksDo(t, c, "ZADD", "s2", "5", "m")
			want := `["s2", "m", "5"] || ["s2", "m", ,5]`
			if strings.HasPrefix(cmd, "BZMPOP") {
				want = `["s2", [["m", "5"]]] || ["s2", [["m", ,5]]]`
			}
			zexpect(t, a, proto, want)
			listWaitBlocked(t, c, 0)
			ksDo(t, c, "DEL", "s1")
		}
	})
}

// TestZSetBlockingConsumersDrainAQueue runs producers and blocked
// consumers concurrently: every member added must be popped exactly once
// and no consumer may stay blocked while members wait.
func TestZSetBlockingConsumersDrainAQueue(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	const consumers, producers, perProducer = 6, 3, 150
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	errs := make(chan error, consumers+producers)
	for i := range consumers {
		cc := ts.client(t, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := [][]any{
				{"BZPOPMIN", "q1", "q2", "0.5"},
				{"BZPOPMAX", "q2", "q1", "0.5"},
				{"BZMPOP", "0.5", "2", "q1", "q2", "MIN", "COUNT", "3"},
			}[i%3]
			for {
				v, err := cc.Do(context.Background(), cmd...).Result()
				if errors.Is(err, redis.Nil) {
					return // nothing came for 0.5 s: done
				}
				if err != nil {
					errs <- err
					return
				}
				var got []string
				switch r := v.([]any); len(r) {
				case 3:
					got = append(got, r[1].(string))
				case 2:
					for _, p := range r[1].([]any) {
						got = append(got, p.([]any)[0].(string))
					}
				}
				mu.Lock()
				for _, m := range got {
					seen[m]++
				}
				mu.Unlock()
			}
		}()
	}
	for p := range producers {
		pc := ts.client(t, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perProducer {
				key := []string{"q1", "q2"}[i%2]
				if err := pc.ZAdd(context.Background(), key, redis.Z{Score: float64(i), Member: fmt.Sprintf("%d-%d", p, i)}).Err(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := ksInt(t, c, "EXISTS", "q1", "q2"); n != 0 {
		t.Fatalf("%d sets still hold members after every consumer timed out", n)
	}
	if len(seen) != producers*perProducer {
		t.Fatalf("%d distinct members popped, want %d", len(seen), producers*perProducer)
	}
	for m, n := range seen {
		if n != 1 {
			t.Fatalf("member %s popped %d times", m, n)
		}
	}
}

// TestZSetNegativeZero checks -0 scores against Redis 7.0: a sorted set
// small enough for a listpack stores -0 as 0 (its integer encoding), one
// held as a skiplist (over 128 members, or one longer than 64 bytes) keeps
// the sign, and replies show it ("-0", ,-0); either way -0 and 0 compare
// equal, so they tie and order by member. Computed scores (ZINCRBY, ZADD
// INCR, ZUNION) are replied as computed.
func TestZSetNegativeZero(t *testing.T) {
	var big, n127 []string
	for i := 1; i <= 200; i++ {
		big = append(big, strconv.Itoa(i+10), "m"+strconv.Itoa(i))
	}
	for i := 1; i <= 127; i++ {
		n127 = append(n127, strconv.Itoa(i), "n"+strconv.Itoa(i))
	}
	zscriptTest(t, strings.NewReplacer(
		"{BIG}", strings.Join(big, " "),
		"{N127}", strings.Join(n127, " "),
		"{L65}", strings.Repeat("x", 65),
	).Replace(`
# Small sets are listpacks in Redis: a -0 is stored as the integer 0.
ZADD s -0 a => :1
ZSCORE s a => "0" || ,0
ZADD s 0 b -0.0 c -0e5 aa => :3
ZRANGE s 0 -1 WITHSCORES => ["a", "0", "aa", "0", "b", "0", "c", "0"] || [["a", ,0], ["aa", ,0], ["b", ,0], ["c", ,0]]
ZRANGEBYSCORE s -0 0 WITHSCORES => ["a", "0", "aa", "0", "b", "0", "c", "0"] || [["a", ,0], ["aa", ,0], ["b", ,0], ["c", ,0]]
ZRANGEBYSCORE s (-0 +inf => []
ZRANGEBYSCORE s -inf (0 => []
ZCOUNT s -0 -0 => :4
ZINCRBY s -0 a => "0" || ,0
ZINCRBY new -0 x => "-0" || ,-0
ZSCORE new x => "0" || ,0
ZADD new INCR -0 y => "-0" || ,-0
ZSCORE new y => "0" || ,0
ZUNION 1 new WEIGHTS -1 WITHSCORES => ["x", "-0", "y", "-0"] || [["x", ,-0], ["y", ,-0]]
ZUNIONSTORE u 1 new WEIGHTS -1 => :2
ZSCORE u x => "0" || ,0
# Past 128 members Redis holds a skiplist, which keeps the sign.
ZADD z {BIG} => :200
ZADD z -0 a => :1
ZSCORE z a => "-0" || ,-0
ZADD z 0 b -0.0 c 0e0 d -0e5 aa => :4
ZRANGE z 0 5 WITHSCORES => ["a", "-0", "aa", "-0", "b", "0", "c", "-0", "d", "0", "m1", "11"] || [["a", ,-0], ["aa", ,-0], ["b", ,0], ["c", ,-0], ["d", ,0], ["m1", ,11]]
ZRANGEBYSCORE z -0 0 WITHSCORES => ["a", "-0", "aa", "-0", "b", "0", "c", "-0", "d", "0"] || [["a", ,-0], ["aa", ,-0], ["b", ,0], ["c", ,-0], ["d", ,0]]
ZREVRANGEBYSCORE z 0 -0 WITHSCORES LIMIT 1 3 => ["c", "-0", "b", "0", "aa", "-0"] || [["c", ,-0], ["b", ,0], ["aa", ,-0]]
ZRANGE z (-1 (1 BYSCORE REV WITHSCORES => []
ZRANGEBYSCORE z (-0 +inf LIMIT 0 1 WITHSCORES => ["m1", "11"] || [["m1", ,11]]
ZRANGEBYSCORE z -inf (0 => []
ZCOUNT z -0 -0 => :5
ZMSCORE z a b c zz => ["-0", "0", "-0", nil] || [,-0, ,0, ,-0, nil]
ZRANK z c => :3
ZREVRANK z a => :204
ZINCRBY z -0 a => "-0" || ,-0
ZINCRBY z -0 b => "0" || ,0
ZADD z INCR -0 c => "-0" || ,-0
ZADD z CH 0 a => :0
ZSCORE z a => "-0" || ,-0
ZADD z GT CH -0 b => :0
ZSCORE z b => "0" || ,0
ZSCAN z 0 COUNT 1000 MATCH c => ["0", ["c", "-0"]]
ZPOPMIN z => ["a", "-0"] || ["a", ,-0]
ZPOPMIN z 2 => ["aa", "-0", "b", "0"] || [["aa", ,-0], ["b", ,0]]
ZMPOP 1 z MIN COUNT 1 => ["z", [["c", "-0"]]] || ["z", [["c", ,-0]]]
BZPOPMIN z 1 => ["z", "d", "0"] || ["z", "d", ,0]
ZRANGE z 0 0 WITHSCORES => ["m1", "11"] || [["m1", ,11]]
# Set operations read the sign from their inputs, and a stored result keeps
# it only when it is big, as Redis converts a small result to a listpack.
ZADD z -0 p => :1
ZRANGESTORE d z 0 5 => :6
ZSCORE d p => "0" || ,0
ZRANGESTORE d z 0 150 => :151
ZSCORE d p => "-0" || ,-0
ZUNIONSTORE d 1 z => :201
ZSCORE d p => "-0" || ,-0
ZINTERSTORE d 2 z z AGGREGATE MAX => :201
ZSCORE d p => "-0" || ,-0
ZDIFFSTORE d 1 z => :201
ZSCORE d p => "-0" || ,-0
ZADD zero 0 p => :1
ZUNIONSTORE d 2 zero z AGGREGATE MIN => :201
ZSCORE d p => "0" || ,0
ZUNIONSTORE d 2 z zero AGGREGATE MIN => :201
ZSCORE d p => "0" || ,0
ZINTERSTORE d 2 z zero => :1
ZSCORE d p => "0" || ,0
COPY z z2 => :1
ZSCORE z2 p => "-0" || ,-0
RENAME z2 z3 => "OK"
ZSCORE z3 p => "-0" || ,-0
ZREMRANGEBYSCORE z3 -0 -0 => :1
ZSCORE z3 p => nil
# When a set turns into a skiplist: the 129th member is added to the
# skiplist; a member longer than 64 bytes converts the set first.
ZADD k {N127} 1 n128 => :128
ZADD k -0 first => :1
ZSCORE k first => "-0" || ,-0
ZADD k2 {N127} 1 n128 => :128
ZADD k2 -0 n5 => :0
ZSCORE k2 n5 => "0" || ,0
ZADD k3 -0 a {BIG} => :201
ZSCORE k3 a => "0" || ,0
ZADD k4 -0 a => :1
ZADD k4 -0 {L65} => :1
ZSCORE k4 {L65} => "-0" || ,-0
ZSCORE k4 a => "0" || ,0
ZADD k4 -0 b => :1
ZSCORE k4 b => "-0" || ,-0
# Within one ZADD, members go in one by one.
ZADD k5 -0 a 1 {L65} => :2
ZSCORE k5 a => "0" || ,0
ZADD k6 1 {L65} -0 a => :2
ZSCORE k6 a => "-0" || ,-0
# Ranks read from the far end of the index are replayed in reverse.
ZADD r {BIG} => :200
ZADD r -0 a 0 b -0 c => :3
ZREVRANGE r 200 202 WITHSCORES => ["c", "-0", "b", "0", "a", "-0"] || [["c", ,-0], ["b", ,0], ["a", ,-0]]
ZRANGE r 0 2 WITHSCORES => ["a", "-0", "b", "0", "c", "-0"] || [["a", ,-0], ["b", ,0], ["c", ,-0]]
`))
}
