// Package resp speaks Redis's wire protocol on the server side: it reads
// client requests (RESP multibulk arrays and inline commands) and writes
// replies in RESP2 or RESP3.
//
// The Reader follows the request parser in Redis 7's src/networking.c
// (processInlineBuffer, processMultibulkBuffer) closely enough that a client
// sees the same error text for the same malformed input, including Redis's
// quirks: the two bytes after a bulk payload and the byte after a count
// line's '\r' are skipped without being checked, and a NUL byte before a
// line's terminator keeps the line from ever completing (Redis scans lines
// with strchr), so the request only fails once 64 KiB are buffered.
//
// The Writer hides the protocol version: a handler calls Map, Set, NullBulk,
// Double, Bool and so on, and the Writer emits the RESP3 type or its RESP2
// fallback, as addReplyMapLen and friends do in Redis.
//
// The package never interprets commands and never touches a network
// connection beyond the io.Reader and io.Writer it is given.
//
// # Caveats
//
//   - The arguments returned by Reader.ReadCommand, and the bytes behind them,
//     are only valid until the next call to ReadCommand; copy what must live
//     longer.
//   - A Reader or Writer is not safe for concurrent use.
//   - After ReadCommand returns an error the Reader is dead: every later call
//     returns the same error. On a *ProtocolError the server should reply
//     "-ERR " + err.Error() and close the connection, as Redis does.
package resp
