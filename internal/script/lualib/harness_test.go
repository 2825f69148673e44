package lualib

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// dumpLua turns whatever a snippet returns, or the error it raises, into
// one line of text. It runs unchanged in gopher-lua and in Redis's Lua, so
// the two can be compared as strings: tables print with sorted keys,
// numbers with 17 digits, strings with their odd bytes as \ddd.
const dumpLua = `
local function dump(v)
  local t = type(v)
  if t == 'string' then
    return '"' .. string.gsub(v, '[^%w%p ]', function(c) return '\\' .. string.format('%03d', string.byte(c)) end) .. '"'
  elseif t == 'number' then
    if v ~= v then return 'nan' end
    if v == 1/0 then return 'inf' end
    if v == -1/0 then return '-inf' end
    return string.format('%.17g', v)
  elseif t == 'table' then
    local items = {}
    for k, x in pairs(v) do items[#items + 1] = dump(k) .. '=' .. dump(x) end
    table.sort(items)
    return '{' .. table.concat(items, ',') .. '}'
  elseif t == 'userdata' then
    if v == cjson.null then return 'null' end
    return 'userdata'
  end
  return tostring(v)
end
local function pack(...) return {n = select('#', ...), ...} end
local r = pack(pcall(function()
%s
end))
local out = {}
for i = 2, r.n do out[#out + 1] = dump(r[i]) end
if r[1] then return 'ok ' .. table.concat(out, ' ') end
return 'err ' .. tostring(r[2])
`

func wrap(code string) string { return strings.Replace(dumpLua, "%s", code, 1) }

// runOurs runs a snippet in a fresh gopher-lua state with OpenAll.
func runOurs(t testing.TB, code string) string {
	t.Helper()
	L := lua.NewState(lua.Options{SkipOpenLibs: false, RegistrySize: 1024 * 20, RegistryMaxSize: 1024 * 80})
	defer L.Close()
	OpenAll(L)
	fn, err := L.Load(strings.NewReader(wrap(code)), "@user_script")
	if err == nil {
		L.Push(fn)
		err = L.PCall(0, 1, nil)
	}
	if err != nil {
		t.Fatalf("running %q: %v", code, err)
	}
	return L.Get(-1).String()
}

// reference runs snippets in Redis's own Lua: in a redis-server when one
// is installed, or in the binary CAIRN_LUALIB_REFERENCE names (a Lua 5.1
// built from Redis's deps/lua with the four libraries loaded as Redis
// does, that runs stdin as a chunk and prints the string it returns).
type reference func(code string) string

func startReference(t *testing.T) reference {
	if bin := os.Getenv("CAIRN_LUALIB_REFERENCE"); bin != "" {
		return func(code string) string {
			cmd := exec.Command(bin)
			cmd.Stdin = strings.NewReader(wrap(code))
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("reference on %q: %v", code, err)
			}
			return string(out)
		}
	}
	return startRedis(t)
}
