package loadgen

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A small RESP2 client for the pipelined and pub/sub runs: commands are
// encoded straight into a byte slice and replies are read without a client
// library in between, so that the load generator spends as little CPU per
// command as it can on a machine it shares with the server.

// AppendCommand appends args as one RESP2 command (an array of bulk
// strings) to buf.
func AppendCommand(buf []byte, args ...string) []byte {
	buf = append(buf, '*')
	buf = strconv.AppendInt(buf, int64(len(args)), 10)
	buf = append(buf, '\r', '\n')
	for _, a := range args {
		buf = AppendBulk(buf, a)
	}
	return buf
}

// AppendBulk appends s as one RESP2 bulk string; AppendCommand's parts,
// for callers that write the array header themselves.
func AppendBulk(buf []byte, s string) []byte {
	buf = append(buf, '$')
	buf = strconv.AppendInt(buf, int64(len(s)), 10)
	buf = append(buf, '\r', '\n')
	buf = append(buf, s...)
	return append(buf, '\r', '\n')
}

// Reply is one RESP2 reply. Str (simple strings, errors, bulk strings) and
// Elems (arrays) are only valid until the next read from the same reader.
type Reply struct {
	Type  byte // '+', '-', ':', '$' or '*'
	Str   []byte
	Int   int64 // an integer reply, or a bulk string's or array's length
	Null  bool  // $-1 or *-1
	Elems []Reply
}

func (r Reply) String() string {
	switch {
	case r.Null:
		return "(nil)"
	case r.Type == ':':
		return strconv.FormatInt(r.Int, 10)
	case r.Type == '*':
		return fmt.Sprintf("array of %d", len(r.Elems))
	default:
		return strconv.Quote(string(r.Str))
	}
}

// ErrUnknownCommand is wrapped by the error a run returns when the server
// answered "unknown command": the workload is not implemented there.
var ErrUnknownCommand = errors.New("server answered unknown command")

// ReplyError is an error reply from the server.
type ReplyError struct{ Msg string }

func (e *ReplyError) Error() string { return e.Msg }

// Is makes an "unknown command" reply match ErrUnknownCommand.
func (e *ReplyError) Is(target error) bool {
	return target == ErrUnknownCommand && strings.Contains(strings.ToLower(e.Msg), "unknown command")
}

// maxBulk bounds a bulk string or array the reader accepts: a garbled
// length must not become an allocation of gigabytes.
const maxBulk = 64 << 20

// replyReader reads RESP2 replies. Strings are copied into scratch, which
// is reused from one top-level reply to the next; the top-level array's
// elements likewise.
type replyReader struct {
	r       *bufio.Reader
	scratch []byte
	top     []Reply
}

func newReplyReader(r io.Reader) *replyReader {
	return &replyReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// read returns the next reply. An error reply is returned as a Reply of
// Type '-', not as an error; the error is for I/O and protocol failures.
func (rr *replyReader) read() (Reply, error) {
	rr.scratch = rr.scratch[:0]
	return rr.readOne(0)
}

func (rr *replyReader) line() ([]byte, error) {
	line, err := rr.r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, errors.New("RESP: line longer than 64 KiB")
		}
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("RESP: malformed line %q", line)
	}
	return line[:len(line)-2], nil
}

func (rr *replyReader) readOne(depth int) (Reply, error) {
	if depth > 8 {
		return Reply{}, errors.New("RESP: arrays nested too deep")
	}
	line, err := rr.line()
	if err != nil {
		return Reply{}, err
	}
	rep := Reply{Type: line[0]}
	body := line[1:]
	switch rep.Type {
	case '+', '-':
		start := len(rr.scratch)
		rr.scratch = append(rr.scratch, body...)
		rep.Str = rr.scratch[start:]
		return rep, nil
	case ':':
		rep.Int, err = strconv.ParseInt(string(body), 10, 64)
		if err != nil {
			return Reply{}, fmt.Errorf("RESP: bad integer %q", body)
		}
		return rep, nil
	case '$', '*':
		n, err := strconv.ParseInt(string(body), 10, 64)
		if err != nil || n < -1 || n > maxBulk {
			return Reply{}, fmt.Errorf("RESP: bad length %q", body)
		}
		rep.Int = n
		if n == -1 {
			rep.Null = true
			return rep, nil
		}
		if rep.Type == '$' {
			start := len(rr.scratch)
			rr.scratch = append(rr.scratch, make([]byte, n+2)...)
			if _, err := io.ReadFull(rr.r, rr.scratch[start:]); err != nil {
				return Reply{}, err
			}
			if rr.scratch[start+int(n)] != '\r' || rr.scratch[start+int(n)+1] != '\n' {
				return Reply{}, errors.New("RESP: bulk string not followed by CRLF")
			}
			rr.scratch = rr.scratch[:start+int(n)]
			rep.Str = rr.scratch[start:]
			return rep, nil
		}
		var elems []Reply
		if depth == 0 {
			elems = rr.top[:0]
		} else {
			elems = make([]Reply, 0, n)
		}
		for range n {
			e, err := rr.readOne(depth + 1)
			if err != nil {
				return Reply{}, err
			}
			elems = append(elems, e)
		}
		if depth == 0 {
			rr.top = elems
		}
		rep.Elems = elems
		return rep, nil
	default:
		return Reply{}, fmt.Errorf("RESP: unexpected reply type %q", line)
	}
}
