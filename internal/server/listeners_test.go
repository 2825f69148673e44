package server

import (
	"net"
	"os/exec"
	"strconv"
	"testing"

	"github.com/cairndb/cairn/internal/redistest"
)

// freePort returns a loopback port nothing listens on (for a moment).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// CONFIG SET port and bind move the listeners at run time, as in Redis 7;
// a port or an address that cannot be listened on is refused with Redis
// 7.0.15's errors and leaves the old listeners serving and the old values
// set.
func TestConfigSetPortAndBind(t *testing.T) {
	ts := startServer(t)
	ts.srv.SetListen(func(bind []string, port int, tls bool) ([]net.Listener, error) {
		var out []net.Listener
		for _, host := range bind {
			ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
			if err != nil {
				for _, l := range out {
					l.Close()
				}
				return nil, err
			}
			out = append(out, ln)
		}
		return out, nil
	})
	// The server's own TCP listener, on the configured port.
	port := freePort(t)
	if err := ts.cfg.Set([][2]string{{"port", strconv.Itoa(port)}}); err != nil {
		t.Fatal(err)
	}
	addr := func(p int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p)) }
	c := redistest.Dial(t, addr(port))
	mustDo(t, c, "PING")

	// A port in use: refused, the old one still serves.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port
	_, err = c.Do("CONFIG", "SET", "port", strconv.Itoa(busyPort))
	if got, want := errText(err), "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs."; got != want {
		t.Errorf("CONFIG SET port in use: %q, want %q", got, want)
	}
	if _, lerr := exec.LookPath("redis-server"); lerr == nil {
		// Redis's own answers, for the same port in use and a missing
		// address.
		rc := redistest.Start(t)
		_, rerr := rc.Do("CONFIG", "SET", "port", strconv.Itoa(busyPort))
		if errText(rerr) != errText(err) {
			t.Errorf("CONFIG SET port in use: Cairn %q, Redis %q", errText(err), errText(rerr))
		}
		_, rerr = rc.Do("CONFIG", "SET", "bind", "192.0.2.1")
		if want := "ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses."; errText(rerr) != want {
			t.Errorf("Redis's CONFIG SET bind to a missing address: %q", errText(rerr))
		}
	}
	if v := mustDo(t, c, "CONFIG", "GET", "port").([]any); string(v[1].([]byte)) != strconv.Itoa(port) {
		t.Errorf("port after the failure: %s", v[1])
	}
	redistest.Dial(t, addr(port)).MustDo(t, "PING")

	// An address the machine lacks: refused with the old addresses
	// listening again.
	_, err = c.Do("CONFIG", "SET", "bind", "192.0.2.1")
	if got, want := errText(err), "ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses."; got != want {
		t.Errorf("CONFIG SET bind to a missing address: %q, want %q", got, want)
	}
	redistest.Dial(t, addr(port)).MustDo(t, "PING")

	// A new port: the new one serves, the old one is closed.
	next := freePort(t)
	mustDo(t, c, "CONFIG", "SET", "port", strconv.Itoa(next))
	redistest.Dial(t, addr(next)).MustDo(t, "PING")
	if conn, err := net.Dial("tcp", addr(port)); err == nil {
		conn.Close()
		t.Errorf("the old port %d still accepts", port)
	}
	// The connection that moved it stays open.
	mustDo(t, c, "PING")
}
