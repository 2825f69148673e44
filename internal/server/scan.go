package server

import (
	"strconv"

	"github.com/cairndb/cairn/internal/rconv"
)

// scanOptions are the options SCAN and the collection scans (HSCAN, SSCAN,
// ZSCAN) share, plus HSCAN's NOVALUES.
type scanOptions struct {
	count int
	// pattern is MATCH's pattern, nil for none or "*".
	pattern  []byte
	noValues bool
}

// scanCursorArg parses the cursor argument at i, replying and returning
// false when it is invalid.
func scanCursorArg(x *ctx, i int) (uint64, bool) {
	cursor, ok := rconv.ParseCursor(x.arg(i))
	if !ok {
		x.errorReply("ERR invalid cursor")
	}
	return cursor, ok
}

// scanCount parses COUNT's argument, replying and returning false when it
// is not a positive integer. Counts above 2^20 are capped to 2^20.
func scanCount(x *ctx, arg []byte) (int, bool) {
	n, ok := rconv.ParseInt(arg)
	if !ok {
		x.notInteger()
		return 0, false
	}
	if n < 1 {
		x.syntaxError()
		return 0, false
	}
	return int(min(n, 1<<20)), true
}

// collectionScanStart reads what HSCAN, SSCAN and ZSCAN read before they
// scan, in Redis's order: the cursor, then the key (exists looks it up,
// checks its type, and replies and returns ok false on error), then the
// options COUNT and MATCH, and NOVALUES when noValues. An absent key gets
// the empty scan reply whatever options follow, as in Redis. It returns ok
// false when it has replied.
func collectionScanStart(x *ctx, exists func(*ctx) (found, ok bool), noValues bool) (uint64, scanOptions, bool) {
	o := scanOptions{count: 10}
	cursor, ok := scanCursorArg(x, 2)
	if !ok {
		return 0, o, false
	}
	found, ok := exists(x)
	if !ok {
		return 0, o, false
	}
	if !found {
		x.missed(x.arg(1))
		replyScanHeader(x, 0, 0)
		return 0, o, false
	}
	for i := 3; i < len(x.args); i++ {
		more := i+1 < len(x.args)
		switch {
		case more && optIs(x.arg(i), "COUNT"):
			i++
			if o.count, ok = scanCount(x, x.arg(i)); !ok {
				return 0, o, false
			}
		case more && optIs(x.arg(i), "MATCH"):
			i++
			o.pattern = scanPattern(x.arg(i))
		case noValues && optIs(x.arg(i), "NOVALUES"):
			o.noValues = true
		default:
			x.syntaxError()
			return 0, o, false
		}
	}
	return cursor, o, true
}

// scanPattern is MATCH's pattern, nil for "*", which matches everything.
func scanPattern(p []byte) []byte {
	if string(p) == "*" {
		return nil
	}
	return p
}

// replyScanHeader starts a scan's reply: the cursor to continue with, then
// the header of an array of n elements, which the caller writes.
func replyScanHeader(x *ctx, next uint64, n int) {
	x.w.Array(2)
	x.w.BulkString(strconv.FormatUint(next, 10))
	x.w.Array(n)
}
