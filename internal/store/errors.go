package store

import "github.com/cairndb/cairn/internal/engine"

// ErrEngineFailed marks (wrapped) errors after the engine stopped accepting
// writes — a failed write or sync of its log. Reads keep working.
var ErrEngineFailed = engine.ErrFailed

// Error is a user-facing error whose text is the exact Redis error reply
// (without the leading '-'). Any other error from the store is an engine or
// corruption failure.
type Error string

func (e Error) Error() string { return string(e) }

// The store's user-facing errors.
const (
	ErrWrongType   Error = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrNotInteger  Error = "ERR value is not an integer or out of range"
	ErrNotFloat    Error = "ERR value is not a valid float"
	ErrOverflow    Error = "ERR increment or decrement would overflow"
	ErrNaNOrInf    Error = "ERR increment would produce NaN or Infinity"
	ErrNoSuchKey   Error = "ERR no such key"
	ErrTooBig      Error = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrOffsetRange Error = "ERR offset is out of range"
	ErrDBIndex     Error = "ERR DB index is out of range"
	ErrSameObject  Error = "ERR source and destination objects are the same"
	// ErrNoRDBType refuses DUMP of a type Redis's RDB format cannot hold.
	ErrNoRDBType Error = "ERR DUMP is not supported for sortedint keys: the RDB format has no such type"
)
