package main

import (
	"fmt"
	"net"
	"strings"
)

// sdNotify sends state to systemd's notification socket, as sd_notify(3)
// does: one datagram on the unix socket $NOTIFY_SOCKET names, a leading
// '@' naming an abstract socket. Nothing is sent when socket is empty.
func sdNotify(socket, state string) error {
	if socket == "" {
		return nil
	}
	name := socket
	if strings.HasPrefix(name, "@") {
		name = "\x00" + name[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("sd_notify: %w", err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return fmt.Errorf("sd_notify: %w", err)
	}
	return nil
}
