package resp

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads commands until an error and returns them, copied, with the
// error that ended the input.
func readAll(r *Reader) ([][]string, error) {
	var cmds [][]string
	for {
		args, err := r.ReadCommand()
		if err != nil {
			return cmds, err
		}
		cmd := make([]string, len(args))
		for i, a := range args {
			cmd[i] = string(a)
		}
		cmds = append(cmds, cmd)
	}
}

// chunkings returns readers that deliver data whole, a byte at a time, in
// halves, and with the final EOF arriving together with the last bytes:
// the parse must not depend on how the bytes were split.
func chunkings(data string) map[string]func() io.Reader {
	return map[string]func() io.Reader{
		"whole":   func() io.Reader { return strings.NewReader(data) },
		"onebyte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(data)) },
		"half":    func() io.Reader { return iotest.HalfReader(strings.NewReader(data)) },
		"dataerr": func() io.Reader { return iotest.DataErrReader(strings.NewReader(data)) },
	}
}

// errEOF and errUnexpectedEOF name the two non-protocol outcomes in tables.
const (
	errEOF           = "EOF"
	errUnexpectedEOF = "unexpected EOF"
)

type readerCase struct {
	name  string
	in    string
	setup func(*Reader)
	want  [][]string
	err   string // errEOF, errUnexpectedEOF, or a protocol error's full text
}

func runReaderCases(t *testing.T, cases []readerCase) {
	t.Helper()
	for _, tc := range cases {
		for how, mk := range chunkings(tc.in) {
			t.Run(tc.name+"/"+how, func(t *testing.T) {
				r := NewReader(mk())
				if tc.setup != nil {
					tc.setup(r)
				}
				got, err := readAll(r)
				if !equalCmds(got, tc.want) {
					t.Errorf("commands = %q, want %q", got, tc.want)
				}
				checkErr(t, err, tc.err)
				// The Reader is dead after an error: the same error again.
				if _, err2 := r.ReadCommand(); err2 != err {
					t.Errorf("second error = %v, want %v again", err2, err)
				}
			})
		}
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	var pe *ProtocolError
	switch want {
	case errEOF:
		if err != io.EOF {
			t.Errorf("err = %v, want io.EOF", err)
		}
	case errUnexpectedEOF:
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("err = %v, want io.ErrUnexpectedEOF", err)
		}
	default:
		if !errors.As(err, &pe) || err.Error() != want {
			t.Errorf("err = %v, want protocol error %q", err, want)
		}
	}
}

func equalCmds(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

func cmds(cs ...[]string) [][]string { return cs }
func args(a ...string) []string      { return a }

func TestReadCommand(t *testing.T) {
	runReaderCases(t, []readerCase{
		{name: "empty input", in: "", err: errEOF},
		{name: "inline", in: "PING\r\n", want: cmds(args("PING")), err: errEOF},
		{name: "inline LF only", in: "SET k v\n", want: cmds(args("SET", "k", "v")), err: errEOF},
		{name: "multibulk", in: "*1\r\n$4\r\nPING\r\n", want: cmds(args("PING")), err: errEOF},
		{
			name: "pipeline mixing both kinds",
			in:   "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\nGET k\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\nPING\n",
			want: cmds(args("SET", "k", "v"), args("GET", "k"), args("GET", "k"), args("PING")),
			err:  errEOF,
		},
		{
			name: "binary-safe bulk",
			in:   "*2\r\n$4\r\nECHO\r\n$5\r\na\r\n\x00b\r\n",
			want: cmds(args("ECHO", "a\r\n\x00b")),
			err:  errEOF,
		},
		{name: "empty bulk", in: "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", want: cmds(args("ECHO", "")), err: errEOF},
		// Redis skips the two bytes after a payload, and the byte after a
		// count line's CR, without looking at them.
		{name: "payload trailer unchecked", in: "*1\r\n$4\r\nPINGxx", want: cmds(args("PING")), err: errEOF},
		{name: "count LF unchecked", in: "*1\rX$4\r\nPING\r\n", want: cmds(args("PING")), err: errEOF},
		{name: "bulk LF unchecked", in: "*1\r\n$4\rXPING\r\n", want: cmds(args("PING")), err: errEOF},
		// Empty requests are skipped, as Redis skips them.
		{name: "zero count", in: "*0\r\nPING\r\n", want: cmds(args("PING")), err: errEOF},
		{name: "negative count", in: "*-1\r\n*-10\r\nPING\r\n", want: cmds(args("PING")), err: errEOF},
		{name: "min int64 count", in: "*-9223372036854775808\r\nPING\r\n", want: cmds(args("PING")), err: errEOF},
		{name: "empty lines", in: "\r\n\n   \r\n\t\nPING\r\n\r\n", want: cmds(args("PING")), err: errEOF},
		{name: "only a CR is stripped", in: "PING\r\r\n", want: cmds(args("PING")), err: errEOF},
		{name: "CR inside an inline line", in: "PING\rECHO x\n", want: cmds(args("PING", "ECHO", "x")), err: errEOF},
		{name: "inline quoting", in: "SET \"a b\" 'c\\'d'\r\n", want: cmds(args("SET", "a b", "c'd")), err: errEOF},

		{name: "EOF inside inline", in: "PING", err: errUnexpectedEOF},
		{name: "EOF inside count", in: "*1", err: errUnexpectedEOF},
		{name: "EOF after count CR", in: "*1\r", err: errUnexpectedEOF},
		{name: "EOF before an argument", in: "*2\r\n$4\r\nECHO\r\n", err: errUnexpectedEOF},
		{name: "EOF inside a payload", in: "*1\r\n$4\r\nPIN", err: errUnexpectedEOF},
		{name: "EOF inside a trailer", in: "*1\r\n$4\r\nPING\r", err: errUnexpectedEOF},
		{
			name: "command before EOF inside the next",
			in:   "PING\r\n*1\r\n$4\r\nPI",
			want: cmds(args("PING")),
			err:  errUnexpectedEOF,
		},
		// Redis finds line ends with strchr, which stops at NUL: the line
		// never completes.
		{name: "NUL in inline line", in: "PI\x00NG\r\n", err: errUnexpectedEOF},
		{name: "NUL in count line", in: "*1\x00\r\n$4\r\nPING\r\n", err: errUnexpectedEOF},
		{name: "NUL in bulk line", in: "*1\r\n$4\x00\r\nPING\r\n", err: errUnexpectedEOF},
		{name: "NUL where '$' belongs", in: "*2\r\n$1\r\nx\r\n\x00oo\r\n", err: errUnexpectedEOF},
	})
}

func TestReadCommandProtocolErrors(t *testing.T) {
	const (
		invalidMultibulk = "Protocol error: invalid multibulk length"
		invalidBulk      = "Protocol error: invalid bulk length"
		unbalanced       = "Protocol error: unbalanced quotes in request"
	)
	runReaderCases(t, []readerCase{
		{name: "count with leading zero", in: "*05\r\n", err: invalidMultibulk},
		{name: "count minus zero", in: "*-0\r\n", err: invalidMultibulk},
		{name: "empty count", in: "*\r\n", err: invalidMultibulk},
		{name: "count with plus", in: "*+1\r\n", err: invalidMultibulk},
		{name: "count with space", in: "* 1\r\n", err: invalidMultibulk},
		{name: "count with junk", in: "*1a\r\n", err: invalidMultibulk},
		{name: "count only minus", in: "*-\r\n", err: invalidMultibulk},
		{name: "count above INT_MAX", in: "*2147483648\r\n", err: invalidMultibulk},
		{name: "count below min int64", in: "*-9223372036854775809\r\n", err: invalidMultibulk},
		{name: "count of 21 bytes", in: "*-00000000000000000001\r\n", err: invalidMultibulk},
		{
			name: "command before the error",
			in:   "PING\r\n*x\r\n",
			want: cmds(args("PING")),
			err:  invalidMultibulk,
		},

		{name: "negative bulk", in: "*1\r\n$-1\r\n", err: invalidBulk},
		{name: "bulk with leading zero", in: "*1\r\n$04\r\nPING\r\n", err: invalidBulk},
		{name: "empty bulk length", in: "*1\r\n$\r\n", err: invalidBulk},
		{name: "bulk above proto-max-bulk-len", in: "*1\r\n$536870913\r\n", err: invalidBulk},
		{name: "bulk beyond int64", in: "*1\r\n$9223372036854775808\r\n", err: invalidBulk},

		{name: "expected dollar", in: "*3\r\n$3\r\nSET\r\n$1\r\nx\r\nfooz\r\n", err: "Protocol error: expected '$', got 'f'"},
		{name: "expected dollar got CR", in: "*3\r\n$3\r\nSET\r\n$1\r\nx\r\n\r\n", err: "Protocol error: expected '$', got ' '"},
		{name: "expected dollar got LF", in: "*3\r\n$3\r\nSET\r\n$1\r\nx\r\n\n\r\n", err: "Protocol error: expected '$', got ' '"},
		{name: "expected dollar got high byte", in: "*1\r\n\xff3\r\n", err: "Protocol error: expected '$', got '\xff'"},
		{name: "expected dollar after short payload", in: "*2\r\n$1\r\nxyzw\r\n", err: "Protocol error: expected '$', got 'w'"},

		{name: "unclosed double quote", in: "ECHO \"abc\r\n", err: unbalanced},
		{name: "unclosed single quote", in: "ECHO 'abc\r\n", err: unbalanced},
		{name: "text after closing quote", in: "ECHO \"a\"b\r\n", err: unbalanced},
		{name: "quote inside a word", in: "ECHO a\"b c\"d\r\n", err: unbalanced},
		{name: "error after a good inline", in: "PING\nECHO 'x\n", want: cmds(args("PING")), err: unbalanced},
	})
}

func TestReadCommandLimits(t *testing.T) {
	line := func(n int) string { return strings.Repeat("A", n) }
	digits := func(n int) string { return strings.Repeat("1", n) }
	runReaderCases(t, []readerCase{
		// Redis looks for a line's end in at most 64 KiB; the terminator may
		// be the 65537th byte but no later.
		{name: "inline of 64 KiB", in: line(65536) + "\n", want: cmds(args(line(65536))), err: errEOF},
		{name: "inline of 64 KiB with CR", in: line(65535) + "\r\n", want: cmds(args(line(65535))), err: errEOF},
		{name: "inline too big", in: line(65536) + "\r\n", err: "Protocol error: too big inline request"},
		{name: "inline too big, no LF", in: line(70000), err: "Protocol error: too big inline request"},
		{name: "inline with NUL", in: "PI\x00NG\r\n" + line(65536), err: "Protocol error: too big inline request"},
		{name: "count line at the limit", in: "*" + digits(65535) + "\r\n", err: "Protocol error: invalid multibulk length"},
		{name: "count line too big", in: "*" + digits(65536) + "\r\n", err: "Protocol error: too big mbulk count string"},
		{name: "count line with NUL", in: "*1\x00\r\n" + line(65536), err: "Protocol error: too big mbulk count string"},
		{name: "bulk line too big", in: "*1\r\n$" + digits(65536), err: "Protocol error: too big bulk count string"},
		{name: "bulk line too big, no dollar", in: "*1\r\n" + line(65537), err: "Protocol error: too big bulk count string"},
		{name: "bulk line at the limit", in: "*1\r\n" + line(65536) + "\r\n", err: "Protocol error: expected '$', got 'A'"},

		{
			name:  "MaxBulkLen",
			in:    "*2\r\n$4\r\nECHO\r\n$4\r\nabcd\r\n*2\r\n$4\r\nECHO\r\n$5\r\nabcde\r\n",
			setup: func(r *Reader) { r.MaxBulkLen = 4 },
			want:  cmds(args("ECHO", "abcd")),
			err:   "Protocol error: invalid bulk length",
		},
		{
			name:  "MaxMultibulkLen",
			in:    "*2\r\n$4\r\nECHO\r\n$1\r\na\r\n*3\r\n",
			setup: func(r *Reader) { r.MaxMultibulkLen = 2 },
			want:  cmds(args("ECHO", "a")),
			err:   "Protocol error: invalid multibulk length",
		},
		{
			name:  "non-positive limits mean the defaults",
			in:    "*2\r\n$4\r\nECHO\r\n$1\r\na\r\n*2147483648\r\n",
			setup: func(r *Reader) { r.MaxMultibulkLen, r.MaxBulkLen = 0, -1 },
			want:  cmds(args("ECHO", "a")),
			err:   "Protocol error: invalid multibulk length",
		},

		{
			name:  "unauthenticated count of 10",
			in:    "*10\r\n" + strings.Repeat("$1\r\nx\r\n", 10),
			setup: func(r *Reader) { r.Unauthenticated = true },
			want:  cmds(strings.Split(strings.Repeat("x", 10), "")),
			err:   errEOF,
		},
		{
			name:  "unauthenticated count of 11",
			in:    "*11\r\n",
			setup: func(r *Reader) { r.Unauthenticated = true },
			err:   "Protocol error: unauthenticated multibulk length",
		},
		{
			name:  "unauthenticated bulk of 16384",
			in:    "*1\r\n$16384\r\n" + line(16384) + "\r\n",
			setup: func(r *Reader) { r.Unauthenticated = true },
			want:  cmds(args(line(16384))),
			err:   errEOF,
		},
		{
			name:  "unauthenticated bulk of 16385",
			in:    "*1\r\n$16385\r\n",
			setup: func(r *Reader) { r.Unauthenticated = true },
			err:   "Protocol error: unauthenticated bulk length",
		},
		{
			name:  "unauthenticated invalid count",
			in:    "*2147483648\r\n",
			setup: func(r *Reader) { r.Unauthenticated = true },
			err:   "Protocol error: invalid multibulk length",
		},
		{
			name:  "unauthenticated invalid bulk",
			in:    "*1\r\n$536870913\r\n",
			setup: func(r *Reader) { r.Unauthenticated = true },
			err:   "Protocol error: invalid bulk length",
		},
		{
			name:  "unauthenticated inline has no count limit",
			in:    "a b c d e f g h i j k l\r\n",
			setup: func(r *Reader) { r.Unauthenticated = true },
			want:  cmds(args("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l")),
			err:   errEOF,
		},
	})
}

func TestReadCommandBigArguments(t *testing.T) {
	big := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + i%26)
		}
		return string(b)
	}
	a, b := big(bigArgSize), big(300_000)
	in := "*3\r\n$3\r\nSET\r\n$32768\r\n" + a + "\r\n$300000\r\n" + b + "\r\n" +
		"*2\r\n$3\r\nGET\r\n$32767\r\n" + a[:32767] + "\r\n"
	runReaderCases(t, []readerCase{{
		name: "big and almost big",
		in:   in,
		want: cmds(args("SET", a, b), args("GET", a[:32767])),
		err:  errEOF,
	}})
}

func TestReadCommandDoesNotTrustDeclaredLength(t *testing.T) {
	// A client declares the largest bulk Redis allows and sends 100 KiB of
	// it: memory must follow what arrived, not what was declared.
	in := "*1\r\n$536870912\r\n" + strings.Repeat("x", 100<<10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := NewReader(strings.NewReader(in))
	_, err := r.ReadCommand()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
		t.Errorf("allocated %d bytes for 100 KiB of a declared 512 MiB bulk", alloc)
	}
}

func TestReadCommandReadError(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		rd   io.Reader
		want []string
	}{
		{"between commands", io.MultiReader(strings.NewReader("PING\r\n"), iotest.ErrReader(boom)), args("PING")},
		{"inside a command", io.MultiReader(strings.NewReader("PING\r\n*1\r\n"), iotest.ErrReader(boom)), args("PING")},
		{"inside a big payload", io.MultiReader(strings.NewReader("*1\r\n$40000\r\nab"), iotest.ErrReader(boom)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(tt.rd)
			got, err := readAll(r)
			if tt.want != nil && !equalCmds(got, cmds(tt.want)) {
				t.Errorf("commands = %q, want %q", got, tt.want)
			}
			if !errors.Is(err, boom) {
				t.Errorf("err = %v, want one wrapping %v", err, boom)
			}
		})
	}
}

// stuckReader returns (0, nil) forever.
type stuckReader struct{}

func (stuckReader) Read([]byte) (int, error) { return 0, nil }

func TestReadCommandNoProgress(t *testing.T) {
	r := NewReader(stuckReader{})
	if _, err := r.ReadCommand(); !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("err = %v, want io.ErrNoProgress", err)
	}
}

func TestReaderBuffered(t *testing.T) {
	first := "*1\r\n$4\r\nPING\r\n"
	second := "*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n"
	r := NewReader(strings.NewReader(first + second + "PI"))
	if n := r.Buffered(); n != 0 {
		t.Errorf("Buffered before reading = %d, want 0", n)
	}
	mustRead(t, r, "PING")
	if n, want := r.Buffered(), len(second)+2; n != want {
		t.Errorf("Buffered after the first command = %d, want %d", n, want)
	}
	mustRead(t, r, "ECHO", "hi")
	if n := r.Buffered(); n != 2 {
		t.Errorf("Buffered with a partial command left = %d, want 2", n)
	}

	r = NewReader(strings.NewReader(first))
	mustRead(t, r, "PING")
	if n := r.Buffered(); n != 0 {
		t.Errorf("Buffered after the whole pipeline = %d, want 0", n)
	}
}

func mustRead(t *testing.T, r *Reader, want ...string) [][]byte {
	t.Helper()
	got, err := r.ReadCommand()
	if err != nil {
		t.Fatalf("ReadCommand: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("ReadCommand = %q, want %q", got, want)
	}
	for i := range got {
		if string(got[i]) != want[i] {
			t.Fatalf("ReadCommand = %q, want %q", got, want)
		}
	}
	return got
}

func TestReadCommandArgumentsDoNotOverlap(t *testing.T) {
	r := NewReader(strings.NewReader("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"))
	got := mustRead(t, r, "a", "b", "c")
	_ = append(got[0], 'X')
	if string(got[1]) != "b" {
		t.Errorf("appending to one argument changed the next to %q", got[1])
	}
}

func TestReadCommandReusesStorage(t *testing.T) {
	cmd := []byte("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$128\r\n" + strings.Repeat("v", 128) + "\r\n")
	r := NewReader(&loopReader{data: bytes.Repeat(cmd, 100)})
	for range 10 { // warm up
		if _, err := r.ReadCommand(); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := r.ReadCommand(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("ReadCommand allocates %v times per small command, want 0", allocs)
	}
}

func TestReaderForgetsLargeCommands(t *testing.T) {
	// One huge command must not pin its storage for the connection's life.
	var b strings.Builder
	b.WriteString("*5000\r\n")
	for range 5000 {
		b.WriteString("$100\r\n" + strings.Repeat("x", 100) + "\r\n")
	}
	b.WriteString("PING\r\n")
	r := NewReader(strings.NewReader(b.String()))
	if got, err := r.ReadCommand(); err != nil || len(got) != 5000 {
		t.Fatalf("ReadCommand = %d args, %v", len(got), err)
	}
	mustRead(t, r, "PING")
	if cap(r.arena) > keepArenaCap || cap(r.spans) > keepArgsCap {
		t.Errorf("kept arena of %d bytes and %d spans", cap(r.arena), cap(r.spans))
	}
}

// loopReader returns data over and over, never EOF.
type loopReader struct {
	data []byte
	off  int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.data[l.off:])
	l.off = (l.off + n) % len(l.data)
	return n, nil
}
