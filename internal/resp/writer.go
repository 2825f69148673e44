package resp

import (
	"io"
	"strconv"

	"github.com/cairndb/cairn/internal/rconv"
)

const (
	// writeBufSize is the buffer a Writer starts with, the size of Redis's
	// per-client reply buffer (PROTO_REPLY_CHUNK_BYTES).
	writeBufSize = 16 << 10
	// flushSize is how much a Writer buffers before writing on its own, so
	// that a huge reply streams instead of piling up in memory. A payload
	// at least this long bypasses the buffer.
	flushSize = 64 << 10
	// keepBufSize bounds the buffer a Writer keeps once flushed: replies
	// held for a commit (a big EXEC or script result) can grow it far past
	// flushSize, and a connection must not keep that for its lifetime.
	keepBufSize = 256 << 10
)

// Writer writes replies in RESP2 or RESP3 into its own buffer, and to the
// underlying io.Writer on Flush or when the buffer passes 64 KiB.
//
// The methods do not return errors: the first error from the underlying
// writer is kept, everything written after it is dropped, and Flush
// returns it.
type Writer struct {
	w     io.Writer
	buf   []byte
	proto int
	err   error
	// held keeps replies in the buffer (see Hold).
	held bool
	// discarding drops every reply written from discardFrom on (see
	// Discard).
	discarding  bool
	discardFrom int
	// peak is the most bytes the buffer has held at a flush.
	peak int
}

// NewWriter returns a Writer that speaks RESP2, the protocol every
// connection starts in.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, buf: make([]byte, 0, writeBufSize), proto: 2}
}

// SetProtocol switches between RESP2 and RESP3 (HELLO 2, HELLO 3). It
// panics for any other version: the server must reject those itself, with
// Redis's NOPROTO error.
func (w *Writer) SetProtocol(v int) {
	if v != 2 && v != 3 {
		panic("resp: protocol version must be 2 or 3, not " + strconv.Itoa(v))
	}
	w.proto = v
}

// Protocol returns the protocol version in use, 2 or 3.
func (w *Writer) Protocol() int { return w.proto }

// Buffered returns how many bytes are waiting for Flush.
func (w *Writer) Buffered() int { return len(w.buf) }

// Size returns the capacity of the reply buffer (CLIENT LIST's rbs), and
// Peak the most bytes it has held when flushed (rbp).
func (w *Writer) Size() int { return cap(w.buf) }

// Peak: see Size.
func (w *Writer) Peak() int { return max(w.peak, len(w.buf)) }

// Flush writes the buffered replies to the underlying writer and returns
// the first error the underlying writer has returned, if any.
func (w *Writer) Flush() error {
	w.flush()
	return w.err
}

// Err returns the first error the underlying writer returned, if any:
// once it is set, everything written is dropped. A handler writing a long
// reply checks it to stop when the connection is gone.
func (w *Writer) Err() error { return w.err }

// SimpleString writes +s. A CR or LF in s would end the reply early, so
// each becomes a space.
func (w *Writer) SimpleString(s string) {
	w.buf = append(w.buf, '+')
	w.appendLine(s)
	w.done()
}

// Error writes -msg. msg is the whole error text including its code, e.g.
// "ERR syntax error" or "WRONGTYPE Operation against a key holding the
// wrong kind of value". A CR or LF in msg becomes a space, as Redis does
// for formatted errors.
func (w *Writer) Error(msg string) {
	w.buf = append(w.buf, '-')
	w.appendLine(msg)
	w.done()
}

// Int writes :n.
func (w *Writer) Int(n int64) {
	w.header(':', n)
	w.done()
}

// Bulk writes b as a bulk string. A nil b is an empty string, not a null:
// use NullBulk for that.
func (w *Writer) Bulk(b []byte) {
	w.header('$', int64(len(b)))
	w.payload(b)
	w.buf = append(w.buf, '\r', '\n')
	w.done()
}

// BulkString writes s as a bulk string.
func (w *Writer) BulkString(s string) {
	w.header('$', int64(len(s)))
	w.payloadString(s)
	w.buf = append(w.buf, '\r', '\n')
	w.done()
}

// NullBulk writes the null that stands for a missing string: $-1 in RESP2,
// _ in RESP3.
func (w *Writer) NullBulk() {
	if w.proto == 3 {
		w.buf = append(w.buf, "_\r\n"...)
	} else {
		w.buf = append(w.buf, "$-1\r\n"...)
	}
	w.done()
}

// NullArray writes the null that stands for a missing array (a timed-out
// BLPOP, an aborted EXEC): *-1 in RESP2, _ in RESP3.
func (w *Writer) NullArray() {
	if w.proto == 3 {
		w.buf = append(w.buf, "_\r\n"...)
	} else {
		w.buf = append(w.buf, "*-1\r\n"...)
	}
	w.done()
}

// Array starts an array of n elements; the caller writes them next.
func (w *Writer) Array(n int) {
	w.header('*', int64(n))
	w.done()
}

// Map starts a map of n key/value pairs; the caller writes 2n elements,
// key then value. RESP2 has no map, so it gets a flat array of 2n.
func (w *Writer) Map(n int) {
	if w.proto == 3 {
		w.header('%', int64(n))
	} else {
		w.header('*', 2*int64(n))
	}
	w.done()
}

// Set starts a set of n elements: ~n in RESP3, an array in RESP2.
func (w *Writer) Set(n int) {
	if w.proto == 3 {
		w.header('~', int64(n))
	} else {
		w.header('*', int64(n))
	}
	w.done()
}

// Push starts an out-of-band message of n elements (pub/sub messages,
// invalidations): >n in RESP3, an array in RESP2.
func (w *Writer) Push(n int) {
	if w.proto == 3 {
		w.header('>', int64(n))
	} else {
		w.header('*', int64(n))
	}
	w.done()
}

// Double writes f as Redis 7.2 prints doubles (rconv.AppendFloat): ",<text>" in RESP3, a
// bulk string in RESP2.
func (w *Writer) Double(f float64) {
	if w.proto == 3 {
		w.buf = append(w.buf, ',')
		w.buf = rconv.AppendFloat(w.buf, f)
		w.buf = append(w.buf, '\r', '\n')
	} else {
		var tmp [32]byte
		s := rconv.AppendFloat(tmp[:0], f)
		w.header('$', int64(len(s)))
		w.buf = append(w.buf, s...)
		w.buf = append(w.buf, '\r', '\n')
	}
	w.done()
}

// Bool writes #t or #f in RESP3, and :1 or :0 in RESP2.
func (w *Writer) Bool(b bool) {
	switch {
	case w.proto == 3 && b:
		w.buf = append(w.buf, "#t\r\n"...)
	case w.proto == 3:
		w.buf = append(w.buf, "#f\r\n"...)
	case b:
		w.buf = append(w.buf, ":1\r\n"...)
	default:
		w.buf = append(w.buf, ":0\r\n"...)
	}
	w.done()
}

// Verbatim writes s as a verbatim string of the given three-letter format
// ("txt" or "mkd"): =len, then "txt:" and s, in RESP3; a plain bulk string
// of s in RESP2. It panics if format is not three bytes long.
func (w *Writer) Verbatim(format, s string) {
	if w.proto != 3 {
		w.BulkString(s)
		return
	}
	if len(format) != 3 {
		panic("resp: verbatim format must be three bytes, not " + strconv.Quote(format))
	}
	w.header('=', int64(len(s))+4)
	w.buf = append(w.buf, format...)
	w.buf = append(w.buf, ':')
	w.payloadString(s)
	w.buf = append(w.buf, '\r', '\n')
	w.done()
}

// BigNumber writes s, the decimal digits of an integer too large for Int:
// (s in RESP3, a bulk string in RESP2.
func (w *Writer) BigNumber(s string) {
	if w.proto != 3 {
		w.BulkString(s)
		return
	}
	w.buf = append(w.buf, '(')
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '\r', '\n')
	w.done()
}

// Raw writes b unchanged; b must already be encoded in the connection's
// protocol (a reply forwarded from elsewhere, a cached encoding).
func (w *Writer) Raw(b []byte) {
	w.payload(b)
	w.done()
}

// header appends <prefix><n>\r\n.
func (w *Writer) header(prefix byte, n int64) {
	w.buf = append(w.buf, prefix)
	w.buf = strconv.AppendInt(w.buf, n, 10)
	w.buf = append(w.buf, '\r', '\n')
}

// appendLine appends s and \r\n, with any CR or LF in s made a space.
func (w *Writer) appendLine(s string) {
	start := len(w.buf)
	w.buf = append(w.buf, s...)
	for i, c := range w.buf[start:] {
		if c == '\r' || c == '\n' {
			w.buf[start+i] = ' '
		}
	}
	w.buf = append(w.buf, '\r', '\n')
}

// payload appends b, or writes it straight through when it is large
// enough that copying it into the buffer would only cost.
func (w *Writer) payload(b []byte) {
	if len(b) < flushSize || w.held || w.discarding {
		w.buf = append(w.buf, b...)
		return
	}
	w.flush()
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
}

// payloadString appends s in buffer-sized pieces, flushing between them,
// so that a large string never needs a []byte copy of its own.
func (w *Writer) payloadString(s string) {
	for len(s) >= flushSize && !w.held && !w.discarding {
		w.buf = append(w.buf, s[:flushSize]...)
		s = s[flushSize:]
		w.flush()
	}
	w.buf = append(w.buf, s...)
}

// done flushes once the buffer has grown past flushSize, or drops what
// was written while discarding.
func (w *Writer) done() {
	if w.discarding {
		w.buf = w.buf[:w.discardFrom]
		return
	}
	if len(w.buf) > flushSize && !w.held {
		w.flush()
	}
}

func (w *Writer) flush() {
	w.peak = max(w.peak, len(w.buf))
	if len(w.buf) > 0 && w.err == nil {
		_, w.err = w.w.Write(w.buf)
	}
	// After an error the connection is finished: drop what cannot be sent
	// rather than let it grow without bound.
	w.buf = w.buf[:0]
	if cap(w.buf) > keepBufSize {
		w.buf = make([]byte, 0, writeBufSize)
	}
	w.discardFrom = 0
}

// Discard drops every reply written from now on until EndDiscard, without
// buffering it (CLIENT REPLY OFF and SKIP). What was written before stays.
func (w *Writer) Discard() {
	w.discarding = true
	w.discardFrom = len(w.buf)
}

// EndDiscard lets replies through again; calling it when not discarding
// does nothing.
func (w *Writer) EndDiscard() {
	if w.discarding {
		w.buf = w.buf[:w.discardFrom]
		w.discarding = false
	}
}

// PauseDiscard lets replies through until ResumeDiscard, even while
// discarding, and returns whether it was discarding, to be passed to
// ResumeDiscard. It is for what Redis sends past CLIENT REPLY OFF and SKIP
// (its CLIENT_PUSHING writes): (un)subscription confirmations and the
// messages a subscriber publishes to itself.
func (w *Writer) PauseDiscard() (was bool) {
	was = w.discarding
	w.EndDiscard()
	return was
}

// ResumeDiscard goes back to discarding if was (from PauseDiscard) says so.
func (w *Writer) ResumeDiscard(was bool) {
	if was {
		w.Discard()
	}
}

// Hold keeps every reply written from now on in the buffer until Release,
// and returns a mark that Truncate can roll back to. The server holds a
// write command's reply until its commit succeeds, so no client ever sees
// an acknowledgement for a write that failed.
func (w *Writer) Hold() int {
	w.held = true
	return len(w.buf)
}

// Truncate drops everything written after mark (from Hold).
func (w *Writer) Truncate(mark int) {
	if mark >= 0 && mark <= len(w.buf) {
		w.buf = w.buf[:mark]
		// What was let through a Discard (PauseDiscard) after mark is
		// gone too: discarding must not resurrect it.
		w.discardFrom = min(w.discardFrom, mark)
	}
}

// Release ends Hold; a buffer grown past the flush size is written out.
func (w *Writer) Release() {
	w.held = false
	w.done()
}
