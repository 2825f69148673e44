package store

import (
	"github.com/cairndb/cairn/internal/notify"
)

// Keyspace events. A Tx records the events its writes cause (Tx.Notify);
// they leave the store only once the Tx has committed, through the hook
// that also reports the keys it modified (Server.keysModified for
// commands, the event sink for the store's own background writes such as
// reclaiming expired keys), so no one hears of a write that was rolled
// back or lost.

// event is one recorded event: its class, name, logical db, and the end
// of its key in Tx.eventBuf (it starts where the previous event's ends).
type event struct {
	class notify.Class
	name  string
	db    int
	end   int
}

// SetNotify sets the classes of events recorded from now on (the
// notify-keyspace-events setting). Events not published are not recorded.
func (s *Store) SetNotify(c notify.Class) { s.notify.Store(uint32(c)) }

// SetEventSink sets what the store calls with a Tx of its own background
// work (reclaiming expired keys) once it has committed, so its events can
// be published and its keys' cached copies invalidated. The keys it
// reports touched were reclaimed for their deadline: a WATCH of one sees
// it expire by its deadline, not by this.
func (s *Store) SetEventSink(fn func(tx *Tx)) { s.eventSink.Store(&fn) }

// Notify records event name of class for key in logical db, to be
// published when the Tx commits. It costs nothing while the class is off.
func (tx *Tx) Notify(class notify.Class, name string, db int, key []byte) {
	if !notify.Class(tx.s.notify.Load()).Publishes(class) {
		return
	}
	tx.eventBuf = append(tx.eventBuf, key...)
	tx.events = append(tx.events, event{class: class, name: name, db: db, end: len(tx.eventBuf)})
}

// Notifies reports whether events of class are recorded now, so a caller
// can skip work (an extra lookup) that only an event needs.
func (tx *Tx) Notifies(class notify.Class) bool {
	return notify.Class(tx.s.notify.Load()).Publishes(class)
}

// HasEvents reports whether the Tx recorded any event.
func (tx *Tx) HasEvents() bool { return len(tx.events) > 0 }

// EachEvent calls fn with every event recorded, in order. key is valid
// until the Tx is closed.
func (tx *Tx) EachEvent(fn func(class notify.Class, name string, db int, key []byte)) {
	start := 0
	for _, e := range tx.events {
		fn(e.class, e.name, e.db, tx.eventBuf[start:e.end])
		start = e.end
	}
}

// logicalDB finds the logical database a physical one is mapped to.
func (s *Store) logicalDB(pdb uint16) int {
	for l, p := range *s.dbMap.Load() {
		if p == pdb {
			return l
		}
	}
	return int(pdb)
}

// sinkEvents hands a committed background Tx to the event sink.
func (s *Store) sinkEvents(tx *Tx) {
	if len(tx.events) == 0 && len(tx.touched) == 0 {
		return
	}
	if fn := s.eventSink.Load(); fn != nil {
		(*fn)(tx)
	}
}
