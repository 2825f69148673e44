package server

import "testing"

// TestStreamGroupDiff compares consumer-group commands with redis-server
// 7.0.15 byte for byte. Replies holding times (XPENDING's idle times) are
// checked in TestStreamGroupPending instead.
func TestStreamGroupDiff(t *testing.T) {
	for _, proto := range []int{2, 3} {
		d := newDiffRunProto(t, proto)
		cmds := [][]string{
			{"XGROUP", "CREATE", "s", "g", "$"},
			{"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"},
			{"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"},
			{"XGROUP", "CREATE", "s", "g2", "bad"},
			{"XGROUP", "CREATE", "s", "g2", "0", "ENTRIESREAD", "-2"},
			{"XGROUP", "CREATE", "s", "g2", "0", "ENTRIESREAD", "x"},
			{"XGROUP", "CREATE", "s", "g2", "0", "FOO"},
			{"XGROUP", "CREATE", "s", "g2", "-"},
			{"XGROUP", "CREATE", "s"},
			{"XGROUP", "FOO", "s", "g"},
			// XGROUP HELP ends with 7.2's "Print this help." (7.0: "Prints").
			{"XGROUP", "SETID", "s", "nog", "0"},
			{"XGROUP", "SETID", "nokey", "g", "0"},
			{"XGROUP", "SETID", "s", "g", "0", "MKSTREAM"},
			{"XGROUP", "CREATECONSUMER", "s", "nog", "c"},
			{"XGROUP", "DELCONSUMER", "s", "nog", "c"},
			{"XGROUP", "DESTROY", "s", "nog"},
			{"XGROUP", "DESTROY", "nokey", "g"},
			{"SET", "str", "x"},
			{"XGROUP", "CREATE", "str", "g", "$"},
			{"XGROUP", "CREATE", "str", "g", "$", "MKSTREAM"},
			{"XADD", "s", "1-1", "a", "1"},
			{"XADD", "s", "1-2", "b", "2"},
			{"XADD", "s", "2-1", "c", "3"},
			{"XADD", "s", "3-1", "d", "4"},
			{"XGROUP", "CREATECONSUMER", "s", "g", "alice"},
			{"XGROUP", "CREATECONSUMER", "s", "g", "alice"},
			{"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">"},
			{"XGROUP", "SETID", "s", "g", "0"},
			{"XREADGROUP", "GROUP", "g", "bob", "COUNT", "2", "STREAMS", "s", ">"},
			{"XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "s", ">"},
			{"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "0"},
			{"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", "0"},
			{"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", "1-1"},
			{"XREADGROUP", "GROUP", "g", "bob", "COUNT", "1", "STREAMS", "s", "18446744073709551615-18446744073709551615"},
			{"XREADGROUP", "GROUP", "g", "carol", "STREAMS", "s", "0"},
			{"XPENDING", "s", "g"},
			{"XPENDING", "s", "g", "IDLE", "999999", "-", "+", "10"},
			{"XPENDING", "s", "g", "-", "+", "0"},
			{"XPENDING", "s", "g", "-", "+"},
			{"XPENDING", "s", "g", "-", "+", "x"},
			{"XPENDING", "s", "g", "IDLE", "x", "-", "+", "10"},
			{"XPENDING", "s", "g", "IDLE", "10", "-", "+"},
			{"XPENDING", "s", "g", "(-", "+", "10"},
			{"XPENDING", "s", "nog"},
			{"XPENDING", "nokey", "g"},
			{"XPENDING", "str", "g"},
			{"XDEL", "s", "1-2"},
			{"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", "0"},
			{"XACK", "s", "g", "1-2", "1-2", "9-9"},
			{"XACK", "s", "g", "bad"},
			{"XACK", "s", "nog", "bad"},
			{"XACK", "nokey", "g", "1-1"},
			{"XACK", "str", "g", "1-1"},
			{"XPENDING", "s", "g"},
			{"XGROUP", "DELCONSUMER", "s", "g", "alice"},
			{"XGROUP", "DELCONSUMER", "s", "g", "alice"},
			{"XPENDING", "s", "g"},
			{"XREADGROUP", "GROUP", "g", "dave", "NOACK", "STREAMS", "s", ">"},
			{"XADD", "s", "4-1", "e", "5"},
			{"XREADGROUP", "GROUP", "g", "dave", "NOACK", "STREAMS", "s", ">"},
			{"XPENDING", "s", "g"},
			{"XREADGROUP", "GROUP", "g", "dave", "STREAMS", "s", "$"},
			// XREADGROUP with + gets the message of Redis 7.4, which
			// knows + (as XREAD's last entry).
			{"XREADGROUP", "GROUP", "g", "dave", "STREAMS", "s", "bad"},
			{"XREADGROUP", "GROUP", "nog", "dave", "STREAMS", "s", ">"},
			{"XREADGROUP", "GROUP", "g", "dave", "STREAMS", "nokey", ">"},
			{"XREADGROUP", "GROUP", "g", "dave", "STREAMS", "s", "nokey", ">", ">"},
			{"XREADGROUP", "GROUP", "g", "dave", "STREAMS", "s"},
			{"XREADGROUP", "STREAMS", "s", ">"},
			{"XREADGROUP", "GROUP", "g", "dave", "BLOCK", "10", "STREAMS", "s", ">"},
			{"XREADGROUP", "GROUP", "g", "dave", "STREAMS", "str", ">"},
			{"MULTI"}, {"XREADGROUP", "GROUP", "g", "dave", "BLOCK", "0", "STREAMS", "s", ">"}, {"EXEC"},
			{"XGROUP", "CREATE", "s", "g3", "0", "ENTRIESREAD", "1"},
			{"XREADGROUP", "GROUP", "g3", "x", "COUNT", "1", "STREAMS", "s", ">"},
			{"XGROUP", "SETID", "s", "g3", "$", "ENTRIESREAD", "3"},
			{"XGROUP", "SETID", "s", "g3", "-"},
			{"XGROUP", "DESTROY", "s", "g3"},
			{"XGROUP", "DESTROY", "s", "g3"},
			{"COPY", "s", "s2"},
			{"XPENDING", "s2", "g"},
			{"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s2", "0"},
			{"DEL", "s"},
			{"XPENDING", "s", "g"},
			{"XGROUP", "CREATE", "s", "g", "0", "MKSTREAM"},
			{"XPENDING", "s", "g"},
		}
		for _, c := range cmds {
			d.same(c...)
		}
	}
}
