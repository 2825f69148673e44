// Package config holds Cairn's settings: their defaults, the redis-server
// style command line, an optional configuration file in redis.conf syntax,
// the live values behind CONFIG GET and CONFIG SET, and CONFIG REWRITE.
//
// Start-up follows redis-server: Default, then LoadFile for the configuration
// file if one was named, then ApplyArgs for the "--name value" options, so
// the command line overrides the file. Both refuse anything Redis would
// refuse at start-up — an unknown directive, a bad value, unbalanced quotes —
// with Redis's reason, and change nothing when they fail. A file may include
// others (include, with globs) and rename commands (rename-command, kept for
// the command table: see Renames).
//
// Every Redis 7.2 setting is known, so that a stock redis.conf loads. The
// settings Cairn applies live in settings.go; the others (ignored.go) are
// accepted with Redis's checks, kept, shown and rewritten, but change
// nothing, and Ignored names the ones a start-up set so that the server can
// say so in its log: a setting accepted silently would lie to the operator.
// A Redis setting that would change what clients see if it were ignored
// (cluster-enabled yes, loadmodule) is refused with the reason
// instead.
//
// The typed getters (Port, Timeout, RequirePass, ...) read atomics and never
// block or allocate, so the server may call them on every command. CONFIG SET
// is all-or-nothing, and a CONFIG GET never sees half of one. A live change
// reaches the rest of the server through OnChange callbacks.
//
// The package never opens a listener, a log file or the data directory: it
// only records what the operator asked for, and reads and writes
// configuration files.
package config
