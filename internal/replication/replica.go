package replication

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/resp"
)

// Host is the server as the replica reaches it.
type Host interface {
	// LoadRDB replaces the whole dataset (keys of every database and the
	// function libraries) with the RDB file read from r, size bytes,
	// already checked whole. The server answers -LOADING meanwhile.
	LoadRDB(r io.Reader, size int64) error
	// Apply runs one command of the master's stream as the master client:
	// it writes even though the server is a read-only replica, and its
	// reply goes nowhere. Apply may keep args. An error drops the link
	// (the master client was killed): the replica reconnects.
	Apply(args [][]byte) error
	// Sync makes the commands applied so far durable and visible (Apply
	// may gather consecutive writes into one commit).
	Sync()
	// ResetClient forgets the master client's state (a transaction it
	// had open, its selected database): a new link starts from scratch.
	ResetClient()
}

// Config says where the master is and how to talk to it. The functions
// are read at each connection, so setting changes apply on the next one.
type Config struct {
	Host string
	Port int
	// ListeningPort is this server's port, announced with REPLCONF
	// listening-port (the master's INFO shows it).
	ListeningPort func() int
	// Auth returns masteruser and masterauth; an empty password sends no
	// AUTH, an empty user authenticates as the default user.
	Auth func() (user, pass string)
	// Dir returns the directory for the temporary RDB file.
	Dir func() string
	Log *slog.Logger
	// Timeout bounds every wait for the master (Redis's repl-timeout,
	// default 60 s).
	Timeout time.Duration
	// RetryMin and RetryMax bound the pause before a new connection after
	// a failed one (defaults 100 ms and 5 s); it doubles on each failure.
	RetryMin, RetryMax time.Duration
	// AckPeriod is the interval of REPLCONF ACK (default 1 s).
	AckPeriod time.Duration
	// Databases, when not 0, is how many databases the replica has: an
	// RDB using more is refused before the dataset is touched.
	Databases int
}

// Position is where a replica stands in a master's history: the master's
// replication ID and the offset of the last byte processed. PSYNC resumes
// from it.
type Position struct {
	ReplID string
	Offset int64
}

// Valid reports whether the position names a history to resume.
func (p Position) Valid() bool { return p.ReplID != "" }

// State is the link's state, as ROLE names it.
type State int

// The states in the order a link goes through them.
const (
	StateConnect    State = iota // waiting to (re)connect
	StateConnecting              // dialing
	StateHandshake               // PING, AUTH, REPLCONF, PSYNC
	StateTransfer                // receiving or loading the RDB
	StateConnected               // applying the command stream
)

func (s State) String() string {
	return [...]string{"connect", "connecting", "handshake", "sync", "connected"}[s]
}

// Status is a snapshot of the replica, for ROLE and INFO replication.
type Status struct {
	Host  string
	Port  int
	State State
	// LastIO is when the master last sent anything, zero before a link.
	LastIO time.Time
	// DownSince is when an established link went down (zero while it is
	// up or before it ever was).
	DownSince time.Time
	// During a transfer: its size (-1 for a diskless one, until it ends),
	// the bytes received, and when the last arrived.
	TransferSize, TransferRead int64
	TransferLastIO             time.Time
	// ReadOffset is the offset of the last byte received, Offset that of
	// the last command processed; both -1 before the first sync (Redis
	// shows 1 then: Redis's INFO does that itself).
	ReadOffset, Offset int64
	ReplID             string
	// Synced is set once a sync completed.
	Synced bool
}

// Replica replicates a master until Stop.
type Replica struct {
	cfg  Config
	host Host
	log  *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex
	state     State
	conn      net.Conn
	pos       Position
	synced    bool
	downSince time.Time
	xferSize  int64
	xferStart time.Time

	lastIO     atomic.Int64 // unix nanoseconds
	xferRead   atomic.Int64
	xferLastIO atomic.Int64
	readOff    atomic.Int64
	procOff    atomic.Int64
}

// Start begins replicating: it connects in the background and keeps
// reconnecting until Stop. from, when valid, is a position to resume with
// PSYNC (the master answers a full resync if it cannot continue it).
func Start(cfg Config, host Host, from Position) *Replica {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.RetryMin <= 0 {
		cfg.RetryMin = 100 * time.Millisecond
	}
	if cfg.RetryMax < cfg.RetryMin {
		cfg.RetryMax = max(5*time.Second, cfg.RetryMin)
	}
	if cfg.AckPeriod <= 0 {
		cfg.AckPeriod = time.Second
	}
	if cfg.ListeningPort == nil {
		cfg.ListeningPort = func() int { return 0 }
	}
	if cfg.Auth == nil {
		cfg.Auth = func() (string, string) { return "", "" }
	}
	if cfg.Dir == nil {
		cfg.Dir = os.TempDir
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Replica{cfg: cfg, host: host, log: cfg.Log, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		pos: from, synced: from.Valid()}
	r.readOff.Store(-1)
	r.procOff.Store(-1)
	if from.Valid() {
		r.readOff.Store(from.Offset)
		r.procOff.Store(from.Offset)
	}
	go r.run()
	return r
}

// Stop closes the link, waits for the replica's goroutine to end (a
// command being applied finishes first) and returns the position reached.
func (r *Replica) Stop() Position {
	r.cancel()
	r.mu.Lock()
	if r.conn != nil {
		_ = r.conn.Close()
	}
	r.mu.Unlock()
	<-r.done
	return r.position()
}

// position is the master's replication ID with the offset processed.
func (r *Replica) position() Position {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pos
	if p.Valid() {
		p.Offset = r.procOff.Load()
	}
	return p
}

// Master returns the master's address as configured.
func (r *Replica) Master() (string, int) { return r.cfg.Host, r.cfg.Port }

// Status reports the replica's state.
func (r *Replica) Status() Status {
	r.mu.Lock()
	st := Status{Host: r.cfg.Host, Port: r.cfg.Port, State: r.state, DownSince: r.downSince,
		ReplID: r.pos.ReplID, Synced: r.synced, TransferSize: r.xferSize}
	r.mu.Unlock()
	if n := r.lastIO.Load(); n != 0 {
		st.LastIO = time.Unix(0, n)
	}
	if st.State == StateTransfer {
		st.TransferRead = r.xferRead.Load()
		if n := r.xferLastIO.Load(); n != 0 {
			st.TransferLastIO = time.Unix(0, n)
		}
	}
	st.ReadOffset, st.Offset = r.readOff.Load(), r.procOff.Load()
	return st
}

func (r *Replica) setState(s State) {
	r.mu.Lock()
	r.state = s
	if s == StateConnected {
		r.downSince = time.Time{}
	}
	r.mu.Unlock()
}

// run connects, syncs and applies the stream, again after every failure,
// until Stop.
func (r *Replica) run() {
	defer close(r.done)
	pause := r.cfg.RetryMin
	for r.ctx.Err() == nil {
		connected, err := r.session()
		r.mu.Lock()
		if r.conn != nil {
			_ = r.conn.Close()
			r.conn = nil
		}
		if r.state == StateConnected {
			r.downSince = time.Now()
		}
		r.state = StateConnect
		r.mu.Unlock()
		if r.ctx.Err() != nil {
			return
		}
		if connected {
			pause = r.cfg.RetryMin
			r.log.Warn("Connection with master lost; reconnecting", "master", r.addr(), "err", err)
		} else {
			r.log.Warn("Replication with master failed; retrying", "master", r.addr(), "retry_in", pause, "err", err)
		}
		select {
		case <-r.ctx.Done():
			return
		case <-time.After(pause):
		}
		if !connected {
			pause = min(2*pause, r.cfg.RetryMax)
		}
	}
}

func (r *Replica) addr() string {
	return net.JoinHostPort(r.cfg.Host, strconv.Itoa(r.cfg.Port))
}

// link is one connection to the master.
type link struct {
	r    *Replica
	conn net.Conn
	in   *streamReader
	wmu  sync.Mutex // orders writes: the ACK ticker and GETACK replies
	out  *bufio.Writer
	// cleanup runs when the link ends (the spool file's removal).
	cleanup []func()
}

// session runs one connection from dial to failure. connected reports
// whether it reached the command stream.
func (r *Replica) session() (connected bool, err error) {
	r.setState(StateConnecting)
	d := net.Dialer{Timeout: min(r.cfg.Timeout, 10*time.Second)}
	conn, err := d.DialContext(r.ctx, "tcp", r.addr())
	if err != nil {
		return false, fmt.Errorf("connecting to MASTER %s: %w", r.addr(), err)
	}
	r.mu.Lock()
	if r.ctx.Err() != nil {
		r.mu.Unlock()
		_ = conn.Close()
		return false, r.ctx.Err()
	}
	r.conn = conn
	r.state = StateHandshake
	r.mu.Unlock()
	r.log.Info("MASTER <-> REPLICA sync started", "master", r.addr())
	l := &link{r: r, conn: conn, out: bufio.NewWriter(conn)}
	l.in = newStreamReader(&deadlineReader{conn: conn, timeout: r.cfg.Timeout, lastIO: &r.lastIO})
	defer func() {
		for _, f := range l.cleanup {
			f()
		}
	}()

	full, master, err := l.handshake()
	if err != nil {
		return false, err
	}
	if full {
		if err := l.fullSync(master); err != nil {
			return false, err
		}
	} else {
		r.log.Info("Successful partial resynchronization with master", "replid", master.ReplID, "offset", master.Offset)
	}
	return true, l.stream()
}

// deadlineReader arms the replication timeout before every read and notes
// when the master last sent something.
type deadlineReader struct {
	conn    net.Conn
	timeout time.Duration
	lastIO  *atomic.Int64
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	_ = d.conn.SetReadDeadline(time.Now().Add(d.timeout))
	n, err := d.conn.Read(p)
	if n > 0 {
		d.lastIO.Store(time.Now().UnixNano())
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		err = fmt.Errorf("timeout: no data from master in %s: %w", d.timeout, err)
	}
	return n, err
}

// send writes one command to the master.
func (l *link) send(args ...string) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	_ = l.conn.SetWriteDeadline(time.Now().Add(l.r.cfg.Timeout))
	if _, err := l.out.Write(resp.AppendCommand(nil, args...)); err != nil {
		return err
	}
	return l.out.Flush()
}

// call sends a command and reads its one-line reply.
func (l *link) call(args ...string) (string, error) {
	if err := l.send(args...); err != nil {
		return "", fmt.Errorf("sending %s to master: %w", args[0], err)
	}
	reply, err := l.in.reply()
	if err != nil {
		return "", fmt.Errorf("reading the reply to %s from master: %w", args[0], noEOF(err))
	}
	return reply, nil
}

// handshake runs PING, AUTH, REPLCONF and PSYNC. It returns whether the
// master starts a full resync, and the position the stream starts from.
func (l *link) handshake() (full bool, at Position, err error) {
	reply, err := l.call("PING")
	if err != nil {
		return false, at, err
	}
	// A master that wants a password answers PING with an error; AUTH
	// comes next.
	if reply[0] == '-' && !strings.HasPrefix(reply, "-NOAUTH") && !strings.HasPrefix(reply, "-NOPERM") &&
		!strings.HasPrefix(reply, "-ERR operation not permitted") {
		return false, at, fmt.Errorf("error reply to PING from master: '%s'", reply)
	}
	if user, pass := l.r.cfg.Auth(); pass != "" {
		args := []string{"AUTH", pass}
		if user != "" {
			args = []string{"AUTH", user, pass}
		}
		if reply, err = l.call(args...); err != nil {
			return false, at, err
		}
		if reply[0] == '-' {
			return false, at, fmt.Errorf("unable to AUTH to MASTER: %s", reply)
		}
	}
	if reply, err = l.call("REPLCONF", "listening-port", strconv.Itoa(l.r.cfg.ListeningPort())); err != nil {
		return false, at, err
	}
	if reply[0] == '-' {
		l.r.log.Info("(Non critical) Master does not understand REPLCONF listening-port", "reply", reply)
	}
	if reply, err = l.call("REPLCONF", "capa", "eof", "capa", "psync2"); err != nil {
		return false, at, err
	}
	if reply[0] == '-' {
		l.r.log.Info("(Non critical) Master does not understand REPLCONF capa", "reply", reply)
	}
	pos := l.r.position()
	psync := []string{"PSYNC", "?", "-1"}
	if pos.Valid() {
		psync = []string{"PSYNC", pos.ReplID, strconv.FormatInt(pos.Offset+1, 10)}
	}
	if reply, err = l.call(psync...); err != nil {
		return false, at, err
	}
	word, rest, _ := strings.Cut(reply, " ")
	switch word {
	case "+FULLRESYNC":
		id, off, _ := strings.Cut(rest, " ")
		n, perr := strconv.ParseInt(off, 10, 64)
		if len(id) != 40 || perr != nil || n < 0 {
			return false, at, fmt.Errorf("%w: bad FULLRESYNC reply %q", ErrProtocol, clip([]byte(reply)))
		}
		return true, Position{ReplID: id, Offset: n}, nil
	case "+CONTINUE":
		if !pos.Valid() {
			return false, at, fmt.Errorf("%w: +CONTINUE to PSYNC ? -1", ErrProtocol)
		}
		if rest != "" {
			if len(rest) != 40 {
				return false, at, fmt.Errorf("%w: bad CONTINUE reply %q", ErrProtocol, clip([]byte(reply)))
			}
			pos.ReplID = rest
		}
		l.r.mu.Lock()
		l.r.pos = pos
		l.r.mu.Unlock()
		l.r.readOff.Store(pos.Offset)
		l.r.procOff.Store(pos.Offset)
		l.r.host.ResetClient()
		return false, pos, nil
	}
	if strings.HasPrefix(reply, "-NOMASTERLINK") || strings.HasPrefix(reply, "-LOADING") {
		return false, at, fmt.Errorf("master is currently unable to PSYNC but should be in the future: %s", reply)
	}
	return false, at, fmt.Errorf("unexpected reply to PSYNC from master: %s", reply)
}

// fullSync receives the RDB into a temporary file, checks it whole, then
// has the host replace the dataset with it.
func (l *link) fullSync(master Position) error {
	r := l.r
	size, mark, err := l.in.rdbHeader()
	if err != nil {
		return fmt.Errorf("reading the RDB transfer header: %w", noEOF(err))
	}
	r.mu.Lock()
	r.state = StateTransfer
	r.xferSize = size
	r.xferStart = time.Now()
	r.mu.Unlock()
	r.xferRead.Store(0)
	r.xferLastIO.Store(time.Now().UnixNano())
	how := "disk"
	if mark != nil {
		how = "diskless"
	}
	r.log.Info("MASTER <-> REPLICA sync: receiving the RDB", "bytes", size, "transfer", how, "replid", master.ReplID, "offset", master.Offset)

	dir := r.cfg.Dir()
	f, err := os.CreateTemp(dir, fmt.Sprintf("temp-%d.*.rdb", time.Now().Unix()))
	if err != nil {
		return fmt.Errorf("opening the temporary RDB file in %s: %w", dir, err)
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}()
	progress := func(n int) {
		r.xferRead.Add(int64(n))
		r.xferLastIO.Store(time.Now().UnixNano())
	}
	w := bufio.NewWriterSize(f, 256<<10)
	if mark == nil {
		err = l.in.copyN(w, size, progress)
	} else {
		err = l.in.copyUntil(w, mark, progress)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fmt.Errorf("receiving the RDB from master (%d bytes read): %w", r.xferRead.Load(), err)
	}
	if mark != nil {
		r.mu.Lock()
		r.xferSize = r.xferRead.Load()
		r.mu.Unlock()
	}
	// While the file is checked and loaded, which takes long for a large
	// dataset, the commands that follow are read into a spool file, so
	// that the master's output buffer for this replica does not overflow,
	// and a newline goes to the master every second, so that it does not
	// take the replica for dead.
	sp, err := l.startSpool(dir)
	if err != nil {
		return err
	}
	defer sp.stopPump()
	// The whole file is read once before the dataset is touched: a
	// truncated or corrupt one leaves the old data in place.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	check := &rdb.Handler{SelectDB: func(db int) error {
		if r.cfg.Databases > 0 && db >= r.cfg.Databases {
			return fmt.Errorf("the master uses database %d, this server has %d (setting databases)", db, r.cfg.Databases)
		}
		return nil
	}}
	if err := rdb.ReadFile(f, check); err != nil {
		return fmt.Errorf("the RDB received from master is not valid, data left as it was: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r.log.Info("MASTER <-> REPLICA sync: flushing old data and loading the RDB", "bytes", st.Size())
	r.host.ResetClient()
	if err := r.host.LoadRDB(&ctxReader{ctx: r.ctx, r: f}, st.Size()); err != nil {
		// The dataset is now partial: no position is kept, so the next
		// link loads a full copy again.
		r.mu.Lock()
		r.pos, r.synced = Position{}, false
		r.mu.Unlock()
		return fmt.Errorf("loading the RDB received from master: %w", err)
	}
	r.mu.Lock()
	r.pos, r.synced = master, true
	r.mu.Unlock()
	r.readOff.Store(master.Offset)
	r.procOff.Store(master.Offset)
	rest, err := sp.finish()
	if err != nil {
		return err
	}
	l.in = newStreamReader(rest)
	r.log.Info("MASTER <-> REPLICA sync: finished with success", "took", time.Since(r.xferStart).Round(time.Millisecond),
		"spooled_bytes", sp.n)
	return nil
}

// spool keeps reading the master's stream into a file while the dataset
// loads.
type spool struct {
	l    *link
	f    *os.File
	stop atomic.Bool
	done chan struct{} // closed when the pump has stopped
	quit chan struct{} // stops the keepalive
	once sync.Once
	err  error // why the pump stopped, other than being asked to
	n    int64
}

func (l *link) startSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, "temp-stream-*.spool")
	if err != nil {
		return nil, fmt.Errorf("opening the stream spool file in %s: %w", dir, err)
	}
	l.cleanup = append(l.cleanup, func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	})
	sp := &spool{l: l, f: f, done: make(chan struct{}), quit: make(chan struct{})}
	go sp.pump()
	go sp.keepalive()
	return sp, nil
}

func (sp *spool) pump() {
	defer close(sp.done)
	buf := make([]byte, 64<<10)
	w := bufio.NewWriterSize(sp.f, 256<<10)
	for {
		n, err := sp.l.in.br.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				sp.err = fmt.Errorf("writing the stream spool: %w", werr)
				return
			}
			sp.n += int64(n)
		}
		if err == nil && sp.stop.Load() {
			err = w.Flush()
			if err != nil {
				sp.err = fmt.Errorf("writing the stream spool: %w", err)
			}
			return
		}
		if err != nil {
			var ne net.Error
			if !sp.stop.Load() || !errors.As(err, &ne) || !ne.Timeout() {
				sp.err = err
			}
			if ferr := w.Flush(); ferr != nil && sp.err == nil {
				sp.err = fmt.Errorf("writing the stream spool: %w", ferr)
			}
			return
		}
	}
}

func (sp *spool) keepalive() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-sp.quit:
			return
		case <-t.C:
			sp.l.wmu.Lock()
			_ = sp.l.conn.SetWriteDeadline(time.Now().Add(sp.l.r.cfg.Timeout))
			_, err := sp.l.conn.Write([]byte("\n"))
			sp.l.wmu.Unlock()
			if err != nil {
				return
			}
		}
	}
}

// stopPump stops the pump and the keepalive: a read the pump is blocked in
// is cut short by a deadline in the past.
func (sp *spool) stopPump() {
	sp.once.Do(func() {
		close(sp.quit)
		sp.stop.Store(true)
		for {
			_ = sp.l.conn.SetReadDeadline(time.Now())
			select {
			case <-sp.done:
				_ = sp.l.conn.SetReadDeadline(time.Time{})
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	})
}

// finish stops spooling and returns the stream from where the RDB ended:
// the spooled bytes, then the connection (or, if the link failed
// meanwhile, its error, once the spooled commands are applied).
func (sp *spool) finish() (io.Reader, error) {
	sp.stopPump()
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	var rest io.Reader = sp.l.in.br
	if sp.err != nil {
		rest = errReader{sp.err}
	}
	return io.MultiReader(sp.f, rest), nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// ctxReader stops a load when the replica is stopped.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, fmt.Errorf("replication stopped: %w", err)
	}
	return c.r.Read(p)
}

// stream applies the master's commands until the link fails, counting
// their bytes and acknowledging the offset.
func (l *link) stream() error {
	r := l.r
	r.setState(StateConnected)
	base := r.procOff.Load() // the offset the stream starts at
	start := l.in.consumed()
	// The first ACK right away: a master whose transfer was diskless
	// puts the replica online when it arrives.
	if err := l.ack(base); err != nil {
		return err
	}
	stop := make(chan struct{})
	defer close(stop)
	go l.ackLoop(stop)

	inMulti := false
	processed := base
	applied := 0
	defer func() {
		// What was applied before the failure counts: the next link
		// resumes after it.
		r.host.Sync()
		r.procOff.Store(processed)
	}()
	for {
		args, err := l.in.command()
		if err != nil {
			return fmt.Errorf("reading the command stream: %w", noEOF(err))
		}
		off := base + l.in.consumed() - start
		r.readOff.Store(off)
		name := strings.ToLower(string(args[0]))
		switch {
		case name == "replconf" && len(args) >= 2 && strings.EqualFold(string(args[1]), "getack"):
			// The offset acknowledged is the one before this command,
			// as Redis replies from inside it.
			r.host.Sync()
			r.procOff.Store(processed)
			if err := l.ack(processed); err != nil {
				return err
			}
		case name == "replconf":
			// Nothing else of REPLCONF is meant for a replica.
		default:
			if err := r.host.Apply(args); err != nil {
				return err
			}
			switch name {
			case "multi":
				inMulti = true
			case "exec", "discard":
				inMulti = false
			}
		}
		if !inMulti {
			processed = off
		}
		applied++
		if !l.in.buffered() || applied >= syncEvery {
			// Nothing more has arrived: what was applied is committed
			// before the wait. Under a steady stream, every syncEvery
			// commands, so the acknowledged offset keeps moving.
			applied = 0
			r.host.Sync()
			r.procOff.Store(processed)
		}
		if r.ctx.Err() != nil {
			return r.ctx.Err()
		}
	}
}

// syncEvery is how many commands may be applied before a Sync even while
// more input is waiting.
const syncEvery = 1024

// ack sends REPLCONF ACK with an offset.
func (l *link) ack(off int64) error {
	if err := l.send("REPLCONF", "ACK", strconv.FormatInt(off, 10)); err != nil {
		return fmt.Errorf("sending REPLCONF ACK: %w", err)
	}
	return nil
}

// ackLoop acknowledges the processed offset every AckPeriod.
func (l *link) ackLoop(stop chan struct{}) {
	t := time.NewTicker(l.r.cfg.AckPeriod)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if err := l.ack(l.r.procOff.Load()); err != nil {
				// The stream's read fails too: closing makes sure.
				_ = l.conn.Close()
				return
			}
		}
	}
}
