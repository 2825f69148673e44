package script_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/cairndb/cairn/internal/resp"
	"github.com/cairndb/cairn/internal/script"
)

// echoHost answers every command with its last argument, as a bulk string.
type echoHost struct{}

func (echoHost) Call(args [][]byte, proto int) ([]byte, error) {
	last := args[len(args)-1]
	return fmt.Appendf(nil, "$%d\r\n%s\r\n", len(last), last), nil
}
func (echoHost) ACLCheck(args [][]byte) (bool, error)    { return true, nil }
func (echoHost) Log(level int, msg string)               {}
func (echoHost) ErrorReply(msg string, fromCommand bool) {}

func Example() {
	e := script.NewEngine(script.Options{})
	defer e.Close()
	var out bytes.Buffer
	w := resp.NewWriter(&out)
	ctx := context.Background()

	s, err := e.Load([]byte("#!lua flags=no-writes\nreturn {redis.call('echo', ARGV[1]), #KEYS}"))
	if err != nil {
		w.Error(err.Error())
	} else if err := e.Eval(ctx, echoHost{}, s, [][]byte{[]byte("k")}, [][]byte{[]byte("hi")}, w); err != nil {
		fmt.Println(err)
	}
	fmt.Printf("%q\n", s.Flags.Names())

	if _, err := e.LoadLibrary(ctx, []byte("#!lua name=lib\nredis.register_function('hello', function(keys, args) return 'hello ' .. args[1] end)"), false); err != nil {
		w.Error(err.Error())
	}
	if f, ok := e.LookupFunction("hello"); ok {
		e.FCall(ctx, echoHost{}, f, nil, [][]byte{[]byte("world")}, w)
	}
	w.Flush()
	fmt.Printf("%q\n", out.String())
	// Output:
	// ["no-writes"]
	// "*2\r\n$2\r\nhi\r\n:1\r\n$11\r\nhello world\r\n"
}
