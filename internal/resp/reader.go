package resp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"unsafe"

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
	// DefaultMaxQueryBuf is client-query-buffer-limit's default.
	DefaultMaxQueryBuf = 1 << 30
	// unauthMaxQueryBuf bounds what an unauthenticated client's request
	// may hold, as Redis bounds its query buffer to 1 MB.
	unauthMaxQueryBuf = 1 << 20
)

// argOverhead is what each argument of a request costs beside its bytes:
// its span while the request is read and its slice header once it is
// returned. A request of millions of empty arguments is made of this.
const argOverhead = int64(unsafe.Sizeof(span{}) + unsafe.Sizeof([]byte(nil)))

// ErrQueryBufLimit is returned when a request, before it is complete, holds
// more memory than the reader's MaxQueryBuf allows (Redis's
// client-query-buffer-limit). Redis closes such a client without a reply.
var ErrQueryBufLimit = errors.New("resp: request reached the query buffer limit")

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
	// in a multibulk request, and 1 MB held by a request. The server sets
	// and clears it.
	Unauthenticated bool
	// MaxQueryBuf bounds the memory a request may hold before it is
	// complete (client-query-buffer-limit): its argument bytes received so
	// far, argOverhead per argument and the unparsed input. Zero or less
	// means DefaultMaxQueryBuf.
	MaxQueryBuf int64

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
	// bigHeld is the capacity of the current request's big arguments.
	bigHeld int64
	// count is the current multibulk request's declared argument count.
	count int64
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

// QueryBuf returns the bytes the input buffer holds since it was last
// compacted: the requests of the current read parsed so far (the one just
// returned included) and those not parsed yet. It is CLIENT LIST's qbuf as
// Redis counts it while a command runs: Redis trims its query buffer only
// after it has run every complete request the buffer held.
func (r *Reader) QueryBuf() int { return r.w }

// Free returns how many more bytes the input buffer takes before it must
// be compacted or grown (CLIENT LIST's qbuf-free).
func (r *Reader) Free() int { return max(len(r.buf)-r.w, 0) }

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
	r.bigHeld = 0
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
	r.count = count
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
		if err := r.checkHeld(0); err != nil {
			return err
		}
	}
	return nil
}

// roomForSpan makes room for one more argument's span, growing spans by
// doubling as append would, but only after checking that the larger array
// is within the limit: a request of millions of empty arguments is refused
// before it allocates their spans.
func (r *Reader) roomForSpan() error {
	if len(r.spans) < cap(r.spans) {
		return nil
	}
	n := max(2*cap(r.spans), 16)
	if err := r.checkHeld(int64(n) * argOverhead); err != nil {
		return err
	}
	ns := make([]span, len(r.spans), n)
	copy(ns, r.spans)
	r.spans = ns
	return nil
}

// Held reports the memory the request being read holds, as MaxQueryBuf
// counts it.
func (r *Reader) Held() int64 { return r.held(0) }

// held is Held with extra bytes about to be allocated.
func (r *Reader) held(extra int64) int64 {
	return int64(cap(r.arena)) + r.bigHeld + int64(cap(r.spans))*argOverhead + int64(r.w-r.r) + extra
}

// checkHeld fails with ErrQueryBufLimit when the request would hold more
// than its limit with extra more bytes.
func (r *Reader) checkHeld(extra int64) error {
	limit := r.MaxQueryBuf
	if limit <= 0 {
		limit = DefaultMaxQueryBuf
	}
	if r.Unauthenticated {
		limit = min(limit, unauthMaxQueryBuf)
	}
	if r.held(extra) > limit {
		return ErrQueryBufLimit
	}
	return nil
}

// Head rebuilds the first bytes (at most 64) of the multibulk request being
// read, for a log line about it: the count line and the first argument.
func (r *Reader) Head() []byte {
	const most = 64
	b := fmt.Appendf(nil, "*%d\r\n", r.count)
	if len(r.spans) > 0 {
		first := r.spans[0].big
		if first == nil {
			first = r.arena[r.spans[0].off:r.spans[0].end]
		}
		b = fmt.Appendf(b, "$%d\r\n", len(first))
		b = append(b, first[:min(len(first), most)]...)
	}
	return b[:min(len(b), most)]
}

// Release drops every buffer the Reader holds, for a connection that has
// ended, and reports how many bytes they were: the caller may hand a large
// amount back to the operating system at once.
func (r *Reader) Release() int64 {
	n := r.held(0) - int64(r.w-r.r) + int64(cap(r.buf)) + int64(cap(r.args))*int64(unsafe.Sizeof([]byte(nil)))
	r.arena, r.spans, r.args, r.buf = nil, nil, nil, nil
	r.r, r.w, r.bigHeld = 0, 0, 0
	if r.err == nil {
		r.err = io.EOF
	}
	return n
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
	if err := r.roomForSpan(); err != nil {
		return err
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
	first := min(size, max(have, bigArgFirstAlloc))
	if err := r.checkHeld(int64(first)); err != nil {
		return err
	}
	b := make([]byte, have, first)
	copy(b, r.buf[r.r:r.r+have])
	r.r += have
	for len(b) < size {
		if len(b) == cap(b) {
			grown := min(size, 2*cap(b))
			// Both allocations exist while one is copied to the other.
			if err := r.checkHeld(int64(cap(b) + grown)); err != nil {
				return err
			}
			nb := make([]byte, len(b), grown)
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
	if err := r.roomForSpan(); err != nil {
		return err
	}
	r.spans = append(r.spans, span{big: b})
	r.bigHeld += int64(cap(b))
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
