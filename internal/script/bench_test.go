package script

import (
	"context"
	"io"
	"testing"

	"github.com/cairndb/cairn/internal/resp"
)

func BenchmarkEval(b *testing.B) {
	e := NewEngine(Options{})
	defer e.Close()
	s, err := e.Load([]byte("return redis.call('get', KEYS[1])"))
	if err != nil {
		b.Fatal(err)
	}
	h := &fakeHost{replies: map[string]string{"get k": "$1\r\nv\r\n"}}
	w := resp.NewWriter(io.Discard)
	keys := strs("k")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := e.Eval(ctx, h, s, keys, nil, w); err != nil {
			b.Fatal(err)
		}
		h.calls, h.resps = h.calls[:0], h.resps[:0]
	}
}

func BenchmarkNewVM(b *testing.B) {
	e := NewEngine(Options{})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		newVM(e).L.Close()
	}
}
