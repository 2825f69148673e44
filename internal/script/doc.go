// Package script runs Redis's Lua scripts and function libraries: the
// gopher-lua VM pool, the sandbox, the redis.* API and the conversions
// between Lua values and Redis replies. It calls back into command dispatch
// through the Host interface and never imports the server.
package script

import _ "github.com/yuin/gopher-lua" // the VM, Lua 5.1
