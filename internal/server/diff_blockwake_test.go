package server

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

// blockWakeCase is a client blocked on a key while another client makes
// the key disappear or change type, or makes it appear from elsewhere.
type blockWakeCase struct {
	name string
	// setup runs before the client blocks; block is its command; change
	// runs while it waits. Each starts in database 0.
	setup, change [][]string
	block         []string
	// want is the blocked client's reply to the change, as Redis 7.2 (and
	// Cairn) sends it; empty when the client must stay blocked, and then
	// serve must serve it with the reply served.
	want string
	// want70 is Redis 7.0's reply where it differs from 7.2's: 7.0
	// answers a blocked XREADGROUP whose stream went with an error of its
	// own, where 7.2 runs the command again and answers what XREADGROUP
	// answers at once.
	want70 string
	serve  [][]string
	served string
}

const (
	noGroupS  = "-NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option\r\n"
	wrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
	unblocked = "-UNBLOCKED the stream key no longer exists\r\n"
	groupGone = "-NOGROUP the consumer group this client was blocked on no longer exists\r\n"
	entry51   = "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n5-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n"
	entry11   = "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n"
	poppedLA  = "*2\r\n$1\r\nl\r\n$1\r\na\r\n"
	poppedZA  = "*3\r\n$1\r\nz\r\n$1\r\na\r\n$1\r\n1\r\n"
	mpoppedLA = "*2\r\n$1\r\nl\r\n*1\r\n$1\r\na\r\n"
	mpoppedZA = "*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n"
	movedA    = "$1\r\na\r\n"
)

var (
	streamWithGroup = cmds("XADD s 1-1 f v", "XGROUP CREATE s g $")
	blockGroup      = strings.Fields("XREADGROUP GROUP g c BLOCK 0 STREAMS s >")
	blockXRead      = strings.Fields("XREAD BLOCK 0 STREAMS s $")
	serveStream     = cmds("XADD s 5-1 f v")
	serveList       = cmds("RPUSH l a")
	serveZSet       = cmds("ZADD z 1 a")
)

// blockWakeCases: Redis's signalDeletedKeyAsReady and the rescans after
// FLUSHALL, FLUSHDB and SWAPDB. Whatever makes a key go or change type
// wakes the clients blocked on it: a blocked XREADGROUP fails, since its
// group is gone; the pops and XREAD look again and stay blocked when there
// is still nothing for them, and are served when a key with something in
// it arrived (SWAPDB, MOVE, RENAME).
var blockWakeCases = []blockWakeCase{
	{name: "XREADGROUP/DEL", setup: streamWithGroup, block: blockGroup,
		change: cmds("DEL s"), want: noGroupS, want70: unblocked},
	{name: "XREADGROUP/UNLINK", setup: streamWithGroup, block: blockGroup,
		change: cmds("UNLINK s"), want: noGroupS, want70: unblocked},
	{name: "XREADGROUP/FLUSHALL", setup: streamWithGroup, block: blockGroup,
		change: cmds("FLUSHALL"), want: noGroupS, want70: unblocked},
	{name: "XREADGROUP/FLUSHALL ASYNC", setup: streamWithGroup, block: blockGroup,
		change: cmds("FLUSHALL ASYNC"), want: noGroupS, want70: unblocked},
	{name: "XREADGROUP/FLUSHDB", setup: streamWithGroup, block: blockGroup,
		change: cmds("FLUSHDB"), want: noGroupS, want70: unblocked},
	{name: "XREADGROUP/FLUSHALL in MULTI", setup: streamWithGroup, block: blockGroup,
		change: cmds("MULTI", "FLUSHALL", "EXEC"), want: noGroupS, want70: unblocked},
	{name: "XREADGROUP/FLUSHDB in a script", setup: streamWithGroup, block: blockGroup,
		change: cmds("EVAL redis.call('flushdb') 0"), want: noGroupS, want70: unblocked},
	{name: "XREADGROUP/FLUSHDB of another database", setup: streamWithGroup, block: blockGroup,
		change: cmds("SELECT 1", "FLUSHDB", "SELECT 0"), serve: serveStream, served: entry51},
	{name: "XREADGROUP/SWAPDB with an empty database", setup: streamWithGroup, block: blockGroup,
		change: cmds("SWAPDB 0 1"), want: noGroupS, want70: unblocked},
	{name: "XREADGROUP/SWAPDB with a stream without the group", setup: streamWithGroup, block: blockGroup,
		change: cmds("SELECT 1", "XADD s 1-1 f v", "SELECT 0", "SWAPDB 0 1"),
		want:   noGroupS, want70: groupGone},
	{name: "XREADGROUP/SWAPDB with the group and an entry", setup: streamWithGroup, block: blockGroup,
		change: cmds("SELECT 1", "XADD s 1-1 f v", "XGROUP CREATE s g 0",
			"SELECT 0", "SWAPDB 1 0"),
		want: entry11},
	{name: "XREADGROUP/MOVE", setup: streamWithGroup, block: blockGroup,
		change: cmds("MOVE s 1"), want: noGroupS, want70: unblocked},
	{name: "XREADGROUP/RENAME away", setup: streamWithGroup, block: blockGroup,
		change: cmds("RENAME s t"), want: noGroupS, want70: unblocked},
	{name: "XREADGROUP/RENAME a stream onto it", setup: streamWithGroup, block: blockGroup,
		change: cmds("XADD t 1-1 f v", "RENAME t s"), want: noGroupS, want70: groupGone},
	{name: "XREADGROUP/RENAME a string onto it", setup: streamWithGroup, block: blockGroup,
		change: cmds("SET t x", "RENAME t s"), want: wrongType, want70: unblocked},
	{name: "XREADGROUP/COPY REPLACE", setup: streamWithGroup, block: blockGroup,
		change: cmds("XADD t 1-1 f v", "COPY t s REPLACE"), want: noGroupS, want70: groupGone},
	{name: "XREADGROUP/expiry", setup: streamWithGroup, block: blockGroup,
		change: cmds("PEXPIRE s 20"), want: noGroupS, want70: unblocked},
	{name: "XREADGROUP/SET", setup: streamWithGroup, block: blockGroup,
		change: cmds("SET s x"), want: wrongType, want70: unblocked},
	{name: "XREADGROUP/SET in MULTI", setup: streamWithGroup, block: blockGroup,
		change: cmds("MULTI", "SET s x", "EXEC"), want: wrongType, want70: unblocked},
	{name: "XREADGROUP/DEL and XADD in MULTI", setup: streamWithGroup, block: blockGroup,
		change: cmds("MULTI", "DEL s", "XADD s 1-1 f v", "EXEC"), want: noGroupS, want70: groupGone},
	{name: "XREADGROUP/XGROUP DESTROY", setup: streamWithGroup, block: blockGroup,
		change: cmds("XGROUP DESTROY s g"), want: noGroupS, want70: groupGone},

	{name: "XREAD/DEL", setup: cmds("XADD s 1-1 f v"), block: blockXRead,
		change: cmds("DEL s"), serve: serveStream, served: entry51},
	{name: "XREAD/FLUSHALL", setup: cmds("XADD s 1-1 f v"), block: blockXRead,
		change: cmds("FLUSHALL"), serve: serveStream, served: entry51},
	{name: "XREAD/SET", setup: cmds("XADD s 1-1 f v"), block: blockXRead,
		change: cmds("SET s x"), serve: cmds("DEL s", "XADD s 5-1 f v"), served: entry51},
	{name: "XREAD/SWAPDB with a newer entry", setup: cmds("XADD s 1-1 f v"), block: blockXRead,
		change: cmds("SELECT 1", "XADD s 5-1 f v", "SELECT 0", "SWAPDB 0 1"), want: entry51},

	{name: "BLPOP/SET", block: strings.Fields("BLPOP l 0"),
		change: cmds("SET l x"), serve: cmds("DEL l", "RPUSH l a"), served: poppedLA},
	{name: "BLPOP/FLUSHALL", block: strings.Fields("BLPOP l 0"),
		change: cmds("FLUSHALL"), serve: serveList, served: poppedLA},
	{name: "BLPOP/a push and a DEL in MULTI", block: strings.Fields("BLPOP l 0"),
		change: cmds("MULTI", "RPUSH l a", "DEL l", "EXEC"), serve: serveList, served: poppedLA},
	{name: "BLPOP/SWAPDB", block: strings.Fields("BLPOP l 0"),
		change: cmds("SELECT 1", "RPUSH l a", "SELECT 0", "SWAPDB 0 1"), want: poppedLA},
	{name: "BRPOP/FLUSHDB then SWAPDB", block: strings.Fields("BRPOP l 0"),
		change: cmds("FLUSHDB", "SELECT 1", "RPUSH l a", "SWAPDB 1 0"), want: poppedLA},
	{name: "BLPOP/MOVE into its database", block: strings.Fields("BLPOP l 0"),
		change: cmds("SELECT 1", "RPUSH l a", "MOVE l 0", "SELECT 0"), want: poppedLA},
	{name: "BLPOP/RENAME onto it", block: strings.Fields("BLPOP l 0"),
		change: cmds("RPUSH t a", "RENAME t l"), want: poppedLA},
	{name: "BLMOVE/SWAPDB", block: strings.Fields("BLMOVE l d LEFT RIGHT 0"),
		change: cmds("SELECT 1", "RPUSH l a", "SELECT 0", "SWAPDB 0 1"), want: movedA},
	{name: "BRPOPLPUSH/FLUSHALL", block: strings.Fields("BRPOPLPUSH l d 0"),
		change: cmds("FLUSHALL"), serve: serveList, served: movedA},
	{name: "BLMPOP/COPY onto it", block: strings.Fields("BLMPOP 0 1 l LEFT"),
		change: cmds("RPUSH t a", "COPY t l"), want: mpoppedLA},
	{name: "BZPOPMIN/SWAPDB", block: strings.Fields("BZPOPMIN z 0"),
		change: cmds("SELECT 1", "ZADD z 1 a", "SELECT 0", "SWAPDB 0 1"), want: poppedZA},
	{name: "BZPOPMAX/FLUSHDB", block: strings.Fields("BZPOPMAX z 0"),
		change: cmds("FLUSHDB"), serve: serveZSet, served: poppedZA},
	{name: "BZPOPMIN/SET", block: strings.Fields("BZPOPMIN z 0"),
		change: cmds("SET z x"), serve: cmds("DEL z", "ZADD z 1 a"), served: poppedZA},
	{name: "BZMPOP/MOVE into its database", block: strings.Fields("BZMPOP 0 1 z MIN"),
		change: cmds("SELECT 1", "ZADD z 1 a", "MOVE z 0", "SELECT 0"), want: mpoppedZA},
}

// TestBlockedClientsWokenByKeyChanges runs blockWakeCases on Cairn and, when
// it is installed, on redis-server, which must agree (7.0 with its own
// errors for a blocked XREADGROUP).
func TestBlockedClientsWokenByKeyChanges(t *testing.T) {
	t.Run("cairn", func(t *testing.T) { runBlockWakeCases(t, startServer(t).addr, false) })
	t.Run("redis", func(t *testing.T) {
		r := redistest.Start(t)
		info, err := r.DoRaw("INFO", "server")
		if err != nil {
			t.Fatal(err)
		}
		runBlockWakeCases(t, r.Addr(), strings.Contains(string(info), "redis_version:7.0."))
	})
}

func runBlockWakeCases(t *testing.T, addr string, redis70 bool) {
	for _, tc := range blockWakeCases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if redis70 && tc.want70 != "" {
				want = tc.want70
			}
			runBlockWake(t, addr, tc, want)
		})
	}
}

func runBlockWake(t *testing.T, addr string, tc blockWakeCase, want string) {
	ctl := dialWire(t, addr)
	waitBlockedClients(ctl, 0)
	ctl.do("FLUSHALL")
	for _, c := range tc.setup {
		if r := ctl.do(c...); strings.HasPrefix(r, "-") {
			t.Fatalf("setup %v: %q", c, r)
		}
	}
	b := dialWire(t, addr)
	defer b.nc.Close()
	b.write(wireCmd(tc.block...))
	waitBlockedClients(ctl, 1)
	for _, c := range tc.change {
		if r := ctl.do(c...); strings.HasPrefix(r, "-") {
			t.Fatalf("%v: %q", c, r)
		}
	}
	if want != "" {
		if got := b.reply(); got != want {
			t.Fatalf("blocked %v after %v = %q, want %q", tc.block, tc.change, got, want)
		}
		return
	}
	b.expectSilent(150 * time.Millisecond)
	for _, c := range tc.serve {
		ctl.do(c...)
	}
	if got := b.reply(); got != tc.served {
		t.Fatalf("blocked %v after %v, then %v = %q, want %q", tc.block, tc.change, tc.serve, got, tc.served)
	}
}

// dialWire opens a wireConn to any server, for tests run on Cairn and on
// redis-server alike.
func dialWire(t testing.TB, addr string) *wireConn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { _ = nc.Close() })
	return &wireConn{t: t, nc: nc, r: bufio.NewReader(nc)}
}

// waitBlockedClients waits until INFO counts n blocked clients.
func waitBlockedClients(rc *wireConn, n int) {
	rc.t.Helper()
	want := "blocked_clients:" + string(rune('0'+n)) + "\r\n"
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(rc.do("INFO", "clients"), want) {
		if time.Now().After(deadline) {
			rc.t.Fatalf("INFO clients never showed %q", want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
