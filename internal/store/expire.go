package store

import (
	"bytes"
	"errors"

	"github.com/cairndb/cairn/internal/engine"
	"time"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/notify"
)

// reapBatch is how many due expiry entries one transaction reclaims.
const reapBatch = 256

// reapBudget bounds one round of the reaper, so a burst of deadlines does not
// starve writers of their stripe locks for long.
const reapBudget = 25 * time.Millisecond

func (s *Store) reapLoop() {
	defer s.done.Done()
	stopped := false
	for {
		select {
		case <-s.stop:
			return
		case <-time.After(time.Duration(s.reapGap.Load())):
		}
		if s.countsStale.Swap(false) {
			s.reloadCounts()
		}
		if stopped || s.activeExpireOff.Load() {
			continue
		}
		began := time.Now()
		_, err := s.ReapExpired(reapBudget)
		if err == nil {
			_, err = s.ReapExpiredFields(reapBudget)
		}
		took := time.Since(began)
		s.stats.ExpireCycleTime.Add(int64(took))
		if fn := s.cycleObserver.Load(); fn != nil {
			(*fn)(took)
		}
		if err != nil {
			if errors.Is(err, engine.ErrFailed) {
				// Nothing can be reclaimed until a restart; say so once.
				s.log.Error("expiry reaper stopped: the engine accepts no writes", "err", err)
				stopped = true
				continue
			}
			s.log.Error("expiry reaper", "err", err)
		}
	}
}

// SetActiveExpire turns the background reclaiming of expired keys and
// hash fields on or off (DEBUG SET-ACTIVE-EXPIRE). Off, expired keys stay
// on disk until a command finds them; reads treat them as absent either
// way.
func (s *Store) SetActiveExpire(on bool) { s.activeExpireOff.Store(!on) }

// SetExpireCycleObserver sets what the reaper calls after each of its
// cycles with the time the cycle took (the latency monitor's
// "expire-cycle" event); nil calls nothing.
func (s *Store) SetExpireCycleObserver(fn func(took time.Duration)) {
	if fn == nil {
		s.cycleObserver.Store(nil)
		return
	}
	s.cycleObserver.Store(&fn)
}

// ReapExpired reclaims keys whose deadline has passed, walking the expiry
// index in deadline order, for at most budget. It returns how many expired
// keys it deleted. Reads never depend on it: an expired key is absent
// whether or not it has been reclaimed.
func (s *Store) ReapExpired(budget time.Duration) (int, error) {
	start := time.Now()
	total := 0
	for {
		due, err := s.dueEntries(reapBatch)
		if err != nil || len(due) == 0 {
			return total, err
		}
		n, err := s.reap(due)
		total += n
		if err != nil {
			return total, err
		}
		if len(due) < reapBatch {
			return total, nil
		}
		if time.Since(start) > budget {
			// Expired keys are left for the next round.
			s.stats.ExpireTimeCapReached.Add(1)
			return total, nil
		}
	}
}

type dueEntry struct {
	expireKey []byte
	deadline  int64
	metaKey   encoding.MetaKey
}

func (s *Store) dueEntries(limit int) ([]dueEntry, error) {
	upTo := encoding.ExpireUpTo(nil, s.nowMs()-1)
	return s.collectDue([]byte{byte(encoding.FamilyExpire)}, upTo, limit, encoding.DecodeExpireKey)
}

// collectDue reads up to limit deadline-index entries in [from, upTo),
// decoded by decode (key expiry or hash-field expiry).
func (s *Store) collectDue(from, upTo []byte, limit int, decode func(dst, k []byte) (int64, []byte, error)) ([]dueEntry, error) {
	it, err := s.eng.NewIter(from, upTo)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var due []dueEntry
	for ok := it.First(); ok && len(due) < limit; ok = it.Next() {
		ek := bytes.Clone(it.Key())
		deadline, mk, err := decode(nil, ek)
		if err != nil {
			return nil, err
		}
		dec, err := encoding.DecodeMetaKey(mk)
		if err != nil {
			return nil, err
		}
		due = append(due, dueEntry{expireKey: ek, deadline: deadline, metaKey: dec})
	}
	return due, it.Error()
}

// reap deletes the keys behind due entries under their locks, re-checking
// each: a key whose deadline changed since the index was read keeps living,
// and its stale index entry is dropped.
func (s *Store) reap(due []dueEntry) (int, error) {
	keys := make([][]byte, len(due))
	for i, d := range due {
		keys[i] = d.metaKey.Key
	}
	tx := s.Begin(keys)
	defer tx.Close()
	n := 0
	for _, d := range due {
		_, raw, found, err := tx.rawMeta(d.metaKey.DB, d.metaKey.Key)
		if err != nil {
			return 0, err
		}
		if found {
			m, err := encoding.DecodeMeta(raw)
			if err != nil {
				return 0, err
			}
			if m.ExpireMs == d.deadline && m.Expired(tx.NowMs) {
				if _, err := tx.deletePhys(d.metaKey.DB, d.metaKey.Key, -1); err != nil {
					return 0, err
				}
				db := s.logicalDB(d.metaKey.DB)
				tx.touch(db, d.metaKey.Key)
				tx.Notify(notify.Expired, "expired", db, d.metaKey.Key)
				n++
				continue
			}
		}
		s.stats.ExpiredStale.Add(1)
		if err := tx.b.Delete(d.expireKey); err != nil {
			return 0, err
		}
	}
	// Reclaiming expired keys needs no fsync of its own: if it is lost, the
	// index entries are still there and the next run reclaims them again.
	tx.noSync = true
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	s.stats.ExpiredKeys.Add(int64(n))
	s.sinkEvents(tx)
	return n, nil
}
