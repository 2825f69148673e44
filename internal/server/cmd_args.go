package server

import (
	"bytes"
	"strings"

	"github.com/cairndb/cairn/internal/command"
)

// commandArgs is every command's documented arguments, the "arguments" of
// COMMAND DOCS, written in command.ParseArgs's syntax and keyed by full
// name ("client|kill"). redis-cli 7 builds its input hints from them and
// clients introspect them, so they follow Redis: Redis 7.0.15's own
// descriptions (TestCommandArgsMatchRedis compares them with a running
// redis-server), except where Cairn implements a later syntax, which follows
// the current Redis documentation: the hash-field expiry commands (7.4) and
// HGETEX/HSETEX/HGETDEL (8.0), CLIENT SETINFO and ZRANK/ZREVRANK WITHSCORE
// (7.2), HSCAN NOVALUES and CLIENT KILL MAXAGE (7.4). A command that takes
// no arguments has no entry.
//
// They live in one table, apart from the command tables beside the
// handlers, so that the arguments read as Redis's documentation does.
var commandArgs = map[string]string{
	"acl|cat":               `[categoryname]`,
	"acl|deluser":           `username...`,
	"acl|dryrun":            `username command [arg]...`,
	"acl|genpass":           `[bits:integer]`,
	"acl|getuser":           `username`,
	"acl|log":               `operation=[count:integer | RESET]`,
	"acl|setuser":           `username [rule]...`,
	"append":                `key:key value`,
	"auth":                  `[username]{6.0.0} password`,
	"backup":                `directory`,
	"bgsave":                `[SCHEDULE{3.2.2}]`,
	"bitcount":              `key:key index=[start:integer end:integer index_unit=[BYTE | BIT]{7.0.0}]`,
	"bitfield":              `key:key operation=[encoding_offset=GET (encoding offset:integer) | write=([wrap_sat_fail=OVERFLOW (WRAP | SAT | FAIL)] write_operation=(encoding_offset_value=SET (encoding offset:integer value:integer) | encoding_offset_increment=INCRBY (encoding offset:integer increment:integer)))]...`,
	"bitfield_ro":           `key:key [encoding_offset=GET (encoding offset:integer)]...`,
	"bitop":                 `operation=(AND | OR | XOR | NOT | DIFF | DIFF1 | ANDOR | ONE) destkey:key key:key...`,
	"bitpos":                `key:key bit:integer index=[start:integer end_index=[end:integer index_unit=[BYTE | BIT]{7.0.0}]]`,
	"blmove":                `source:key destination:key wherefrom=(LEFT | RIGHT) whereto=(LEFT | RIGHT) timeout:double`,
	"blmpop":                `timeout:double numkeys:integer key:key... where=(LEFT | RIGHT) [COUNT count:integer]`,
	"blpop":                 `key:key... timeout:double`,
	"brpop":                 `key:key... timeout:double`,
	"brpoplpush":            `source:key destination:key timeout:double`,
	"bzmpop":                `timeout:double numkeys:integer key:key... where=(MIN | MAX) [COUNT count:integer]`,
	"bzpopmax":              `key:key... timeout:double`,
	"bzpopmin":              `key:key... timeout:double`,
	"client|caching":        `mode=(YES | NO)`,
	"client|kill":           `filter=(old-format{deprecated 2.8.12, display "ip:port"} | new-format=([ID client-id:integer{2.8.12}] | [client-type=TYPE (NORMAL | MASTER{3.2.0} | SLAVE | REPLICA{5.0.0} | PUBSUB){2.8.12}] | [USER username] | [ADDR addr{display "ip:port"}] | [LADDR laddr{6.2.0, display "ip:port"}] | [skipme=SKIPME (YES | NO)] | [MAXAGE maxage:integer{7.4.0}])...)`,
	"client|list":           `[normal_master_replica_pubsub=TYPE (NORMAL | MASTER | REPLICA | PUBSUB){5.0.0}] [id=ID (client-id:integer...){6.2.0}]`,
	"client|no-evict":       `enabled=(ON | OFF)`,
	"client|no-touch":       `enabled=(ON | OFF)`,
	"client|pause":          `timeout:integer mode=[WRITE | ALL]{6.2.0}`,
	"client|reply":          `on_off_skip=(ON | OFF | SKIP)`,
	"client|setinfo":        `attr=(LIB-NAME libname | LIB-VER libver)`,
	"client|setname":        `connection-name`,
	"client|tracking":       `status=(ON | OFF) [REDIRECT client-id:integer] [PREFIX prefix]... [BCAST] [OPTIN] [OPTOUT] [NOLOOP]`,
	"client|unblock":        `client-id:integer timeout_error=[TIMEOUT | ERROR]`,
	"command|docs":          `[command-name]...`,
	"command|info":          `[command-name]...`,
	"command|list":          `[filterby=FILTERBY (MODULE module-name | ACLCAT category | PATTERN pattern:pattern)]`,
	"config|get":            `parameter=(parameter)...`,
	"config|set":            `parameter_value=(parameter value)...`,
	"copy":                  `source:key destination:key [DB destination-db:integer] [REPLACE]`,
	"decr":                  `key:key`,
	"decrby":                `key:key decrement:integer`,
	"del":                   `key:key...`,
	"dump":                  `key:key`,
	"echo":                  `message`,
	"eval":                  `script numkeys:integer [key:key]... [arg]...`,
	"eval_ro":               `script numkeys:integer [key:key]... [arg]...`,
	"evalsha":               `sha1 numkeys:integer [key:key]... [arg]...`,
	"evalsha_ro":            `sha1 numkeys:integer [key:key]... [arg]...`,
	"exists":                `key:key...`,
	"expire":                `key:key seconds:integer condition=[NX | XX | GT | LT]{7.0.0}`,
	"expireat":              `key:key unix-time-seconds:unix-time condition=[NX | XX | GT | LT]{7.0.0}`,
	"expiretime":            `key:key`,
	"fcall":                 `function numkeys:integer [key:key]... [arg]...`,
	"fcall_ro":              `function numkeys:integer [key:key]... [arg]...`,
	"flushall":              `async=[ASYNC{4.0.0} | SYNC{6.2.0}]`,
	"flushdb":               `async=[ASYNC{4.0.0} | SYNC{6.2.0}]`,
	"function|delete":       `library-name`,
	"function|flush":        `async=[ASYNC | SYNC]`,
	"function|list":         `[LIBRARYNAME library-name-pattern] [WITHCODE]`,
	"function|load":         `[REPLACE] function-code`,
	"function|restore":      `serialized-value policy=[FLUSH | APPEND | REPLACE]`,
	"geoadd":                `key:key condition=[NX | XX]{6.2.0} [change=CH{6.2.0}] longitude_latitude_member=(longitude:double latitude:double member)...`,
	"geodist":               `key:key member1 member2 unit=[M | KM | FT | MI]`,
	"geohash":               `key:key member...`,
	"geopos":                `key:key member...`,
	"georadius":             `key:key longitude:double latitude:double radius:double unit=(M | KM | FT | MI) [WITHCOORD] [WITHDIST] [WITHHASH] count=[COUNT count:integer [ANY{6.2.0}]] order=[ASC | DESC] [STORE key:key] [STOREDIST key:key]`,
	"georadius_ro":          `key:key longitude:double latitude:double radius:double unit=(M | KM | FT | MI) [WITHCOORD] [WITHDIST] [WITHHASH] count=[COUNT count:integer [ANY{6.2.0}]] order=[ASC | DESC]`,
	"georadiusbymember":     `key:key member radius:double unit=(M | KM | FT | MI) [WITHCOORD] [WITHDIST] [WITHHASH] count=[COUNT count:integer [ANY]] order=[ASC | DESC] [STORE key:key] [STOREDIST key:key]`,
	"georadiusbymember_ro":  `key:key member radius:double unit=(M | KM | FT | MI) [WITHCOORD] [WITHDIST] [WITHHASH] count=[COUNT count:integer [ANY]] order=[ASC | DESC]`,
	"geosearch":             `key:key from=(FROMMEMBER member | longitude_latitude=FROMLONLAT (longitude:double latitude:double)) by=(circle=(BYRADIUS radius:double unit=(M | KM | FT | MI)) | box=(BYBOX width:double height:double unit=(M | KM | FT | MI))) order=[ASC | DESC] count=[COUNT count:integer [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]`,
	"geosearchstore":        `destination:key source:key from=(FROMMEMBER member | longitude_latitude=FROMLONLAT (longitude:double latitude:double)) by=(circle=(BYRADIUS radius:double unit=(M | KM | FT | MI)) | box=(BYBOX width:double height:double unit=(M | KM | FT | MI))) order=[ASC | DESC] count=[COUNT count:integer [ANY]] [STOREDIST]`,
	"get":                   `key:key`,
	"getbit":                `key:key offset:integer`,
	"getdel":                `key:key`,
	"getex":                 `key:key expiration=[EX seconds:integer | PX milliseconds:integer | EXAT unix-time-seconds:unix-time | PXAT unix-time-milliseconds:unix-time | PERSIST]`,
	"getrange":              `key:key start:integer end:integer`,
	"getset":                `key:key value`,
	"hdel":                  `key:key field...`,
	"hello":                 `arguments=[protover:integer [username_password=AUTH (username password)] [SETNAME clientname]]`,
	"hexists":               `key:key field`,
	"hexpire":               `key:key seconds:integer condition=[NX | XX | GT | LT] fields=FIELDS (numfields:integer field...)`,
	"hexpireat":             `key:key unix-time-seconds:unix-time condition=[NX | XX | GT | LT] fields=FIELDS (numfields:integer field...)`,
	"hexpiretime":           `key:key fields=FIELDS (numfields:integer field...)`,
	"hget":                  `key:key field`,
	"hgetall":               `key:key`,
	"hgetdel":               `key:key fields=FIELDS (numfields:integer field...)`,
	"hgetex":                `key:key expiration=[EX seconds:integer | PX milliseconds:integer | EXAT unix-time-seconds:unix-time | PXAT unix-time-milliseconds:unix-time | PERSIST] fields=FIELDS (numfields:integer field...)`,
	"hincrby":               `key:key field increment:integer`,
	"hincrbyfloat":          `key:key field increment:double`,
	"hkeys":                 `key:key`,
	"hlen":                  `key:key`,
	"hmget":                 `key:key field...`,
	"hmset":                 `key:key field_value=(field value)...`,
	"hpersist":              `key:key fields=FIELDS (numfields:integer field...)`,
	"hpexpire":              `key:key milliseconds:integer condition=[NX | XX | GT | LT] fields=FIELDS (numfields:integer field...)`,
	"hpexpireat":            `key:key unix-time-milliseconds:unix-time condition=[NX | XX | GT | LT] fields=FIELDS (numfields:integer field...)`,
	"hpexpiretime":          `key:key fields=FIELDS (numfields:integer field...)`,
	"hpttl":                 `key:key fields=FIELDS (numfields:integer field...)`,
	"hrandfield":            `key:key options=[count:integer [WITHVALUES]]`,
	"hscan":                 `key:key cursor:integer [MATCH pattern:pattern] [COUNT count:integer] [NOVALUES]`,
	"hset":                  `key:key field_value=(field value)...`,
	"hsetex":                `key:key condition=[FNX | FXX] expiration=[EX seconds:integer | PX milliseconds:integer | EXAT unix-time-seconds:unix-time | PXAT unix-time-milliseconds:unix-time | KEEPTTL] fields=FIELDS (numfields:integer data=(field value)...)`,
	"hsetnx":                `key:key field value`,
	"hstrlen":               `key:key field`,
	"httl":                  `key:key fields=FIELDS (numfields:integer field...)`,
	"hvals":                 `key:key`,
	"incr":                  `key:key`,
	"incrby":                `key:key increment:integer`,
	"incrbyfloat":           `key:key increment:double`,
	"info":                  `[section]...`,
	"keys":                  `pattern:pattern`,
	"latency|graph":         `event`,
	"lolwut":                `[VERSION version:integer]`,
	"latency|histogram":     `[command]...`,
	"latency|history":       `event`,
	"latency|reset":         `[event]...`,
	"lcs":                   `key1:key key2:key#0 [LEN] [IDX] [MINMATCHLEN len:integer] [WITHMATCHLEN]`,
	"lindex":                `key:key index:integer`,
	"linsert":               `key:key where=(BEFORE | AFTER) pivot element`,
	"llen":                  `key:key`,
	"lmove":                 `source:key destination:key wherefrom=(LEFT | RIGHT) whereto=(LEFT | RIGHT)`,
	"lmpop":                 `numkeys:integer key:key... where=(LEFT | RIGHT) [COUNT count:integer]`,
	"lpop":                  `key:key [count:integer]{6.2.0}`,
	"lpos":                  `key:key element [RANK rank:integer] [COUNT num-matches:integer] [MAXLEN len:integer]`,
	"lpush":                 `key:key element...`,
	"lpushx":                `key:key element...`,
	"lrange":                `key:key start:integer stop:integer`,
	"lrem":                  `key:key count:integer element`,
	"lset":                  `key:key index:integer element`,
	"ltrim":                 `key:key start:integer stop:integer`,
	"memory|usage":          `key:key [SAMPLES count:integer]`,
	"module|load":           `path [arg]...`,
	"module|loadex":         `path [configs=CONFIG (name value)]... [args=ARGS (arg)...]`,
	"module|unload":         `name`,
	"migrate":               `host port:integer key_or_empty_string=(key:key | empty_string="") destination-db:integer timeout:integer [COPY{3.0.0}] [REPLACE{3.0.0}] authentication=[[AUTH password{4.0.7}] | [username_password=AUTH2 (username password){6.0.0}]] [KEYS key:key...{3.0.6}]`,
	"mget":                  `key:key...`,
	"move":                  `key:key db:integer`,
	"mset":                  `key_value=(key:key value)...`,
	"msetnx":                `key_value=(key:key value)...`,
	"object|encoding":       `key:key`,
	"object|freq":           `key:key`,
	"object|idletime":       `key:key`,
	"object|refcount":       `key:key`,
	"persist":               `key:key`,
	"pexpire":               `key:key milliseconds:integer condition=[NX | XX | GT | LT]{7.0.0}`,
	"pexpireat":             `key:key unix-time-milliseconds:unix-time condition=[NX | XX | GT | LT]{7.0.0}`,
	"pexpiretime":           `key:key`,
	"pfadd":                 `key:key [element]...`,
	"pfcount":               `key:key...`,
	"pfdebug":               `subcommand key:key`,
	"pfmerge":               `destkey:key sourcekey:key...`,
	"ping":                  `[message]`,
	"psetex":                `key:key milliseconds:integer value`,
	"psync":                 `replicationid offset:integer`,
	"pttl":                  `key:key`,
	"rename":                `key:key newkey:key`,
	"renamenx":              `key:key newkey:key`,
	"replicaof":             `args=(host-port=(host port:integer) | no-one=(NO ONE))`,
	"restore":               `key:key ttl:integer serialized-value [REPLACE{3.0.0}] [ABSTTL{5.0.0}] [IDLETIME seconds:integer{5.0.0}] [FREQ frequency:integer{5.0.0}]`,
	"rpop":                  `key:key [count:integer]{6.2.0}`,
	"rpoplpush":             `source:key destination:key`,
	"rpush":                 `key:key element...`,
	"rpushx":                `key:key element...`,
	"sadd":                  `key:key member...`,
	"scan":                  `cursor:integer [MATCH pattern:pattern] [COUNT count:integer] [TYPE type{6.0.0}]`,
	"scard":                 `key:key`,
	"script|exists":         `sha1...`,
	"script|flush":          `async=[ASYNC | SYNC]{6.2.0}`,
	"script|load":           `script`,
	"sdiff":                 `key:key...`,
	"sdiffstore":            `destination:key key:key...`,
	"select":                `index:integer`,
	"set":                   `key:key value condition=[NX | XX]{2.6.12} [GET{6.2.0}] expiration=[EX seconds:integer{2.6.12} | PX milliseconds:integer{2.6.12} | EXAT unix-time-seconds:unix-time{6.2.0} | PXAT unix-time-milliseconds:unix-time{6.2.0} | KEEPTTL{6.0.0}]`,
	"setbit":                `key:key offset:integer value:integer`,
	"setex":                 `key:key seconds:integer value`,
	"setnx":                 `key:key value`,
	"setrange":              `key:key offset:integer value`,
	"shutdown":              `nosave_save=[NOSAVE | SAVE] [NOW{7.0.0}] [FORCE{7.0.0}] [ABORT{7.0.0}]`,
	"siadd":                 `key:key id:integer...`,
	"sicard":                `key:key`,
	"siexists":              `key:key id:integer...`,
	"sinter":                `key:key...`,
	"sintercard":            `numkeys:integer key:key... [LIMIT limit:integer]`,
	"sinterstore":           `destination:key key:key...`,
	"sirange":               `key:key offset:integer count:integer [CURSOR cursor:integer]`,
	"sirangebyvalue":        `key:key min max [offset_count=LIMIT (offset:integer count:integer)]`,
	"sirem":                 `key:key id:integer...`,
	"sirevrange":            `key:key offset:integer count:integer [CURSOR cursor:integer]`,
	"sirevrangebyvalue":     `key:key max min [offset_count=LIMIT (offset:integer count:integer)]`,
	"sismember":             `key:key member`,
	"slaveof":               `args=(host-port=(host port:integer) | no-one=(NO ONE))`,
	"slowlog|get":           `[count:integer]`,
	"smembers":              `key:key`,
	"smismember":            `key:key member...`,
	"smove":                 `source:key destination:key member`,
	"sort":                  `key:key [BY pattern:pattern#1] [offset_count=LIMIT (offset:integer count:integer)] [GET pattern:pattern#1]... order=[ASC | DESC] [sorting=ALPHA] [STORE destination:key#2]`,
	"sort_ro":               `key:key [BY pattern:pattern#1] [offset_count=LIMIT (offset:integer count:integer)] [GET pattern:pattern#1]... order=[ASC | DESC] [sorting=ALPHA]`,
	"spop":                  `key:key [count:integer]{3.2.0}`,
	"srandmember":           `key:key [count:integer]{2.6.0}`,
	"srem":                  `key:key member...`,
	"sscan":                 `key:key cursor:integer [MATCH pattern:pattern] [COUNT count:integer]`,
	"strlen":                `key:key`,
	"substr":                `key:key start:integer end:integer`,
	"sunion":                `key:key...`,
	"sunionstore":           `destination:key key:key...`,
	"swapdb":                `index1:integer index2:integer`,
	"touch":                 `key:key...`,
	"ttl":                   `key:key`,
	"type":                  `key:key`,
	"unlink":                `key:key...`,
	"watch":                 `key:key...`,
	"xack":                  `key:key group id...`,
	"xadd":                  `key:key [NOMKSTREAM{6.2.0}] trim=[strategy=(MAXLEN | MINID{6.2.0}) operator=[equal="=" | approximately="~"] threshold [LIMIT count:integer{6.2.0}]] id_or_auto=(auto_id="*" | id) field_value=(field value)...`,
	"xautoclaim":            `key:key group consumer min-idle-time start [COUNT count:integer] [JUSTID]`,
	"xclaim":                `key:key group consumer min-idle-time id... [IDLE ms:integer] [TIME unix-time-milliseconds:unix-time] [RETRYCOUNT count:integer] [FORCE] [JUSTID] [LASTID id]`,
	"xdel":                  `key:key id...`,
	"xgroup|create":         `key:key groupname id=(id | new_id="$") [MKSTREAM] [ENTRIESREAD entries_read:integer]`,
	"xgroup|createconsumer": `key:key groupname consumername`,
	"xgroup|delconsumer":    `key:key groupname consumername`,
	"xgroup|destroy":        `key:key groupname`,
	"xgroup|setid":          `key:key groupname id=(id | new_id="$") [ENTRIESREAD entries_read:integer]`,
	"xinfo|consumers":       `key:key groupname`,
	"xinfo|groups":          `key:key`,
	"xinfo|stream":          `key:key [full=FULL ([COUNT count:integer])]`,
	"xlen":                  `key:key`,
	"xpending":              `key:key group filters=[[IDLE min-idle-time:integer{6.2.0}] start end count:integer [consumer]]`,
	"xrange":                `key:key start end [COUNT count:integer]`,
	"xread":                 `[COUNT count:integer] [BLOCK milliseconds:integer] streams=STREAMS (key:key... id...)`,
	"xreadgroup":            `group_consumer=GROUP (group consumer) [COUNT count:integer] [BLOCK milliseconds:integer] [NOACK] streams=STREAMS (key:key... id...)`,
	"xrevrange":             `key:key end start [COUNT count:integer]`,
	"xsetid":                `key:key last-id [ENTRIESADDED entries_added:integer{7.0.0}] [MAXDELETEDID max_deleted_entry_id{7.0.0}]`,
	"xtrim":                 `key:key trim=(strategy=(MAXLEN | MINID{6.2.0}) operator=[equal="=" | approximately="~"] threshold [LIMIT count:integer{6.2.0}])`,
	"zadd":                  `key:key condition=[NX | XX]{3.0.2} comparison=[GT | LT]{6.2.0} [change=CH{3.0.2}] [increment=INCR{3.0.2}] score_member=(score:double member)...`,
	"zcard":                 `key:key`,
	"zcount":                `key:key min:double max:double`,
	"zdiff":                 `numkeys:integer key:key... [WITHSCORES]`,
	"zdiffstore":            `destination:key numkeys:integer key:key...`,
	"zincrby":               `key:key increment:integer member`,
	"zinter":                `numkeys:integer key:key... [WEIGHTS weight:integer...] [aggregate=AGGREGATE (SUM | MIN | MAX)] [WITHSCORES]`,
	"zintercard":            `numkeys:integer key:key... [LIMIT limit:integer]`,
	"zinterstore":           `destination:key numkeys:integer key:key... [WEIGHTS weight:integer...] [aggregate=AGGREGATE (SUM | MIN | MAX)]`,
	"zlexcount":             `key:key min max`,
	"zmpop":                 `numkeys:integer key:key... where=(MIN | MAX) [COUNT count:integer]`,
	"zmscore":               `key:key member...`,
	"zpopmax":               `key:key [count:integer]`,
	"zpopmin":               `key:key [count:integer]`,
	"zrandmember":           `key:key options=[count:integer [WITHSCORES]]`,
	"zrange":                `key:key start stop sortby=[BYSCORE | BYLEX]{6.2.0} [REV{6.2.0}] [offset_count=LIMIT (offset:integer count:integer){6.2.0}] [WITHSCORES]`,
	"zrangebylex":           `key:key min max [offset_count=LIMIT (offset:integer count:integer)]`,
	"zrangebyscore":         `key:key min:double max:double [WITHSCORES{2.0.0}] [offset_count=LIMIT (offset:integer count:integer)]`,
	"zrangestore":           `dst:key src:key min max sortby=[BYSCORE | BYLEX] [REV] [offset_count=LIMIT (offset:integer count:integer)]`,
	"zrank":                 `key:key member [WITHSCORE]`,
	"zrem":                  `key:key member...`,
	"zremrangebylex":        `key:key min max`,
	"zremrangebyrank":       `key:key start:integer stop:integer`,
	"zremrangebyscore":      `key:key min:double max:double`,
	"zrevrange":             `key:key start:integer stop:integer [WITHSCORES]`,
	"zrevrangebylex":        `key:key max min [offset_count=LIMIT (offset:integer count:integer)]`,
	"zrevrangebyscore":      `key:key max:double min:double [WITHSCORES] [offset_count=LIMIT (offset:integer count:integer)]`,
	"zrevrank":              `key:key member [WITHSCORE]`,
	"zscan":                 `key:key cursor:integer [MATCH pattern:pattern] [COUNT count:integer]`,
	"zscore":                `key:key member`,
	"zunion":                `numkeys:integer key:key... [WEIGHTS weight:integer...] [aggregate=AGGREGATE (SUM | MIN | MAX)] [WITHSCORES]`,
	"zunionstore":           `destination:key numkeys:integer key:key... [WEIGHTS weight:integer...] [aggregate=AGGREGATE (SUM | MIN | MAX)]`,
}

// variableKeyFlags are the per-call key flags of the commands whose key
// spec is flagged variable_flags, for COMMAND GETKEYSANDFLAGS.
var variableKeyFlags = map[string]func(args [][]byte, spec int) command.KeyFlag{
	"set":      setKeyFlags,
	"bitfield": bitfieldKeyFlags,
}

// bitfieldKeyFlags is how BITFIELD uses its key, as Redis's
// bitfieldGetKeys says: only read when every operation is a GET (OVERFLOW
// aside), else read and written; a malformed operation counts as a write.
func bitfieldKeyFlags(args [][]byte, _ int) command.KeyFlag {
	for i := 2; i < len(args); i++ {
		rest := len(args) - i - 1
		switch {
		case optIs(args[i], "GET") && rest >= 2:
			i += 2
		case optIs(args[i], "OVERFLOW") && rest >= 1:
			i++
		default:
			return command.KeyRW | command.KeyAccess | command.KeyUpdate
		}
	}
	return command.KeyRO | command.KeyAccess
}

// setKeyFlags is how SET uses its key, as Redis's setGetKeys says: read
// and written when GET returns the old value, else only overwritten. Like
// setGetKeys it looks for GET in every argument after the value, option
// values included.
func setKeyFlags(args [][]byte, _ int) command.KeyFlag {
	for _, a := range args[min(3, len(args)):] {
		if optIs(a, "GET") {
			return command.KeyRW | command.KeyAccess | command.KeyUpdate
		}
	}
	return command.KeyOW | command.KeyUpdate
}

// withArgs gives e and its subcommands their documented arguments and
// variable key flags. It panics on a syntax error in commandArgs, which
// must stop start-up like any other malformed spec.
func withArgs(e *cmdEntry) {
	if syntax, ok := commandArgs[e.spec.Name]; ok {
		e.spec.Args = command.MustParseArgs(syntax)
	}
	e.spec.KeyFlagsFunc = variableKeyFlags[e.spec.Name]
	for i := range e.subs {
		withArgs(&e.subs[i])
	}
}

// Reading arguments as Redis reads them. Redis compares an option or
// subcommand argument with strcasecmp, or with byte tests that end at
// '\0', so it reads the argument as a C string: up to its first NUL byte
// ("NX\x00junk" is NX), with only ASCII letters folding ("\u017Fync", with
// the long s, is not SYNC, though strings.ToUpper and strings.EqualFold
// would have it so). Errors that quote an argument format it with %s, which
// also stops at the NUL. Command names are the exception: the command
// table is a dict hashed over the whole name, so "GET\x00x" is no command
// (command.Table.Lookup).

// optIs reports whether arg names the option name, given in upper case.
// It does not allocate.
func optIs(arg []byte, name string) bool {
	arg = cbytes(arg)
	if len(arg) != len(name) {
		return false
	}
	for i, c := range arg {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}

// optName is arg upper-cased as optIs reads it, for a switch over many
// names. It allocates the string; optIs does not.
func optName(arg []byte) string {
	arg = cbytes(arg)
	var b strings.Builder
	b.Grow(len(arg))
	for _, c := range arg {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// cstr is s as far as its first NUL byte, as an error text quoting an
// argument shows it.
func cstr(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// cbytes is cstr for an argument's bytes.
func cbytes(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
