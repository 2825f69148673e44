package server

import "testing"

// TestStreamClaimDiff compares XCLAIM and XAUTOCLAIM with redis-server
// 7.0.15 byte for byte, with idle times that do not depend on the clock.
func TestStreamClaimDiff(t *testing.T) {
	for _, proto := range []int{2, 3} {
		d := newDiffRunProto(t, proto)
		cmds := [][]string{
			{"XCLAIM", "s", "g", "c", "0", "1-1"},
			{"XAUTOCLAIM", "s", "g", "c", "0", "0"},
			{"XGROUP", "CREATE", "s", "g", "0", "MKSTREAM"},
			{"XADD", "s", "1-1", "a", "1"},
			{"XADD", "s", "2-1", "b", "2"},
			{"XADD", "s", "3-1", "c", "3"},
			{"XADD", "s", "4-1", "d", "4"},
			{"XADD", "s", "5-1", "e", "5"},
			{"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">"},
			{"XCLAIM", "s", "g", "bob", "0", "1-1", "2-1", "9-9"},
			{"XCLAIM", "s", "g", "bob", "3600000", "3-1"},
			{"XCLAIM", "s", "g", "bob", "0", "3-1", "JUSTID"},
			{"XCLAIM", "s", "g", "bob", "x", "3-1"},
			{"XCLAIM", "s", "g", "bob", "0", "3-1", "IDLE", "x"},
			{"XCLAIM", "s", "g", "bob", "0", "3-1", "TIME", "x"},
			{"XCLAIM", "s", "g", "bob", "0", "3-1", "RETRYCOUNT", "x"},
			{"XCLAIM", "s", "g", "bob", "0", "3-1", "LASTID", "x"},
			{"XCLAIM", "s", "g", "bob", "0", "3-1", "BOGUS"},
			{"XCLAIM", "s", "g", "bob", "0", "3-1", "IDLE"},
			{"XCLAIM", "s", "nog", "bob", "0", "3-1"},
			{"XCLAIM", "nokey", "g", "bob", "0", "3-1"},
			{"XPENDING", "s", "g"},
			{"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", "0"},
			{"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "0"},
			{"XADD", "s", "6-1", "f", "6"},
			{"XCLAIM", "s", "g", "carol", "0", "6-1"},
			{"XCLAIM", "s", "g", "carol", "0", "6-1", "FORCE", "RETRYCOUNT", "7", "LASTID", "6-1"},
			{"XINFO", "GROUPS", "s"},
			{"XPENDING", "s", "g"},
			{"XDEL", "s", "4-1"},
			{"XAUTOCLAIM", "s", "g", "dave", "0", "0", "COUNT", "2"},
			{"XAUTOCLAIM", "s", "g", "dave", "0", "(2-1", "COUNT", "2"},
			{"XAUTOCLAIM", "s", "g", "dave", "0", "0", "JUSTID"},
			{"XAUTOCLAIM", "s", "g", "dave", "3600000", "-", "COUNT", "2"},
			{"XAUTOCLAIM", "s", "g", "dave", "0", "0", "COUNT", "0"},
			{"XAUTOCLAIM", "s", "g", "dave", "0", "0", "COUNT", "x"},
			{"XAUTOCLAIM", "s", "g", "dave", "0", "0", "FOO"},
			{"XAUTOCLAIM", "s", "g", "dave", "x", "0"},
			{"XAUTOCLAIM", "s", "g", "dave", "0", "x"},
			{"XAUTOCLAIM", "s", "g", "dave", "0", "(18446744073709551615-18446744073709551615"},
			{"XAUTOCLAIM", "s", "nog", "dave", "0", "0"},
			{"SET", "str", "x"},
			{"XAUTOCLAIM", "str", "g", "dave", "0", "0"},
			{"XCLAIM", "str", "g", "dave", "0", "0"},
			{"XPENDING", "s", "g"},
			{"XREADGROUP", "GROUP", "g", "dave", "STREAMS", "s", "0"},
		}
		for _, c := range cmds {
			d.same(c...)
		}
	}
}
