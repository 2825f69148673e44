package server

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/metrics"
)

// MetricsSnapshot implements metrics.Source: the figures INFO reports, read
// now. It is safe to call from any goroutine.
func (s *Server) MetricsSnapshot() metrics.Snapshot {
	st := s.st.Stats()
	s.mu.Lock()
	clients := len(s.clients)
	s.mu.Unlock()
	channels, patterns, _ := s.ps.hub.Stats()
	snap := metrics.Snapshot{
		Version:             Version,
		RedisVersion:        RedisVersion,
		RunID:               s.runID,
		TCPPort:             s.cfg.Port(),
		Uptime:              time.Since(s.started),
		ConnectedClients:    clients,
		BlockedClients:      s.blocked.count.Load(),
		MaxClients:          s.cfg.MaxClients(),
		ConnectionsReceived: s.stats.connections.Load(),
		RejectedConnections: s.stats.rejected.Load(),
		CommandsProcessed:   s.stats.commands.Load(),
		ExpiredKeys:         st.ExpiredKeys.Load(),
		KeyspaceHits:        st.KeyspaceHits.Load(),
		KeyspaceMisses:      st.KeyspaceMisses.Load(),
		PubsubChannels:      channels,
		PubsubPatterns:      patterns,
		ErrorReplies:        s.stats.errors.total.Load(),
		AuthFailures:        s.stats.authFailures.Load(),
		Commits:             st.Commits.Load(),
		CommitErrors:        st.CommitErrors.Load(),
		LastDurable:         st.LastDurable.Load(),
	}
	s.stats.errors.mu.Lock()
	snap.Errors = maps.Clone(s.stats.errors.byCode)
	s.stats.errors.mu.Unlock()
	for spec, e := range s.handlers {
		calls, rejected := e.stats.calls.Load(), e.stats.rejected.Load()
		if calls == 0 && rejected == 0 {
			continue
		}
		snap.Commands = append(snap.Commands, metrics.CommandStats{
			Name: spec.Name, Calls: calls, Rejected: rejected, Failed: e.stats.failed.Load(),
			Time: time.Duration(e.stats.nanos.Load()),
		})
	}
	slices.SortFunc(snap.Commands, func(a, b metrics.CommandStats) int { return strings.Compare(a.Name, b.Name) })
	snap.NetInputBytes, snap.NetOutputBytes = s.stats.netIn.Load(), s.stats.netOut.Load()
	ops, in, out := s.inst.rates()
	snap.InstOps, snap.InstInputKbps, snap.InstOutputKbps = float64(int64(ops)), in/1024, out/1024
	snap.MemoryUsed = heapObjects()
	snap.MemoryPeak = s.inst.notePeak(snap.MemoryUsed)
	snap.MemoryRSS = rss()
	if kv := s.cfg.Get("maxmemory"); len(kv) == 1 {
		snap.MemoryMax, _ = strconv.ParseUint(kv[0][1], 10, 64)
	}
	exp, err := s.st.Expiries(time.Now().UnixMilli())
	if err != nil {
		s.log.Error("metrics keyspace", "err", err)
	}
	for db := range s.st.Databases() {
		n := s.st.DBSize(db)
		if n == 0 || db >= len(exp) {
			continue
		}
		snap.DBs = append(snap.DBs, metrics.DBStats{DB: db, Keys: n, Expiring: exp[db].Keys, AvgTTL: time.Duration(exp[db].AvgTTL) * time.Millisecond})
	}
	if e, ok := s.st.Engine().(interface{ Metrics() engine.Metrics }); ok {
		m := e.Metrics()
		snap.Engine = &m
	}
	return snap
}
