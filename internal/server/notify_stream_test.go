package server

// The stream commands' keyspace events join TestNotifyMatchesRedis's
// cases: each compared with redis-server's, in order.
func init() {
	notifyCases = append(notifyCases,
		struct {
			name string
			cmds [][]string
		}{"streams", cmds(
			"XADD s 1-1 a 1", "XADD s 1-1 a 1", "XADD s NOMKSTREAM 2-1 b 2", "XADD nope NOMKSTREAM 1-1 a 1",
			"XADD s MAXLEN 1 3-1 c 3", "XADD s MAXLEN 5 4-1 d 4", "XTRIM s MAXLEN 0", "XTRIM s MAXLEN 0",
			"XADD s 5-1 e 5", "XDEL s 5-1", "XDEL s 5-1", "XSETID s 9-0", "XSETID nope 9-0",
			"XLEN nope", "XRANGE nope - +", "XREVRANGE nope + -", "XREAD STREAMS nope 0",
			"XGROUP CREATE s g $", "XGROUP CREATE s g $", "XGROUP CREATE m g $ MKSTREAM",
			"XGROUP CREATECONSUMER s g c", "XGROUP CREATECONSUMER s g c", "XADD s 10-1 f 6",
			"XREADGROUP GROUP g c2 STREAMS s >", "XACK s g 10-1", "XGROUP SETID s g 0",
			"XCLAIM s g c3 0 10-1 FORCE", "XAUTOCLAIM s g c4 0 0", "XGROUP DELCONSUMER s g c2",
			"XGROUP DELCONSUMER s g nobody", "XGROUP DESTROY s g", "XGROUP DESTROY s g",
			"XINFO STREAM nope", "DEL s", "COPY m m2")})
}
