package resp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/cairndb/cairn/internal/rconv"
)

// Request limits. The values are Redis 7's (src/server.h, src/config.c).
const (
	// DefaultMaxBulkLen is Redis's proto-max-bulk-len default.
	DefaultMaxBulkLen = 512 << 20
	// DefaultMaxMultibulkLen is INT_MAX, the largest count Redis accepts.
	DefaultMaxMultibulkLen = math.MaxInt32

	// maxLineSize is PROTO_INLINE_MAX_SIZE: how many bytes Redis buffers
	// while looking for the end of an inline request or a count line.
	maxLineSize = 64 << 10
	// unauthMaxMultibulkLen and unauthMaxBulkLen bound what a client may
	// send before it has authenticated, so that it cannot make the server
	// hold large requests (CVE-2021-32675).
	unauthMaxMultibulkLen = 10
	unauthMaxBulkLen      = 16384
)

// Buffer sizes. None of these change behaviour, only allocation.
const (
	// readBufSize is PROTO_IOBUF_LEN, the size of Redis's socket reads.
	readBufSize = 16 << 10
	// bigArgSize is PROTO_MBULK_BIG_ARG: a bulk at least this long is read
	// into its own allocation instead of being copied through the buffer.
	bigArgSize = 32 << 10
	// bigArgFirstAlloc is the most a big bulk allocates before its bytes
	// arrive; afterwards it at most doubles what has arrived, so a client
	// that declares $536870912 and sends nothing costs us 64 KiB.
	bigArgFirstAlloc = 64 << 10
	// keepArenaCap and keepArgsCap bound what the Reader keeps for reuse
	// after one unusually large command.
	keepArenaCap = 256 << 10
	keepArgsCap  = 4096
	// maxEmptyReads is how many (0, nil) reads in a row are taken as an
	// io.Reader making no progress, as in bufio.
	maxEmptyReads = 100
)

// ProtocolError is a malformed request. Redis replies "-ERR " + Error() and
// closes the connection.
type ProtocolError struct {
	// Msg is the text after "Protocol error: ", e.g. "invalid bulk length".
	Msg string
}

func (e *ProtocolError) Error() string { return "Protocol error: " + e.Msg }

func protoErr(msg string) error { return &ProtocolError{Msg: msg} }

// Reader reads client requests.
type Reader struct {
	// MaxBulkLen is the longest bulk argument accepted (proto-max-bulk-len).
	// Zero or less means DefaultMaxBulkLen.
	MaxBulkLen int64
	// MaxMultibulkLen is the largest argument count accepted in one
	// multibulk request. Zero or less means DefaultMaxMultibulkLen.
	MaxMultibulkLen int64
	// Unauthenticated applies Redis's limits for a client that has not
	// authenticated yet: at most 10 arguments of at most 16384 bytes each
	// in a multibulk request. The server sets and clears it.
	Unauthenticated bool

	rd   io.Reader
	buf  []byte
	r, w int   // buf[r:w] has been read but not parsed
	rerr error // the error from rd, returned once the buffer is drained
	err  error // sticky: the error ReadCommand returned

	// The command being parsed: small arguments are copied into arena so
	// that buf can be compacted and refilled under them; spans locate them.
	arena []byte
	spans []span
	args  [][]byte
}

// span locates one argument: arena[off:end], or big when it was read into
// its own allocation.
type span struct {
	off, end int
	big      []byte
}

// NewReader returns a Reader reading requests from rd with Redis's default
// limits.
func NewReader(rd io.Reader) *Reader {
	return &Reader{
		MaxBulkLen:      DefaultMaxBulkLen,
		MaxMultibulkLen: DefaultMaxMultibulkLen,
		rd:              rd,
		buf:             make([]byte, readBufSize),
	}
}

// Buffered returns how many bytes have been read from the underlying reader
// but not yet parsed. A server that has just run a command flushes its
// replies when this is zero: nothing else of the pipeline has arrived.
func (r *Reader) Buffered() int { return r.w - r.r }

// ReadCommand reads the next request and returns its arguments, never an
// empty list: empty inline lines and multibulk counts of zero or less are
// skipped, as Redis skips them. The arguments are valid until the next call.
//
// It returns io.EOF when the input ends between requests,
// io.ErrUnexpectedEOF when it ends inside one, a *ProtocolError for a
// malformed request, and otherwise the underlying reader's error, wrapped.
func (r *Reader) ReadCommand() ([][]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	r.reset()
	for {
		if r.r == r.w {
			if err := r.fill(); err != nil {
				if err != io.EOF {
					err = fmt.Errorf("resp: reading request: %w", err)
				}
				r.err = err
				return nil, err
			}
		}
		var err error
		if r.buf[r.r] == '*' {
			err = r.readMultibulk()
		} else {
			err = r.readInline()
		}
		if err != nil {
			r.err = err
			return nil, err
		}
		if len(r.spans) > 0 {
			return r.finish(), nil
		}
	}
}

// reset forgets the previous command, dropping references to its big
// arguments and any storage that one large command made grow.
func (r *Reader) reset() {
	clear(r.spans)
	clear(r.args)
	if cap(r.arena) > keepArenaCap {
		r.arena = nil
	}
	if cap(r.spans) > keepArgsCap {
		r.spans, r.args = nil, nil
	}
	r.arena = r.arena[:0]
	r.spans = r.spans[:0]
	r.args = r.args[:0]
}

func (r *Reader) finish() [][]byte {
	for _, s := range r.spans {
		if s.big != nil {
			r.args = append(r.args, s.big)
		} else {
			// The capacity limit keeps a caller's append from overwriting
			// the next argument.
			r.args = append(r.args, r.arena[s.off:s.end:s.end])
		}
	}
	return r.args
}

func (r *Reader) readInline() error {
	n, err := r.findLine('\n', 0, "too big inline request")
	if err != nil {
		return err
	}
	line := r.buf[r.r : r.r+n]
	if n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	var ok bool
	r.arena, r.spans, ok = splitInline(line, r.arena, r.spans)
	if !ok {
		return protoErr("unbalanced quotes in request")
	}
	r.r += n + 1
	return nil
}

func (r *Reader) readMultibulk() error {
	n, err := r.findLine('\r', 1, "too big mbulk count string")
	if err != nil {
		return err
	}
	count, ok := rconv.ParseInt(r.buf[r.r+1 : r.r+n])
	if !ok || count > r.maxMultibulkLen() {
		return protoErr("invalid multibulk length")
	}
	if count > unauthMaxMultibulkLen && r.Unauthenticated {
		return protoErr("unauthenticated multibulk length")
	}
	// Redis does not check that '\n' follows the '\r'; it skips the byte.
	r.r += n + 2
	if count <= 0 {
		return nil
	}
	// Reserve no more than Redis does up front: the count is only a claim.
	if cap(r.spans) < int(min(count, 1024)) {
		r.spans = make([]span, 0, min(count, 1024))
	}
	for ; count > 0; count-- {
		if err := r.readBulk(); err != nil {
			return err
		}
	}
	return nil
}

func (r *Reader) readBulk() error {
	n, err := r.findLine('\r', 1, "too big bulk count string")
	if err != nil {
		return err
	}
	if c := r.buf[r.r]; c != '$' {
		// Redis formats the byte with %c and then turns CR and LF into
		// spaces so that the error stays on one line.
		if c == '\r' || c == '\n' {
			c = ' '
		}
		return protoErr("expected '$', got '" + string([]byte{c}) + "'")
	}
	size, ok := rconv.ParseInt(r.buf[r.r+1 : r.r+n])
	if !ok || size < 0 || size > r.maxBulkLen() {
		return protoErr("invalid bulk length")
	}
	if size > unauthMaxBulkLen && r.Unauthenticated {
		return protoErr("unauthenticated bulk length")
	}
	r.r += n + 2
	if size >= bigArgSize {
		return r.readBigBulk(int(size))
	}
	for r.w-r.r < int(size)+2 {
		if err := r.more(); err != nil {
			return err
		}
	}
	off := len(r.arena)
	r.arena = append(r.arena, r.buf[r.r:r.r+int(size)]...)
	r.spans = append(r.spans, span{off: off, end: len(r.arena)})
	// The two bytes after the payload are skipped unchecked, as in Redis.
	r.r += int(size) + 2
	return nil
}

// readBigBulk reads a bulk of size bytes into its own allocation, reading
// straight from the underlying reader once the buffer is drained, and
// growing the allocation only as bytes arrive.
func (r *Reader) readBigBulk(size int) error {
	have := min(r.w-r.r, size)
	b := make([]byte, have, min(size, max(have, bigArgFirstAlloc)))
	copy(b, r.buf[r.r:r.r+have])
	r.r += have
	for len(b) < size {
		if len(b) == cap(b) {
			nb := make([]byte, len(b), min(size, 2*cap(b)))
			copy(nb, b)
			b = nb
		}
		n, err := r.read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			return unexpected(err)
		}
	}
	for r.w-r.r < 2 {
		if err := r.more(); err != nil {
			return err
		}
	}
	r.r += 2
	r.spans = append(r.spans, span{big: b})
	return nil
}

// findLine returns the offset from r.r of the first byte term, once it and
// the need bytes after it are buffered. Like Redis, it fails with tooBig
// when more than maxLineSize bytes are buffered and term is not among them,
// and it treats a NUL before term as hiding term, because Redis looks for
// term with strchr.
//
// Redis's outcome for a line longer than maxLineSize depends on how the
// bytes were split into reads. Here it does not: term must be within the
// first maxLineSize+1 bytes, which is what Redis decides when the line
// arrives a byte at a time.
func (r *Reader) findLine(term byte, need int, tooBig string) (int, error) {
	scanned := 0
	for {
		avail := r.buf[r.r:r.w]
		window := avail[:min(len(avail), maxLineSize+1)]
		if scanned < len(window) {
			if i := bytes.IndexByte(window[scanned:], term); i >= 0 {
				i += scanned
				if bytes.IndexByte(window[:i], 0) >= 0 {
					scanned = maxLineSize + 1 // never completes
				} else if len(avail) > i+need {
					return i, nil
				} else {
					scanned = i
				}
			} else {
				scanned = len(window)
			}
		}
		if scanned > maxLineSize && len(avail) > maxLineSize {
			return 0, protoErr(tooBig)
		}
		if err := r.more(); err != nil {
			return 0, err
		}
	}
}

// more reads more input in the middle of a request.
func (r *Reader) more() error { return unexpected(r.fill()) }

func unexpected(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.EOF):
		return io.ErrUnexpectedEOF
	default:
		return fmt.Errorf("resp: reading request: %w", err)
	}
}

// fill reads at least one more byte into buf[r.w:], first moving the
// unparsed bytes to the front of buf, and growing buf if they fill it.
// buf never needs to grow much: the longest stretch the parser waits on is
// a line of maxLineSize+2 bytes.
func (r *Reader) fill() error {
	if r.r > 0 {
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
	}
	if r.w == len(r.buf) {
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.w])
		r.buf = nb
	}
	n, err := r.read(r.buf[r.w:])
	r.w += n
	if n > 0 {
		return nil
	}
	return err
}

// read reads into p from the underlying reader. It returns an error only
// when it read nothing; an error that came with data is kept for the next
// call.
func (r *Reader) read(p []byte) (int, error) {
	if r.rerr != nil {
		return 0, r.rerr
	}
	for range maxEmptyReads {
		n, err := r.rd.Read(p)
		if n < 0 || n > len(p) {
			r.rerr = errors.New("resp: reader returned an invalid count")
			return 0, r.rerr
		}
		if err != nil {
			r.rerr = err
		}
		if n > 0 || err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
	}
	r.rerr = io.ErrNoProgress
	return 0, r.rerr
}

func (r *Reader) maxBulkLen() int64 {
	if r.MaxBulkLen <= 0 {
		return DefaultMaxBulkLen
	}
	// A bulk must fit an int, with its CRLF, on 32-bit platforms too.
	return min(r.MaxBulkLen, math.MaxInt-2)
}

func (r *Reader) maxMultibulkLen() int64 {
	if r.MaxMultibulkLen <= 0 {
		return DefaultMaxMultibulkLen
	}
	return r.MaxMultibulkLen
}
