package server

import (
	"net"
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/config"
)

// deniedProtected is Redis 7's reply to a client refused by protected-mode,
// word for word.
const deniedProtected = "-DENIED Redis is running in protected mode because protected " +
	"mode is enabled and no password is set for the default user. " +
	"In this mode connections are only accepted from the loopback interface. " +
	"If you want to connect from external computers to Redis you " +
	"may adopt one of the following solutions: " +
	"1) Just disable protected mode sending the command " +
	"'CONFIG SET protected-mode no' from the loopback interface " +
	"by connecting to Redis from the same host the server is " +
	"running, however MAKE SURE Redis is not publicly accessible " +
	"from internet if you do so. Use CONFIG REWRITE to make this " +
	"change permanent. " +
	"2) Alternatively you can just disable the protected mode by " +
	"editing the Redis configuration file, and setting the protected " +
	"mode option to 'no', and then restarting the server. " +
	"3) If you started the server manually just for testing, restart " +
	"it with the '--protected-mode no' option. " +
	"4) Setup a an authentication password for the default user. " +
	"NOTE: You only need to do one of the above things in order for " +
	"the server to start accepting connections from the outside.\r\n"

// protectedDenied decides, as Redis 7's clientAcceptHandler does, whether a
// new connection from remote is refused: protected-mode is on, the default
// user has no password, and the peer is not on the loopback interface. (Redis
// 7 no longer looks at bind: with a loopback-only bind no other peer can
// connect anyway.)
func protectedDenied(protected bool, requirePass string, remote net.Addr) bool {
	if !protected || requirePass != "" {
		return false
	}
	switch a := remote.(type) {
	case *net.TCPAddr:
		return !a.IP.IsLoopback()
	case *net.UnixAddr:
		return false
	}
	// Another kind of address (a test's pipe): a local peer.
	return false
}

// refuseTimeout bounds how long a refused client may take to receive its
// error (and, on the TLS port, to finish the handshake it needs first).
const refuseTimeout = 5 * time.Second

// refuse writes msg to a connection that is not taken and closes it, under
// a deadline. It runs in its own goroutine, so that a slow peer (or a TLS
// handshake) never holds up accepting others.
func refuse(nc net.Conn, msg string) {
	_ = nc.SetDeadline(time.Now().Add(refuseTimeout))
	_, _ = nc.Write([]byte(msg))
	_ = nc.Close()
}

// protectedCommand is a command that a setting protects, as Redis 7's
// enable-debug-command and enable-module-command protect DEBUG and MODULE
// LOAD: no one may run it (no, the default), everyone may (yes), or local
// clients only (local).
type protectedCommand struct {
	// name is how the refusal names the command (DEBUG, MODULE).
	name    string
	setting string
	allowed func(*config.Config) config.ProtectedAction
}

var (
	debugGuard  = &protectedCommand{"DEBUG", "enable-debug-command", (*config.Config).EnableDebugCommand}
	moduleGuard = &protectedCommand{"MODULE", "enable-module-command", (*config.Config).EnableModuleCommand}
)

// protectedBy flags a command Protected and names the setting that
// guards it.
func protectedBy(e cmdEntry, g *protectedCommand) cmdEntry {
	e.spec.Flags |= command.Protected
	e.guard = g
	return e
}

// protectedError is Redis 7's refusal of a protected command to a client
// its setting does not allow, or "".
func (s *Server) protectedError(c *client, e *cmdEntry) string {
	g := e.guard
	if g == nil || g.allowed(s.cfg).Allows(isLocal(c.nc.RemoteAddr())) {
		return ""
	}
	return "ERR " + g.name + " command not allowed. If the " + g.setting + " option is set to \"local\", " +
		"you can run it from a local connection, otherwise you need to set this option " +
		"in the configuration file, and then restart the server."
}

// isLocal reports whether a peer is local as Redis's islocalClient has it:
// a unix socket, or exactly 127.0.0.1 or ::1 (not the rest of 127/8).
func isLocal(remote net.Addr) bool {
	switch a := remote.(type) {
	case *net.TCPAddr:
		return a.IP.Equal(net.IPv4(127, 0, 0, 1)) || a.IP.Equal(net.IPv6loopback)
	case *net.UnixAddr:
		return true
	}
	// Another kind of address (a test's pipe): a local peer.
	return true
}
