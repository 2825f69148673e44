package store

import (
	"encoding/binary"
	"sync/atomic"
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
	// slots hold seconds since startMs, plus one; 0 means never.
	slots [1 << 16]atomic.Uint32
}

func accessSlot(pdb uint16, hash uint32) uint32 {
	return (hash ^ uint32(pdb)*0x9e3779b1) & (1<<16 - 1)
}

func (a *accessClock) touch(pdb uint16, hash uint32, nowMs int64) {
	s := &a.slots[accessSlot(pdb, hash)]
	v := uint32((nowMs-a.startMs)/1000) + 1
	if s.Load() != v {
		s.Store(v)
	}
}

// idleSeconds is how long ago the slot of (pdb, hash) was last used.
func (a *accessClock) idleSeconds(pdb uint16, hash uint32, nowMs int64) int64 {
	since := (nowMs - a.startMs) / 1000
	v := a.slots[accessSlot(pdb, hash)].Load()
	if v == 0 {
		return since
	}
	return max(since-int64(v-1), 0)
}

// touchMetaKey records an access to the key of a metadata key.
func (a *accessClock) touchMetaKey(mk []byte, nowMs int64) {
	if len(mk) >= 9 {
		a.touch(binary.BigEndian.Uint16(mk[1:]), binary.BigEndian.Uint32(mk[5:]), nowMs)
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
