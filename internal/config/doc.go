// Package config holds Cairn's settings: their defaults, the redis-server
// style command line, an optional configuration file in redis.conf syntax,
// and the live values behind CONFIG GET and CONFIG SET.
//
// Start-up follows redis-server: Default, then LoadFile for the configuration
// file if one was named, then ApplyArgs for the "--name value" options, so
// the command line overrides the file. Both refuse anything Redis would
// refuse at start-up — an unknown directive, a bad value, unbalanced quotes —
// with Redis's reason, and change nothing when they fail.
//
// Only settings that have an effect in Cairn exist; a redis.conf directive
// Cairn does not implement (save, appendonly, daemonize, maxmemory, include,
// ...) is an error rather than being silently ignored, because a setting that
// is accepted but does nothing would lie to the operator.
//
// The typed getters (Port, Timeout, RequirePass, ...) read atomics and never
// block or allocate, so the server may call them on every command. CONFIG SET
// is all-or-nothing, and a CONFIG GET never sees half of one. A live change
// reaches the rest of the server through OnChange callbacks.
//
// The package never opens a listener, a log file or the data directory: it
// only records what the operator asked for.
package config
