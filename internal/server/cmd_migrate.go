package server

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/resp"
	"github.com/cairndb/cairn/internal/store"
)

// MIGRATE moves keys to another server (Redis or Cairn) as RESTORE
// commands carrying DUMP payloads, then deletes them here unless COPY.
//
// Locking: Redis blocks its whole server while it talks to the target, so
// the move is atomic to every client. Cairn does not hold locks over the
// network: the values are read from a snapshot, sent, and then, under
// the keys' locks for the time of one local write, each key the target
// acknowledged is deleted only if it still holds what was sent (the same
// serialized value and deadline). A key written meanwhile stays here, with
// its new value, and a copy of the old one is on the target: what a client
// of Redis would see had its write come just after the MIGRATE. Inside
// MULTI/EXEC or a script the group's transaction already holds the keys,
// and MIGRATE runs in it as in Redis.

func migrateCommands() []cmdEntry {
	e := def("migrate", -6, write, keys{3, 3, 1}, ks|command.CatDangerous, "generic", "2.6.0", "Atomically transfers a key from one Redis instance to another.", cmdMigrate)
	e.spec.History = []command.HistoryEntry{
		{Since: "3.0.0", Changes: "Added the `COPY` and `REPLACE` options."},
		{Since: "3.0.6", Changes: "Added the `KEYS` option."},
		{Since: "4.0.7", Changes: "Added the `AUTH` option."},
		{Since: "6.0.0", Changes: "Added the `AUTH2` option."},
	}
	s := e.spec
	s.Flags |= command.MovableKeys
	s.KeySpecs = []command.KeySpec{
		{Flags: rw | acc | del, Begin: command.IndexSearch(3), Find: command.RangeKeys(0, 1, 0)},
		{Flags: rw | acc | del | command.KeyIncomplete, Begin: command.KeywordSearch("KEYS", -2), Find: command.RangeKeys(-1, 1, 0)},
	}
	s.KeysFunc = migrateKeys
	s.KeysFuncFlags = func(_ [][]byte, keys []int) []command.KeyFlag {
		flags := make([]command.KeyFlag, len(keys))
		for i := range flags {
			flags[i] = rw | acc | del
		}
		return flags
	}
	e.ownTx = true
	return []cmdEntry{withTips(e, tipOutput)}
}

// migrateKeys finds MIGRATE's keys as Redis's migrateGetKeys: the key
// argument, or after KEYS the rest of the arguments, skipping the
// arguments of AUTH and AUTH2 on the way.
func migrateKeys(args [][]byte) []int {
	first, num := 3, 1
	for i := 6; i < len(args); i++ {
		if optIs(args[i], "KEYS") {
			if len(args[3]) > 0 {
				return nil
			}
			first, num = i+1, len(args)-i-1
			break
		}
		switch {
		case optIs(args[i], "AUTH"):
			i++
		case optIs(args[i], "AUTH2"):
			i += 2
		}
	}
	out := make([]int, num)
	for i := range out {
		out[i] = first + i
	}
	return out
}

// migrateArgs are MIGRATE's parsed arguments.
type migrateArgs struct {
	host, port    string
	db            int64
	timeout       time.Duration
	copy, replace bool
	user, pass    []byte
	auth          bool
	keys          [][]byte
}

func (x *ctx) parseMigrateArgs() (migrateArgs, bool) {
	a := migrateArgs{host: x.argStr(1), port: x.argStr(2)}
	first, num := 3, 1
	for j := 6; j < len(x.args); j++ {
		more := len(x.args) - 1 - j
		switch {
		case optIs(x.arg(j), "COPY"):
			a.copy = true
		case optIs(x.arg(j), "REPLACE"):
			a.replace = true
		case optIs(x.arg(j), "AUTH"):
			if more < 1 {
				x.syntaxError()
				return a, false
			}
			j++
			a.auth, a.user, a.pass = true, nil, x.arg(j)
		case optIs(x.arg(j), "AUTH2"):
			if more < 2 {
				x.syntaxError()
				return a, false
			}
			a.auth, a.user, a.pass = true, x.arg(j+1), x.arg(j+2)
			j += 2
		case optIs(x.arg(j), "KEYS"):
			if len(x.arg(3)) != 0 {
				x.errorReply("ERR When using MIGRATE KEYS option, the key argument must be set to the empty string")
				return a, false
			}
			first, num = j+1, len(x.args)-j-1
			j = len(x.args)
		default:
			x.syntaxError()
			return a, false
		}
	}
	timeout, ok := rconv.ParseInt(x.arg(5))
	if !ok {
		x.notInteger()
		return a, false
	}
	if a.db, ok = rconv.ParseInt(x.arg(4)); !ok {
		x.notInteger()
		return a, false
	}
	if timeout <= 0 {
		timeout = 1000
	}
	a.timeout = time.Duration(min(timeout, int64(time.Duration(1<<62)/time.Millisecond))) * time.Millisecond
	a.keys = x.args[first : first+num]
	return a, true
}

// migrateItem is one key on its way: its name, the digest of the payload
// sent (kept instead of the payload, which may be large, to tell whether
// the key changed meanwhile) and the deadline it was read with.
type migrateItem struct {
	key      []byte
	digest   [sha256.Size]byte
	deadline int64
}

func cmdMigrate(x *ctx) {
	a, ok := x.parseMigrateArgs()
	if !ok {
		return
	}
	db := x.db()
	items := make([]migrateItem, 0, len(a.keys))
	// The RESTORE commands are built once, as the values are read; only
	// AUTH and SELECT differ from one connection attempt to the next.
	var restores, payload []byte
	for _, k := range a.keys {
		v, deadline, found, err := x.tx.ReadValue(db, k)
		if err != nil {
			x.storeError(err)
			return
		}
		if !found {
			continue
		}
		payload = rdb.AppendValue(payload[:0], store.ObjectOf(v))
		items = append(items, migrateItem{key: k, digest: sha256.Sum256(payload), deadline: deadline})
		ttl := int64(0)
		if deadline != 0 {
			ttl = max(deadline-x.tx.NowMs, 1)
		}
		args := [][]byte{[]byte("RESTORE"), k, strconv.AppendInt(nil, ttl, 10), payload}
		if a.replace {
			args = append(args, []byte("REPLACE"))
		}
		restores = resp.AppendCommand(restores, args...)
	}
	if len(items) == 0 {
		x.w.SimpleString("NOKEY")
		return
	}
	if int64(db) == a.db && x.srv.listensOn(a.host, a.port) {
		// Redis would wait for itself until the timeout. Cairn would
		// answer its own RESTORE, and with REPLACE then delete the key
		// it had just rewritten: refuse instead.
		x.errorReply("ERR MIGRATE's target is this server's own database")
		return
	}
	acked, errMsg := x.srv.migrates.send(a, items, restores)
	if !a.copy && len(acked) > 0 {
		if err := x.migrateDelete(db, acked); err != nil {
			x.storeError(err)
			return
		}
	}
	if errMsg != "" {
		x.errorReply(errMsg)
		return
	}
	x.ok()
}

// migrateDelete deletes the keys the target acknowledged. Inside an atomic
// group the group's transaction holds them; otherwise a write transaction
// takes their locks now and deletes each only if it still holds what was
// sent.
func (x *ctx) migrateDelete(db int, acked []migrateItem) error {
	if x.tx.Writable() {
		for _, it := range acked {
			deleted, err := x.tx.Delete(db, it.key)
			if err != nil {
				return err
			}
			if deleted {
				x.notify(notify.Generic, "del", it.key)
			}
		}
		return nil
	}
	names := make([][]byte, len(acked))
	for i, it := range acked {
		names[i] = it.key
	}
	tx := x.srv.st.Begin(names)
	defer tx.Close()
	tx.SetTouch(false)
	for _, it := range acked {
		v, deadline, found, err := tx.ReadValue(db, it.key)
		if err != nil {
			return err
		}
		if !found || deadline != it.deadline || sha256.Sum256(rdb.AppendValue(nil, store.ObjectOf(v))) != it.digest {
			continue
		}
		deleted, err := tx.Delete(db, it.key)
		if err != nil {
			return err
		}
		if deleted {
			tx.Notify(notify.Generic, "del", db, it.key)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	x.srv.keysModified(tx, x.cl)
	return nil
}

// MIGRATE's connections are cached per host:port, as Redis caches them,
// and closed after migrateIdle without use.
const (
	migrateCacheItems = 64
	migrateIdle       = 10 * time.Second
	// migrateLineMax is the longest reply line kept, as Redis reads the
	// target's replies into 1 KiB buffers.
	migrateLineMax = 1023
)

// migrateConn is a connection to a MIGRATE target.
type migrateConn struct {
	conn net.Conn
	r    *bufio.Reader
	// lastDB is the database selected on the target, -1 when unknown.
	lastDB  int64
	lastUse time.Time
}

// migrateCache holds the idle connections. A MIGRATE takes its target's
// connection out while it uses it, so concurrent MIGRATEs to one target
// each get their own, and puts it back when done.
type migrateCache struct {
	mu     sync.Mutex
	idle   map[string]*migrateConn
	timer  *time.Timer
	closed bool
}

// cached is how many connections wait in the cache (INFO's
// migrate_cached_sockets).
func (mc *migrateCache) cached() int {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	return len(mc.idle)
}

func (mc *migrateCache) take(name string) *migrateConn {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	c := mc.idle[name]
	delete(mc.idle, name)
	return c
}

func (mc *migrateCache) put(name string, c *migrateConn) {
	c.lastUse = time.Now()
	mc.mu.Lock()
	defer mc.mu.Unlock()
	if mc.closed || mc.idle[name] != nil {
		_ = c.conn.Close()
		return
	}
	if mc.idle == nil {
		mc.idle = map[string]*migrateConn{}
	}
	if len(mc.idle) >= migrateCacheItems {
		// Too many: drop one at random, as Redis does.
		n := rand.IntN(len(mc.idle))
		for k, old := range mc.idle {
			if n == 0 {
				_ = old.conn.Close()
				delete(mc.idle, k)
				break
			}
			n--
		}
	}
	mc.idle[name] = c
	if mc.timer == nil {
		mc.timer = time.AfterFunc(migrateIdle, mc.sweep)
	}
}

// sweep closes the connections idle for longer than migrateIdle, and
// comes back while any is left.
func (mc *migrateCache) sweep() {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	mc.timer = nil
	if mc.closed {
		return
	}
	next := time.Duration(-1)
	for k, c := range mc.idle {
		idle := time.Since(c.lastUse)
		if idle >= migrateIdle {
			_ = c.conn.Close()
			delete(mc.idle, k)
			continue
		}
		if left := migrateIdle - idle; next < 0 || left < next {
			next = left
		}
	}
	if next >= 0 {
		mc.timer = time.AfterFunc(next+time.Millisecond, mc.sweep)
	}
}

// close closes every cached connection; later ones are closed when put.
func (mc *migrateCache) close() {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	mc.closed = true
	if mc.timer != nil {
		mc.timer.Stop()
		mc.timer = nil
	}
	for k, c := range mc.idle {
		_ = c.conn.Close()
		delete(mc.idle, k)
	}
}

// Idle reports how many MIGRATE connections are cached, for tests.
func (mc *migrateCache) size() int {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	return len(mc.idle)
}

// send moves items to the target of a and returns those it acknowledged,
// and the error to reply with ("" for OK). It follows Redis's
// migrateCommand: on a socket error before any reply it reconnects and
// tries once more, unless the error was a timeout.
func (mc *migrateCache) send(a migrateArgs, items []migrateItem, restores []byte) ([]migrateItem, string) {
	name := a.host + ":" + a.port
	for attempt := 0; ; attempt++ {
		c := mc.take(name)
		if c == nil {
			conn, err := net.DialTimeout("tcp", net.JoinHostPort(a.host, a.port), a.timeout)
			var dnsErr *net.DNSError
			var addrErr *net.AddrError
			switch {
			case errors.As(err, &dnsErr), errors.As(err, &addrErr):
				return nil, "IOERR error or timeout connecting to the client"
			case err != nil:
				// Redis connects without blocking and learns of a refused
				// or timed-out connection only when it writes.
				if attempt == 0 && !isNetTimeout(err) {
					continue
				}
				return nil, "IOERR error or timeout writing to target instance"
			}
			c = &migrateConn{conn: conn, r: bufio.NewReaderSize(conn, 4096), lastDB: -1}
		}
		acked, errMsg, retry, keep := c.exchange(a, items, restores, attempt == 0)
		if keep {
			mc.put(name, c)
		} else {
			_ = c.conn.Close()
		}
		if !retry {
			return acked, errMsg
		}
	}
}

// exchange sends the AUTH, SELECT and RESTORE commands and reads their
// replies. retry asks for another attempt on a new connection (allowed
// when mayRetry); keep says whether the connection may be used again.
func (c *migrateConn) exchange(a migrateArgs, items []migrateItem, restores []byte, mayRetry bool) (acked []migrateItem, errMsg string, retry, keep bool) {
	var cmd []byte
	if a.auth {
		if a.user != nil {
			cmd = resp.AppendCommand(cmd, []byte("AUTH"), a.user, a.pass)
		} else {
			cmd = resp.AppendCommand(cmd, []byte("AUTH"), a.pass)
		}
	}
	selecting := c.lastDB != a.db
	if selecting {
		cmd = resp.AppendCommand(cmd, []byte("SELECT"), strconv.AppendInt(nil, a.db, 10))
	}
	socketErr := func(err error, writing bool) ([]migrateItem, string, bool, bool) {
		if mayRetry && !isNetTimeout(err) {
			return nil, "", true, false
		}
		if writing {
			return nil, "IOERR error or timeout writing to target instance", false, false
		}
		return nil, "IOERR error or timeout reading to target instance", false, false
	}
	for _, buf := range [][]byte{cmd, restores} {
		for pos := 0; pos < len(buf); {
			n := min(len(buf)-pos, 64<<10)
			_ = c.conn.SetWriteDeadline(time.Now().Add(a.timeout))
			if _, err := c.conn.Write(buf[pos : pos+n]); err != nil {
				return socketErr(err, true)
			}
			pos += n
		}
	}
	var authReply, selectReply []byte
	var err error
	if a.auth {
		if authReply, err = c.readLine(a.timeout); err != nil {
			return socketErr(err, false)
		}
	}
	if selecting {
		if selectReply, err = c.readLine(a.timeout); err != nil {
			return socketErr(err, false)
		}
	}
	for j := range items {
		line, err := c.readLine(a.timeout)
		if err != nil {
			if errMsg == "" && j == 0 && mayRetry && !isNetTimeout(err) {
				return nil, "", true, false
			}
			if errMsg == "" {
				errMsg = "IOERR error or timeout reading to target instance"
			}
			return acked, errMsg, false, false
		}
		var bad []byte
		switch {
		case a.auth && len(authReply) > 0 && authReply[0] == '-':
			bad = authReply
		case selecting && len(selectReply) > 0 && selectReply[0] == '-':
			bad = selectReply
		case len(line) > 0 && line[0] == '-':
			bad = line
		}
		if bad != nil {
			if errMsg == "" {
				errMsg = "ERR Target instance replied with error: " + string(bad[1:])
			}
			continue
		}
		acked = append(acked, items[j])
	}
	if errMsg != "" {
		c.lastDB = -1
	} else {
		c.lastDB = a.db
	}
	return acked, errMsg, false, true
}

// readLine reads one reply line without its CRLF, keeping at most
// migrateLineMax bytes of it.
func (c *migrateConn) readLine(timeout time.Duration) ([]byte, error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(timeout))
	var line []byte
	for {
		part, err := c.r.ReadSlice('\n')
		if len(line) < migrateLineMax {
			line = append(line, part[:min(len(part), migrateLineMax-len(line))]...)
		}
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
	line = bytes.TrimRight(line, "\r\n")
	if len(line) == 0 {
		return nil, errors.New("migrate: empty reply line")
	}
	return line, nil
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// listensOn reports whether host:port reaches one of the server's own
// listeners: the same port on an address the listener takes (its own, or
// any local address for a wildcard listener).
func (srv *Server) listensOn(host, port string) bool {
	srv.mu.Lock()
	var addrs []*net.TCPAddr
	for _, ln := range srv.listeners {
		if ta, ok := ln.Addr().(*net.TCPAddr); ok {
			addrs = append(addrs, ta)
		}
	}
	srv.mu.Unlock()
	p, err := strconv.Atoi(port)
	if err != nil || len(addrs) == 0 {
		return false
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return false
	}
	for _, la := range addrs {
		if la.Port != p {
			continue
		}
		for _, ip := range ips {
			if la.IP.Equal(ip) || (la.IP.IsUnspecified() && isLocalIP(ip)) {
				return true
			}
		}
	}
	return false
}

// isLocalIP reports whether ip is one of this machine's addresses.
func isLocalIP(ip net.IP) bool {
	if ip.IsLoopback() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
