package server

import (
	"net"
	"time"
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
