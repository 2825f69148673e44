package server

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/cairndb/cairn/internal/acl"
	"github.com/cairndb/cairn/internal/command"
)

// aclState is the server's side of access control: the users, the ACL
// LOG, and the denial counters of INFO.
type aclState struct {
	users *acl.Registry
	log   acl.Log
	// Denials by reason (INFO's acl_access_denied_cmd, _key, _channel;
	// auth failures are serverStats.authFailures).
	deniedCmd, deniedKey, deniedChannel atomic.Int64
}

// initACL numbers the registered commands for ACL and creates the default
// user from requirepass; LoadUsers adds the configured users.
func (s *Server) initACL() {
	cat := acl.NewCatalog(s.table.Original())
	for spec, e := range s.handlers {
		e.aclCmd = cat.BySpec(spec)
	}
	s.acl.users = acl.NewRegistry(cat)
	s.acl.users.SetPubsubDefault(s.cfg.ACLPubsubAllChannels())
	s.acl.users.SetDefaultPassword(s.cfg.RequirePass())
	s.cfg.OnChange("requirepass", func(v string) { s.acl.users.SetDefaultPassword(v) })
	s.cfg.OnChange("acl-pubsub-default", func(string) {
		s.acl.users.SetPubsubDefault(s.cfg.ACLPubsubAllChannels())
	})
}

// LoadUsers loads the users of the configuration at start, as Redis's
// ACLLoadUsersAtStartup: the config file's user lines, or the aclfile, not
// both. On error the server must not start.
func (s *Server) LoadUsers() error {
	lines, file := s.cfg.Users(), s.cfg.ACLFile()
	if file != "" && len(lines) > 0 {
		return errors.New("Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both.")
	}
	if err := s.acl.users.LoadConfigured(lines); err != nil {
		return fmt.Errorf("acl: %w", err)
	}
	if file != "" {
		if _, err := s.acl.users.LoadFile(file); err != nil {
			return fmt.Errorf("Aborting Redis startup because of ACL errors: %w", err)
		}
	}
	for _, name := range s.acl.users.Names() {
		if u := s.acl.users.Get(name); u != nil && !u.Profile().Enabled() {
			s.log.Info("The user '" + name + "' is disabled (there is no 'on' modifier in the user description). Make sure this is not a configuration error.")
		}
	}
	return nil
}

// defaultNeedsAuth reports whether new connections must authenticate:
// the default user has a password or is off (Redis's authRequired).
func (s *Server) defaultNeedsAuth() bool {
	p := s.acl.users.Default().Profile()
	return !p.NoPass() || !p.Enabled()
}

// setDefaultAuth makes c the default user, authenticated unless the
// default user needs a password (a new connection, RESET).
func (c *client) setDefaultAuth() {
	c.user.Store(c.srv.acl.users.Default())
	c.authed.Store(!c.srv.defaultNeedsAuth())
}

// checkACL is the permission check dispatch makes after authentication:
// "" when c's user may run the command line, otherwise the NOPERM reply,
// with the denial logged. It costs one pointer load for a user allowed
// everything.
func (s *Server) checkACL(c *client, e *cmdEntry, args [][]byte, where acl.Context) string {
	u := c.user.Load()
	p := u.Profile()
	if p.Unrestricted() {
		return ""
	}
	r, pos := p.CheckWith(e.aclCmd, args, &c.aclScratch)
	if r == acl.OK {
		return ""
	}
	s.logDenial(c, u.Name(), r, where, e.aclCmd.Name, args, pos)
	return "NOPERM " + acl.ErrorMessage(r, u.Name(), e.aclCmd.Name, "", false)
}

// logDenial adds a denial to the ACL LOG and counts it: the object is the
// command's name, or the key or channel at args[pos].
func (s *Server) logDenial(c *client, user string, r acl.Reason, where acl.Context, cmdName string, args [][]byte, pos int) {
	obj := cmdName
	switch r {
	case acl.DeniedKey:
		s.acl.deniedKey.Add(1)
		obj = string(args[pos])
	case acl.DeniedChannel:
		s.acl.deniedChannel.Add(1)
		obj = string(args[pos])
	case acl.DeniedCommand:
		s.acl.deniedCmd.Add(1)
	}
	s.acl.log.Add(acl.LogEntry{Reason: r, Context: where, Object: obj, Username: user, ClientInfo: c.describe(nil)},
		s.nowMs(), int(min(s.cfg.ACLLogMaxLen(), 1<<30)))
}

// aclContext is where a command of c runs, for the ACL LOG.
func aclContext(c *client) acl.Context {
	if c.multi != nil {
		return acl.Multi
	}
	return acl.Toplevel
}

// closeUserClients closes the connections of removed users (ACL DELUSER,
// ACL LOAD). The connection running the command gets its reply first.
func (s *Server) closeUserClients(current *client, gone []*acl.User) {
	if len(gone) == 0 {
		return
	}
	for _, c := range s.clientList() {
		u := c.user.Load()
		for _, g := range gone {
			if u != g {
				continue
			}
			// As Redis, the connection falls back to the default
			// user, unauthenticated, before it closes.
			c.user.Store(s.acl.users.Default())
			c.authed.Store(false)
			if c == current {
				c.quit = true
			} else {
				c.kill()
			}
		}
	}
}

// closeRevokedSubscribers closes u's subscribed connections whose channels
// or patterns its new profile no longer allows (Redis's
// ACLKillPubsubClientsIfNeeded).
func (s *Server) closeRevokedSubscribers(current *client, u *acl.User, old *acl.Profile) {
	p := u.Profile()
	if old == nil || !p.ChannelsRevoked(old) {
		return
	}
	for _, c := range s.clientList() {
		if c.user.Load() != u || !c.pubsubMode.Load() {
			continue
		}
		channels, patterns := s.ps.hub.Subscriptions(c)
		kill := false
		for _, ch := range channels {
			kill = kill || !p.KeepsSubscription(ch, false)
		}
		for _, pat := range patterns {
			kill = kill || !p.KeepsSubscription(pat, true)
		}
		if kill {
			if c == current {
				c.quit = true
			} else {
				c.kill()
			}
		}
	}
}

// aclCheck checks a command of a MULTI/EXEC or a script against the
// client's user when it runs: "" when allowed, else the error reply.
func (g *group) aclCheck(spec *command.Spec, args [][]byte) string {
	s, c := g.s, g.c
	e := s.handlers[spec]
	u := c.user.Load()
	p := u.Profile()
	if p.Unrestricted() || e == nil || e.aclCmd == nil {
		return ""
	}
	r, pos := p.CheckWith(e.aclCmd, args, &c.aclScratch)
	if r == acl.OK {
		return ""
	}
	if g.kind == groupMulti {
		s.logDenial(c, u.Name(), r, acl.Multi, e.aclCmd.Name, args, pos)
		reason := "no permission"
		switch r {
		case acl.DeniedCommand:
			reason = "no permission to execute the command or subcommand"
		case acl.DeniedKey:
			reason = "no permission to touch the specified keys"
		case acl.DeniedChannel:
			reason = "no permission to access one of the channels used as arguments"
		}
		return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: " + reason
	}
	s.logDenial(c, u.Name(), r, acl.Lua, e.aclCmd.Name, args, pos)
	return "ERR ACL failure in script: " + acl.ErrorMessage(r, u.Name(), e.aclCmd.Name, "", false)
}

// defaultPassword is what protected mode asks: "" while the default user
// has nopass (anyone may connect as it), something otherwise.
func (s *Server) defaultPassword() string {
	if s.acl.users.Default().Profile().NoPass() {
		return ""
	}
	return "set"
}

// sortKeyAccess reports whether the client's user may read every key with
// this SORT command line, which its BY and GET patterns need.
func (x *ctx) sortKeyAccess() bool {
	p := x.cl.user.Load().Profile()
	if p.Unrestricted() {
		return true
	}
	s := x.srv
	spec := s.table.Lookup(x.args[0])
	if spec == nil {
		return false
	}
	e := s.handlers[spec]
	return e != nil && e.aclCmd != nil && p.CheckCmdAllKeys(e.aclCmd, x.args, acl.KeyRead)
}
