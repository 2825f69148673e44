package server

import (
	"errors"
	"fmt"
	"net"
	"sync/atomic"
)

// ListenFunc opens the listeners of the plain TCP port (tls false) or of
// the TLS port (tls true) on every bind address, as the server's start
// does; addresses skipped (a missing optional one) give no listener.
type ListenFunc func(bind []string, port int, tls bool) ([]net.Listener, error)

// tcpListener is a listener that follows bind and port: CONFIG SET of
// either replaces it, and retired tells its accept loop that its closing
// is no failure.
type tcpListener struct {
	ln      net.Listener
	tls     bool
	retired atomic.Bool
}

// SetListen gives the server the way to open its TCP listeners, so that
// CONFIG SET bind and port take effect while it runs, as in Redis 7. The
// listeners served with ServeTCP are the ones replaced. Without it, a
// CONFIG SET of bind or port is refused as Redis refuses one it cannot
// apply.
func (s *Server) SetListen(fn ListenFunc) {
	s.mu.Lock()
	s.listen = fn
	s.mu.Unlock()
}

// initListen makes CONFIG SET bind and port move the listeners. The ones
// there are were opened on the configuration the server starts with.
func (s *Server) initListen() {
	s.boundAt = [2]string{s.listenTarget(false), s.listenTarget(true)}
	s.cfg.OnApply("port", func() string {
		if reason := s.rebind(false, false); reason != "" {
			return "Unable to listen on this port. Check server logs."
		}
		return ""
	})
	s.cfg.OnApply("bind", func() string {
		// The old addresses are let go first: the new ones may include
		// them on the same port.
		if s.rebind(false, true) != "" || s.rebind(true, true) != "" {
			return "Failed to bind to specified addresses."
		}
		return ""
	})
}

// ServeTCP serves a listener of the plain TCP port (tls false) or of the
// TLS port (tls true), which CONFIG SET of bind or port may replace. It
// returns nil once a CONFIG SET has retired it, ErrServerClosed after
// Shutdown, or the error that stopped it accepting.
func (s *Server) ServeTCP(ln net.Listener, tls bool) error {
	l := &tcpListener{ln: ln, tls: tls}
	s.mu.Lock()
	s.tcp = append(s.tcp, l)
	s.mu.Unlock()
	return s.serve(ln, &l.retired)
}

// listenTarget names what the listeners of a kind are opened on (the
// bind addresses and the port), to tell a change from a restore.
func (s *Server) listenTarget(tls bool) string {
	port := s.cfg.Port()
	if tls {
		port = s.cfg.TLS().Port
	}
	return fmt.Sprint(s.cfg.Bind(), port)
}

// rebind replaces the plain (tls false) or TLS listeners with new ones on
// the configured bind addresses and port, closing the old ones before
// opening the new (first) or after. It returns "" or why it could not
// listen, leaving the listeners as they were then (the old ones closed, if
// first; CONFIG SET's rollback applies the old values again).
func (s *Server) rebind(tls, first bool) string {
	port := s.cfg.Port()
	if tls {
		port = s.cfg.TLS().Port
	}
	target := s.listenTarget(tls)
	kind := 0
	if tls {
		kind = 1
	}
	s.mu.Lock()
	listen, closing := s.listen, s.closing
	if s.boundAt[kind] == target {
		// Already listening there: a CONFIG SET that changed the other
		// setting, or one rolled back before these listeners changed.
		s.mu.Unlock()
		return ""
	}
	var old []*tcpListener
	kept := s.tcp[:0:0]
	for _, l := range s.tcp {
		if l.tls == tls {
			old = append(old, l)
		} else {
			kept = append(kept, l)
		}
	}
	s.mu.Unlock()
	if closing {
		return "the server is shutting down"
	}
	if listen == nil {
		s.log.Warn("CONFIG SET of bind or port: this server cannot open listeners")
		return "no listener"
	}
	if tls && port == 0 {
		return ""
	}
	if first {
		// Closed below: should the new addresses fail, the old ones are
		// opened again by the rollback.
		s.mu.Lock()
		s.boundAt[kind] = ""
		s.mu.Unlock()
	}
	retire := func() {
		for _, l := range old {
			l.retired.Store(true)
			_ = l.ln.Close()
		}
		s.mu.Lock()
		s.tcp = kept
		s.mu.Unlock()
	}
	if first {
		retire()
	}
	var lns []net.Listener
	if port != 0 {
		var err error
		if lns, err = listen(s.cfg.Bind(), port, tls); err != nil {
			s.log.Warn(fmt.Sprintf("Could not create server TCP listening socket: %v", err))
			return err.Error()
		}
	}
	if !first {
		retire()
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		for _, ln := range lns {
			_ = ln.Close()
		}
		return "the server is shutting down"
	}
	s.boundAt[kind] = target
	for _, ln := range lns {
		l := &tcpListener{ln: ln, tls: tls}
		s.tcp = append(s.tcp, l)
		go func() {
			if err := s.serve(ln, &l.retired); err != nil && !errors.Is(err, ErrServerClosed) {
				s.log.Error("serving a listener failed", "addr", ln.Addr().String(), "err", err)
			}
		}()
	}
	s.mu.Unlock()
	return ""
}
