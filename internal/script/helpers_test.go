package script

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cairndb/cairn/internal/resp"
)

// fakeHost answers redis.call from a table of canned replies keyed by the
// command line ("get k"), and records every call and log line.
type fakeHost struct {
	mu       sync.Mutex
	replies  map[string]string // in RESP2
	replies3 map[string]string // RESP3 overrides
	calls    []string
	resps    []int
	logs     []string
	fail     error // returned by every Call when set
	acl      map[string]bool
	onCall   func()
	errors   []string // ErrorReply's, "+" marking fromCommand
}

func (h *fakeHost) Call(args [][]byte, proto int) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = string(a)
	}
	line := strings.Join(parts, " ")
	h.calls = append(h.calls, line)
	h.resps = append(h.resps, proto)
	if h.onCall != nil {
		h.onCall()
	}
	if h.fail != nil {
		return nil, h.fail
	}
	if proto == 3 {
		if r, ok := h.replies3[line]; ok {
			return []byte(r), nil
		}
	}
	if r, ok := h.replies[line]; ok {
		return []byte(r), nil
	}
	if strings.EqualFold(parts[0], "ping") {
		if len(parts) > 1 {
			return []byte("$" + itoa(len(parts[1])) + "\r\n" + parts[1] + "\r\n"), nil
		}
		return []byte("+PONG\r\n"), nil
	}
	return []byte("-ERR unknown command '" + parts[0] + "'\r\n"), nil
}

func (h *fakeHost) ACLCheck(args [][]byte) (bool, error) {
	allowed, ok := h.acl[strings.ToLower(string(args[0]))]
	if !ok {
		return false, ErrACLUnknownCommand
	}
	return allowed, nil
}

func (h *fakeHost) ErrorReply(msg string, fromCommand bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if fromCommand {
		msg = "+" + msg
	}
	h.errors = append(h.errors, msg)
}

func (h *fakeHost) Log(level int, msg string) {
	h.mu.Lock()
	h.logs = append(h.logs, itoa(level)+" "+msg)
	h.mu.Unlock()
}

func itoa(n int) string {
	var b []byte
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

func strs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// evalRaw runs body with EVAL semantics in a client of protocol proto and
// returns the reply bytes, or the compile error's text.
func evalRaw(t testing.TB, e *Engine, h Host, proto int, body string, keys, argv []string) (string, error) {
	t.Helper()
	s, err := e.Load([]byte(body))
	if err != nil {
		var re *Error
		if !errors.As(err, &re) {
			t.Fatalf("Load returned %T %v, want *Error", err, err)
		}
		return "-" + err.Error() + "\r\n", nil
	}
	var buf bytes.Buffer
	w := resp.NewWriter(&buf)
	w.SetProtocol(proto)
	err = e.Eval(context.Background(), h, s, strs(keys...), strs(argv...), w)
	if ferr := w.Flush(); ferr != nil {
		t.Fatal(ferr)
	}
	return buf.String(), err
}

func newTestEngine(t *testing.T) *Engine {
	t.Helper()
	e := NewEngine(Options{})
	t.Cleanup(e.Close)
	return e
}

// dumpLua serializes a Lua value deterministically, for checking what a
// command's reply became in Lua.
const dumpLua = `
local function dump(v)
  if type(v) ~= 'table' then return type(v) .. ':' .. tostring(v) end
  local keys = {}
  for k in pairs(v) do keys[#keys+1] = k end
  table.sort(keys, function(a,b) return tostring(a) < tostring(b) end)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts+1] = tostring(k) .. '=' .. dump(v[k]) end
  return '{' .. table.concat(parts, ',') .. '}'
end
`
