package server

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/config"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/commands.md from the command table")

// commandNotes are what a user should know where Cairn's behaviour differs
// from Redis's or is narrower. Everything not listed behaves as Redis 7.
var commandNotes = map[string]string{
	"hlen":            "Does not count fields whose deadline has passed, even before they are reclaimed (Redis counts them until then).",
	"hrandfield":      "O(N) on hashes over 512 fields: fields are drawn by position, which takes a pass.",
	"hscan":           "Stateless cursor derived from the field bytes: valid across reconnects and restarts.",
	"zscan":           "Stateless cursor derived from the member bytes: valid across reconnects and restarts.",
	"sscan":           "Stateless cursor derived from the member bytes: valid across reconnects and restarts.",
	"zrank":           "O(rank from the nearer end) on disk, where Redis is O(log N); likewise ZREVRANK and ZRANGE by rank with a deep offset.",
	"zrevrank":        "O(rank from the nearer end) on disk, where Redis is O(log N).",
	"zcount":          "O(members counted), where Redis is O(log N).",
	"zlexcount":       "O(members counted), where Redis is O(log N).",
	"blpop":           "A woken client takes from the first ready key in argument order (as Redis 7.2).",
	"object|encoding": "Reports the encoding Redis 7 would use for the current contents under the encoding limits (hash-max-listpack-entries and the rest); Cairn's layout on disk is the same for every size.",
	"object|freq":     "Under an LFU maxmemory-policy, Redis's logarithmic counters (lfu-log-factor, lfu-decay-time), counted from when the policy was set, in the same 65,536 in-memory slots as OBJECT IDLETIME; a write to an existing key that did not look it up first does not count. Under other policies, Redis's error.",
	"object|refcount": "2147483647 for the integers 0–9999 (shared in Redis), otherwise 1.",
	"object|idletime": "Counts from the key's last read or write. Approximate: access times live in a fixed in-memory table of 65,536 slots, so keys sharing a slot can report too small an idle time; reset by a restart. Under an LFU maxmemory-policy, Redis's error (no access times tracked).",
	"unlink":          "Same as DEL: deleting any key is already O(1).",
	"flushdb":         "ASYNC and SYNC are both instant (range tombstones).",
	"flushall":        "ASYNC and SYNC are both instant (range tombstones).",
	"shutdown":        "NOSAVE/SAVE/NOW/FORCE all mean a clean close: every acknowledged write is already in the log.",
	"save":            "Writes an RDB file of version 10 (Redis 7.0 loads it) from one consistent view; hash field deadlines have no form in it and are left out. Other clients are served meanwhile.",
	"bgsave":          "As SAVE, in the background; SCHEDULE queues one more after a running BGSAVE.",
	"replicaof":       "Makes Cairn a read-only replica of a Redis master (full resync through a checked temporary RDB file, then the command stream; +CONTINUE after a broken link). CONFIG GET replicaof shows the current master. The master's replication ID and offset are kept in memory only: after a restart the replica does a full resync. Expired keys are reclaimed by the replica itself as well as by the master's DEL.",
	"slaveof":         "As REPLICAOF.",
	"sync":            "Sends the RDB of one consistent view of the data (diskless when the replica announced capa eof), then closes the connection: Cairn streams no commands to replicas. This is what redis-cli --rdb and --functions-rdb need.",
	"psync":           "Always answers +FULLRESYNC (Cairn keeps no backlog), then as SYNC.",
	"replconf":        "Accepts listening-port, ip-address, capa, rdb-only, rdb-filter-only (functions) for SYNC; ACK and GETACK are ignored, as from a client that is not a replica.",
	"lastsave":        "The last time the write-ahead log was synced to disk: data is persisted continuously, not by snapshots.",
	"acl|setuser":     "Redis 7.2's rules: command rules are kept in the order given (ACL LIST and GETUSER show them as given after +@all or -@all), as 7.2 does and 7.0 did not. Rules may name every Redis 7.2 command and subcommand, implemented or not (`-debug`, `+cluster|info`), as Redis accepts them.",
	"acl|cat":         "The commands of a category in name order (Redis lists them in hash-table order).",
	"client|list":     "Every Redis 7.2 field. The calling client's qbuf counts the requests of its current read, the running one included, as Redis's does (26 for a lone CLIENT LIST); a blocked client's, what it sent after its blocking command. Another client's qbuf, qbuf-free, rbs and rbp are otherwise as it last left them before waiting for input (Redis also frees an idle client's query buffer after 2 s: its qbuf-free then reads 0); obl, oll and omem count the replies and pushes its socket has not taken yet; rbp is the peak since the connection opened.",
	"client|info":     "The fields of CLIENT LIST, for the calling connection.",
	"info":            "Redis 7.2's sections and fields, but those about machinery Cairn lacks (fork, jemalloc, defragmentation, I/O threads, the event loop); used_memory is the Go heap (the data is on disk); avg_ttl is exact; rdb_changes_since_last_save counts keys, not elements. Section engine (by name or with everything) is Pebble's figures. Latencies have nanosecond resolution (Redis records whole microseconds).",
	"sort":            "ALPHA compares bytes, as Redis in the C locale. A set or sorted set is read in byte or score order, not Redis's hash-table order: an unsorted set (BY nosort), and equal ALPHA BY values, come in an order of their own (a list's match Redis's exactly). With BY or GET patterns that read other keys, SORT ... STORE (and any such SORT in MULTI or a script) excludes every writer while it runs.",
	"sort_ro":         "ALPHA compares bytes, as Redis in the C locale. A set or sorted set is read in byte or score order, not Redis's hash-table order: an unsorted set (BY nosort), and equal ALPHA BY values, come in an order of their own (a list's match Redis's exactly).",
	"dump":            "Writes RDB version 10 (Redis 7.0) payloads in plain encodings (quicklist of listpacks, set, hash, zset2, Redis 7.0's stream of listpacks without consumer active times), which every Redis 7 restores; a hash with field TTLs is written as Redis 7.4 does (version 12), which only Redis 7.4+ and Cairn restore.",
	"restore":         "Reads every encoding Redis 7.4 and older write for strings, lists, sets, sorted sets, hashes (field TTLs included; RDB version up to 12) and streams with their consumer groups, not modules; hash fields already past their TTL are left out. IDLETIME and FREQ set what OBJECT IDLETIME and OBJECT FREQ report, as in Redis (in their approximate in-memory slots).",
	"geodist":         "Distances use correctly rounded sin, cos and asin; Redis's (glibc's) are off by one bit in about one call in a thousand, so a distance can differ in its last bit (four-decimal replies almost never show it).",
	"geosearchstore":  "With STOREDIST, a stored distance can differ from Redis's in its last bit (see GEODIST).",
	"georadius":       "With STOREDIST, a stored distance can differ from Redis's in its last bit (see GEODIST).",
	"latency":         "Events: command, fast-command, expire-cycle (a cycle of the expired-key reclaimer) and aof-fsync-always (the WAL syncs that appendfsync always waits for); Redis's fork, eviction and similar events have no counterpart. DOCTOR's report is shorter than Redis's.",
	"debug":           "Allowed by enable-debug-command (no by default, as in Redis 7; local: loopback and unix-socket clients). Subcommands HELP, SLEEP (holds every writer, as Redis stops; reads go on), OBJECT (encoding, serializedlength and idle time are real; the address is of the value as read), RELOAD (Cairn's data is always on disk: it syncs the log, drops the key cache and re-reads the key counts; MERGE, NOFLUSH and NOSAVE are accepted and change nothing), SET-ACTIVE-EXPIRE, CHANGE-REPL-ID, LOG, ERROR, PROTOCOL, DIGEST and DIGEST-VALUE (Redis's algorithm: the same data gives Redis's digest; a sortedint digests as the set of its numbers). Redis's other subcommands (SEGFAULT, POPULATE, JMAP, ...) answer as unknown.",
	"module":          "Cairn loads no modules: MODULE LIST is empty; LOAD, LOADEX and UNLOAD, allowed by enable-module-command as in Redis, answer Redis's errors for a module that fails to load or is not loaded (the log says why).",
	"lolwut":          "As Redis 7: the version line alone for Redis 7; VERSION 5 draws Georg Nees's Schotter in braille and VERSION 6 a skyline of skyscrapers, both Cairn's own drawings of Redis's subjects.",
	"memory|usage":    "The bytes of the key's records in the store (metadata, members, score and TTL indexes) before compression; a collection's members are sampled (SAMPLES, default 5) and the average scaled by its size. A string longer than 16 KiB counts every fragment it stores: a sparse bitmap costs what it holds, not its length.",
	"bitop":           "DIFF, DIFF1, ANDOR and ONE as in Redis 8.2. Computes only the blocks where a source holds bytes (NOT excepted), so BITOP over sparse bitmaps costs their stored bytes.",
	"bitcount":        "Reads only the fragments a string stores: counting a sparse bitmap costs its set fragments, not its length.",
	"bitpos":          "Missing fragments read as zeros without being read: a search skips them.",
	"memory|stats":    "Cairn's figures: the Go heap (total.allocated, heap.reserved), rss, keys per database and the engine's (memtables, block cache, disk usage); Redis's allocator and overhead fields have no counterpart.",
	"monitor":         "Lines as Redis formats them, AUTH and HELLO AUTH redacted; a monitor over client-output-buffer-limit's normal class is disconnected.",
	"slowlog|get":     "Entries as Redis keeps them: at most 32 arguments and 128 bytes of each; inner commands of MULTI/EXEC and scripts are logged on their own.",
	"xadd":            "With `~`, MAXLEN and MINID remove the whole radix-tree nodes Redis would from the head, the last partly filled one included (nodes of stream-node-max-entries emulated from the order entries were added; not by bytes: see README).",
	"xtrim":           "With `~`, whole radix-tree nodes as Redis, as XADD. Counting the removed entries reads O(min(removed, kept)) records; the removal itself is one range tombstone.",
	"xread":           "Accepts the `+` id of Redis 7.4 (the last entry).",
	"xreadgroup":      "A blocked client whose stream goes away or changes type (DEL, FLUSHALL, FLUSHDB, SWAPDB, MOVE, RENAME, expiry, a write of another type) is answered at once, as Redis 7.2 answers it: the command runs again and replies NOGROUP or WRONGTYPE (Redis 7.0 replied `-UNBLOCKED the stream key no longer exists`).",
	"migrate":         "The keys are read from one snapshot and no lock is held while the target answers; a key written meanwhile keeps its new value (only keys unchanged since are deleted). Redis instead blocks every client for the transfer. A target that is this server's own database is refused (Redis waits for itself until the timeout).",
	"backup":          "Cairn's command: a consistent copy of the data directory (Pebble checkpoint, tables hard-linked) into a new directory, taken while writes go on; a relative path is taken from the data directory's parent. See docs/operations.md.",
	"xinfo|stream":    "radix-tree-keys and radix-tree-nodes are estimates: entries live on disk keyed by id, in no radix tree.",

	// Kvrocks's sortedint type (Redis has none).
	"siadd":             "Kvrocks's command. Ids are plain decimal unsigned 64-bit integers (Kvrocks's strtoull also takes a sign or leading spaces).",
	"sirange":           "Kvrocks's command. CURSOR 0, like no cursor, starts at the first member, 0 included (Kvrocks never returns a member 0 here). Exactly 4 or 6 arguments, else a syntax error (Kvrocks ignores extra words).",
	"sirevrange":        "Kvrocks's command. CURSOR 0, like no cursor, starts at the last member; a member 0 is returned (Kvrocks never returns it here). Exactly 4 or 6 arguments, else a syntax error.",
	"sirangebyvalue":    "Kvrocks's command. Exactly 4 or 7 arguments, else a syntax error (Kvrocks ignores extra words).",
	"sirevrangebyvalue": "Kvrocks's command. Exactly 4 or 7 arguments, else a syntax error (Kvrocks ignores extra words).",
}

// TestCommandsDocIsCurrent checks docs/commands.md against the command
// table; run with -update to regenerate it.
func TestCommandsDocIsCurrent(t *testing.T) {
	srv := New(Options{Config: config.Default()})
	var b strings.Builder
	b.WriteString("# Commands\n\n")
	b.WriteString("Every command Cairn supports, generated from the command table\n")
	b.WriteString("(`go test ./internal/server -run TestCommandsDocIsCurrent -update`).\n")
	b.WriteString("A command not listed here is not implemented and answers\n")
	b.WriteString("`-ERR unknown command`. Behaviour follows Redis 7 unless the notes say otherwise.\n")
	b.WriteString("\nKeyspace notifications (`notify-keyspace-events`): every command publishes the\n")
	b.WriteString("events Redis 7.2 publishes — same names, classes, order and conditions, \"new\" and\n")
	b.WriteString("\"keymiss\" included — once its writes are committed (a MULTI/EXEC's at EXEC);\n")
	b.WriteString("HEXPIRE, HPERSIST and the field reclaimer follow Redis 7.4, HGETDEL, HGETEX and\n")
	b.WriteString("HSETEX Redis 8. Expired keys and hash fields are reported (\"expired\", \"hexpired\")\n")
	b.WriteString("when the background reclaimer removes them, not when a read finds them expired.\n")
	groups := map[string][]string{}
	var names []string
	for _, spec := range srv.table.All() {
		names = append(names, spec.Name)
		rows := []string{row(spec)}
		for _, sub := range spec.Subcommands {
			rows = append(rows, row(sub))
		}
		groups[spec.Group] = append(groups[spec.Group], rows...)
	}
	var order []string
	for g := range groups {
		order = append(order, g)
	}
	slices.Sort(order)
	for _, g := range order {
		b.WriteString("\n## " + g + "\n\n| command | syntax | since | status | summary |\n|---|---|---|---|---|\n")
		for _, r := range groups[g] {
			b.WriteString(r)
		}
	}
	const path = "../../docs/commands.md"
	if *updateDocs {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != b.String() {
		t.Fatalf("docs/commands.md is out of date with the command table (%d commands); regenerate with -update", len(names))
	}
}

func row(spec *command.Spec) string {
	status := "supported"
	if n, ok := commandNotes[spec.Name]; ok {
		status = "supported — " + n
	}
	// The syntax is the Redis reference's; a '|' inside a table cell must
	// be escaped even in a code span.
	syntax := ""
	if len(spec.Args) > 0 {
		syntax = "`" + strings.ReplaceAll(command.Usage(spec.Args), "|", `\|`) + "`"
	}
	return "| `" + strings.ToUpper(strings.ReplaceAll(spec.Name, "|", " ")) + "` | " + syntax + " | " + spec.Since + " | " + status + " | " + spec.Summary + " |\n"
}
