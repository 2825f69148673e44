package server

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
)

// benchPipeline sends b.N copies of cmd over one connection, 64 at a time,
// and reads the replies: it measures the server's per-command cost (CPU and
// allocations) without a client library in the way.
func benchPipeline(b *testing.B, cmd string, setup ...string) {
	ts := startServer(b)
	send := pipelineSender(b, ts.raw(b))
	for _, s := range setup {
		send(s, 1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	const batch = 64
	for i := 0; i < b.N; i += batch {
		n := min(batch, b.N-i)
		send(strings.Repeat(cmd, n), n)
	}
}

func encodeCommand(args ...string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&sb, "$%d\r\n%s\r\n", len(a), a)
	}
	return sb.String()
}

var value128 = strings.Repeat("v", 128)

func BenchmarkPing(b *testing.B) { benchPipeline(b, encodeCommand("PING")) }
func BenchmarkSet(b *testing.B)  { benchPipeline(b, encodeCommand("SET", "key:000001", value128)) }
func BenchmarkGet(b *testing.B) {
	benchPipeline(b, encodeCommand("GET", "key:000001"), encodeCommand("SET", "key:000001", value128))
}
func BenchmarkIncr(b *testing.B) { benchPipeline(b, encodeCommand("INCR", "counter")) }

// BenchmarkGetACLUser is BenchmarkGet as a restricted ACL user (command
// bitset and key patterns checked on every command): against BenchmarkGet,
// what the ACL check costs.
func BenchmarkGetACLUser(b *testing.B) {
	benchPipeline(b, encodeCommand("GET", "key:000001"),
		encodeCommand("ACL", "SETUSER", "u", "on", ">pw", "+@all", "-flushall", "%R~key:*", "%W~key:*", "~other:*"),
		encodeCommand("AUTH", "u", "pw"),
		encodeCommand("SET", "key:000001", value128))
}

// pipelineSender returns a function that writes n commands to conn in one
// write and reads their n replies (simple strings, integers, bulk strings;
// an error reply fails the benchmark), as a pipelining client does.
func pipelineSender(b *testing.B, conn net.Conn) func(cmds string, n int) {
	r := bufio.NewReader(conn)
	return func(cmds string, n int) {
		if _, err := conn.Write([]byte(cmds)); err != nil {
			b.Fatal(err)
		}
		for range n {
			line, err := r.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if line[0] == '$' && line != "$-1\r\n" {
				if _, err := r.ReadString('\n'); err != nil {
					b.Fatal(err)
				}
			}
			if line[0] == '-' {
				b.Fatalf("error reply %q", line)
			}
		}
	}
}
