package server

import (
	"strings"

	"github.com/cairndb/cairn/internal/acl"
	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/rconv"
)

func aclCommands() []cmdEntry {
	const f = noscript | loading | stale
	const af = admin | f
	all := []string{"request_policy:all_nodes", "response_policy:all_succeeded"}
	c := container("acl", "server", "6.0.0", "A container for Access List Control commands.", 0,
		def("acl|cat", -2, f, noKeys, 0, "server", "6.0.0", "Lists the ACL categories, or the commands inside a category.", cmdACLCat),
		withTips(def("acl|deluser", -3, af, noKeys, 0, "server", "6.0.0", "Deletes ACL users, and terminates their connections.", cmdACLDelUser), all...),
		def("acl|dryrun", -4, af, noKeys, 0, "server", "7.0.0", "Simulates the execution of a command by a user, without executing the command.", cmdACLDryRun),
		def("acl|genpass", -2, f, noKeys, 0, "server", "6.0.0", "Generates a pseudorandom, secure password that can be used to identify ACL users.", cmdACLGenPass),
		def("acl|getuser", 3, af, noKeys, 0, "server", "6.0.0", "Lists the ACL rules of a user.", cmdACLGetUser),
		def("acl|help", 2, loading|stale, noKeys, 0, "server", "6.0.0", "Returns helpful text about the different subcommands.", cmdACLHelp),
		def("acl|list", 2, af, noKeys, 0, "server", "6.0.0", "Dumps the effective rules in ACL file format.", cmdACLList),
		def("acl|load", 2, af, noKeys, 0, "server", "6.0.0", "Reloads the rules from the configured ACL file.", cmdACLLoad),
		def("acl|log", -2, af, noKeys, 0, "server", "6.0.0", "Lists recent security events generated due to ACL rules.", cmdACLLog),
		withTips(def("acl|save", 2, af, noKeys, 0, "server", "6.0.0", "Saves the effective ACL rules in the configured ACL file.", cmdACLSave), all...),
		withTips(def("acl|setuser", -3, af, noKeys, 0, "server", "6.0.0", "Creates and modifies an ACL user and its rules.", cmdACLSetUser), all...),
		def("acl|users", 2, af, noKeys, 0, "server", "6.0.0", "Lists all ACL users.", cmdACLUsers),
		def("acl|whoami", 2, f, noKeys, 0, "server", "6.0.0", "Returns the authenticated username of the current connection.", cmdACLWhoAmI),
	)
	for i := range c.subs {
		switch s := c.subs[i].spec; s.Name {
		case "acl|log":
			s.History = []command.HistoryEntry{{Since: "7.2.0", Changes: "Added entry ID, timestamp created, and timestamp last updated."}}
		case "acl|setuser":
			s.History = []command.HistoryEntry{{Since: "6.2.0", Changes: "Added Pub/Sub channel patterns."}, {Since: "7.0.0", Changes: "Added selectors and key based permissions."}}
		case "acl|getuser":
			s.History = []command.HistoryEntry{{Since: "6.2.0", Changes: "Added Pub/Sub channel patterns."}, {Since: "7.0.0", Changes: "Added selectors and changed the format of key and channel patterns from a list to their rule representation."}}
		}
	}
	return []cmdEntry{c}
}

// replyErrorSafe replies with an error text that may carry a user's input:
// line breaks would end the reply early, so they become spaces, as Redis's
// addReplyErrorSdsSafe does.
func (x *ctx) replyErrorSafe(msg string) {
	x.errorReply(strings.NewReplacer("\r", " ", "\n", " ").Replace(msg))
}

func cmdACLSetUser(x *ctx) {
	name := x.argStr(2)
	ops := make([]string, 0, len(x.args)-3)
	for _, a := range x.args[3:] {
		ops = append(ops, string(a))
	}
	u, old, err := x.srv.acl.users.SetUser(name, ops)
	if err != nil {
		x.replyErrorSafe("ERR " + err.Error())
		return
	}
	// Subscribers whose channels the change revoked go, as in Redis.
	x.srv.closeRevokedSubscribers(x.cl, u, old)
	x.ok()
}

func cmdACLDelUser(x *ctx) {
	names := make([]string, 0, len(x.args)-2)
	for _, a := range x.args[2:] {
		names = append(names, string(a))
	}
	gone, err := x.srv.acl.users.DelUsers(names)
	if err != nil {
		x.errorReply("ERR " + err.Error())
		return
	}
	x.srv.closeUserClients(x.cl, gone)
	x.w.Int(int64(len(gone)))
}

func cmdACLGetUser(x *ctx) {
	u := x.srv.acl.users.Get(x.argStr(2))
	if u == nil {
		x.w.NullBulk()
		return
	}
	p := u.Profile()
	sels := p.Selectors()
	w := x.w
	w.Map(6)
	w.BulkString("flags")
	flags := p.Flags()
	w.Set(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("passwords")
	pw := p.Passwords()
	w.Array(len(pw))
	for _, h := range pw {
		w.BulkString(h)
	}
	writeSelector := func(s acl.SelectorInfo) {
		w.BulkString("commands")
		w.BulkString(s.Commands)
		w.BulkString("keys")
		w.BulkString(s.Keys)
		w.BulkString("channels")
		w.BulkString(s.Channels)
	}
	writeSelector(sels[0])
	w.BulkString("selectors")
	w.Array(len(sels) - 1)
	for _, s := range sels[1:] {
		w.Map(3)
		writeSelector(s)
	}
}

func cmdACLList(x *ctx) {
	lines := x.srv.acl.users.List()
	x.w.Array(len(lines))
	for _, l := range lines {
		x.w.BulkString(l)
	}
}

func cmdACLUsers(x *ctx) {
	names := x.srv.acl.users.Names()
	x.w.Array(len(names))
	for _, n := range names {
		x.w.BulkString(n)
	}
}

func cmdACLWhoAmI(x *ctx) { x.w.BulkString(x.cl.user.Load().Name()) }

const errNoACLFile = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."

func cmdACLLoad(x *ctx) {
	file := x.srv.cfg.ACLFile()
	if file == "" {
		x.errorReply(errNoACLFile)
		return
	}
	gone, err := x.srv.acl.users.LoadFile(file)
	if err != nil {
		x.replyErrorSafe("ERR " + err.Error())
		return
	}
	x.srv.closeUserClients(x.cl, gone)
	x.ok()
}

func cmdACLSave(x *ctx) {
	file := x.srv.cfg.ACLFile()
	if file == "" {
		x.errorReply(errNoACLFile)
		return
	}
	if err := x.srv.acl.users.SaveFile(file); err != nil {
		x.srv.log.Warn(err.Error())
		x.errorReply("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	x.ok()
}

func cmdACLCat(x *ctx) {
	switch len(x.args) {
	case 2:
		names := acl.Categories()
		x.w.Array(len(names))
		for _, n := range names {
			x.w.BulkString(n)
		}
	case 3:
		cat, ok := acl.CategoryByName(x.argStr(2))
		if !ok {
			x.errorReply("ERR Unknown category '" + truncate(cstr(x.argStr(2)), 128) + "'")
			return
		}
		names := x.srv.acl.users.Catalog().InCategory(cat)
		x.w.Array(len(names))
		for _, n := range names {
			x.w.BulkString(n)
		}
	default:
		x.subcommandSyntaxError()
	}
}

func cmdACLGenPass(x *ctx) {
	if len(x.args) > 3 {
		x.subcommandSyntaxError()
		return
	}
	bits := int64(256)
	if len(x.args) == 3 {
		n, ok := rconv.ParseInt(x.arg(2))
		if !ok {
			x.notInteger()
			return
		}
		bits = n
	}
	if bits <= 0 || bits > acl.MaxGenPassBits {
		_, err := acl.GenPass(0)
		x.errorReply("ERR " + err.Error())
		return
	}
	pass, err := acl.GenPass(int(bits))
	if err != nil {
		x.internalError(err)
		return
	}
	x.w.BulkString(pass)
}

func cmdACLLog(x *ctx) {
	if len(x.args) > 3 {
		x.subcommandSyntaxError()
		return
	}
	count := int64(10)
	if len(x.args) == 3 {
		if optIs(x.arg(2), "RESET") {
			x.srv.acl.log.Reset()
			x.ok()
			return
		}
		n, ok := rconv.ParseInt(x.arg(2))
		if !ok {
			x.notInteger()
			return
		}
		count = max(n, 0)
	}
	entries := x.srv.acl.log.Entries(int(min(count, 1<<30)))
	now := x.srv.nowMs()
	w := x.w
	w.Array(len(entries))
	for _, e := range entries {
		w.Map(10)
		w.BulkString("count")
		w.Int(e.Count)
		w.BulkString("reason")
		w.BulkString(e.Reason.String())
		w.BulkString("context")
		w.BulkString(e.Context.String())
		w.BulkString("object")
		w.BulkString(e.Object)
		w.BulkString("username")
		w.BulkString(e.Username)
		w.BulkString("age-seconds")
		w.Double(float64(now-e.Updated) / 1000)
		w.BulkString("client-info")
		w.BulkString(e.ClientInfo)
		w.BulkString("entry-id")
		w.Int(e.ID)
		w.BulkString("timestamp-created")
		w.Int(e.Created)
		w.BulkString("timestamp-last-updated")
		w.Int(e.Updated)
	}
}

func cmdACLDryRun(x *ctx) {
	s := x.srv
	u := s.acl.users.Get(x.argStr(2))
	if u == nil {
		x.errorReply("ERR User '" + cstr(x.argStr(2)) + "' not found")
		return
	}
	args := x.args[3:]
	spec := s.table.Lookup(args[0])
	if spec != nil && len(spec.Subcommands) > 0 && len(args) > 1 {
		spec = s.table.LookupSub(spec, args[1])
	}
	if spec == nil {
		x.errorReply("ERR Command '" + cstr(x.argStr(3)) + "' not found")
		return
	}
	if !spec.CheckArity(len(args)) {
		x.errorReply("ERR wrong number of arguments for '" + spec.Name + "' command")
		return
	}
	e := s.handlers[spec]
	r, pos := u.Profile().Check(e.aclCmd, args)
	if r != acl.OK {
		x.w.BulkString(acl.ErrorMessage(r, u.Name(), e.aclCmd.Name, string(args[pos]), true))
		return
	}
	x.ok()
}

func cmdACLHelp(x *ctx) {
	x.helpReply("ACL",
		"CAT [<category>]",
		"    List all commands that belong to <category>, or all command categories",
		"    when no category is specified.",
		"DELUSER <username> [<username> ...]",
		"    Delete a list of users.",
		"DRYRUN <username> <command> [<arg> ...]",
		"    Returns whether the user can execute the given command without executing the command.",
		"GETUSER <username>",
		"    Get the user's details.",
		"GENPASS [<bits>]",
		"    Generate a secure 256-bit user password. The optional `bits` argument can",
		"    be used to specify a different size.",
		"LIST",
		"    Show users details in config file format.",
		"LOAD",
		"    Reload users from the ACL file.",
		"LOG [<count> | RESET]",
		"    Show the ACL log entries.",
		"SAVE",
		"    Save the current config to the ACL file.",
		"SETUSER <username> <attribute> [<attribute> ...]",
		"    Create or modify a user with the specified attributes.",
		"USERS",
		"    List all the registered usernames.",
		"WHOAMI",
		"    Return the current connection username.",
	)
}
