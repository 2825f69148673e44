package server

import "github.com/cairndb/cairn/internal/notify"

// Keyspace notifications: every command records, in its transaction, the
// events Redis 7.2's handler of the same name emits (notifyKeyspaceEvent in
// t_*.c, db.c, expire.c), in the same order and under the same conditions.
// The store records what only it knows at the moment it happens ("new" when
// a key is created, "expired" when an expired key is reclaimed or replaced);
// handlers record the command's own events after the store call, so a "new"
// comes before the event of the command that created the key, as in Redis.
// Recording costs nothing while a class is off (Tx.Notify), and the
// events leave only after the commit (Server.keysModified), or, for a
// read-only command's "keymiss", once it has run (see execute).

// notify records event of class for key in the client's database.
func (x *ctx) notify(class notify.Class, event string, key []byte) {
	x.tx.Notify(class, event, x.db(), key)
}

// notifyEmptying records event, then "del" when the write that caused it
// left key absent: a collection whose last member went is deleted, and
// Redis reports that after the command's own event.
func (x *ctx) notifyEmptying(class notify.Class, event string, key []byte) {
	x.notify(class, event, key)
	x.notifyIfGone(key)
}

// notifyIfGone records "del" when key no longer exists. The lookup is one
// the write has just cached, and is skipped while "del" is not recorded.
func (x *ctx) notifyIfGone(key []byte) {
	if !x.tx.Notifies(notify.Generic) {
		return
	}
	if ok, err := x.tx.Exists(x.db(), key); err == nil && !ok {
		x.notify(notify.Generic, "del", key)
	}
}

// keyMiss records "keymiss" for each of keys that does not exist, as
// Redis's lookupKeyRead does for a read of a missing key. Call it where
// Redis looks the keys up: after the arguments it checks first.
func (x *ctx) keyMiss(keys ...[]byte) {
	if !x.tx.Notifies(notify.KeyMiss) {
		return
	}
	for _, k := range keys {
		if ok, err := x.tx.Exists(x.db(), k); err == nil && !ok {
			x.notify(notify.KeyMiss, "keymiss", k)
		}
	}
}

// missed records "keymiss" for key, which a read found absent.
func (x *ctx) missed(key []byte) { x.notify(notify.KeyMiss, "keymiss", key) }

// missedIf is missed when absent holds.
func (x *ctx) missedIf(absent bool, key []byte) {
	if absent {
		x.missed(key)
	}
}

// destinationExists reports whether the destination of a *STORE command
// (argument 1) exists, when its deletion would be an event: a result that
// is empty deletes it, and Redis reports "del" only for a key that was
// there.
func (x *ctx) destinationExists() bool {
	if !x.tx.Notifies(notify.Generic) {
		return false
	}
	ok, err := x.tx.Exists(x.db(), x.arg(1))
	return ok && err == nil
}

// notifyStore records the events of a *STORE command that stored n
// members in its destination (argument 1), which existed before or not.
func (x *ctx) notifyStore(class notify.Class, event string, n int64, existed bool) {
	switch {
	case n > 0:
		x.notify(class, event, x.arg(1))
	case existed:
		x.notify(notify.Generic, "del", x.arg(1))
	}
}
