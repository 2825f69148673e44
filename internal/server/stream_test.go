package server

import (
	"bufio"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEndlessReplyStopsWhenClientGoes: a negative count of 2⁶³−1 asks for
// a reply without end; the command must stop, and its connection end, once
// the client hangs up or is killed (issue 18: SRANDMEMBER ran on after its
// client left, ZRANDMEMBER ignored CLIENT KILL, and a shutdown then found
// their iterators open).
func TestEndlessReplyStopsWhenClientGoes(t *testing.T) {
	const huge = "-9223372036854775807"
	cases := []struct {
		name  string
		setup []string
		cmd   []string
	}{
		{"SRANDMEMBER", []string{"SADD", "k", "a", "b", "c"}, []string{"SRANDMEMBER", "k", huge}},
		{"SRANDMEMBER big set", nil, []string{"SRANDMEMBER", "big", huge}},
		{"ZRANDMEMBER", []string{"ZADD", "k", "1", "a", "2", "b"}, []string{"ZRANDMEMBER", "k", huge}},
		{"ZRANDMEMBER WITHSCORES", []string{"ZADD", "k", "1", "a", "2", "b"}, []string{"ZRANDMEMBER", "k", "-4611686018427387903", "WITHSCORES"}},
		{"HRANDFIELD", []string{"HSET", "k", "a", "1", "b", "2"}, []string{"HRANDFIELD", "k", huge}},
		{"HRANDFIELD WITHVALUES", []string{"HSET", "k", "a", "1"}, []string{"HRANDFIELD", "k", "-4611686018427387903", "WITHVALUES"}},
	}
	for _, tc := range cases {
		for _, how := range []string{"hang up", "CLIENT KILL"} {
			t.Run(tc.name+"/"+how, func(t *testing.T) {
				ts := startServer(t)
				ctx := context.Background()
				c := ts.client(t, 2)
				if tc.setup != nil {
					if err := c.Do(ctx, anys(tc.setup)...).Err(); err != nil {
						t.Fatal(err)
					}
				} else {
					members := []any{"SADD", "big"}
					for i := range 1000 {
						members = append(members, strconv.Itoa(i))
					}
					if err := c.Do(ctx, members...).Err(); err != nil {
						t.Fatal(err)
					}
				}
				conn := ts.raw(t)
				r := bufio.NewReader(conn)
				if _, err := conn.Write([]byte(encodeCommand("CLIENT", "ID"))); err != nil {
					t.Fatal(err)
				}
				line, err := r.ReadString('\n')
				if err != nil {
					t.Fatal(err)
				}
				id := strings.TrimSpace(strings.TrimPrefix(line, ":"))
				if _, err := conn.Write([]byte(encodeCommand(tc.cmd...))); err != nil {
					t.Fatal(err)
				}
				// The reply is streaming: read some of it.
				if _, err := r.Discard(1 << 20); err != nil {
					t.Fatal(err)
				}
				if how == "hang up" {
					_ = conn.Close()
				} else if err := c.Do(ctx, "CLIENT", "KILL", "ID", id).Err(); err != nil {
					t.Fatal(err)
				}
				deadline := time.Now().Add(10 * time.Second)
				for {
					list, err := c.Do(ctx, "CLIENT", "LIST").Text()
					if err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(list, "id="+id+" ") {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("10 s after the client went, its %s still runs:\n%s", tc.cmd[0], list)
					}
					time.Sleep(20 * time.Millisecond)
				}
				// The server still answers, and the shutdown at the end of
				// the test finds no command running.
				if err := c.Ping(ctx).Err(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
