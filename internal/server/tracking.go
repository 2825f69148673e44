package server

import (
	"bytes"
	"cmp"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/store"
)

// Client-side caching (CLIENT TRACKING), as Redis's tracking.c: the server
// remembers which clients read which keys and tells them, with an
// "invalidate" push, when a key they read changes. Keys are tracked by
// name in every database alike, as Redis does.
//
// A reader registers a key before its command reads it, so a write that
// commits after the registration invalidates it: a client may hear of a
// change before the reply of a read that already saw it, never miss one.
// Invalidations leave from the one commit hook (Server.keysModified) after
// the commit, while the writer still holds its locks.

// trackState is a client's tracking mode; replaced whole, so that other
// goroutines read it without a lock.
type trackState struct {
	bcast, optin, optout, noloop bool
	redirect                     int64
	prefixes                     []string
}

// tracker is the server's tracking table.
type tracker struct {
	// clients counts clients with tracking on, so that commits skip the
	// lock while nobody tracks anything.
	clients atomic.Int64
	mu      sync.Mutex
	// keys maps a key to the ids of the clients that read it since its
	// last invalidation; items counts the pairs.
	keys  map[string]map[int64]struct{}
	items int
	// prefixes maps a BCAST prefix to the clients registered for it.
	prefixes map[string]map[*client]struct{}
}

// sizes returns the keys the tracking table remembers, the (key, client)
// pairs, and the BCAST prefixes (INFO's tracking_total_keys, _items and
// _prefixes).
func (t *tracker) sizes() (keys, items, prefixes int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.keys), t.items, len(t.prefixes)
}

// tracking returns the client's tracking mode, nil when off.
func (c *client) tracking() *trackState { return c.trk.Load() }

// enableTracking turns tracking on for c (or changes its options).
func (s *Server) enableTracking(c *client, st *trackState) {
	t := &s.tracking
	old := c.trk.Swap(st)
	if old == nil {
		t.clients.Add(1)
	}
	c.trkBroken.Store(false)
	if st.bcast {
		t.mu.Lock()
		if t.prefixes == nil {
			t.prefixes = map[string]map[*client]struct{}{}
		}
		for _, p := range st.prefixes {
			cs := t.prefixes[p]
			if cs == nil {
				cs = map[*client]struct{}{}
				t.prefixes[p] = cs
			}
			cs[c] = struct{}{}
		}
		t.mu.Unlock()
	}
}

// disableTracking turns tracking off for c. Keys it read stay in the table
// until they change, as in Redis; the invalidation then finds it gone.
func (s *Server) disableTracking(c *client) {
	t := &s.tracking
	old := c.trk.Swap(nil)
	c.trkCaching = false
	c.trkBroken.Store(false)
	if old == nil {
		return
	}
	t.clients.Add(-1)
	if old.bcast {
		t.mu.Lock()
		for _, p := range old.prefixes {
			if cs := t.prefixes[p]; cs != nil {
				delete(cs, c)
				if len(cs) == 0 {
					delete(t.prefixes, p)
				}
			}
		}
		t.mu.Unlock()
	}
}

// trackRead remembers the keys a read-only command of c is about to read,
// unless OPTIN/OPTOUT and CLIENT CACHING say otherwise. EVAL_RO and
// FCALL_RO are not tracked themselves: the commands they run are (see
// trackScriptRead).
func (s *Server) trackRead(c *client, spec *command.Spec, args [][]byte) {
	if !c.tracksReadOf(spec) {
		return
	}
	switch spec.Name {
	case "eval_ro", "evalsha_ro", "fcall_ro":
		return
	}
	idx := spec.AppendKeyIndices(nil, args)
	s.rememberKeys(c, len(idx), func(i int) []byte { return args[idx[i]] })
}

// trackScriptRead is trackRead for a command a script or function of c
// runs: as Redis 7.0's call() does, it remembers the keys the script
// declared (its caller's arguments), whatever keys the command names,
// for every read-only command the script runs.
func (s *Server) trackScriptRead(c *client, spec *command.Spec, declared [][]byte) {
	if !c.tracksReadOf(spec) {
		return
	}
	s.rememberKeys(c, len(declared), func(i int) []byte { return declared[i] })
}

// tracksReadOf reports whether c's tracking remembers what a command of
// spec reads: a read-only command, with tracking on and not BCAST, and
// CLIENT CACHING agreeing with OPTIN/OPTOUT.
func (c *client) tracksReadOf(spec *command.Spec) bool {
	st := c.tracking()
	if st == nil || st.bcast || spec.Flags&command.ReadOnly == 0 || spec.Flags&command.PubSub != 0 {
		return false
	}
	return !(st.optin && !c.trkCaching || st.optout && c.trkCaching)
}

// rememberKeys adds n keys, key(0) to key(n-1), read by c to the tracking
// table, and enforces tracking-table-max-keys.
func (s *Server) rememberKeys(c *client, n int, key func(i int) []byte) {
	if n == 0 {
		return
	}
	t := &s.tracking
	t.mu.Lock()
	if t.keys == nil {
		t.keys = map[string]map[int64]struct{}{}
	}
	for i := range n {
		k := key(i)
		ids := t.keys[string(k)]
		if ids == nil {
			ids = map[int64]struct{}{}
			t.keys[string(k)] = ids
		}
		if _, ok := ids[c.id]; !ok {
			ids[c.id] = struct{}{}
			t.items++
		}
	}
	doomed := t.overLimitLocked(int(s.cfg.TrackingTableMaxKeys()))
	t.mu.Unlock()
	s.sendKeyInvalidations(doomed, -1)
}

// enforceTrackingLimit applies tracking-table-max-keys to the table as it
// is, after CONFIG SET lowered it: Redis's serverCron does so even when no
// command runs. As there, only while some client tracks.
func (s *Server) enforceTrackingLimit() {
	t := &s.tracking
	if t.clients.Load() == 0 {
		return
	}
	t.mu.Lock()
	doomed := t.overLimitLocked(int(s.cfg.TrackingTableMaxKeys()))
	t.mu.Unlock()
	s.sendKeyInvalidations(doomed, -1)
}

// keyReaders is a key leaving the tracking table with the ids of the
// clients that read it.
type keyReaders struct {
	key []byte
	ids map[int64]struct{}
}

// overLimitLocked drops keys beyond the table's limit (0: none), as
// Redis's trackingLimitUsedSlots evicts random keys, and returns them with
// their readers, who must be told.
func (t *tracker) overLimitLocked(limit int) []keyReaders {
	if limit <= 0 || len(t.keys) <= limit {
		return nil
	}
	var out []keyReaders
	for k, ids := range t.keys {
		if len(t.keys) <= limit {
			break
		}
		out = append(out, keyReaders{key: []byte(k), ids: ids})
		t.items -= len(ids)
		delete(t.keys, k)
	}
	return out
}

// invalidateCommitted tells the readers of the keys a commit modified that
// they changed; by is the client whose command committed (nil for the
// server's own work), which NOLOOP clients are not told about.
//
// As Redis does, a client that read keys gets one message per key, in the
// order they were modified, and a BCAST client one message per prefix of
// its own that modified keys match, with those keys (sorted, each once),
// prefixes in order.
func (s *Server) invalidateCommitted(tx *store.Tx, by *client) {
	t := &s.tracking
	if t.clients.Load() == 0 {
		return
	}
	var byID int64 = -1
	if by != nil {
		byID = by.id
	}
	var dropped []keyReaders
	t.mu.Lock()
	tx.EachTouched(func(_ int, key []byte) {
		if ids, ok := t.keys[string(key)]; ok {
			dropped = append(dropped, keyReaders{key: key, ids: ids})
			t.items -= len(ids)
			delete(t.keys, string(key))
		}
	})
	var bcast map[string]*prefixKeys
	if len(t.prefixes) > 0 {
		tx.EachTouched(func(_ int, key []byte) {
			for p, cs := range t.prefixes {
				if !bytes.HasPrefix(key, []byte(p)) {
					continue
				}
				pk := bcast[p]
				if pk == nil {
					if bcast == nil {
						bcast = map[string]*prefixKeys{}
					}
					pk = &prefixKeys{clients: make([]*client, 0, len(cs))}
					for c := range cs {
						pk.clients = append(pk.clients, c)
					}
					bcast[p] = pk
				}
				pk.keys = append(pk.keys, key)
			}
		})
	}
	t.mu.Unlock()
	s.sendKeyInvalidations(dropped, byID)
	for _, p := range slices.Sorted(maps.Keys(bcast)) {
		pk := bcast[p]
		keys := dedupKeys(pk.keys)
		slices.SortFunc(pk.clients, func(a, b *client) int { return cmp.Compare(a.id, b.id) })
		for _, c := range pk.clients {
			st := c.tracking()
			if st == nil || !st.bcast || st.noloop && c.id == byID {
				continue
			}
			s.sendTracking(c, st, keys, false)
		}
	}
}

// prefixKeys are the modified keys that match one BCAST prefix and the
// clients registered for it.
type prefixKeys struct {
	keys    [][]byte
	clients []*client
}

// sendKeyInvalidations tells the readers of keys that leave the table,
// one message per key as Redis's trackingInvalidateKey sends, except a
// NOLOOP client about a change of its own (byID; -1 for none).
func (s *Server) sendKeyInvalidations(dropped []keyReaders, byID int64) {
	if len(dropped) == 0 {
		return
	}
	targets := map[int64]*client{}
	for _, d := range dropped {
		for id := range d.ids {
			target, ok := targets[id]
			if !ok {
				target = s.clientByID(id)
				targets[id] = target
			}
			st := target.trackingOrNil()
			if st == nil || st.bcast || st.noloop && id == byID {
				continue
			}
			s.sendTracking(target, st, [][]byte{d.key}, false)
		}
	}
}

// invalidateAll tells every tracking client that everything changed
// (FLUSHDB, FLUSHALL), with a null invalidation, and empties the table.
func (s *Server) invalidateAll() {
	t := &s.tracking
	if t.clients.Load() == 0 {
		t.mu.Lock()
		t.keys, t.items = nil, 0
		t.mu.Unlock()
		return
	}
	t.mu.Lock()
	t.keys, t.items = nil, 0
	t.mu.Unlock()
	s.mu.Lock()
	var all []*client
	for _, c := range s.clients {
		if c.tracking() != nil {
			all = append(all, c)
		}
	}
	s.mu.Unlock()
	for _, c := range all {
		if st := c.tracking(); st != nil {
			s.sendTracking(c, st, nil, true)
		}
	}
}

func (c *client) trackingOrNil() *trackState {
	if c == nil {
		return nil
	}
	return c.tracking()
}

func dedupKeys(keys [][]byte) [][]byte {
	if len(keys) < 2 {
		return keys
	}
	slices.SortFunc(keys, bytes.Compare)
	return slices.CompactFunc(keys, bytes.Equal)
}

// sendTracking sends c an invalidation of keys (of everything when all), as
// Redis's sendTrackingMessage: on c's own connection as a RESP3 push, or
// to the client it redirects to — as a push if that one speaks RESP3, as a
// message on __redis__:invalidate if it is a RESP2 subscriber. A RESP2
// client without a redirection gets nothing. A redirection to a client
// that is gone marks c's redirection broken and, in RESP3, tells c.
func (s *Server) sendTracking(c *client, st *trackState, keys [][]byte, all bool) {
	nullProto := c.resp3.Load()
	to := c
	redirected := false
	if st.redirect != 0 {
		to = s.clientByID(st.redirect)
		if to == nil {
			c.trkBroken.Store(true)
			id := []byte(strconv.FormatInt(st.redirect, 10))
			c.push(func(b []byte, resp3 bool) []byte {
				if !resp3 {
					return b
				}
				b = append(b, ">2\r\n$21\r\ntracking-redir-broken\r\n:"...)
				b = append(b, id...)
				return append(b, '\r', '\n')
			})
			return
		}
		redirected = true
	}
	viaPubSub := redirected && to.pubsubMode.Load()
	to.push(func(b []byte, resp3 bool) []byte {
		switch {
		case resp3:
			b = append(b, ">2\r\n$10\r\ninvalidate\r\n"...)
		case viaPubSub:
			b = append(b, "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n"...)
		default:
			return b
		}
		if all {
			// Redis sends the null of the tracking client's protocol.
			if nullProto {
				return append(b, "_\r\n"...)
			}
			return append(b, "$-1\r\n"...)
		}
		b = append(b, '*')
		b = strconv.AppendInt(b, int64(len(keys)), 10)
		b = append(b, '\r', '\n')
		for _, k := range keys {
			b = appendBulk(b, k)
		}
		return b
	})
}

// trackingStats are INFO's tracking_* fields.
func (s *Server) trackingStats() (clients, keys, items, prefixes int64) {
	t := &s.tracking
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.clients.Load(), int64(len(t.keys)), int64(t.items), int64(len(t.prefixes))
}
