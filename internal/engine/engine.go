// Package engine is the ordered key-value store under Cairn's data model: an
// ordered byte map with point reads, bounded iterators, atomic batches that
// read their own writes, range deletes and snapshots.
//
// The interface is transaction-shaped on purpose. The data model is written
// against it alone and never imports Pebble, so a distributed ordered store
// with transactions (TiKV) can replace the embedded Pebble implementation
// without rewriting the types.
//
// Caveats: byte slices returned by an Iterator are valid only until the
// iterator moves or closes; values returned by Get are the caller's.
package engine

import "errors"

// ErrNotFound is returned by Get when the key does not exist.
var ErrNotFound = errors.New("engine: not found")

// ErrClosed is returned after the engine has been closed.
var ErrClosed = errors.New("engine: closed")

// Reader reads a consistent or latest view of the keyspace.
type Reader interface {
	// Get appends the value of key to dst[:0] and returns it, or
	// ErrNotFound.
	Get(key, dst []byte) ([]byte, error)
	// NewIter returns an iterator over [lower, upper). A nil bound is open.
	NewIter(lower, upper []byte) (Iterator, error)
}

// Iterator walks keys in byte order. It starts unpositioned.
type Iterator interface {
	First() bool
	Last() bool
	SeekGE(key []byte) bool
	SeekLT(key []byte) bool
	Next() bool
	Prev() bool
	Valid() bool
	Key() []byte
	Value() []byte
	Error() error
	Close() error
}

// Batch is a set of writes committed atomically. Reads through a batch see
// the batch's own writes over the latest committed state.
type Batch interface {
	Reader
	Set(key, value []byte) error
	Delete(key []byte) error
	// DeleteRange deletes every key in [start, end) with one tombstone.
	DeleteRange(start, end []byte) error
	// Empty reports whether the batch holds no writes.
	Empty() bool
	// Len is the size of the batch's writes in bytes (about what a commit
	// writes to the log).
	Len() int
	// Mark returns the batch's current point; RollbackTo(m) discards every
	// write made since Mark returned m, so several commands can share one
	// batch and a command that fails halfway leaves no trace in it.
	Mark() Mark
	RollbackTo(m Mark) error
	// Commit applies the batch atomically. It returns once the batch is
	// written to the log in the operating system's hands, so that a process
	// crash keeps it; with sync, only once the write is durable. Concurrent synced commits share fsyncs. After an
	// I/O error the engine cannot recover from, it and every later Commit and
	// SyncWAL return an error wrapping ErrFailed; a batch whose Commit failed
	// may still be visible to readers until restart, but is never reported
	// committed.
	Commit(sync bool) error
	// CommitBuffered is Commit without the wait for the log write: the
	// batch may stay in the engine's memory, so a process crash can lose
	// it, until the next SyncWAL (or synced commit) returns. For a caller
	// that syncs before anything depends on the write (appendfsync always,
	// whose replies wait for one sync shared by many commits).
	CommitBuffered() error
	// Close releases the batch; a batch not committed is discarded.
	Close() error
}

// Mark is a point in a Batch's history of writes; see Batch.Mark.
type Mark struct {
	size  int
	count uint32
}

// Snapshot is a frozen, consistent view. Close it when done.
type Snapshot interface {
	Reader
	// Fix fixes the state the snapshot shows to the present moment if it
	// is not fixed yet (a view is fixed at its first read), and reports
	// whether it did: a reader can then check that what it learnt just
	// before (from the key cache) is that state. A snapshot from
	// NewSnapshot was fixed when taken.
	Fix() (bool, error)
	Close() error
}

// Engine is an open store.
type Engine interface {
	Reader
	NewBatch() Batch
	NewSnapshot() Snapshot
	// NewView returns a consistent view that is cheaper to take and release
	// than a snapshot (no engine-wide lock), fixed at its first read. It
	// pins the engine's state while open: for reads within one command.
	NewView() Snapshot
	// SyncWAL makes every write committed so far durable.
	SyncWAL() error
	// Checkpoint writes a consistent copy of the store, as of one moment
	// after the call began, into dir, which must not exist yet; the copy
	// opens as a data directory of its own. Writes go on meanwhile.
	Checkpoint(dir string) error
	// Stats describes the engine for INFO, as name/value pairs.
	Stats() []Stat
	Close() error
}

// Stat is one figure for INFO.
type Stat struct {
	Name  string
	Value string
}
