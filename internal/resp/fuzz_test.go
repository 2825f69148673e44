package resp

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"testing"
	"testing/iotest"
)

// FuzzReadCommand checks that any input parses without panicking or
// hanging, that the outcome does not depend on how the input is split into
// reads, and that every command read re-encodes as multibulk to bytes that
// read back as the same command.
func FuzzReadCommand(f *testing.F) {
	for _, seed := range []string{
		"",
		"PING\r\n",
		"SET k v\nGET k\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"*1\r\n$4\r\nPINGxx",
		"*1\rX$4\r\nPING\r\n",
		"*0\r\n*-1\r\nPING\r\n",
		"\r\n\n  \r\n",
		"ECHO \"a\\x41\\n\" 'b\\'c' d\"e f\"\r\n",
		"ECHO \"a\"b\r\n",
		"ECHO '\\\\'\r\n",
		"PI\x00NG\r\n",
		"*2\r\n$4\r\nECHO\r\n$5\r\na\r\n\x00b\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nx\r\nfooz\r\n",
		"*2147483648\r\n",
		"*1\r\n$536870913\r\n",
		"*1\r\n$536870912\r\nabc",
		"*1\r\n$-1\r\n",
		"*05\r\n",
		"*2\r\n$4\r\nECHO\r\n",
	} {
		f.Add([]byte(seed), false)
	}
	f.Add([]byte("*11\r\n"), true)
	f.Add([]byte("*1\r\n$16385\r\n"), true)

	f.Fuzz(func(t *testing.T, data []byte, unauthenticated bool) {
		whole := parseAll(bytes.NewReader(data), unauthenticated)
		split := parseAll(iotest.OneByteReader(bytes.NewReader(data)), unauthenticated)
		if !equalCmds(whole.cmds, split.cmds) || whole.errText != split.errText {
			t.Fatalf("whole input: %q, %s\nbyte by byte: %q, %s", whole.cmds, whole.errText, split.cmds, split.errText)
		}
		if whole.err != io.EOF && !errors.Is(whole.err, io.ErrUnexpectedEOF) {
			var pe *ProtocolError
			if !errors.As(whole.err, &pe) {
				t.Fatalf("unexpected error %v", whole.err)
			}
		}
		for _, cmd := range whole.cmds {
			if len(cmd) == 0 {
				t.Fatal("ReadCommand returned an empty command")
			}
			enc := encodeMultibulk(cmd)
			back := parseAll(bytes.NewReader(enc), false)
			if back.err != io.EOF || len(back.cmds) != 1 || !equalCmds(back.cmds, [][]string{cmd}) {
				t.Fatalf("%q encodes as %q, which reads back as %q, %v", cmd, enc, back.cmds, back.err)
			}
		}
	})
}

type parsed struct {
	cmds    [][]string
	err     error
	errText string
}

func parseAll(rd io.Reader, unauthenticated bool) parsed {
	r := NewReader(rd)
	r.Unauthenticated = unauthenticated
	cmds, err := readAll(r)
	return parsed{cmds: cmds, err: err, errText: err.Error()}
}

func encodeMultibulk(cmd []string) []byte {
	b := []byte("*" + strconv.Itoa(len(cmd)) + "\r\n")
	for _, a := range cmd {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}
