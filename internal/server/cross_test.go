package server

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/cairndb/cairn/internal/redistest"
)

// Tests where features that landed separately meet: ACL with the bit
// commands, fragmented strings with DUMP/MIGRATE/replication, and so on.

// BITFIELD's key is only read when every operation is a GET, as Redis's
// bitfieldGetKeys says: a user with read-only access to the key may run
// it, and COMMAND GETKEYSANDFLAGS reports RO. Compared with a real Redis
// where one is installed.
func TestCrossBitfieldKeyFlags(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	var r *redistest.Conn
	if redisInstalled() {
		r = redistest.Start(t)
	}
	for _, conn := range []*redistest.Conn{c, r} {
		if conn != nil {
			mustDo(t, conn, "ACL", "SETUSER", "u", "on", "nopass", "+@all", "%R~r*", "%W~w*", "~rw*")
		}
	}
	tests := []struct {
		args    []string
		allowed bool
		flags   string
	}{
		{[]string{"BITFIELD", "r1", "GET", "u8", "0"}, true, "RO access"},
		{[]string{"BITFIELD", "r1", "get", "u8", "0", "OVERFLOW", "SAT", "GET", "i5", "#3"}, true, "RO access"},
		{[]string{"BITFIELD", "r1"}, true, "RO access"},
		{[]string{"BITFIELD", "r1", "GET", "u8"}, false, "RW access update"},
		{[]string{"BITFIELD", "r1", "GET", "u8", "0", "SET", "u8", "0", "1"}, false, "RW access update"},
		{[]string{"BITFIELD", "r1", "INCRBY", "u8", "0", "1"}, false, "RW access update"},
		{[]string{"BITFIELD", "r1", "OVERFLOW", "WRAP", "BOGUS"}, false, "RW access update"},
		{[]string{"BITFIELD", "w1", "GET", "u8", "0"}, false, "RO access"},
		{[]string{"BITFIELD", "w1", "SET", "u8", "0", "1"}, false, "RW access update"},
		{[]string{"BITFIELD", "rw1", "SET", "u8", "0", "1"}, true, "RW access update"},
		{[]string{"BITFIELD_RO", "r1", "GET", "u8", "0"}, true, "RO access"},
	}
	for _, tc := range tests {
		for _, conn := range []*redistest.Conn{c, r} {
			if conn == nil {
				continue
			}
			name := "Cairn"
			if conn == r {
				name = "redis-server"
			}
			dry := mustRaw(t, conn, append([]string{"ACL", "DRYRUN", "u"}, tc.args...)...)
			if got := bytes.Equal(dry, []byte("+OK\r\n")); got != tc.allowed {
				t.Errorf("%s: ACL DRYRUN u %s = %q, want allowed=%t", name, quoteCommand(tc.args), dry, tc.allowed)
			}
			kf := mustDo(t, conn, append([]any{"COMMAND", "GETKEYSANDFLAGS"}, anys(tc.args)...)...).([]any)
			var flags [][]byte
			if len(kf) == 1 {
				for _, f := range kf[0].([]any)[1].([]any) {
					flags = append(flags, f.([]byte))
				}
			}
			if got := string(bytes.Join(flags, []byte(" "))); len(kf) != 1 || got != tc.flags {
				t.Errorf("%s: COMMAND GETKEYSANDFLAGS %s = %q, want one key with flags %q", name, quoteCommand(tc.args), kf, tc.flags)
			}
		}
	}
}

func redisInstalled() bool {
	_, err := exec.LookPath("redis-server")
	return err == nil
}
