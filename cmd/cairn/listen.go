package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/server"
	"github.com/cairndb/cairn/internal/tlsconf"
)

// boundListener is one listening socket and what the log says of it.
type boundListener struct {
	ln   net.Listener
	addr string
	tls  bool
	// unix marks the unix socket, which bind and port do not move.
	unix bool
}

// listen opens the plain port (unless port is 0, as in Redis) and the TLS
// port (when tls-port is set) on every bind address. On error it closes
// what it opened. It also returns how to open them again on other
// addresses or another port, for CONFIG SET bind and port.
func listen(cfg *config.Config, log *slog.Logger) ([]boundListener, server.ListenFunc, error) {
	var out []boundListener
	fail := func(err error) ([]boundListener, server.ListenFunc, error) {
		for _, l := range out {
			_ = l.ln.Close()
		}
		return nil, nil, err
	}
	t := cfg.TLS()
	if cfg.Port() == 0 && t.Port == 0 && cfg.UnixSocket() == "" {
		return nil, nil, errors.New("configured to not listen anywhere (port and tls-port are 0)")
	}
	var live *tlsconf.Live
	if t.Port != 0 {
		tc, err := tlsconf.Build(t)
		if err != nil {
			return fail(fmt.Errorf("TLS: %w", err))
		}
		live = tlsconf.NewLive(tc)
		followTLS(cfg, live, log)
	}
	reopen := func(bind []string, port int, tls bool) ([]net.Listener, error) {
		bls, err := listenTCP(bind, port, tls, live, log)
		lns := make([]net.Listener, len(bls))
		for i, l := range bls {
			lns[i] = l.ln
		}
		return lns, err
	}
	if cfg.Port() != 0 {
		bls, err := listenTCP(cfg.Bind(), cfg.Port(), false, live, log)
		if err != nil {
			return fail(fmt.Errorf("listen: %w", err))
		}
		out = append(out, bls...)
	}
	if t.Port != 0 {
		bls, err := listenTCP(cfg.Bind(), t.Port, true, live, log)
		if err != nil {
			return fail(fmt.Errorf("listen (tls-port): %w", err))
		}
		out = append(out, bls...)
	}
	if path := cfg.UnixSocket(); path != "" {
		ln, err := listenUnix(path, cfg.UnixSocketPerm())
		if err != nil {
			return fail(err)
		}
		out = append(out, boundListener{ln: ln, addr: path, unix: true})
	}
	if len(out) == 0 {
		return nil, nil, errors.New("configured to not listen anywhere (no bind address could be used)")
	}
	return out, reopen, nil
}

// listenTCP opens port on every bind address, serving TLS over live when
// tls is set (live is nil when there is no TLS port). On error it closes
// what it opened.
func listenTCP(bind []string, port int, tls bool, live *tlsconf.Live, log *slog.Logger) ([]boundListener, error) {
	if tls && live == nil {
		return nil, errors.New("no TLS configuration")
	}
	var out []boundListener
	for _, word := range bind {
		ln, err := listenBind(word, port, log)
		if err != nil {
			for _, l := range out {
				_ = l.ln.Close()
			}
			return nil, err
		}
		if ln == nil {
			continue
		}
		l := boundListener{ln: ln, addr: ln.Addr().String(), tls: tls}
		if tls {
			l.ln = tlsconf.NewListener(ln, live, tlsconf.HandshakeTimeout, log)
		}
		out = append(out, l)
	}
	return out, nil
}

// listenUnix listens on a unix socket as Redis does: a file left at path by
// an earlier run is removed first, and perm, when not 0, sets the socket's
// permissions. The listener removes the socket when it closes.
func listenUnix(path string, perm uint32) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		_ = os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("unixsocket: %w", err)
	}
	if perm != 0 {
		if err := os.Chmod(path, os.FileMode(perm)); err != nil {
			_ = ln.Close()
			return nil, fmt.Errorf("unixsocketperm: %w", err)
		}
	}
	return ln, nil
}

// listenBind listens on one bind word and port as Redis's listenToPort
// does: "*" is every IPv4 address and "::*" every IPv6 one; an address
// with a ':' is IPv6 and listens on IPv6 only (so "* ::*" can share a
// port); a leading '-' marks an address that is skipped, with a warning,
// when the machine does not have it. A protocol the machine lacks (no
// IPv6) is skipped likewise whether or not the address is optional. A nil
// listener and nil error mean the address was skipped.
func listenBind(word string, port int, log *slog.Logger) (net.Listener, error) {
	network, host, optional := bindTarget(word)
	lc := net.ListenConfig{}
	if network == "tcp6" {
		lc.Control = func(_, _ string, rc syscall.RawConn) error {
			var serr error
			err := rc.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY, 1)
			})
			return errors.Join(err, serr)
		}
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	ln, err := lc.Listen(context.Background(), network, addr)
	if err == nil {
		return ln, nil
	}
	skip := optional && errors.Is(err, syscall.EADDRNOTAVAIL)
	for _, e := range []syscall.Errno{syscall.ENOPROTOOPT, syscall.EPROTONOSUPPORT, syscall.ESOCKTNOSUPPORT, syscall.EPFNOSUPPORT, syscall.EAFNOSUPPORT} {
		skip = skip || errors.Is(err, e)
	}
	if skip {
		log.Warn("could not create server TCP listening socket; skipped", "addr", addr, "err", err)
		return nil, nil
	}
	return nil, err
}

// bindTarget reads a bind word: the network and host to listen on, and
// whether the address is optional (a leading '-').
func bindTarget(word string) (network, host string, optional bool) {
	if strings.HasPrefix(word, "-") {
		word, optional = word[1:], true
	}
	switch {
	case word == "*":
		return "tcp4", "0.0.0.0", optional
	case word == "::*":
		return "tcp6", "::", optional
	case strings.Contains(word, ":"):
		return "tcp6", word, optional
	}
	return "tcp4", word, optional
}

// followTLS makes CONFIG SET of the tls-* settings take effect for new
// connections, as in Redis: the new configuration is built from all of them
// first, and a CONFIG SET it fails on is refused with Redis's error.
func followTLS(cfg *config.Config, live *tlsconf.Live, log *slog.Logger) {
	cfg.CheckTLS(func(t config.TLS) string {
		if _, err := tlsconf.Build(t); err != nil {
			log.Warn("Failed to configure TLS", "err", err)
			return "Unable to update TLS configuration. Check server logs."
		}
		return ""
	})
	for _, h := range config.Help() {
		if !strings.HasPrefix(h.Name, "tls-") || !h.Live || h.Ignored {
			continue
		}
		cfg.OnChange(h.Name, func(string) {
			tc, err := tlsconf.Build(cfg.TLS())
			if err != nil { // vetted by CheckTLS; a file may have changed since
				log.Warn("Failed to configure TLS", "err", err)
				return
			}
			live.Set(tc)
		})
	}
}

// lockedError turns the engine's failure to take the data directory's lock
// into an error naming the directory and, when /proc/locks tells, the
// process holding it. Other errors pass unchanged.
func lockedError(dir string, err error) error {
	if !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EWOULDBLOCK) && !strings.Contains(err.Error(), "resource temporarily unavailable") {
		return err
	}
	abs, aerr := filepath.Abs(dir)
	if aerr != nil {
		abs = dir
	}
	if pid := lockHolder(filepath.Join(dir, "LOCK")); pid > 0 {
		return fmt.Errorf("the data directory %s is in use by another process (pid %d): stop it or choose another dir", abs, pid)
	}
	return fmt.Errorf("the data directory %s is locked by another process: stop it or choose another dir (%w)", abs, err)
}

// lockHolder returns the pid holding a lock on the file at path, read from
// /proc/locks, or 0 if it cannot tell.
func lockHolder(path string) int {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	return parseLocks(string(data), uint64(st.Dev), st.Ino, os.Getpid())
}

// parseLocks finds, in the text of /proc/locks, a lock on the file with
// device dev and inode ino held by a process other than self. A line reads
// "1: POSIX  ADVISORY  WRITE 1234 08:01:5678 0 EOF", the device as hex
// major:minor.
func parseLocks(text string, dev, ino uint64, self int) int {
	major, minor := unixMajor(dev), unixMinor(dev)
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		// A blocked waiter's line has "->" after the number.
		if f[1] == "->" {
			f = append(f[:1], f[2:]...)
			if len(f) < 6 {
				continue
			}
		}
		pid, err := strconv.Atoi(f[4])
		if err != nil || pid == self {
			continue
		}
		parts := strings.Split(f[5], ":")
		if len(parts) != 3 {
			continue
		}
		ma, err1 := strconv.ParseUint(parts[0], 16, 32)
		mi, err2 := strconv.ParseUint(parts[1], 16, 32)
		in, err3 := strconv.ParseUint(parts[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		if ma == major && mi == minor && in == ino {
			return pid
		}
	}
	return 0
}

// unixMajor and unixMinor split a Linux dev_t as glibc's major() and minor().
func unixMajor(dev uint64) uint64 { return ((dev >> 8) & 0xfff) | ((dev >> 32) &^ 0xfff) }
func unixMinor(dev uint64) uint64 { return (dev & 0xff) | ((dev >> 12) &^ 0xff) }

// printHelp writes the usage, every setting Cairn applies with its
// default, whether CONFIG SET changes it live, and its meaning, then the
// Redis settings it accepts without applying them, grouped by why.
func printHelp(w io.Writer) {
	fmt.Fprint(w, `Usage: cairn [/path/to/cairn.conf] [--setting value ...]
       cairn --version
       cairn --help
       cairn import dump.rdb [/path/to/cairn.conf] [--setting value ...]
       cairn export DATADIR dump.rdb [--setting value ...]
       cairn backup DATADIR DESTDIR
       cairn backup --addr HOST:PORT [--user USER] [--password PASSWORD] DESTDIR
       cairn restore BACKUPDIR DATADIR

The config file uses redis.conf syntax (include and rename-command too); a
stock redis.conf loads. Settings on the command line follow it and win.
An annotated example is contrib/cairn.conf in Cairn's repository.

Settings (default; live = changeable with CONFIG SET):

`)
	var whys []string
	byWhy := map[string][]string{}
	for _, h := range config.Help() {
		if h.Ignored && !h.Own {
			if byWhy[h.Why] == nil {
				whys = append(whys, h.Why)
			}
			byWhy[h.Why] = append(byWhy[h.Why], h.Name)
			continue
		}
		def := h.Default
		if def == "" {
			def = `""`
		}
		live := ""
		if h.Live {
			live = ", live"
		}
		fmt.Fprintf(w, "  --%s <%s>  (default %s%s)\n      %s\n", h.Name, h.Kind, def, live, h.Meaning)
	}
	fmt.Fprint(w, `
Redis settings accepted, kept, shown by CONFIG GET and written by CONFIG
REWRITE, but not applied (a start-up that sets one says so in the log):
`)
	for _, why := range whys {
		fmt.Fprintf(w, "\n  %s:\n", why)
		line := "     "
		for _, name := range byWhy[why] {
			if len(line)+1+len(name) > 79 {
				fmt.Fprintln(w, line)
				line = "     "
			}
			line += " " + name
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprint(w, `
Refused with the reason: replicaof/slaveof other than "no one",
min-replicas-to-write other than 0, cluster-enabled yes, loadmodule, sentinel.
`)
}
