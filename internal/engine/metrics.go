package engine

import (
	"sync/atomic"
	"time"
)

// Metrics are the engine's figures for monitoring (package metrics), read
// from Pebble at the moment they are asked for. Counters count from the
// engine's open.
type Metrics struct {
	// Failed is whether the engine has failed (see ErrFailed). A failed
	// engine reports nothing else: Pebble's metrics need a lock the
	// failure may have left held.
	Failed bool
	// DiskFull is whether writes are refused for a full disk (diskfull.go).
	DiskFull bool
	// DiskUsageBytes is the space the database's files take on disk.
	DiskUsageBytes uint64
	// MemTableBytes is the memory held by memtables.
	MemTableBytes uint64
	// BlockCacheBytes is the block cache's size; BlockCacheHits and
	// BlockCacheMisses count its lookups.
	BlockCacheBytes  int64
	BlockCacheHits   int64
	BlockCacheMisses int64
	// Compactions counts the compactions completed; CompactionsRunning is
	// the number running now.
	Compactions        int64
	CompactionsRunning int64
	// Flushes counts memtable flushes.
	Flushes int64
	// Levels holds each LSM level's table count, bytes and sublevels
	// (sublevels is meaningful for L0 only, 1 for any other non-empty level).
	Levels []LevelMetrics
	// ReadAmplification is L0's sublevels plus the non-empty levels below.
	ReadAmplification int
	// WALBytes is the live size of the write-ahead log; WALSyncs counts its
	// fsyncs.
	WALBytes uint64
	WALSyncs uint64
	// WriteStalls counts the times Pebble stopped writes to let compactions
	// catch up; WriteStallTime is the time they lasted in total.
	WriteStalls    uint64
	WriteStallTime time.Duration
	// OpenIterators is how many iterators (views included) are open now:
	// reads in progress. One that never falls back to zero between
	// commands is a leak.
	OpenIterators int64
}

// LevelMetrics is one LSM level's shape.
type LevelMetrics struct {
	Tables    int64
	Bytes     int64
	Sublevels int32
}

// Metrics returns the engine's figures now.
func (p *Pebble) Metrics() Metrics {
	if p.h.failed() {
		return Metrics{Failed: true}
	}
	m := p.db().Metrics()
	out := Metrics{
		DiskFull:           p.h.space.full.Load(),
		DiskUsageBytes:     m.DiskSpaceUsage(),
		MemTableBytes:      m.MemTable.Size,
		BlockCacheBytes:    m.BlockCache.Size,
		BlockCacheHits:     m.BlockCache.Hits,
		BlockCacheMisses:   m.BlockCache.Misses,
		Compactions:        m.Compact.Count,
		CompactionsRunning: p.jobs.Load(),
		Flushes:            m.Flush.Count,
		ReadAmplification:  m.ReadAmp(),
		WALBytes:           m.WAL.Size,
		WALSyncs:           p.h.walSyncs.Load(),
		Levels:             make([]LevelMetrics, len(m.Levels)),
	}
	for i, l := range m.Levels {
		out.Levels[i] = LevelMetrics{Tables: l.TablesCount, Bytes: l.TablesSize, Sublevels: l.Sublevels}
	}
	out.WriteStalls, out.WriteStallTime = p.h.stalls.read()
	out.OpenIterators = p.iters.Load()
	return out
}

// stallCounter counts Pebble's write stalls and their total duration. Pebble
// reports a stall's begin and end in order, one stall at a time.
type stallCounter struct {
	count atomic.Uint64
	// since is when the stall under way began (UnixNano), 0 if none.
	since atomic.Int64
	total atomic.Int64
}

func (s *stallCounter) begin() {
	s.count.Add(1)
	s.since.Store(time.Now().UnixNano())
}

func (s *stallCounter) end() {
	if t := s.since.Swap(0); t != 0 {
		s.total.Add(time.Now().UnixNano() - t)
	}
}

// read returns the stalls so far and their time, counting a stall under way
// up to now.
func (s *stallCounter) read() (uint64, time.Duration) {
	d := s.total.Load()
	if t := s.since.Load(); t != 0 {
		d += time.Now().UnixNano() - t
	}
	return s.count.Load(), time.Duration(d)
}
