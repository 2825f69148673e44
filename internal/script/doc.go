// Package script runs Redis 7's Lua scripts (EVAL) and function libraries
// (FUNCTION LOAD, FCALL) on gopher-lua, a Lua 5.1 VM: the script cache, the
// library registry, a pool of sandboxed Lua states, the redis.* API and
// the conversions between Lua values and replies, as Redis's script_lua.c,
// eval.c, function_lua.c and functions.c define them.
//
// It handles no protocol beyond reading a command's reply bytes and writing
// a script's result to a *resp.Writer, and it never imports the server:
// the commands a script calls go through the Host interface, one per run,
// which the server implements inside the script's atomic transaction.
//
// # Using it
//
//	e := script.NewEngine(script.Options{Libraries: lualib.OpenAll, Log: logf})
//
//	// EVAL body numkeys key... arg...
//	s, err := e.Load(body)      // compiles once, cached by SHA1; err is *Error
//	// s.Flags: the shebang's flags (FlagEvalCompat without one), for the
//	// server's checks (no-writes, allow-oom, ...) before it locks keys.
//	err = e.Eval(ctx, host, s, keys, argv, w)
//
//	// EVALSHA: s, ok := e.Lookup(sha); if !ok reply ErrNoScript.Msg.
//	// SCRIPT LOAD / EXISTS / FLUSH: e.Load(body).SHA, e.Exists(sha), e.Flush().
//
//	// FUNCTION LOAD [REPLACE] code
//	name, err := e.LoadLibrary(ctx, code, replace)
//	// FCALL / FCALL_RO name numkeys ...
//	f, ok := e.LookupFunction(name)  // !ok: reply ErrFunctionNotFound.Msg
//	err = e.FCall(ctx, host, f, keys, args, w)
//	// FUNCTION DELETE / FLUSH / LIST / STATS, persistence and RESTORE:
//	// e.DeleteLibrary, e.FlushLibraries, e.Libraries(pattern),
//	// e.FunctionStats, e.RestoreLibraries(ctx, codes, policy).
//
// Eval and FCall write exactly one reply to w and return nil, whether the
// script succeeded or failed with an error reply. They write nothing and
// return an error in two cases: a *KilledError (errors.Is ErrKilled) when
// ctx was cancelled while the script ran, whose Reply is Redis's "ERR
// Script killed by user with SCRIPT KILL..." text for the host to send;
// and any error from Host.Call or Host.ACLCheck (or ErrBadReply for
// malformed reply bytes), which stops the script at once even inside
// pcall. Errors that are replies (compile errors, FUNCTION LOAD failures)
// are *Error, whose text is the whole reply ("ERR ...", "NOSCRIPT ...").
//
// # The sandbox
//
// Each state has base, table, string, math and coroutine, plus what
// Options.Libraries opens (cjson, cmsgpack, bit, struct); print, dofile,
// loadfile, require, module, os, io and debug do not exist. Scripts see the
// globals through a read-only view: reading an undefined global raises
// "Script attempted to access nonexistent global variable 'x'" and any
// write raises "Attempt to modify a readonly table", as do writes to the
// library tables and their nested tables, rawset, setmetatable and table.*
// on them. While a library loads, its only global is a redis table with
// register_function, log and the version fields. Runs are bounded: Lua
// call depth (Options.CallStackSize), nested pcall (200, Lua's C-call
// limit), unpack (8000 values), the value stack (Options.RegistryMaxSize),
// string.rep, table.concat and string.format (Options.MaxStringLen, and
// the memory limit), a run's heap growth (Options.MemoryLimit: a watchdog
// stops the run with an OOM error, see memory.go), reply nesting both ways
// (Options.MaxReplyDepth) and result size (Options.MaxReplyElements); the
// context stops everything else.
//
// # Caveats
//
// The Lua is gopher-lua's, not PUC Lua 5.1. Syntax errors are reported as
// "unexpected symbol near 'x'" whatever the mistake; numbers turned into
// strings by .. print in Go's shortest form (tostring, string.format and
// the pattern functions print Lua's %.14g); string.dump's output cannot
// be loaded back. string.find, match, gmatch, gsub and format, and
// tonumber, are Lua 5.1's own, written from lstrlib.c (strlib.go): the
// matcher looks at the context as it works, so a kill stops a script
// inside one long match. A bad argument called through pcall(string.find,
// ...) is named '?', as in Lua; one called as a method is not renumbered.
// Lua memory is Go's heap: a run's memory is the growth of the whole heap
// while it runs, so runs at the same moment share one measure, and the
// instruction that crosses the limit completes before the run stops (.., string.rep,
// table.concat and string.format refuse a result past it before building it).
// Pooled states are reused, so state kept in a library's upvalues
// persists within one pooled state, as it does in Redis's single state; a
// state found written behind the sandbox's back, or whose run grew the
// heap by tens of megabytes, is discarded. A function's Flags are read before the run;
// if its library is replaced in between, the run uses the new code.
package script
