package server

import (
	"sync"
	"sync/atomic"

	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/store"
)

// watchKey is a key WATCH watches: its logical database and its bytes.
type watchKey struct {
	db  int
	key string
}

// watchedKey is one key a client watches, with what WATCH saw of it.
type watchedKey struct {
	watchKey
	// deadline is the key's expiry (ms) when it was live and expiring at
	// WATCH time, else 0. A key that expires between WATCH and EXEC
	// aborts the transaction even if nothing deleted it yet, as Redis 7's
	// isWatchedKeyExpired does; a key already expired when watched does
	// not, and reclaiming it is no change (see store: deleting an expired
	// key touches nothing).
	deadline int64
}

// watches is the registry of WATCHed keys: which clients watch each key.
// Every commit reports the keys it modified (Server.keysModified), which
// marks their watchers dirty, so WATCH needs no code in any command, as
// Redis's touchWatchedKey hangs off signalModifiedKey.
type watches struct {
	// count is the number of watched (key, client) pairs, so that commits
	// skip the lock while nobody watches anything.
	count atomic.Int64
	mu    sync.Mutex
	keys  map[watchKey]map[*client]struct{}
}

// watchState is a client's WATCH state. dirty is set by other goroutines'
// commits; the rest belongs to the client's goroutine.
type watchState struct {
	dirty   atomic.Bool
	watched []watchedKey
}

func (w *watches) add(c *client, k watchedKey) {
	for _, have := range c.watch.watched {
		if have.watchKey == k.watchKey {
			return
		}
	}
	c.watch.watched = append(c.watch.watched, k)
	w.mu.Lock()
	if w.keys == nil {
		w.keys = map[watchKey]map[*client]struct{}{}
	}
	cs := w.keys[k.watchKey]
	if cs == nil {
		cs = map[*client]struct{}{}
		w.keys[k.watchKey] = cs
	}
	cs[c] = struct{}{}
	w.count.Add(1)
	w.mu.Unlock()
}

// unwatchAll forgets every key c watches and clears its dirty flag
// (UNWATCH, EXEC, DISCARD, RESET, and the connection's end).
func (w *watches) unwatchAll(c *client) {
	if len(c.watch.watched) > 0 {
		w.mu.Lock()
		for _, k := range c.watch.watched {
			if cs := w.keys[k.watchKey]; cs != nil {
				delete(cs, c)
				if len(cs) == 0 {
					delete(w.keys, k.watchKey)
				}
			}
		}
		w.count.Add(-int64(len(c.watch.watched)))
		w.mu.Unlock()
		clear(c.watch.watched)
		c.watch.watched = c.watch.watched[:0]
	}
	c.watch.dirty.Store(false)
}

// touch marks every client watching (db, key) dirty.
func (w *watches) touch(db int, key []byte) {
	if w.count.Load() == 0 {
		return
	}
	w.mu.Lock()
	for c := range w.keys[watchKey{db, string(key)}] {
		c.watch.dirty.Store(true)
	}
	w.mu.Unlock()
}

// touchFlushed marks dirty the watchers of keys of db (every database when
// db < 0) that exist before a flush, or, for SWAPDB, that exist in db or in the database swapped in
// (other >= 0): Redis's touchAllWatchedKeysInDb. A watched key that exists
// in neither is untouched, so FLUSHALL does not abort a transaction that
// watched a missing key. tx must see the state before the change.
func (w *watches) touchFlushed(tx *store.Tx, db, other int) error {
	if w.count.Load() == 0 {
		return nil
	}
	w.mu.Lock()
	var doomed []*client
	for k, cs := range w.keys {
		if db >= 0 && k.db != db {
			continue
		}
		ok, err := tx.Exists(k.db, []byte(k.key))
		if err == nil && !ok && other >= 0 {
			ok, err = tx.Exists(other, []byte(k.key))
		}
		if err != nil {
			w.mu.Unlock()
			return err
		}
		if ok {
			for c := range cs {
				doomed = append(doomed, c)
			}
		}
	}
	w.mu.Unlock()
	for _, c := range doomed {
		c.watch.dirty.Store(true)
	}
	return nil
}

// keysModified is the one place a commit reports the keys it changed:
// blocked clients are woken, WATCH's watchers marked dirty, the clients
// that cached them told (CLIENT TRACKING) and the keyspace events published. It runs while the committing transaction still holds
// its locks, so an EXEC that holds the locks of its watched keys has seen
// every earlier change, and a key's events go out in commit order.
// by is the client whose command committed, nil for the server's own work.
func (s *Server) keysModified(tx *store.Tx, by *client) {
	tx.EachTouched(s.keyModified)
	if dbs := tx.ChangedDBs(); len(dbs) > 0 {
		// A flush or a swap changed keys it never touched one by one: every
		// client blocked in those databases runs its command again, as
		// Redis's signalDeletedKeyAsReady and scanDatabaseForReadyKeys
		// make them do. (WATCH learned of it before the change, from
		// touchFlushed, which must see the keys as they were.)
		s.blocked.signalDBs(dbs...)
	}
	s.invalidateCommitted(tx, by)
	s.publishEvents(tx)
}

// publishEvents publishes a committed Tx's keyspace events, as Redis's
// notifyKeyspaceEvent: the event name on __keyspace@<db>__:<key> (class
// K), the key on __keyevent@<db>__:<event> (class E).
func (s *Server) publishEvents(tx *store.Tx) {
	if !tx.HasEvents() {
		return
	}
	classes := s.cfg.NotifyKeyspaceEvents()
	var buf []byte
	tx.EachEvent(func(_ notify.Class, name string, db int, key []byte) {
		if classes&notify.Keyspace != 0 {
			buf = notify.AppendKeyspaceChannel(buf[:0], db, key)
			s.publish(buf, []byte(name))
		}
		if classes&notify.Keyevent != 0 {
			buf = notify.AppendKeyeventChannel(buf[:0], db, name)
			s.publish(buf, key)
		}
	})
}

func (s *Server) keyModified(db int, key []byte) {
	s.blocked.signal(db, key)
	s.watches.touch(db, key)
}
