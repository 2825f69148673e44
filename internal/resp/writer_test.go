package resp

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// The expected bytes for the RESP3 types and their RESP2 fallbacks match
// what redis-server 7.0 sends for DEBUG PROTOCOL <type> under HELLO 2 and
// HELLO 3.
func TestWriter(t *testing.T) {
	tests := []struct {
		name  string
		write func(w *Writer)
		resp2 string
		resp3 string // empty: the same as resp2
	}{
		{"simple string", func(w *Writer) { w.SimpleString("OK") }, "+OK\r\n", ""},
		{"simple string with newlines", func(w *Writer) { w.SimpleString("a\r\nb\nc") }, "+a  b c\r\n", ""},
		{"error", func(w *Writer) { w.Error("ERR syntax error") }, "-ERR syntax error\r\n", ""},
		{"error with newlines", func(w *Writer) { w.Error("ERR bad\r\nthing\n") }, "-ERR bad  thing \r\n", ""},
		{"int", func(w *Writer) { w.Int(12345) }, ":12345\r\n", ""},
		{"negative int", func(w *Writer) { w.Int(math.MinInt64) }, ":-9223372036854775808\r\n", ""},
		{"bulk", func(w *Writer) { w.Bulk([]byte("Hello World")) }, "$11\r\nHello World\r\n", ""},
		{"binary bulk", func(w *Writer) { w.Bulk([]byte("a\r\n\x00")) }, "$4\r\na\r\n\x00\r\n", ""},
		{"nil bulk is empty", func(w *Writer) { w.Bulk(nil) }, "$0\r\n\r\n", ""},
		{"bulk string", func(w *Writer) { w.BulkString("hi") }, "$2\r\nhi\r\n", ""},
		{"null bulk", func(w *Writer) { w.NullBulk() }, "$-1\r\n", "_\r\n"},
		{"null array", func(w *Writer) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"array", func(w *Writer) { w.Array(3); w.Int(0); w.Int(1); w.Int(2) }, "*3\r\n:0\r\n:1\r\n:2\r\n", ""},
		{"empty array", func(w *Writer) { w.Array(0) }, "*0\r\n", ""},
		{
			"map",
			func(w *Writer) { w.Map(2); w.Int(0); w.Bool(false); w.Int(1); w.Bool(true) },
			"*4\r\n:0\r\n:0\r\n:1\r\n:1\r\n",
			"%2\r\n:0\r\n#f\r\n:1\r\n#t\r\n",
		},
		{"set", func(w *Writer) { w.Set(2); w.Int(0); w.Int(1) }, "*2\r\n:0\r\n:1\r\n", "~2\r\n:0\r\n:1\r\n"},
		{
			"push",
			func(w *Writer) { w.Push(2); w.BulkString("server-cpu-usage"); w.Int(42) },
			"*2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n",
			">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n",
		},
		{"double", func(w *Writer) { w.Double(3.141) }, "$5\r\n3.141\r\n", ",3.141\r\n"},
		{"integral double", func(w *Writer) { w.Double(10) }, "$2\r\n10\r\n", ",10\r\n"},
		{"tiny double", func(w *Writer) { w.Double(1e-7) }, "$4\r\n1e-7\r\n", ",1e-7\r\n"},
		{"inf", func(w *Writer) { w.Double(math.Inf(1)) }, "$3\r\ninf\r\n", ",inf\r\n"},
		{"-inf", func(w *Writer) { w.Double(math.Inf(-1)) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"nan", func(w *Writer) { w.Double(math.NaN()) }, "$3\r\nnan\r\n", ",nan\r\n"},
		{"true", func(w *Writer) { w.Bool(true) }, ":1\r\n", "#t\r\n"},
		{"false", func(w *Writer) { w.Bool(false) }, ":0\r\n", "#f\r\n"},
		{
			"verbatim",
			func(w *Writer) { w.Verbatim("txt", "This is a verbatim\nstring") },
			"$25\r\nThis is a verbatim\nstring\r\n",
			"=29\r\ntxt:This is a verbatim\nstring\r\n",
		},
		{
			"big number",
			func(w *Writer) { w.BigNumber("1234567999999999999999999999999999999") },
			"$37\r\n1234567999999999999999999999999999999\r\n",
			"(1234567999999999999999999999999999999\r\n",
		},
		{"raw", func(w *Writer) { w.Raw([]byte("+PONG\r\n")) }, "+PONG\r\n", ""},
	}
	for _, tt := range tests {
		for _, proto := range []int{2, 3} {
			want := tt.resp2
			if proto == 3 && tt.resp3 != "" {
				want = tt.resp3
			}
			var out bytes.Buffer
			w := NewWriter(&out)
			w.SetProtocol(proto)
			tt.write(w)
			if w.Buffered() != len(want) {
				t.Errorf("%s, RESP%d: Buffered() = %d, want %d", tt.name, proto, w.Buffered(), len(want))
			}
			if out.Len() != 0 {
				t.Errorf("%s, RESP%d: wrote %q before Flush", tt.name, proto, out.Bytes())
			}
			if err := w.Flush(); err != nil {
				t.Fatalf("%s, RESP%d: Flush: %v", tt.name, proto, err)
			}
			if got := out.String(); got != want {
				t.Errorf("%s, RESP%d: wrote %q, want %q", tt.name, proto, got, want)
			}
			if w.Buffered() != 0 {
				t.Errorf("%s, RESP%d: Buffered() = %d after Flush", tt.name, proto, w.Buffered())
			}
		}
	}
}

func TestWriterProtocol(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	if p := w.Protocol(); p != 2 {
		t.Errorf("default Protocol() = %d, want 2", p)
	}
	w.SetProtocol(3)
	if p := w.Protocol(); p != 3 {
		t.Errorf("Protocol() = %d after SetProtocol(3)", p)
	}
	for _, bad := range []int{0, 1, 4} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SetProtocol(%d) did not panic", bad)
				}
			}()
			w.SetProtocol(bad)
		}()
	}
}

func TestWriterVerbatimFormatLength(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	w.SetProtocol(3)
	defer func() {
		if recover() == nil {
			t.Error("Verbatim with a four-byte format did not panic")
		}
	}()
	w.Verbatim("text", "x")
}

// countingWriter records the size of each Write.
type countingWriter struct {
	bytes.Buffer
	writes []int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes = append(c.writes, len(p))
	return c.Buffer.Write(p)
}

func TestWriterStreamsLargeReplies(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	tests := []struct {
		name  string
		write func(w *Writer)
		want  string
	}{
		{"bulk", func(w *Writer) { w.Bulk([]byte(big)) }, "$1048576\r\n" + big + "\r\n"},
		{"bulk string", func(w *Writer) { w.BulkString(big) }, "$1048576\r\n" + big + "\r\n"},
		{"raw", func(w *Writer) { w.Raw([]byte(big)) }, big},
		{"many small", func(w *Writer) {
			for range 1 << 14 {
				w.BulkString("0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab")
			}
		}, strings.Repeat("$60\r\n0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab\r\n", 1<<14)},
	}
	for _, proto := range []int{2, 3} {
		for _, tt := range tests {
			var out countingWriter
			w := NewWriter(&out)
			w.SetProtocol(proto)
			w.SimpleString("first")
			tt.write(w)
			if out.Len() == 0 {
				t.Errorf("%s: nothing written before Flush", tt.name)
			}
			if w.Buffered() > flushSize {
				t.Errorf("%s: %d bytes still buffered", tt.name, w.Buffered())
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != "+first\r\n"+tt.want {
				t.Errorf("%s: wrote %d bytes, want %d", tt.name, len(got), len("+first\r\n")+len(tt.want))
			}
			for _, n := range out.writes {
				if n > flushSize+128 && tt.name != "bulk" && tt.name != "raw" {
					t.Errorf("%s: one write of %d bytes", tt.name, n)
				}
			}
		}
	}
}

// failWriter accepts limit bytes and then fails.
type failWriter struct {
	limit int
	n     int
	calls int
}

var errFull = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	f.calls++
	if f.n+len(p) > f.limit {
		k := f.limit - f.n
		f.n = f.limit
		return k, errFull
	}
	f.n += len(p)
	return len(p), nil
}

func TestWriterRemembersErrors(t *testing.T) {
	f := &failWriter{limit: 10}
	w := NewWriter(f)
	w.SimpleString("hello world")
	if err := w.Flush(); !errors.Is(err, errFull) {
		t.Fatalf("Flush = %v, want %v", err, errFull)
	}
	calls := f.calls
	w.BulkString(strings.Repeat("x", 1<<20))
	w.Bulk(bytes.Repeat([]byte("y"), 1<<20))
	if err := w.Flush(); !errors.Is(err, errFull) {
		t.Errorf("second Flush = %v, want %v", err, errFull)
	}
	if f.calls != calls {
		t.Errorf("%d more writes after the error", f.calls-calls)
	}
	if w.Buffered() != 0 {
		t.Errorf("%d bytes kept after the error", w.Buffered())
	}
}

func TestWriterDoesNotAllocate(t *testing.T) {
	w := NewWriter(discard{})
	w.SetProtocol(3)
	value := bytes.Repeat([]byte("v"), 128)
	allocs := testing.AllocsPerRun(1000, func() {
		w.Array(3)
		w.Bulk(value)
		w.Int(42)
		w.Double(3.25)
		w.SetProtocol(2)
		w.Double(1.5e-300)
		w.SetProtocol(3)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("writing replies allocates %v times, want 0", allocs)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestHoldKeepsRepliesUntilRelease(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	mark := w.Hold()
	w.Bulk(bytes.Repeat([]byte("x"), 2*flushSize))
	if out.Len() != 0 {
		t.Fatalf("held reply reached the writer: %d bytes", out.Len())
	}
	w.Truncate(mark)
	w.Error("ERR commit failed")
	w.Release()
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "-ERR commit failed\r\n" {
		t.Fatalf("got %q", got)
	}
}

// TestWriterShrinksAfterBigHeldReply: a buffer grown by a big held reply
// (EXEC, a script's result) goes back to its first size once flushed,
// rather than staying with the connection.
func TestWriterShrinksAfterBigHeldReply(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Hold()
	for range 1000 {
		w.Bulk(bytes.Repeat([]byte("x"), 1000))
	}
	if w.Size() <= keepBufSize {
		t.Fatalf("held replies grew the buffer to only %d bytes", w.Size())
	}
	w.Release()
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.Size() != writeBufSize {
		t.Errorf("buffer of %d bytes kept after the flush, want %d", w.Size(), writeBufSize)
	}
	if out.Len() != 1000*len("$1000\r\n"+strings.Repeat("x", 1000)+"\r\n") {
		t.Errorf("wrote %d bytes", out.Len())
	}
	w.SimpleString("OK")
	if err := w.Flush(); err != nil || !strings.HasSuffix(out.String(), "+OK\r\n") {
		t.Errorf("after shrinking: %q, %v", out.String()[out.Len()-10:], err)
	}
}

// TestWriterDiscard: replies written while discarding never reach the
// connection, however large, and those before and after do.
func TestWriterDiscard(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	w.SimpleString("before")
	w.Discard()
	w.Array(2)
	w.Bulk(bytes.Repeat([]byte("x"), 3*flushSize))
	w.BulkString(strings.Repeat("y", 2*flushSize))
	mark := w.Hold()
	w.Int(7)
	w.Truncate(mark)
	w.Release()
	w.Error("ERR dropped")
	w.EndDiscard()
	w.EndDiscard()
	w.SimpleString("after")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "+before\r\n+after\r\n" {
		t.Fatalf("written %q", got)
	}
}

// TestWriterPauseDiscard: what is written between PauseDiscard and
// ResumeDiscard goes out while discarding, the rest does not, and a held
// reply rolled back (Truncate) takes what was let through after its mark
// with it instead of bringing it back.
func TestWriterPauseDiscard(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	w.SimpleString("before")
	w.Discard()
	w.Int(1)
	was := w.PauseDiscard()
	w.Push(1)
	w.BulkString("through")
	w.ResumeDiscard(was)
	w.Int(2)
	mark := w.Hold()
	w.Int(3)
	was = w.PauseDiscard()
	w.SimpleString("rolled back")
	w.ResumeDiscard(was)
	w.Truncate(mark)
	w.Int(4)
	w.Release()
	w.EndDiscard()
	if w.PauseDiscard() {
		t.Fatal("PauseDiscard reported discarding after EndDiscard")
	}
	w.ResumeDiscard(false)
	w.SimpleString("after")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "+before\r\n*1\r\n$7\r\nthrough\r\n+after\r\n" {
		t.Fatalf("written %q", got)
	}
}
