package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/rdbimport"
	"github.com/cairndb/cairn/internal/replication"
	"github.com/cairndb/cairn/internal/script"
)

// Replication, the server's side. REPLICAOF makes Cairn a read-only
// replica of a Redis master (package replication runs the link; replHost
// below is how it reaches the data): its clients' writes get READONLY,
// and while the master's RDB loads every command not allowed during a
// load gets LOADING. REPLICAOF NO ONE promotes it and keeps the data.
//
// Cairn as a master serves snapshots only: SYNC and PSYNC get the RDB of
// one consistent view of the data (the form redis-cli --rdb and
// --functions-rdb ask for), then the connection is closed. No command
// stream follows, so a Redis replica cannot follow Cairn.

func replicationCommands() []cmdEntry {
	e := []cmdEntry{
		def("replicaof", 3, admin|noscript|stale|command.NoAsyncLoading, noKeys, 0, "server", "5.0.0", "Configures a server as replica of another, or promotes it to a master.", cmdReplicaOf),
		def("slaveof", 3, admin|noscript|stale|command.NoAsyncLoading, noKeys, 0, "server", "1.0.0", "Sets a Redis server as a replica of another, or promotes it to being a master.", cmdReplicaOf),
		def("role", 1, noscript|loading|stale|fast, noKeys, command.CatAdmin|command.CatDangerous, "server", "2.8.12", "Returns the replication role.", cmdRole),
		def("replconf", -1, admin|noscript|loading|stale|command.AllowBusy, noKeys, 0, "server", "3.0.0", "An internal command for configuring the replication stream.", cmdReplconf),
		def("sync", 1, admin|noscript|command.NoMulti|command.NoAsyncLoading, noKeys, 0, "server", "1.0.0", "An internal command used in replication.", cmdSync),
		def("psync", -3, admin|noscript|command.NoMulti|command.NoAsyncLoading, noKeys, 0, "server", "2.8.0", "An internal command used in replication.", cmdSync),
	}
	for i := range e {
		switch e[i].spec.Name {
		case "slaveof":
			e[i].spec.DocFlags = command.DocDeprecated
			e[i].spec.DeprecatedSince = "5.0.0"
			e[i].spec.ReplacedBy = "`REPLICAOF`"
		case "replconf":
			e[i].spec.DocFlags = command.DocSysCmd
		}
	}
	return e
}

// replState is the server's replication role.
type replState struct {
	mu      sync.Mutex
	replica *replication.Replica // nil while a master
	host    *replHost
	// The server's own history as a master (INFO's master_replid ...):
	// a new ID at start and at each promotion, the former master's kept
	// as the second.
	replID, replID2      string
	offset, secondOffset int64

	// active is set while a replica, loading while the master's RDB
	// loads, master is the client applying the master's stream.
	active  atomic.Bool
	loading atomic.Bool
	master  atomic.Pointer[client]
}

// replClient is what REPLCONF told about a connection that will SYNC.
type replClient struct {
	eof           bool // capa eof: the transfer may end with a mark
	rdbOnly       bool
	noKeys, noFns bool // rdb-filter-only
	listeningPort int64
}

func newReplID() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// initReplication gives the server its replication ID and starts the
// replica the replicaof setting names.
func (s *Server) initReplication() {
	s.repl.replID = newReplID()
	s.repl.replID2 = strings.Repeat("0", 40)
	s.repl.secondOffset = -1
	if w := s.cfg.ReplicaOf(); len(w) == 2 && s.st != nil {
		port, _ := strconv.Atoi(w[1])
		s.repl.mu.Lock()
		s.startReplicaLocked(w[0], port)
		s.repl.mu.Unlock()
	}
}

// stopReplication ends the link at shutdown.
func (s *Server) stopReplication() {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	if s.repl.replica != nil {
		s.stopReplicaLocked()
	}
}

// startReplicaLocked starts replicating host:port. A replica of another
// master keeps its position, which the new master may continue.
func (s *Server) startReplicaLocked(host string, port int) {
	from := replication.Position{}
	if s.repl.replica != nil {
		from = s.stopReplicaLocked()
	}
	h := &replHost{s: s}
	h.mc = s.newMasterClient(host, port, 0)
	s.repl.host = h
	s.repl.active.Store(true)
	s.repl.replica = replication.Start(replication.Config{
		Host: host, Port: port,
		ListeningPort: s.cfg.Port,
		Auth:          func() (string, string) { return s.cfg.MasterUser(), s.cfg.MasterAuth() },
		Dir:           s.cfg.Dir,
		Log:           s.log,
		Databases:     s.st.Databases(),
	}, h, from)
}

// stopReplicaLocked stops the link and returns its position. The master
// client is killed first, so a command of the master's waiting for a
// CLIENT PAUSE gives up instead of holding the stop.
func (s *Server) stopReplicaLocked() replication.Position {
	if mc := s.repl.master.Load(); mc != nil {
		mc.kill()
	}
	pos := s.repl.replica.Stop()
	s.repl.host.close()
	return pos
}

// promote ends replication (REPLICAOF NO ONE): the data stays, and the
// server starts a history of its own, the master's kept as the second.
func (s *Server) promote() bool {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	if s.repl.replica == nil {
		return false
	}
	pos := s.stopReplicaLocked()
	s.repl.replica, s.repl.host = nil, nil
	s.repl.master.Store(nil)
	s.repl.active.Store(false)
	s.cfg.SetReplicaOf(nil)
	if pos.Valid() {
		s.repl.replID2, s.repl.offset, s.repl.secondOffset = pos.ReplID, pos.Offset, pos.Offset+1
	} else {
		s.repl.replID2, s.repl.secondOffset = strings.Repeat("0", 40), -1
	}
	s.repl.replID = newReplID()
	return true
}

// replicaError is why a replica refuses a client's command, "" to run it:
// READONLY for a write (replica-read-only), LOADING for a command not
// allowed while the master's dataset loads. The master's own commands
// always run.
func (s *Server) replicaError(c *client, spec *command.Spec) string {
	if !s.repl.active.Load() || c == s.repl.master.Load() {
		return ""
	}
	if spec.Flags&command.Write != 0 && s.cfg.ReplicaReadOnly() {
		return "READONLY You can't write against a read only replica."
	}
	if s.repl.loading.Load() && spec.Flags&command.Loading == 0 {
		return "LOADING Redis is loading the dataset in memory"
	}
	return ""
}

// replicaRefusesWrite reports whether a script's write on behalf of c is
// refused as READONLY.
func (s *Server) replicaRefusesWrite(c *client) bool {
	return s.repl.active.Load() && c != s.repl.master.Load() && s.cfg.ReplicaReadOnly()
}

// isMasterClient reports whether c applies the master's stream: its
// pipelined writes commit when the stream pauses (replHost.Sync), not
// per command.
func (s *Server) isMasterClient(c *client) bool { return c == s.repl.master.Load() }

// maxStringLen is the longest string a command may make or address
// (SETBIT and BITFIELD offsets, SETRANGE, APPEND): proto-max-bulk-len,
// except for the master's stream, which a replica applies whatever its own
// limit, as Redis's mustObeyClient exempts the master client.
func (x *ctx) maxStringLen() int64 {
	if x.srv.isMasterClient(x.cl) {
		return math.MaxInt64
	}
	return x.srv.cfg.ProtoMaxBulkLen()
}

// replHost is the server as package replication sees it. Its methods are
// called from the replication goroutine only.
type replHost struct {
	s       *Server
	mc      *client
	unknown int64
}

// newMasterClient builds the client that runs the master's commands: no
// connection (replies go nowhere), authenticated, in database db.
func (s *Server) newMasterClient(host string, port, db int) *client {
	c := newClient(s, nullConn{remote: replAddr(net.JoinHostPort(host, strconv.Itoa(port)))})
	c.authed.Store(true)
	// The master's commands are not the default user's to refuse.
	c.user.Store(s.acl.users.Superuser())
	c.reply.off = true
	c.db.Store(int64(db))
	s.repl.master.Store(c)
	// Listed by CLIENT LIST (flags=M, TYPE master), and CLIENT KILL drops
	// the link, as in Redis.
	s.mu.Lock()
	s.clients[c.id] = c
	s.mu.Unlock()
	return c
}

// errMasterKilled drops the link when the master client is killed.
var errMasterKilled = errors.New("the master client was killed (CLIENT KILL)")

func (h *replHost) Apply(args [][]byte) error {
	s, c := h.s, h.mc
	if c.killed.Load() {
		return errMasterKilled
	}
	if s.table.Lookup(args[0]) == nil {
		h.unknown++
		if h.unknown <= 10 || h.unknown%1000 == 0 {
			s.log.Warn("command from the master unknown to Cairn; not applied", "command", cstr(string(args[0])), "count", h.unknown)
		}
		return nil
	}
	c.outMu.Lock()
	defer c.outMu.Unlock()
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic applying a command from the master; the replica may differ from it", "command", string(args[0]), "panic", p)
			if c.pipe != nil {
				c.pipe.Close()
				c.pipe = nil
			}
		}
	}()
	s.dispatch(c, args)
	return nil
}

func (h *replHost) Sync() {
	s, c := h.s, h.mc
	c.outMu.Lock()
	defer c.outMu.Unlock()
	s.commitPipeline(c)
	if c.needSync {
		// Under appendfsync always the master's writes are durable
		// before they are acknowledged.
		if err := s.st.SyncWAL(); err != nil {
			s.log.Error("syncing the master's writes", "err", err)
		}
		c.needSync = false
	}
}

// ResetClient drops the master client's half-received transaction. Its
// selected database stays: after +CONTINUE the master does not repeat
// SELECT, and after a full resync it always sends one first.
func (h *replHost) ResetClient() {
	db := int(h.mc.db.Load())
	h.close()
	host, port, _ := net.SplitHostPort(h.mc.raddr)
	p, _ := strconv.Atoi(port)
	h.mc = h.s.newMasterClient(host, p, db)
}

// close commits what the master client applied, ends its transaction and
// unlists it.
func (h *replHost) close() {
	h.Sync()
	c := h.mc
	if c.multi != nil {
		h.s.endMulti(c)
	}
	h.s.mu.Lock()
	if h.s.clients[c.id] == c {
		delete(h.s.clients, c.id)
	}
	h.s.mu.Unlock()
}

// LoadRDB replaces the dataset with the master's, answering LOADING
// meanwhile.
func (h *replHost) LoadRDB(r io.Reader, size int64) error {
	s := h.s
	s.repl.loading.Store(true)
	defer s.repl.loading.Store(false)
	if err := s.flushForSync(); err != nil {
		return err
	}
	stats, err := rdbimport.Import(r, s.st, rdbimport.Options{Size: size})
	codes, ferr := s.st.FunctionLibraries()
	if ferr == nil {
		ferr = s.scripts.RestoreLibraries(context.Background(), codes, script.RestoreAppend)
	}
	if ferr != nil {
		s.log.Error("loading the master's function libraries", "err", ferr)
	}
	if err != nil {
		return err
	}
	s.log.Info("MASTER <-> REPLICA sync: loaded the master's data", "keys", stats.Keys, "expired", stats.Expired,
		"functions", stats.Functions, "took", stats.Duration.Round(time.Millisecond))
	for name, n := range stats.Skipped {
		s.log.Warn("keys of the master not supported by Cairn were skipped", "type", name, "keys", n)
	}
	return nil
}

// flushForSync empties every database and the function libraries before
// a full resync loads the master's.
func (s *Server) flushForSync() error {
	tx := s.st.BeginAll()
	defer tx.Close()
	if err := s.watches.touchFlushed(tx, -1, -1); err != nil {
		return err
	}
	if err := tx.FlushAll(); err != nil {
		return err
	}
	if err := tx.FlushFunctionLibraries(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("flushing the old data: %w", err)
	}
	s.keysModified(tx, nil)
	s.invalidateAll()
	s.scripts.FlushLibraries()
	return nil
}

// nullConn is the master client's connection: replies written to it go
// nowhere, and it has nothing to read.
type nullConn struct{ remote net.Addr }

func (nullConn) Read([]byte) (int, error)         { return 0, io.EOF }
func (nullConn) Write(p []byte) (int, error)      { return len(p), nil }
func (nullConn) Close() error                     { return nil }
func (nullConn) LocalAddr() net.Addr              { return replAddr("") }
func (n nullConn) RemoteAddr() net.Addr           { return n.remote }
func (nullConn) SetDeadline(time.Time) error      { return nil }
func (nullConn) SetReadDeadline(time.Time) error  { return nil }
func (nullConn) SetWriteDeadline(time.Time) error { return nil }
func (replAddr) Network() string                  { return "tcp" }
func (a replAddr) String() string                 { return string(a) }

var _ net.Conn = nullConn{}

type replAddr string

func cmdReplicaOf(x *ctx) {
	s := x.srv
	if optIs(x.arg(1), "NO") && optIs(x.arg(2), "ONE") {
		if s.promote() {
			s.log.Info("MASTER MODE enabled (user request from '" + x.cl.describe(nil) + "')")
		}
		x.ok()
		return
	}
	port, ok := rconv.ParseInt(x.arg(2))
	if !ok || port < 0 || port > 65535 {
		x.errorReply("ERR Invalid master port")
		return
	}
	host := string(x.arg(1))
	s.repl.mu.Lock()
	if r := s.repl.replica; r != nil {
		if h, p := r.Master(); strings.EqualFold(h, host) && p == int(port) {
			s.repl.mu.Unlock()
			s.log.Info("REPLICAOF would result into synchronization with the master we are already connected with. No operation performed.")
			x.w.SimpleString("OK Already connected to specified master")
			return
		}
	}
	s.startReplicaLocked(host, int(port))
	s.cfg.SetReplicaOf([]string{host, strconv.FormatInt(port, 10)})
	s.repl.mu.Unlock()
	s.log.Info(fmt.Sprintf("REPLICAOF %s:%d enabled (user request from '%s')", host, port, x.cl.describe(nil)))
	x.ok()
}

// replicaStatus is the replica's state, ok false while a master.
func (s *Server) replicaStatus() (st replication.Status, ok bool) {
	s.repl.mu.Lock()
	r := s.repl.replica
	s.repl.mu.Unlock()
	if r == nil {
		return st, false
	}
	return r.Status(), true
}

func cmdRole(x *ctx) {
	st, replica := x.srv.replicaStatus()
	if !replica {
		x.w.Array(3)
		x.w.BulkString("master")
		x.w.Int(x.srv.masterOffset())
		x.w.Array(0)
		return
	}
	x.w.Array(5)
	x.w.BulkString("slave")
	x.w.BulkString(st.Host)
	x.w.Int(int64(st.Port))
	x.w.BulkString(st.State.String())
	off := int64(-1)
	if st.State == replication.StateConnected {
		off = st.Offset
	}
	x.w.Int(off)
}

// masterOffset is master_repl_offset while a master.
func (s *Server) masterOffset() int64 {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	return s.repl.offset
}

// replicationInfo is INFO's replication section, Redis's fields.
func (s *Server) replicationInfo() [][2]string {
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	st, replica := s.replicaStatus()
	s.repl.mu.Lock()
	replID, replID2, offset, second := s.repl.replID, s.repl.replID2, s.repl.offset, s.repl.secondOffset
	s.repl.mu.Unlock()
	now := time.Now()
	ago := func(t time.Time) string {
		if t.IsZero() {
			return "-1"
		}
		return itoa(int64(now.Sub(t).Seconds()))
	}
	if !replica {
		return append([][2]string{{"role", "master"}, {"connected_slaves", "0"}}, replHistory(replID, replID2, offset, second)...)
	}
	up := st.State == replication.StateConnected
	lastIO := "-1"
	if up {
		lastIO = ago(st.LastIO)
	}
	read, proc := int64(1), int64(1)
	if st.Synced {
		read, proc = st.ReadOffset, st.Offset
		replID, offset = st.ReplID, st.Offset
	}
	link := "down"
	if up {
		link = "up"
	}
	out := [][2]string{
		{"role", "slave"},
		{"master_host", st.Host},
		{"master_port", strconv.Itoa(st.Port)},
		{"master_link_status", link},
		{"master_last_io_seconds_ago", lastIO},
		{"master_sync_in_progress", strconv.Itoa(boolToInt(st.State == replication.StateTransfer))},
		{"slave_read_repl_offset", itoa(read)},
		{"slave_repl_offset", itoa(proc)},
	}
	if st.State == replication.StateTransfer {
		perc := 0.0
		if st.TransferSize > 0 {
			perc = float64(st.TransferRead) / float64(st.TransferSize) * 100
		}
		out = append(out,
			[2]string{"master_sync_total_bytes", itoa(st.TransferSize)},
			[2]string{"master_sync_read_bytes", itoa(st.TransferRead)},
			[2]string{"master_sync_left_bytes", itoa(st.TransferSize - st.TransferRead)},
			[2]string{"master_sync_perc", fmt.Sprintf("%.2f", perc)},
			[2]string{"master_sync_last_io_seconds_ago", ago(st.TransferLastIO)})
	}
	if !up {
		out = append(out, [2]string{"master_link_down_since_seconds", ago(st.DownSince)})
	}
	out = append(out,
		[2]string{"slave_priority", "100"},
		[2]string{"slave_read_only", strconv.Itoa(boolToInt(s.cfg.ReplicaReadOnly()))},
		[2]string{"replica_announced", "1"},
		[2]string{"connected_slaves", "0"})
	return append(out, replHistory(replID, replID2, offset, second)...)
}

func replHistory(replID, replID2 string, offset, second int64) [][2]string {
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	return [][2]string{
		{"master_failover_state", "no-failover"},
		{"master_replid", replID},
		{"master_replid2", replID2},
		{"master_repl_offset", itoa(offset)},
		{"second_repl_offset", itoa(second)},
		// Cairn keeps no backlog: it serves snapshots, not streams.
		{"repl_backlog_active", "0"},
		{"repl_backlog_size", "1048576"},
		{"repl_backlog_first_byte_offset", "0"},
		{"repl_backlog_histlen", "0"},
	}
}

// helloRole is HELLO's role field.
func (s *Server) helloRole() string {
	if s.repl.active.Load() {
		return "replica"
	}
	return "master"
}

func cmdReplconf(x *ctx) {
	if len(x.args)%2 == 0 {
		x.syntaxError()
		return
	}
	c := x.cl
	for j := 1; j < len(x.args); j += 2 {
		v := x.arg(j + 1)
		switch {
		case optIs(x.arg(j), "LISTENING-PORT"):
			port, ok := rconv.ParseInt(v)
			if !ok {
				x.notInteger()
				return
			}
			c.replconf.listeningPort = port
		case optIs(x.arg(j), "IP-ADDRESS"):
			if len(v) >= 46 {
				x.errorReply(fmt.Sprintf("ERR REPLCONF ip-address provided by replica instance is too long: %d bytes", len(v)))
				return
			}
		case optIs(x.arg(j), "CAPA"):
			if optIs(v, "EOF") {
				c.replconf.eof = true
			}
		case optIs(x.arg(j), "ACK"), optIs(x.arg(j), "GETACK"):
			// Meant for a replica streaming from its master: nothing to
			// answer here, as Redis answers nothing.
			return
		case optIs(x.arg(j), "RDB-ONLY"):
			n, ok := rconv.ParseInt(v)
			if !ok {
				x.notInteger()
				return
			}
			if n < 0 || n > 1 {
				x.errorReply("ERR value is out of range, value must between 0 and 1")
				return
			}
			c.replconf.rdbOnly = n == 1
		case optIs(x.arg(j), "RDB-FILTER-ONLY"):
			noKeys, noFns := true, true
			for _, f := range strings.Fields(string(v)) {
				if !strings.EqualFold(f, "functions") {
					x.errorReply("ERR Unsupported rdb-filter-only option: " + f)
					return
				}
				noFns = false
			}
			c.replconf.noKeys, c.replconf.noFns = noKeys, noFns
		default:
			x.errorReply("ERR Unrecognized REPLCONF option: " + cstr(string(x.arg(j))))
			return
		}
	}
	x.ok()
}

// cmdSync serves SYNC and PSYNC: the RDB of one consistent view of the
// data, then the connection closes. PSYNC never continues (Cairn keeps no
// backlog): it answers +FULLRESYNC first. With capa eof the RDB streams
// as it is written ("$EOF:<mark>"); otherwise it is written to a
// temporary file in dir first, for its length.
func cmdSync(x *ctx) {
	s, c := x.srv, x.cl
	if st, replica := s.replicaStatus(); replica && st.State != replication.StateConnected {
		x.errorReply("NOMASTERLINK Can't SYNC while not connected with my master")
		return
	}
	opts := c.replconf
	if !opts.rdbOnly {
		s.log.Warn("a replica asked for the replication stream; Cairn sends only a snapshot and closes the connection", "client", c.describe(nil))
	}
	if len(x.args) == 3 { // PSYNC
		s.repl.mu.Lock()
		id, off := s.repl.replID, s.repl.offset
		s.repl.mu.Unlock()
		x.w.Raw([]byte("+FULLRESYNC " + id + " " + strconv.FormatInt(off, 10) + "\r\n"))
	}
	c.quit = true
	if err := x.w.Flush(); err != nil {
		return
	}
	c.waitQueued()
	if err := s.sendRDB(c.nc, opts); err != nil {
		s.log.Warn("sending the RDB to a replica failed", "client", c.describe(nil), "err", err)
		return
	}
	s.log.Info("Synchronization with replica succeeded (snapshot sent; closing the connection)", "client", c.describe(nil))
}

// sendRDB writes the snapshot to a replica's connection in the form it
// announced.
func (s *Server) sendRDB(w io.Writer, opts replClient) error {
	if opts.eof {
		mark := newReplID()
		if _, err := io.WriteString(w, "$EOF:"+mark+"\r\n"); err != nil {
			return err
		}
		if err := writeSnapshotOf(w, s.st, !opts.noKeys, !opts.noFns); err != nil {
			return err
		}
		_, err := io.WriteString(w, mark)
		return err
	}
	dir := s.cfg.Dir()
	f, err := os.CreateTemp(dir, "temp-sync-*.rdb")
	if err != nil {
		return fmt.Errorf("opening a temporary RDB file in %s: %w", dir, err)
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}()
	if err := writeSnapshotOf(f, s.st, !opts.noKeys, !opts.noFns); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Base(f.Name()), err)
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "$"+strconv.FormatInt(size, 10)+"\r\n"); err != nil {
		return err
	}
	_, err = io.Copy(w, f)
	return err
}
