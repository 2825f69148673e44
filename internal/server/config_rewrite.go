package server

// cmdConfigRewrite answers CONFIG REWRITE: the live configuration is
// written into the file the server started from (config.Config.Rewrite
// says how), or refused, as Redis does, when it started without one.
func cmdConfigRewrite(x *ctx) {
	if x.srv.configFile == "" {
		x.errorReply("ERR The server is running without a config file")
		return
	}
	if err := x.srv.cfg.RewriteUsers(x.srv.configFile, x.srv.acl.users.List()); err != nil {
		x.srv.log.Warn("CONFIG REWRITE failed", "err", err)
		x.errorReply("ERR Rewriting config file: " + err.Error())
		return
	}
	x.srv.log.Info("CONFIG REWRITE executed with success.")
	x.ok()
}
