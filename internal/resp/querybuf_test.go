package resp

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// emptyArgs streams "*n\r\n" and then n empty bulks, a few at a time, like a
// client that declares a huge request and sends it slowly; it never holds
// the whole request.
type emptyArgs struct {
	header string
	left   int // bulks not yet sent
	sent   int
}

func (e *emptyArgs) Read(p []byte) (int, error) {
	if e.header != "" {
		n := copy(p, e.header)
		e.header = e.header[n:]
		return n, nil
	}
	const bulk = "$0\r\n\r\n"
	n := 0
	for e.left > 0 && n+len(bulk) <= len(p) && n < 600 {
		n += copy(p[n:], bulk)
		e.left--
		e.sent++
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// TestQueryBufLimitCountsArguments: ten million empty arguments are 60 MB on
// the wire but cost far more held as arguments; the limit counts that cost
// and stops the request long before its end, having allocated about the
// limit and nothing for the declared count.
func TestQueryBufLimitCountsArguments(t *testing.T) {
	const n = 10_000_000
	in := &emptyArgs{header: "*10000000\r\n", left: n}
	r := NewReader(in)
	r.MaxQueryBuf = 1 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := r.ReadCommand()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrQueryBufLimit) {
		t.Fatalf("err = %v after %d arguments, want ErrQueryBufLimit", err, in.sent)
	}
	if in.sent > int(r.MaxQueryBuf/argOverhead)+1000 {
		t.Errorf("read %d arguments before refusing: the limit allows about %d", in.sent, r.MaxQueryBuf/argOverhead)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*uint64(r.MaxQueryBuf) {
		t.Errorf("allocated %d bytes under a limit of %d", alloc, r.MaxQueryBuf)
	}
	if held := r.Held(); held > r.MaxQueryBuf {
		t.Errorf("holds %d bytes, past the limit of %d", held, r.MaxQueryBuf)
	}
	// The error sticks; Release returns what was held and ends the reader.
	if _, err := r.ReadCommand(); !errors.Is(err, ErrQueryBufLimit) {
		t.Errorf("second ReadCommand = %v", err)
	}
	if got := r.Release(); got < 1<<19 {
		t.Errorf("Release reported %d bytes", got)
	}
	if r.Held() != 0 {
		t.Errorf("holds %d bytes after Release", r.Held())
	}
}

func TestQueryBufLimit(t *testing.T) {
	big := "*2\r\n$3\r\nset\r\n$2000000\r\n" + strings.Repeat("x", 2_000_000) + "\r\n"
	small := "*3\r\n$3\r\nset\r\n$1\r\nk\r\n$5\r\nvalue\r\n"
	tests := []struct {
		name   string
		in     string
		limit  int64
		unauth bool
		want   error
	}{
		{"big bulk past the limit", big, 1 << 20, false, ErrQueryBufLimit},
		{"big bulk within the limit", big, 4 << 20, false, nil},
		{"default limit", big, 0, false, nil},
		{"small request", small, 1 << 20, false, nil},
		{"unauthenticated inline within 1 MB", "PING " + strings.Repeat("x", 60000) + "\r\n", 0, true, nil},
		{"many small bulks", "*100000\r\n" + strings.Repeat("$3\r\nabc\r\n", 100000), 1 << 20, false, ErrQueryBufLimit},
		{"many small bulks, larger limit", "*100000\r\n" + strings.Repeat("$3\r\nabc\r\n", 100000), 64 << 20, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in))
			r.MaxQueryBuf, r.Unauthenticated = tt.limit, tt.unauth
			_, err := r.ReadCommand()
			if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}
