package store

import (
	"encoding/binary"
	"math/rand/v2"
	"sync/atomic"

	"github.com/cairndb/cairn/internal/encoding"
)

// accessClock remembers, approximately, when keys were last used, for
// OBJECT IDLETIME. Recording an access on disk would turn every read into a
// write, so it is kept in memory, in a fixed table of 65,536 slots indexed by
// a hash of (db, key): bounded memory whatever the dataset's size, one atomic
// store per command. Keys that share a slot share a time, so the idle time
// reported can be too small, never too large; a key not used since the
// server started reports the time since start. Nothing here survives a
// restart.
type accessClock struct {
	startMs int64
	// slots hold seconds since startMs plus accessBias (so that RESTORE
	// ... IDLETIME can place an access before the start); 0 means never.
	slots [1 << 16]atomic.Uint32
	// Under an LFU maxmemory-policy (lfu set) accesses also count in
	// freq, as Redis's LFU counters (evict.c): each slot holds the minute
	// of its last decrement (16 bits) and a logarithmic counter (8 bits),
	// plus one in bit 24 once set; 0 means never counted.
	lfu                  atomic.Bool
	logFactor, decayTime atomic.Int64
	freq                 [1 << 16]atomic.Uint32
}

// accessBias offsets the seconds in accessClock.slots: some 34 years
// before the start can be told.
const accessBias = 1 << 30

// lfuInitVal is the counter of a new key (Redis's LFU_INIT_VAL).
const lfuInitVal = 5

// SetLFU says whether the maxmemory-policy is an LFU one, and its
// lfu-log-factor and lfu-decay-time: OBJECT FREQ then reports access
// counters, counted from then on.
func (s *Store) SetLFU(on bool, logFactor, decayTime int64) {
	s.access.logFactor.Store(logFactor)
	s.access.decayTime.Store(decayTime)
	s.access.lfu.Store(on)
}

// lfuMinutes is Redis's LFUGetTimeInMinutes.
func lfuMinutes(nowMs int64) uint32 { return uint32(nowMs/60000) & 0xffff }

// lfuDecayed is Redis's LFUDecrAndReturn: the counter of a slot value,
// less one per lfu-decay-time minutes since its last decrement.
func (a *accessClock) lfuDecayed(v uint32, nowMs int64) uint32 {
	if v == 0 {
		return lfuInitVal
	}
	ldt, counter := v>>8&0xffff, v&0xff
	now := lfuMinutes(nowMs)
	elapsed := now - ldt
	if now < ldt {
		elapsed = 0xffff - ldt + now
	}
	if d := a.decayTime.Load(); d > 0 {
		periods := elapsed / uint32(d)
		if periods > counter {
			return 0
		}
		counter -= periods
	}
	return counter
}

// countAccess is Redis's updateLFU, or for a new key its first counter.
func (a *accessClock) countAccess(slot uint32, nowMs int64, created bool) {
	s := &a.freq[slot]
	for range 8 {
		old := s.Load()
		counter := uint32(lfuInitVal)
		if !created {
			counter = a.lfuDecayed(old, nowMs)
			if counter < 255 {
				base := float64(counter) - lfuInitVal
				if base < 0 {
					base = 0
				}
				if rand.Float64() < 1/(base*float64(a.logFactor.Load())+1) {
					counter++
				}
			}
		}
		if s.CompareAndSwap(old, 1<<24|lfuMinutes(nowMs)<<8|counter) {
			return
		}
	}
}

// Freq returns OBJECT FREQ for a live key, without counting as an access
// itself.
func (tx *Tx) Freq(db int, key []byte) (int64, bool, error) {
	pdb := tx.s.phys(db)
	mk, raw, found, err := tx.rawMeta(pdb, key)
	if err != nil || !found {
		return 0, false, err
	}
	if expireOf(raw) != 0 && expireOf(raw) < tx.NowMs {
		return 0, false, nil
	}
	a := &tx.s.access
	v := a.freq[accessSlot(pdb, binary.BigEndian.Uint32(mk[5:]))].Load()
	return int64(a.lfuDecayed(v, tx.NowMs)), true, nil
}

func accessSlot(pdb uint16, hash uint32) uint32 {
	return (hash ^ uint32(pdb)*0x9e3779b1) & (1<<16 - 1)
}

// How a touch counts for LFU.
const (
	lfuNone    = iota // a write after the command's own lookup counted
	lfuAccess         // a lookup
	lfuCreated        // a new key
)

func (a *accessClock) touch(pdb uint16, hash uint32, nowMs int64, lfu int) {
	slot := accessSlot(pdb, hash)
	s := &a.slots[slot]
	v := uint32((nowMs-a.startMs)/1000 + accessBias)
	if s.Load() != v {
		s.Store(v)
	}
	if lfu != lfuNone && a.lfu.Load() {
		a.countAccess(slot, nowMs, lfu == lfuCreated)
	}
}

// idleSeconds is how long ago the slot of (pdb, hash) was last used.
func (a *accessClock) idleSeconds(pdb uint16, hash uint32, nowMs int64) int64 {
	since := (nowMs - a.startMs) / 1000
	v := a.slots[accessSlot(pdb, hash)].Load()
	if v == 0 {
		return since
	}
	return max(since-(int64(v)-accessBias), 0)
}

// SetAccess is RESTORE's IDLETIME and FREQ (-1: not given), as Redis's
// objectSetLRUOrLFU: under an LFU policy the counter is freq, under the
// others the last access was idle seconds ago.
func (tx *Tx) SetAccess(db int, key []byte, idle, freq int64) {
	a := &tx.s.access
	pdb := tx.s.phys(db)
	slot := accessSlot(pdb, encoding.KeyHash(key))
	switch {
	case a.lfu.Load() && freq >= 0:
		a.freq[slot].Store(1<<24 | lfuMinutes(tx.NowMs)<<8 | uint32(min(freq, 255)))
	case !a.lfu.Load() && idle >= 0:
		since := (tx.NowMs - a.startMs) / 1000
		a.slots[slot].Store(uint32(max(since-idle+accessBias, 1)))
	}
}

// touchMetaKey records an access to the key of a metadata key; lfu says
// how it counts for LFU.
func (a *accessClock) touchMetaKey(mk []byte, nowMs int64, lfu int) {
	if len(mk) >= 9 {
		a.touch(binary.BigEndian.Uint16(mk[1:]), binary.BigEndian.Uint32(mk[5:]), nowMs, lfu)
	}
}

// IdleTime returns OBJECT IDLETIME for a live key, without counting as an
// access itself.
func (tx *Tx) IdleTime(db int, key []byte) (int64, bool, error) {
	pdb := tx.s.phys(db)
	mk, raw, found, err := tx.rawMeta(pdb, key)
	if err != nil || !found {
		return 0, false, err
	}
	if expireOf(raw) != 0 && expireOf(raw) < tx.NowMs {
		return 0, false, nil
	}
	return tx.s.access.idleSeconds(pdb, binary.BigEndian.Uint32(mk[5:]), tx.NowMs), true, nil
}
