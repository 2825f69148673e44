package server

import "testing"

// TestStreamInfoDiff compares XINFO STREAM and XINFO GROUPS with
// redis-server 7.0.15: lengths, ids, counters, entries-read and lag as the
// stream is read, deleted from and trimmed. Streams stay within one radix
// tree node of Redis's (radix-tree-keys and -nodes are Cairn's estimate).
// XINFO CONSUMERS and STREAM FULL hold times: see TestStreamInfoTimes.
func TestStreamInfoDiff(t *testing.T) {
	for _, proto := range []int{2, 3} {
		d := newDiffRunProto(t, proto)
		info := func() {
			d.same("XINFO", "STREAM", "s")
			d.same("XINFO", "GROUPS", "s")
		}
		for _, c := range [][]string{
			{"XINFO", "STREAM", "nokey"}, {"XINFO", "GROUPS", "nokey"}, {"XINFO", "CONSUMERS", "nokey", "g"},
			{"SET", "str", "x"}, {"XINFO", "STREAM", "str"}, {"XINFO", "GROUPS", "str"},
			{"XINFO", "FOO", "s"}, {"XINFO", "STREAM"},
			{"XGROUP", "CREATE", "s", "g1", "$", "MKSTREAM"},
			{"XINFO", "STREAM", "s", "FOO"}, {"XINFO", "STREAM", "s", "FULL", "COUNT"},
			{"XINFO", "STREAM", "s", "FULL", "FOO", "1"}, {"XINFO", "STREAM", "s", "FULL", "COUNT", "x"},
			{"XADD", "nogroups", "1-1", "a", "1"}, {"XADD", "nogroups", "2-1", "b", "2"},
			{"XINFO", "STREAM", "nogroups", "FULL"}, {"XINFO", "STREAM", "nogroups", "FULL", "COUNT", "1"},
			{"XINFO", "STREAM", "nogroups", "FULL", "COUNT", "0"}, {"XINFO", "STREAM", "nogroups", "FULL", "COUNT", "-5"},
			{"XINFO", "STREAM", "s", "FULL"},
			// XINFO HELP ends with 7.2's "Print this help." (7.0: "Prints").
			{"XINFO", "HELP", "x"},
			{"XINFO", "CONSUMERS", "s", "nog"},
			{"XINFO", "CONSUMERS", "s", "g1"},
		} {
			d.same(c...)
		}
		info()
		for i := 1; i <= 6; i++ {
			d.same("XADD", "s", string(rune('0'+i))+"-1", "f", "v")
		}
		d.same("XGROUP", "CREATE", "s", "g2", "0")
		d.same("XGROUP", "CREATE", "s", "g3", "3-1")
		d.same("XGROUP", "CREATE", "s", "g4", "0", "ENTRIESREAD", "2")
		info()
		d.same("XREADGROUP", "GROUP", "g2", "c", "COUNT", "2", "STREAMS", "s", ">")
		d.same("XREADGROUP", "GROUP", "g3", "c", "COUNT", "1", "STREAMS", "s", ">")
		info()
		d.same("XDEL", "s", "4-1")
		info()
		d.same("XREADGROUP", "GROUP", "g2", "c", "COUNT", "3", "STREAMS", "s", ">")
		d.same("XREADGROUP", "GROUP", "g1", "c", "STREAMS", "s", ">")
		info()
		d.same("XDEL", "s", "1-1")
		info()
		d.same("XTRIM", "s", "MAXLEN", "2")
		info()
		d.same("XADD", "s", "9-1", "f", "v")
		d.same("XGROUP", "SETID", "s", "g3", "0")
		info()
		d.same("XDEL", "s", "5-1", "6-1", "9-1")
		info()
		d.same("XSETID", "s", "20-0", "ENTRIESADDED", "40", "MAXDELETEDID", "15-0")
		info()
	}
}
