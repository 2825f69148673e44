package server

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/latency"
)

func serverCommands() []cmdEntry {
	return []cmdEntry{
		withTips(def("info", -1, loading|stale, noKeys, command.CatDangerous, "server", "1.0.0", "Returns information and statistics about the server.", cmdInfo),
			tipOutput, "request_policy:all_shards", "response_policy:special"),
		withTips(def("time", 1, loading|stale|fast, noKeys, 0, "server", "2.6.0", "Returns the server time.", cmdTime), tipOutput),
		withTips(def("lastsave", 1, loading|stale|fast, noKeys, command.CatAdmin|command.CatDangerous, "server", "1.0.0", "Returns the Unix timestamp of the last successful save to disk.", cmdLastSave), tipOutput),
		def("shutdown", -1, admin|noscript|loading|stale|command.NoMulti|command.AllowBusy, noKeys, 0, "server", "1.0.0", "Synchronously saves the database(s) to disk and shuts down the Redis server.", cmdShutdown),
		container("config", "server", "2.0.0", "A container for server configuration commands.", 0,
			def("config|get", -3, admin|noscript|loading|stale, noKeys, 0, "server", "2.0.0", "Returns the effective values of configuration parameters.", cmdConfigGet),
			withTips(def("config|set", -4, admin|noscript|loading|stale, noKeys, 0, "server", "2.0.0", "Sets configuration parameters in-flight.", cmdConfigSet),
				"request_policy:all_nodes", "response_policy:all_succeeded"),
			def("config|resetstat", 2, admin|noscript|loading|stale, noKeys, 0, "server", "2.0.0", "Resets the server's statistics.", cmdConfigResetStat),
			withTips(def("config|rewrite", 2, admin|noscript|loading|stale, noKeys, 0, "server", "2.8.0", "Persists the effective configuration to file.", cmdConfigRewrite),
				"request_policy:all_nodes", "response_policy:all_succeeded"),
			def("config|help", 2, loading|stale, noKeys, 0, "server", "5.0.0", "Returns helpful text about the different subcommands.", cmdConfigHelp),
		),
		container("latency", "server", "2.8.13", "A container for latency diagnostics commands.", 0,
			append(latencyMonitorCommands(),
				withTips(def("latency|histogram", -2, admin|noscript|loading|stale, noKeys, 0, "server", "7.0.0", "Returns the cumulative distribution of latencies of a subset or all commands.", cmdLatencyHistogram),
					tipOutput, "request_policy:all_nodes", "response_policy:special"),
				def("latency|help", 2, loading|stale, noKeys, 0, "server", "2.8.13", "Returns helpful text about the different subcommands.", cmdLatencyHelp),
			)...,
		),
		commandContainer(),
	}
}

// commandContainer is COMMAND: unlike the other containers it also runs
// alone, listing every command as COMMAND INFO does.
func commandContainer() cmdEntry {
	e := container("command", "server", "2.8.13", "Returns detailed information about all commands.", conn,
		def("command|count", 2, loading|stale, noKeys, conn, "server", "2.8.13", "Returns a count of commands.", cmdCommandCount),
		withTips(def("command|info", -2, loading|stale, noKeys, conn, "server", "2.8.13", "Returns information about one, multiple or all commands.", cmdCommandInfo), tipOutputOrder),
		withTips(def("command|docs", -2, loading|stale, noKeys, conn, "server", "7.0.0", "Returns documentary information about one, multiple or all commands.", cmdCommandDocs), tipOutputOrder),
		withTips(def("command|list", -2, loading|stale, noKeys, conn, "server", "7.0.0", "Returns a list of command names.", cmdCommandList), tipOutputOrder),
		def("command|getkeys", -4, loading|stale, noKeys, conn, "server", "2.8.13", "Extracts the key names from an arbitrary command.", cmdCommandGetKeys),
		def("command|getkeysandflags", -4, loading|stale, noKeys, conn, "server", "7.0.0", "Extracts the key names and access flags for an arbitrary command.", cmdCommandGetKeysAndFlags),
		def("command|help", 2, loading|stale, noKeys, conn, "server", "5.0.0", "Returns helpful text about the different subcommands.", cmdCommandHelp),
	)
	e.spec.Arity = -1
	e.spec.Flags = loading | stale
	e.spec.Tips = []string{tipOutputOrder}
	e.run = cmdCommandInfo
	return e
}

// The command tips Redis gives (COMMAND INFO's eighth field) that more than
// one command table uses.
const (
	tipOutput      = "nondeterministic_output"
	tipOutputOrder = "nondeterministic_output_order"
)

// withTips gives a command Redis's tips for it, such as
// "request_policy:all_shards".
func withTips(e cmdEntry, tips ...string) cmdEntry {
	e.spec.Tips = tips
	return e
}

func (s *Server) nowMs() int64 { return time.Now().UnixMilli() }

func (c *client) age() time.Duration { return time.Since(c.created) }

// sortedClients lists the clients by id, as CLIENT LIST shows them.
func (s *Server) sortedClients() []*client {
	cs := s.clientList()
	sort.Slice(cs, func(i, j int) bool { return cs[i].id < cs[j].id })
	return cs
}

func cmdTime(x *ctx) {
	now := time.Now()
	x.w.Array(2)
	x.w.BulkString(strconv.FormatInt(now.Unix(), 10))
	x.w.BulkString(strconv.FormatInt(int64(now.Nanosecond()/1000), 10))
}

func cmdLastSave(x *ctx) { x.w.Int(x.srv.st.Stats().LastDurable.Load()) }

func cmdShutdown(x *ctx) {
	// Every acknowledged write is already in the engine's log, so a
	// graceful close is all NOSAVE, SAVE, NOW or FORCE can mean. They are
	// still told apart, to refuse as Redis does, once every option is
	// read, ABORT with any of them and NOSAVE with SAVE.
	var noSave, save, flags, abort bool
	for _, a := range x.args[1:] {
		switch {
		case optIs(a, "NOSAVE"):
			noSave, flags = true, true
		case optIs(a, "SAVE"):
			save, flags = true, true
		case optIs(a, "NOW"), optIs(a, "FORCE"):
			flags = true
		case optIs(a, "ABORT"):
			abort = true
		default:
			x.syntaxError()
			return
		}
	}
	switch {
	case (abort && flags) || (noSave && save):
		x.syntaxError()
		return
	case abort:
		x.errorReply("ERR No shutdown in progress.")
		return
	}
	x.srv.log.Warn("user requested shutdown", "client", x.cl.id)
	x.cl.quit = true
	x.srv.requestShutdown()
}

func cmdConfigGet(x *ctx) {
	patterns := make([]string, 0, len(x.args)-2)
	for _, a := range x.args[2:] {
		patterns = append(patterns, string(a))
	}
	pairs := x.srv.cfg.Get(patterns...)
	x.w.Map(len(pairs))
	for _, p := range pairs {
		x.w.BulkString(p[0])
		x.w.BulkString(p[1])
	}
}

func cmdConfigSet(x *ctx) {
	if len(x.args)%2 != 0 {
		x.syntaxError()
		return
	}
	pairs := make([][2]string, 0, (len(x.args)-2)/2)
	for i := 2; i < len(x.args); i += 2 {
		pairs = append(pairs, [2]string{x.argStr(i), x.argStr(i + 1)})
	}
	if err := x.srv.cfg.Set(pairs); err != nil {
		x.errorReply(err.Error())
		return
	}
	x.ok()
}

func cmdConfigResetStat(x *ctx) {
	x.srv.resetStats()
	x.ok()
}

func cmdConfigHelp(x *ctx) {
	x.helpReply("CONFIG",
		"GET <pattern>",
		"    Return parameters matching the glob-like <pattern> and their values.",
		"SET <directive> <value>",
		"    Set the configuration <directive> to <value>.",
		"RESETSTAT",
		"    Reset statistics reported by the INFO command.",
		"REWRITE",
		"    Rewrite the configuration file.",
	)
}

// namedHistogram is a command's latency histogram under the command's full
// name ("get", "config|get").
type namedHistogram struct {
	name string
	hist *latency.Histogram
}

// histogramOf returns the histogram of spec's command, if it has one.
func (s *Server) histogramOf(spec *command.Spec) (namedHistogram, bool) {
	if e := s.handlers[spec]; e != nil {
		if h := e.stats.hist.Load(); h != nil {
			return namedHistogram{spec.Name, h}, true
		}
	}
	return namedHistogram{}, false
}

// histograms lists the histograms of the commands that have one, by name.
func (s *Server) histograms() []namedHistogram {
	var out []namedHistogram
	for spec := range s.handlers {
		if h, ok := s.histogramOf(spec); ok {
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(a, b namedHistogram) int { return strings.Compare(a.name, b.name) })
	return out
}

// cmdLatencyHistogram answers LATENCY HISTOGRAM [command ...]: for each
// named command that has run since the statistics were reset (all of them
// without names), its calls and the cumulative distribution of its
// latencies in microseconds, in steps that double from 1 µs. A container
// names itself and its subcommands; unknown names are skipped, and a name
// given twice is answered twice, as in Redis.
func cmdLatencyHistogram(x *ctx) {
	var hs []namedHistogram
	if len(x.args) == 2 {
		hs = x.srv.histograms()
	} else {
		add := func(spec *command.Spec) {
			if h, ok := x.srv.histogramOf(spec); ok {
				hs = append(hs, h)
			}
		}
		for _, name := range x.args[2:] {
			spec := x.srv.table.LookupFull(name)
			if spec == nil {
				continue
			}
			add(spec)
			for _, sub := range spec.Subcommands {
				add(sub)
			}
		}
	}
	x.w.Map(len(hs))
	for _, h := range hs {
		x.w.BulkString(h.name)
		steps := h.hist.Cumulative(1024 * time.Nanosecond)
		x.w.Map(2)
		x.w.BulkString("calls")
		var calls uint64
		if len(steps) > 0 {
			calls = steps[len(steps)-1].Count
		}
		x.w.Int(int64(calls))
		x.w.BulkString("histogram_usec")
		x.w.Map(len(steps))
		for _, st := range steps {
			x.w.Int(st.UpTo.Microseconds())
			x.w.Int(int64(st.Count))
		}
	}
}

func cmdLatencyHelp(x *ctx) {
	x.helpReply("LATENCY",
		"DOCTOR",
		"    Return a human readable latency analysis report.",
		"GRAPH <event>",
		"    Return an ASCII latency graph for the <event> class.",
		"HISTORY <event>",
		"    Return time-latency samples for the <event> class.",
		"LATEST",
		"    Return the latest latency samples for all events.",
		"RESET [<event> ...]",
		"    Reset latency data of one or more <event> classes.",
		"    (default: reset all data for all event classes)",
		"HISTOGRAM [COMMAND ...]",
		"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
		"    If no commands are specified then all histograms are replied.",
	)
}

func (s *Server) resetStats() {
	s.stats.connections.Store(0)
	s.stats.commands.Store(0)
	s.stats.reads.Store(0)
	s.stats.writes.Store(0)
	s.stats.netIn.Store(0)
	s.stats.netOut.Store(0)
	s.inst.reset()
	s.stats.rejected.Store(0)
	s.stats.authFailures.Store(0)
	s.acl.deniedCmd.Store(0)
	s.acl.deniedKey.Store(0)
	s.acl.deniedChannel.Store(0)
	s.stats.errors.reset()
	st := s.st.Stats()
	st.ExpiredKeys.Store(0)
	st.ExpiredStale.Store(0)
	st.ExpireCycleTime.Store(0)
	st.ExpireTimeCapReached.Store(0)
	st.KeyspaceHits.Store(0)
	st.KeyspaceMisses.Store(0)
	for _, e := range s.handlers {
		e.stats.reset()
	}
}

func cmdCommandCount(x *ctx) { x.w.Int(int64(x.srv.table.Len())) }

// commandSpecs resolves COMMAND INFO/DOCS arguments, full names such as
// "get" or "config|get" (all commands when there are none, and for COMMAND
// alone); unknown names yield nil entries.
func (x *ctx) commandSpecs() []*command.Spec {
	if len(x.args) <= 2 {
		return x.srv.table.All()
	}
	out := make([]*command.Spec, 0, len(x.args)-2)
	for _, a := range x.args[2:] {
		out = append(out, x.srv.table.LookupFull(a))
	}
	return out
}

// cmdCommandInfo answers COMMAND INFO, and COMMAND alone. An unknown name
// is a null entry, which WriteInfo writes for a nil spec.
func cmdCommandInfo(x *ctx) {
	specs := x.commandSpecs()
	x.w.Array(len(specs))
	for _, s := range specs {
		command.WriteInfo(x.w, s)
	}
}

func cmdCommandDocs(x *ctx) {
	specs := x.commandSpecs()
	n := 0
	for _, s := range specs {
		if s != nil {
			n++
		}
	}
	x.w.Map(n)
	for _, s := range specs {
		if s != nil {
			x.w.BulkString(s.Name)
			command.WriteDocs(x.w, s)
		}
	}
}

func cmdCommandList(x *ctx) {
	specs := x.srv.table.List()
	if len(x.args) > 2 {
		if len(x.args) != 5 || !optIs(x.arg(2), "FILTERBY") {
			x.syntaxError()
			return
		}
		var err error
		specs, err = x.srv.table.FilterBy(x.argStr(3), x.argStr(4))
		if err != nil {
			x.errorReply(err.Error())
			return
		}
	}
	x.w.Array(len(specs))
	for _, s := range specs {
		x.w.BulkString(s.Name)
	}
}

func cmdCommandGetKeys(x *ctx) {
	idx, err := command.GetKeys(x.srv.table, x.args[2:])
	if err != nil {
		x.errorReply(err.Error())
		return
	}
	x.w.Array(len(idx))
	for _, i := range idx {
		x.w.Bulk(x.args[2+i])
	}
}

// cmdCommandGetKeysAndFlags answers each key with its flags as a set, the
// form COMMAND INFO gives key-spec flags.
func cmdCommandGetKeysAndFlags(x *ctx) {
	refs, err := command.GetKeysAndFlags(x.srv.table, x.args[2:])
	if err != nil {
		x.errorReply(err.Error())
		return
	}
	x.w.Array(len(refs))
	for _, r := range refs {
		x.w.Array(2)
		x.w.Bulk(x.args[2+r.Pos])
		names := r.Flags.Names()
		x.w.Set(len(names))
		for _, n := range names {
			x.w.SimpleString(n)
		}
	}
}

func cmdCommandHelp(x *ctx) {
	x.helpReply("COMMAND",
		"(no subcommand)",
		"    Return details about all Redis commands.",
		"COUNT",
		"    Return the total number of commands in this Redis server.",
		"LIST",
		"    Return a list of all commands in this Redis server.",
		"INFO [<command-name> ...]",
		"    Return details about multiple Redis commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"DOCS [<command-name> ...]",
		"    Return documentation details about multiple Redis commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"GETKEYS <full-command>",
		"    Return the keys from a full Redis command.",
		"GETKEYSANDFLAGS <full-command>",
		"    Return the keys and the access flags from a full Redis command.",
	)
}
