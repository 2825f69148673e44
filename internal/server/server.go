// Package server is Cairn's network front: the listener, one goroutine per
// connection, the command dispatch that checks arity, authentication and
// locks once for every command, and the command handlers, which parse
// arguments into typed calls on the store and turn results into replies.
//
// The server never touches the engine or the encoding directly; the store is
// the only way to the data.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/memtrim"
	"github.com/cairndb/cairn/internal/script"
	"github.com/cairndb/cairn/internal/store"
)

// Version is Cairn's own version, reported by INFO as cairn_version.
const Version = "0.1.0"

// RedisVersion is the Redis version whose behaviour Cairn implements,
// reported as redis_version so clients enable the matching features.
const RedisVersion = "7.2.0"

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("server: closed")

// Server serves the Redis protocol over a store.
type Server struct {
	cfg *config.Config
	st  *store.Store
	log *slog.Logger

	table   *command.Table
	blocked blockers
	// watches are the keys clients WATCH.
	watches watches
	// tracking is the CLIENT TRACKING table.
	tracking tracker
	// scripts runs Lua scripts and functions; runs are those in progress.
	scripts *script.Engine
	runs    scriptRuns
	// pause is CLIENT PAUSE's state.
	pause pauseState
	// durable sends the replies that wait for a WAL sync (appendfsync
	// always).
	durable  durableWriter
	handlers map[*command.Spec]*cmdEntry
	// ps is the pub/sub registry (cmd_pubsub.go).
	ps pubsubState
	// diag is SLOWLOG, MONITOR and the latency monitor (diag.go).
	diag diagState
	// saves is SAVE and BGSAVE's state (cmd_save.go).
	saves saveState
	// migrates caches MIGRATE's connections (cmd_migrate.go).
	migrates migrateCache
	// repl is the replication role (replica.go).
	repl replState
	// trim hands memory back to the system after big bursts (scripts,
	// transactions, connections) have become garbage.
	trim memtrim.Trimmer
	// acl is the users and the ACL LOG (acl.go).
	acl aclState

	mu        sync.Mutex
	listeners []net.Listener
	// tcp are the listeners that follow bind and port (listeners.go),
	// listen opens new ones.
	tcp    []*tcpListener
	listen ListenFunc
	// boundAt is what the plain [0] and TLS [1] listeners were opened on
	// (listenTarget).
	boundAt [2]string
	clients map[int64]*client
	closing bool
	conns   sync.WaitGroup
	nextID  atomic.Int64

	started    time.Time
	configFile string
	runID      string
	stats      serverStats
	// shutdownReq receives a SHUTDOWN command's request; main stops the
	// process.
	shutdownReq chan struct{}
	shutOnce    sync.Once
	// stopOnce starts Shutdown's work once; drained is closed when every
	// connection has ended.
	stopOnce sync.Once
	drained  chan struct{}
	// inst is INFO's instantaneous figures and memory peak (info.go).
	inst instState
}

type serverStats struct {
	connections atomic.Int64
	commands    atomic.Int64
	rejected    atomic.Int64
	// reads and writes count the socket reads that brought requests and
	// the writes of replies (INFO's total_reads_processed and
	// total_writes_processed).
	reads  atomic.Int64
	writes atomic.Int64
	// netIn and netOut count the bytes read from and written to clients
	// (INFO's total_net_input_bytes and total_net_output_bytes).
	netIn, netOut atomic.Int64
	// authFailures counts AUTH and HELLO AUTH refused for a wrong user or
	// password (INFO's acl_access_denied_auth).
	authFailures atomic.Int64
	errors       errorStats
}

// Options configures New.
type Options struct {
	Config     *config.Config
	Store      *store.Store
	Logger     *slog.Logger
	ConfigFile string
}

// New builds a server; call Serve with a listener. It panics if the
// configuration's rename-command directives do not fit the command table;
// Build reports that as an error instead.
func New(o Options) *Server {
	s, err := Build(o)
	if err != nil {
		panic(err)
	}
	return s
}

// Build builds a server, or returns the error of a rename-command
// directive that names no command or a name already taken, as Redis refuses
// to start on one.
func Build(o Options) (*Server, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &Server{
		cfg:         o.Config,
		st:          o.Store,
		log:         o.Logger,
		table:       command.NewTable(),
		handlers:    map[*command.Spec]*cmdEntry{},
		clients:     map[int64]*client{},
		started:     time.Now(),
		configFile:  o.ConfigFile,
		runID:       newRunID(),
		shutdownReq: make(chan struct{}),
	}
	s.durable.s = s
	s.inst.startup = heapObjects()
	s.inst.peak = s.inst.startup
	s.initPubSub()
	s.initScripting()
	if s.st != nil {
		s.st.SetNotify(s.cfg.NotifyKeyspaceEvents())
		s.cfg.OnChange("notify-keyspace-events", func(string) { s.st.SetNotify(s.cfg.NotifyKeyspaceEvents()) })
		// The latency monitor's expire-cycle event: a reaper cycle that
		// took latency-monitor-threshold or longer, as Redis records its
		// active expire cycle.
		s.st.SetExpireCycleObserver(func(took time.Duration) { s.noteLatency("expire-cycle", took) })
		s.applyLFU()
		for _, name := range []string{"maxmemory-policy", "lfu-log-factor", "lfu-decay-time"} {
			s.cfg.OnChange(name, func(string) { s.applyLFU() })
		}
		s.st.SetEventSink(func(tx *store.Tx) {
			// Keys reclaimed for their deadline: WATCH learns of them by the
			// deadline itself (see watchedKey). A client blocked on one runs
			// its command again: an XREADGROUP whose stream expired must
			// fail, as one whose stream was deleted does.
			tx.EachTouched(s.blocked.signal)
			s.invalidateCommitted(tx, nil)
			s.publishEvents(tx)
		})
	}
	for _, group := range [][]cmdEntry{connectionCommands(), serverCommands(), keyspaceCommands(), stringCommands(), bitmapCommands(), hashCommands(), setCommands(), listCommands(), zsetCommands(), sortCommands(), pubsubCommands(), transactionCommands(), scriptingCommands(), dumpCommands(), hllCommands(), geoCommands(), diagCommands(), streamCommands(), streamGroupCommands(), streamInfoCommands(), sortedintCommands(), saveCommands(), migrateCommands(), backupCommands(), replicationCommands(), aclCommands(), debugCommands()} {
		for i := range group {
			withArgs(&group[i])
			s.register(&group[i])
		}
	}
	if err := s.renameCommands(); err != nil {
		return nil, err
	}
	s.initACL()
	// The collections' encoding limits follow the configuration.
	if s.st != nil {
		s.applyEncodingLimits()
		for _, name := range config.EncodingLimitNames {
			s.cfg.OnChange(name, func(string) { s.applyEncodingLimits() })
		}
	}
	s.initReplication()
	// A lower tracking-table-max-keys evicts at once, as Redis's cron does.
	s.cfg.OnChange("tracking-table-max-keys", func(string) { s.enforceTrackingLimit() })
	s.initListen()
	// A new idle timeout applies to clients already waiting for input too.
	s.cfg.OnChange("timeout", func(string) {
		t := s.cfg.Timeout()
		for _, c := range s.clientList() {
			c.rearmIdleTimeout(t)
		}
	})
	return s, nil
}

// applyEncodingLimits hands the configured encoding limits to the store.
func (s *Server) applyEncodingLimits() {
	s.st.SetEncodingLimits(store.EncodingLimits(s.cfg.EncodingLimits()))
}

func newRunID() string {
	var b [20]byte
	f, err := os.Open("/dev/urandom")
	if err == nil {
		_, _ = f.Read(b[:])
		_ = f.Close()
	}
	return fmt.Sprintf("%x", b)
}

// Load reports the commands run and the socket reads that brought them,
// since start or the last CONFIG RESETSTAT (INFO's total_commands_processed
// and total_reads_processed): their ratio is how deeply clients pipeline.
func (s *Server) Load() (commands, reads int64) {
	return s.stats.commands.Load(), s.stats.reads.Load()
}

// ShutdownRequested is closed when a client sends SHUTDOWN.
func (s *Server) ShutdownRequested() <-chan struct{} { return s.shutdownReq }

// Serve accepts connections on ln until Shutdown. It returns
// ErrServerClosed after a clean stop.
func (s *Server) Serve(ln net.Listener) error { return s.serve(ln, nil) }

// serve is Serve's loop; once retired is set (a CONFIG SET of bind or port
// replaced the listener), the listener's closing ends it with nil.
func (s *Server) serve(ln net.Listener, retired *atomic.Bool) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = ln.Close()
		return ErrServerClosed
	}
	s.listeners = append(s.listeners, ln)
	s.mu.Unlock()
	defer s.forgetListener(ln)
	s.startSampling()
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return ErrServerClosed
			}
			if retired != nil && retired.Load() {
				return nil
			}
			if acceptRetriable(err) {
				// Out of descriptors or memory, as net/http's server does:
				// keep serving the clients we have, and try again after a
				// growing pause, until some are freed.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				s.log.Warn("Accepting client connection: "+err.Error(), "retry_in", delay)
				time.Sleep(delay)
				continue
			}
			return fmt.Errorf("accept: %w", err)
		}
		delay = 0
		s.accept(nc)
	}
}

// forgetListener drops a listener that no longer accepts from those
// Shutdown closes.
func (s *Server) forgetListener(ln net.Listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, l := range s.listeners {
		if l == ln {
			s.listeners = append(s.listeners[:i], s.listeners[i+1:]...)
			return
		}
	}
}

// acceptRetriable reports whether an Accept error passes: a timeout, a
// connection reset before it was accepted, or a shortage of descriptors,
// buffers or memory that closing connections will end.
func acceptRetriable(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.EINTR} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func (s *Server) accept(nc net.Conn) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = nc.Close()
		return
	}
	if len(s.clients) >= s.cfg.MaxClients() {
		s.mu.Unlock()
		s.stats.rejected.Add(1)
		go refuse(nc, "-ERR max number of clients reached\r\n")
		return
	}
	if protectedDenied(s.cfg.ProtectedMode(), s.defaultPassword(), nc.RemoteAddr()) {
		s.mu.Unlock()
		s.stats.rejected.Add(1)
		go refuse(nc, deniedProtected)
		return
	}
	c := newClient(s, nc)
	s.clients[c.id] = c
	s.conns.Add(1)
	s.mu.Unlock()
	s.stats.connections.Add(1)
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
		if ka := s.cfg.TCPKeepAlive(); ka > 0 {
			_ = tc.SetKeepAlive(true)
			_ = tc.SetKeepAlivePeriod(ka)
		}
	}
	go c.serve()
}

func (s *Server) forget(c *client) {
	s.mu.Lock()
	delete(s.clients, c.id)
	s.mu.Unlock()
	// What the client held is garbage now: a huge request, or, summed
	// over a storm of connections, their buffers and stacks, which the
	// garbage collector alone would hand back to the system only slowly.
	held := c.r.Release() + int64(c.w.Size()) + connOverhead
	if c.multi != nil {
		held += c.multi.bytes
	}
	s.trim.Freed(held)
	s.conns.Done()
}

// connOverhead is what a connection costs beyond its buffers: its
// goroutine's stack and its state, roughly.
const connOverhead = 16 << 10

// queryBufLimitReached logs a client closed for input holding more than
// client-query-buffer-limit, whose first bytes are head, with Redis's line.
func (s *Server) queryBufLimitReached(c *client, head []byte) {
	s.log.Warn("Closing client that reached max query buffer length: " + c.describe(nil) +
		" (qbuf initial bytes: " + strconv.Quote(string(head)) + ")")
}

// Shutdown stops accepting, closes every connection and waits for their
// goroutines (and a BGSAVE), or for ctx. It may be called again to go on
// waiting: the store must not close before it has returned nil.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() {
		s.drained = make(chan struct{})
		s.stopSampling()
		// A running script holds its keys: stop it, as SHUTDOWN NOSAVE
		// does in Redis, so its client's connection can end.
		s.runs.cancelAll()
		s.stopReplication()
		s.mu.Lock()
		s.closing = true
		for _, ln := range s.listeners {
			_ = ln.Close()
		}
		for _, c := range s.clients {
			c.kill()
		}
		s.mu.Unlock()
		go func() {
			// Every connection's goroutine, and a BGSAVE, end before the
			// store may close: a command still running holds engine
			// iterators.
			s.conns.Wait()
			// Every client waited for its queued replies before it ended.
			s.durable.close()
			s.scripts.Close()
			s.migrates.close()
			close(s.drained)
		}()
	})
	select {
	case <-s.drained:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Running describes the connections whose goroutine has not ended yet, each
// as "id=N cmd=name age=Ns": what a shutdown is waiting for.
func (s *Server) Running() []string {
	var out []string
	for _, c := range s.sortedClients() {
		c.mu.Lock()
		last := c.lastCmd
		c.mu.Unlock()
		out = append(out, fmt.Sprintf("id=%d cmd=%s age=%ds", c.id, last, int64(c.age().Seconds())))
	}
	return out
}

func (s *Server) requestShutdown() {
	s.shutOnce.Do(func() { close(s.shutdownReq) })
}

// clientList returns the connected clients, for CLIENT LIST/KILL and INFO.
func (s *Server) clientList() []*client {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*client, 0, len(s.clients))
	for _, c := range s.clients {
		out = append(out, c)
	}
	return out
}
