// Package script runs Redis 7's Lua scripts (EVAL) and function libraries
// (FUNCTION LOAD, FCALL) on gopher-lua, a Lua 5.1 VM: the script cache, the
// library registry, a pool of sandboxed Lua states, the redis.* API and
// the conversions between Lua values and replies, all as Redis's
// script_lua.c, eval.c, function_lua.c and functions.c define them.
//
// It knows no protocol handling beyond reading a command's reply bytes and
// writing a script's result to a *resp.Writer, and it never imports the
// server: commands called by a script go through the Host interface, one
// per run, which the server implements inside the script's atomic
// transaction.
//
// # Using it
//
//	e := script.NewEngine(script.Options{Libraries: lualib.OpenAll})
//	s, err := e.Load(body)               // EVAL's compile, SCRIPT LOAD
//	err = e.Eval(ctx, host, s, keys, argv, w)
//	name, err := e.LoadLibrary(ctx, payload, replace)  // FUNCTION LOAD
//	f, ok := e.LookupFunction("myfunc")  // FCALL
//	err = e.FCall(ctx, host, f, keys, args, w)
//
// Errors that are replies (compile errors, FUNCTION LOAD failures) are
// *Error, whose text is the whole reply ("ERR ...", "NOSCRIPT ...").
// Eval and FCall write exactly one reply when they return nil; cancelling
// ctx stops a runaway script and returns a *KilledError, and a Host error
// stops the run and is returned as is, with nothing written.
//
// # The sandbox
//
// Each state has only base, table, string, math and coroutine, plus what
// Options.Libraries opens (cjson, cmsgpack, bit, struct); print, dofile,
// loadfile, require and module are gone. Scripts see the globals through a
// read-only view: reading an undefined global raises "Script attempted to
// access nonexistent global variable 'x'" and any write raises "Attempt to
// modify a readonly table", as do writes to the library tables. While a
// library loads, its only global is a redis table with register_function,
// log and the version fields.
//
// # Caveats
//
// Lua is gopher-lua's, not PUC Lua 5.1: numbers print with %.14g
// differences, some error messages are worded differently (syntax errors
// say "syntax error near 'x'"), string.dump's output cannot be loaded.
// Pooled states are reused between runs, so state kept in a library's
// upvalues persists there, as it does in Redis's single state; a state
// whose views were written behind the sandbox's back (table.insert on a
// library table) is discarded rather than reused.
package script
