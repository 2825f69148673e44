package server

import (
	"strings"

	"github.com/cairndb/cairn/internal/acl"
	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/rconv"
)

const conn = command.CatConnection

func connectionCommands() []cmdEntry {
	return []cmdEntry{
		withTips(def("ping", -1, fast, noKeys, conn, "connection", "1.0.0", "Returns the server's liveliness response.", cmdPing),
			"request_policy:all_shards", "response_policy:all_succeeded"),
		def("echo", 2, loading|stale|fast, noKeys, conn, "connection", "1.0.0", "Returns the given string.", cmdEcho),
		def("quit", -1, noscript|noauth|loading|stale|fast|command.AllowBusy, noKeys, conn, "connection", "1.0.0", "Closes the connection.", cmdQuit),
		def("reset", 1, noscript|noauth|loading|stale|fast|command.AllowBusy, noKeys, conn, "connection", "6.2.0", "Resets the connection.", cmdReset),
		def("hello", -1, noscript|noauth|loading|stale|fast|command.AllowBusy, noKeys, conn, "connection", "6.0.0", "Handshakes with the Redis server.", cmdHello),
		def("auth", -2, noscript|noauth|loading|stale|fast|command.AllowBusy, noKeys, conn, "connection", "1.0.0", "Authenticates the connection.", cmdAuth),
		def("select", 2, loading|stale|fast, noKeys, conn, "connection", "1.0.0", "Changes the selected database.", cmdSelect),
		container("client", "connection", "2.4.0", "A container for client connection commands.", 0,
			def("client|id", 2, noscript|loading|stale, noKeys, conn, "connection", "5.0.0", "Returns the unique client ID of the connection.", cmdClientID),
			def("client|setname", 3, noscript|loading|stale, noKeys, conn, "connection", "2.6.9", "Sets the connection name.", cmdClientSetName),
			def("client|getname", 2, noscript|loading|stale, noKeys, conn, "connection", "2.6.9", "Returns the name of the connection.", cmdClientGetName),
			withTips(def("client|list", -2, admin|noscript|loading|stale, noKeys, conn, "connection", "2.4.0", "Lists open connections.", cmdClientList), tipOutput),
			withTips(def("client|info", 2, noscript|loading|stale, noKeys, conn, "connection", "6.2.0", "Returns information about the connection.", cmdClientInfo), tipOutput),
			def("client|kill", -3, admin|noscript|loading|stale, noKeys, conn, "connection", "2.4.0", "Terminates open connections.", cmdClientKill),
			def("client|setinfo", 4, noscript|loading|stale, noKeys, conn, "connection", "7.2.0", "Sets information specific to the client or connection.", cmdClientSetInfo),
			def("client|tracking", -3, noscript|loading|stale, noKeys, conn, "connection", "6.0.0", "Controls server-assisted client-side caching for the connection.", cmdClientTracking),
			def("client|caching", 3, noscript|loading|stale, noKeys, conn, "connection", "6.0.0", "Instructs the server whether to track the keys in the next request.", cmdClientCaching),
			def("client|getredir", 2, noscript|loading|stale, noKeys, conn, "connection", "6.0.0", "Returns the client ID to which the connection's tracking notifications are redirected.", cmdClientGetRedir),
			def("client|trackinginfo", 2, noscript|loading|stale, noKeys, conn, "connection", "6.2.0", "Returns information about server-assisted client-side caching for the connection.", cmdClientTrackingInfo),
			def("client|reply", 3, noscript|loading|stale, noKeys, conn, "connection", "3.2.0", "Instructs the server whether to reply to commands.", cmdClientReply),
			def("client|unblock", -3, admin|noscript|loading|stale, noKeys, conn, "connection", "5.0.0", "Unblocks a client blocked by a blocking command from a different connection.", cmdClientUnblock),
			def("client|pause", -3, admin|noscript|loading|stale, noKeys, conn, "connection", "3.0.0", "Suspends commands processing.", cmdClientPause),
			def("client|unpause", 2, admin|noscript|loading|stale, noKeys, conn, "connection", "6.2.0", "Resumes processing commands from paused clients.", cmdClientUnpause),
			def("client|no-evict", 3, admin|noscript|loading|stale, noKeys, conn, "connection", "7.0.0", "Sets the client eviction mode of the connection.", cmdClientNoEvict),
			def("client|no-touch", 3, noscript|loading|stale, noKeys, conn, "connection", "7.2.0", "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.", cmdClientNoTouch),
			def("client|help", 2, loading|stale, noKeys, conn, "connection", "5.0.0", "Returns helpful text about the different subcommands.", cmdClientHelp),
		),
	}
}

func cmdPing(x *ctx) {
	if len(x.args) <= 2 && x.cl.pubsubMode.Load() && !x.cl.resp3.Load() {
		// A RESP2 subscriber's replies must look like its messages.
		x.w.Array(2)
		x.w.BulkString("pong")
		if len(x.args) == 2 {
			x.w.Bulk(x.arg(1))
		} else {
			x.w.BulkString("")
		}
		return
	}
	switch len(x.args) {
	case 1:
		x.w.SimpleString("PONG")
	case 2:
		x.w.Bulk(x.arg(1))
	default:
		x.errorReply("ERR wrong number of arguments for 'ping' command")
	}
}

func cmdEcho(x *ctx) { x.w.Bulk(x.arg(1)) }

func cmdQuit(x *ctx) {
	x.ok()
	x.cl.quit = true
}

func cmdReset(x *ctx) {
	c := x.cl
	x.srv.endMulti(c)
	x.srv.dropSubscriptions(c)
	x.srv.disableTracking(c)
	x.srv.stopMonitor(c)
	c.reply = replyMode{}
	x.w.EndDiscard()
	c.noEvict.Store(false)
	c.noTouch.Store(false)
	c.db.Store(0)
	c.resp3.Store(false)
	x.w.SetProtocol(2)
	c.setDefaultAuth()
	c.mu.Lock()
	c.name = ""
	c.mu.Unlock()
	x.w.SimpleString("RESET")
}

// checkPassword authenticates the connection as an ACL user: it must exist,
// be on, and have pass among its passwords (or nopass). It replies on
// failure, counts it (INFO's acl_access_denied_auth), adds it to the ACL
// LOG as Redis does (so brute force shows there) and logs it; the log is
// rate-limited by the process's handler.
func (x *ctx) checkPassword(user, pass []byte) bool {
	u, ok := x.srv.acl.users.Authenticate(string(user), pass)
	if !ok {
		x.srv.stats.authFailures.Add(1)
		x.srv.acl.log.Add(acl.LogEntry{Reason: acl.DeniedAuth, Context: aclGroupContext(x), Object: string(x.args[0]),
			Username: string(user), ClientInfo: x.cl.describe(nil)}, x.srv.nowMs(), int(min(x.srv.cfg.ACLLogMaxLen(), 1<<30)))
		x.srv.log.Warn("authentication failed", "client", x.cl.id, "addr", x.cl.raddr, "user", string(user))
		x.errorReply("WRONGPASS invalid username-password pair or user is disabled.")
		return false
	}
	x.cl.user.Store(u)
	x.cl.authed.Store(true)
	x.cl.everAuthed.Store(true)
	return true
}

// aclGroupContext is where a command runs for the ACL LOG: inside EXEC it
// is "multi".
func aclGroupContext(x *ctx) acl.Context {
	if x.group != nil && x.group.kind == groupMulti || x.cl.multi != nil {
		return acl.Multi
	}
	return acl.Toplevel
}

// unauthReplyLimit is how many reply bytes may wait for a client that has
// never authenticated while authentication is required: past it the client
// is closed, so that one that pipelines requests without reading cannot
// make the server hold replies. Redis (7.2.8, CVE-2025-21605) allows 1024
// bytes beyond its 16 KiB per-client reply buffer.
const unauthReplyLimit = 16<<10 + 1024

// unauthRepliesPiledUp reports whether c is such a client with more reply
// bytes waiting than unauthReplyLimit, and logs it when so.
func (s *Server) unauthRepliesPiledUp(c *client) bool {
	if c.everAuthed.Load() || !c.authRequired() || c.w.Buffered() <= unauthReplyLimit {
		return false
	}
	s.log.Warn("Closing unauthenticated client whose replies reached the output limit: " + c.describe(nil))
	return true
}

func cmdAuth(x *ctx) {
	switch len(x.args) {
	case 2:
		if x.srv.acl.users.Default().Profile().NoPass() {
			x.errorReply("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
			return
		}
		if x.checkPassword([]byte("default"), x.arg(1)) {
			x.ok()
		}
	case 3:
		if x.checkPassword(x.arg(1), x.arg(2)) {
			x.ok()
		}
	default:
		x.syntaxError()
	}
}

func cmdHello(x *ctx) {
	proto := int64(x.w.Protocol())
	if len(x.args) >= 2 {
		v, ok := rconv.ParseInt(x.arg(1))
		if !ok {
			x.errorReply("ERR Protocol version is not an integer or out of range")
			return
		}
		if v < 2 || v > 3 {
			x.errorReply("NOPROTO unsupported protocol version")
			return
		}
		proto = v
	}
	var user, pass, name []byte
	var setName bool
	for i := 2; i < len(x.args); i++ {
		more := len(x.args) - i - 1
		switch opt := x.arg(i); {
		case optIs(opt, "AUTH") && more >= 2:
			user, pass = x.arg(i+1), x.arg(i+2)
			i += 2
		case optIs(opt, "SETNAME") && more >= 1:
			// Redis rejects a bad name while parsing, before it
			// authenticates: a HELLO that fails leaves the client as it was.
			name, setName = x.arg(i+1), true
			if !validClientName(name) {
				x.errorReply(errClientName)
				return
			}
			i++
		default:
			x.errorReply("ERR Syntax error in HELLO option '" + cstr(x.argStr(i)) + "'")
			return
		}
	}
	if user != nil {
		if !x.checkPassword(user, pass) {
			return
		}
	}
	if x.cl.authRequired() {
		x.errorReply("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if setName {
		x.cl.setName(name)
	}
	x.w.SetProtocol(int(proto))
	x.cl.resp3.Store(proto == 3)
	x.w.Map(7)
	x.w.BulkString("server")
	x.w.BulkString("redis")
	x.w.BulkString("version")
	x.w.BulkString(RedisVersion)
	x.w.BulkString("proto")
	x.w.Int(proto)
	x.w.BulkString("id")
	x.w.Int(x.cl.id)
	x.w.BulkString("mode")
	x.w.BulkString("standalone")
	x.w.BulkString("role")
	x.w.BulkString(x.srv.helloRole())
	x.w.BulkString("modules")
	x.w.Array(0)
}

func cmdSelect(x *ctx) {
	n, ok := x.parseDB(x.arg(1))
	if !ok {
		return
	}
	if x.scriptDB != nil {
		*x.scriptDB = n
	} else {
		x.cl.db.Store(int64(n))
	}
	x.ok()
}

func cmdClientID(x *ctx) { x.w.Int(x.cl.id) }

const errClientName = "ERR Client names cannot contain spaces, newlines or special characters."

// validClientName reports whether name may name a connection (or be a
// library's name or version): printable ASCII without spaces, as Redis
// requires so that CLIENT LIST stays parseable.
func validClientName(name []byte) bool {
	for _, c := range name {
		if c < '!' || c > '~' {
			return false
		}
	}
	return true
}

func (c *client) setName(name []byte) {
	c.mu.Lock()
	c.name = string(name)
	c.mu.Unlock()
}

func cmdClientSetName(x *ctx) {
	if !validClientName(x.arg(2)) {
		x.errorReply(errClientName)
		return
	}
	x.cl.setName(x.arg(2))
	x.ok()
}

func cmdClientGetName(x *ctx) {
	x.cl.mu.Lock()
	name := x.cl.name
	x.cl.mu.Unlock()
	if name == "" {
		x.w.NullBulk()
		return
	}
	x.w.BulkString(name)
}

func cmdClientSetInfo(x *ctx) {
	libName := optIs(x.arg(2), "LIB-NAME")
	if !libName && !optIs(x.arg(2), "LIB-VER") {
		x.errorReply("ERR Unrecognized option '" + cstr(x.argStr(2)) + "'")
		return
	}
	if !validClientName(x.arg(3)) {
		// Redis names the attribute as the client wrote it.
		x.errorReply("ERR " + cstr(x.argStr(2)) + " cannot contain spaces, newlines or special characters.")
		return
	}
	val := x.argStr(3)
	x.cl.mu.Lock()
	if libName {
		x.cl.libName = val
	} else {
		x.cl.libVer = val
	}
	x.cl.mu.Unlock()
	x.ok()
}

func cmdClientInfo(x *ctx) {
	x.w.Verbatim("txt", x.cl.describe(x)+"\n")
}

// cmdClientList takes, as Redis does, either no option, or TYPE with one
// type, or ID with one or more ids; ids are listed in the order given, a
// repeated id as often as it is repeated.
func cmdClientList(x *ctx) {
	var b strings.Builder
	line := func(c *client) {
		b.WriteString(c.describe(x))
		b.WriteByte('\n')
	}
	switch {
	case len(x.args) == 2:
		for _, c := range x.srv.sortedClients() {
			line(c)
		}
	case len(x.args) == 4 && optIs(x.arg(2), "TYPE"):
		typ, ok := clientType(x.arg(3))
		if !ok {
			x.errorReply("ERR Unknown client type '" + cstr(x.argStr(3)) + "'")
			return
		}
		for _, c := range x.srv.sortedClients() {
			if c.hasType(typ) {
				line(c)
			}
		}
	case len(x.args) > 3 && optIs(x.arg(2), "ID"):
		for i := 3; i < len(x.args); i++ {
			id, ok := rconv.ParseInt(x.arg(i))
			if !ok {
				x.errorReply("ERR Invalid client ID")
				return
			}
			if c := x.srv.clientByID(id); c != nil {
				line(c)
			}
		}
	default:
		x.syntaxError()
		return
	}
	x.w.Verbatim("txt", b.String())
}

// clientType reads a CLIENT LIST or KILL TYPE as Redis's
// getClientTypeByName does, returning it in lower case for hasType.
func clientType(arg []byte) (string, bool) {
	switch optName(arg) {
	case "NORMAL":
		return "normal", true
	case "MASTER":
		return "master", true
	case "REPLICA":
		return "replica", true
	case "SLAVE":
		return "slave", true
	case "PUBSUB":
		return "pubsub", true
	}
	return "", false
}

// hasType reports whether the client is of a CLIENT LIST/KILL TYPE (in
// lower case): the client applying a master's stream is "master", one
// with subscriptions "pubsub", every other one "normal". Cairn streams to
// no replicas.
func (c *client) hasType(typ string) bool {
	if c.srv.isMasterClient(c) { // replica.go
		return typ == "master"
	}
	if c.pubsubMode.Load() {
		return typ == "pubsub"
	}
	return typ == "normal"
}

// clientByID returns the connected client with the id, or nil.
func (s *Server) clientByID(id int64) *client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clients[id]
}

func cmdClientKill(x *ctx) {
	if len(x.args) == 3 {
		// The old form: CLIENT KILL addr:port, compared with strcmp.
		addr := cstr(x.argStr(2))
		for _, c := range x.srv.clientList() {
			if c.raddr == addr {
				x.ok()
				if c == x.cl {
					// Killing itself, the client still gets its reply.
					x.cl.quit = true
				} else {
					c.kill()
				}
				return
			}
		}
		x.errorReply("ERR No such client")
		return
	}
	var id int64
	// An empty ADDR or LADDR filter matches no client, as in Redis; the
	// flags tell it from no filter.
	var addr, laddr, typ string
	var byAddr, byLaddr bool
	skipMe := true
	var maxAge int64
	var user *acl.User
	for i := 2; i < len(x.args); i += 2 {
		if i+1 >= len(x.args) {
			x.syntaxError()
			return
		}
		val := x.argStr(i + 1)
		switch optName(x.arg(i)) {
		case "ID":
			n, ok := rconv.ParseInt(x.arg(i + 1))
			if !ok || n <= 0 {
				x.errorReply("ERR client-id should be greater than 0")
				return
			}
			id = n
		case "ADDR":
			// Redis compares addresses with strcmp: up to the NUL.
			addr, byAddr = cstr(val), true
		case "LADDR":
			laddr, byLaddr = cstr(val), true
		case "SKIPME":
			switch {
			case optIs(x.arg(i+1), "YES"):
				skipMe = true
			case optIs(x.arg(i+1), "NO"):
				skipMe = false
			default:
				x.syntaxError()
				return
			}
		case "MAXAGE":
			n, ok := rconv.ParseInt(x.arg(i + 1))
			if !ok {
				x.notInteger()
				return
			}
			maxAge = n
		case "TYPE":
			var ok bool
			if typ, ok = clientType(x.arg(i + 1)); !ok {
				x.errorReply("ERR Unknown client type '" + cstr(val) + "'")
				return
			}
		case "USER":
			if user = x.srv.acl.users.Get(val); user == nil {
				x.errorReply("ERR No such user '" + cstr(val) + "'")
				return
			}
		default:
			x.syntaxError()
			return
		}
	}
	var killed int64
	for _, c := range x.srv.clientList() {
		if (id != 0 && c.id != id) || (byAddr && c.raddr != addr) || (byLaddr && c.laddr != laddr) || (typ != "" && !c.hasType(typ)) || (user != nil && c.user.Load() != user) {
			continue
		}
		if skipMe && c == x.cl {
			continue
		}
		if maxAge > 0 && int64(c.age().Seconds()) < maxAge {
			continue
		}
		if c == x.cl {
			x.cl.quit = true
		} else {
			c.kill()
		}
		killed++
	}
	x.w.Int(killed)
}

func cmdClientHelp(x *ctx) {
	x.helpReply("CLIENT",
		"CACHING (YES|NO)",
		"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
		"GETREDIR",
		"    Return the client ID we are redirecting to when tracking is enabled.",
		"GETNAME",
		"    Return the name of the current connection.",
		"ID",
		"    Return the ID of the current connection.",
		"INFO",
		"    Return information about the current client connection.",
		"KILL <ip:port>",
		"    Kill connection made from <ip:port>.",
		"KILL <option> <value> [<option> <value> [...]]",
		"    Kill connections. Options are:",
		"    * ADDR (<ip:port>|<unixsocket>:0)",
		"      Kill connections made from the specified address",
		"    * LADDR (<ip:port>|<unixsocket>:0)",
		"      Kill connections made to specified local address",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
		"      Kill connections by type.",
		"    * USER <username>",
		"      Kill connections authenticated by <username>.",
		"    * SKIPME (YES|NO)",
		"      Skip killing current connection (default: yes).",
		"    * ID <client-id>",
		"      Kill connections by client id.",
		"    * MAXAGE <maxage>",
		"      Kill connections older than the specified age.",
		"LIST [options ...]",
		"    Return information about client connections. Options:",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
		"      Return clients of specified type.",
		"    * ID <client-id> [<client-id> ...]",
		"      Return clients with the specified IDs.",
		"UNPAUSE",
		"    Stop the current client pause, resuming traffic.",
		"PAUSE <timeout> [WRITE|ALL]",
		"    Suspend all, or just write, clients for <timeout> milliseconds.",
		"REPLY (ON|OFF|SKIP)",
		"    Control the replies sent to the current connection.",
		"SETNAME <name>",
		"    Assign the name <name> to the current connection.",
		"SETINFO <option> <value>",
		"    Set client meta attr. Options are:",
		"    * LIB-NAME: the client lib name.",
		"    * LIB-VER: the client lib version.",
		"UNBLOCK <clientid> [TIMEOUT|ERROR]",
		"    Unblock the specified blocked client.",
		"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
		"         [OPTIN] [OPTOUT] [NOLOOP]",
		"    Control server assisted client side caching.",
		"TRACKINGINFO",
		"    Report tracking status for the current connection.",
		"NO-EVICT (ON|OFF)",
		"    Protect current client connection from eviction.",
		"NO-TOUCH (ON|OFF)",
		"    Will not touch LRU/LFU stats when this mode is on.",
	)
}
