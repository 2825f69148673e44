package replication

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrProtocol marks input from the master that is not the replication
// protocol: the link is dropped and tried again.
var ErrProtocol = errors.New("replication: protocol error from master")

// Limits on what one command of the stream may claim, checked before
// anything is allocated for it. A bulk's memory grows only as its bytes
// arrive, so a lying length costs nothing until the bytes exist.
const (
	maxArgs     = 1 << 20
	maxBulk     = 4 << 30
	bulkChunk   = 1 << 20
	maxLineSize = 64 << 10
)

// streamReader reads what the master sends: reply lines, the RDB payload
// and the commands after it, counting every byte it consumes (the
// replication offset is a count of bytes).
type streamReader struct {
	br *bufio.Reader
	n  int64
}

func newStreamReader(r io.Reader) *streamReader {
	return &streamReader{br: bufio.NewReaderSize(r, maxLineSize)}
}

// consumed is the number of bytes read and handed on so far.
func (s *streamReader) consumed() int64 { return s.n }

// buffered reports whether bytes already received wait to be read.
func (s *streamReader) buffered() bool { return s.br.Buffered() > 0 }

// line reads one line without its "\r\n" (or lone "\n").
func (s *streamReader) line() ([]byte, error) {
	b, err := s.br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: a line longer than %d bytes", ErrProtocol, maxLineSize)
		}
		return nil, err
	}
	s.n += int64(len(b))
	b = b[:len(b)-1]
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b, nil
}

// reply reads a reply line to a handshake command, skipping the empty
// lines a master sends to keep the link alive while it prepares.
func (s *streamReader) reply() (string, error) {
	for {
		b, err := s.line()
		if err != nil {
			return "", err
		}
		if len(b) > 0 {
			return string(b), nil
		}
	}
}

// command reads one command of the stream, a RESP array of bulk strings.
// The arguments are freshly allocated: the caller may keep them.
func (s *streamReader) command() ([][]byte, error) {
	b, err := s.line()
	if err != nil {
		return nil, err
	}
	if len(b) == 0 || b[0] != '*' {
		return nil, fmt.Errorf("%w: expected a command, got %q", ErrProtocol, clip(b))
	}
	n, err := strconv.ParseInt(string(b[1:]), 10, 64)
	if err != nil || n < 1 || n > maxArgs {
		return nil, fmt.Errorf("%w: invalid multibulk length %q", ErrProtocol, clip(b))
	}
	args := make([][]byte, 0, min(n, 64))
	for range n {
		h, err := s.line()
		if err != nil {
			return nil, noEOF(err)
		}
		if len(h) == 0 || h[0] != '$' {
			return nil, fmt.Errorf("%w: expected '$', got %q", ErrProtocol, clip(h))
		}
		size, err := strconv.ParseInt(string(h[1:]), 10, 64)
		if err != nil || size < 0 || size > maxBulk {
			return nil, fmt.Errorf("%w: invalid bulk length %q", ErrProtocol, clip(h))
		}
		arg, err := s.bulk(size)
		if err != nil {
			return nil, err
		}
		args = append(args, arg)
	}
	return args, nil
}

// bulk reads a payload of size bytes and its "\r\n".
func (s *streamReader) bulk(size int64) ([]byte, error) {
	buf := make([]byte, 0, min(size, bulkChunk))
	for int64(len(buf)) < size {
		step := int(min(size-int64(len(buf)), bulkChunk))
		buf = append(buf, make([]byte, step)...)
		if _, err := io.ReadFull(s.br, buf[len(buf)-step:]); err != nil {
			return nil, noEOF(err)
		}
		s.n += int64(step)
	}
	var crlf [2]byte
	if _, err := io.ReadFull(s.br, crlf[:]); err != nil {
		return nil, noEOF(err)
	}
	s.n += 2
	if crlf != [2]byte{'\r', '\n'} {
		return nil, fmt.Errorf("%w: bulk not followed by CRLF", ErrProtocol)
	}
	return buf, nil
}

// eofMarkLen is the length of the random mark that ends a diskless
// transfer ("$EOF:<mark>" announces it).
const eofMarkLen = 40

// rdbHeader reads the line announcing the RDB payload: its size, or for a
// diskless transfer the mark that will follow its last byte.
func (s *streamReader) rdbHeader() (size int64, mark []byte, err error) {
	line, err := s.reply()
	if err != nil {
		return 0, nil, err
	}
	if line[0] == '-' {
		return 0, nil, fmt.Errorf("master aborted the transfer: %s", line[1:])
	}
	if line[0] != '$' {
		return 0, nil, fmt.Errorf("%w: bad protocol from master, expected '$', got %q", ErrProtocol, clip([]byte(line)))
	}
	if rest, ok := bytes.CutPrefix([]byte(line[1:]), []byte("EOF:")); ok {
		if len(rest) != eofMarkLen {
			return 0, nil, fmt.Errorf("%w: EOF mark of %d bytes", ErrProtocol, len(rest))
		}
		return -1, bytes.Clone(rest), nil
	}
	size, err = strconv.ParseInt(line[1:], 10, 64)
	if err != nil || size < 0 {
		return 0, nil, fmt.Errorf("%w: bad RDB size %q", ErrProtocol, clip([]byte(line)))
	}
	return size, nil, nil
}

// copyN copies an RDB payload of size bytes to w, calling progress with
// each chunk's size.
func (s *streamReader) copyN(w io.Writer, size int64, progress func(int)) error {
	buf := make([]byte, 256<<10)
	for left := size; left > 0; {
		n, err := s.br.Read(buf[:min(left, int64(len(buf)))])
		if n > 0 {
			s.n += int64(n)
			left -= int64(n)
			progress(n)
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err != nil {
			return noEOF(err)
		}
	}
	return nil
}

// copyUntil copies a diskless RDB payload to w up to the mark, consuming
// the mark and nothing after it (the command stream follows).
func (s *streamReader) copyUntil(w io.Writer, mark []byte, progress func(int)) error {
	var held []byte // the last bytes seen, which may begin the mark
	for {
		if s.br.Buffered() == 0 {
			if _, err := s.br.Peek(1); err != nil {
				return noEOF(err)
			}
		}
		b, _ := s.br.Peek(s.br.Buffered())
		window := append(held, b...)
		if i := bytes.Index(window, mark); i >= 0 {
			take := i + len(mark) - len(held)
			if _, err := w.Write(window[:i]); err != nil {
				return err
			}
			_, _ = s.br.Discard(take)
			s.n += int64(take)
			progress(take)
			return nil
		}
		keep := min(len(window), len(mark)-1)
		if _, err := w.Write(window[:len(window)-keep]); err != nil {
			return err
		}
		held = append(held[:0], window[len(window)-keep:]...)
		_, _ = s.br.Discard(len(b))
		s.n += int64(len(b))
		progress(len(b))
	}
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// clip shortens input quoted in an error.
func clip(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
