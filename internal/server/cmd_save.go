package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/store"
)

// SAVE and BGSAVE write the data as an RDB file, dir/dbfilename, that any
// Redis 7 loads: a portable snapshot. Cairn's own durability does not need
// it (every write is in the engine's log).

func saveCommands() []cmdEntry {
	return []cmdEntry{
		def("save", 1, admin|noscript|command.NoMulti, noKeys, command.CatDangerous, "server", "1.0.0", "Synchronously saves the database(s) to disk.", cmdSave),
		def("bgsave", -1, admin|noscript, noKeys, command.CatDangerous, "server", "1.0.0", "Asynchronously saves the database(s) to disk.", cmdBgsave),
	}
}

// saveState is what INFO persistence reports of SAVE and BGSAVE.
type saveState struct {
	mu         sync.Mutex
	inProgress bool  // a BGSAVE runs
	scheduled  bool  // BGSAVE SCHEDULE asked for another one after it
	failed     bool  // the last save failed
	lastTime   int64 // Unix seconds of the last successful save, 0 for none
	lastStart  time.Time
	lastSecs   int64 // duration of the last BGSAVE, -1 for none
	// changesAtSave is the store's change count when the last successful
	// save took its view; saves counts the successful saves.
	changesAtSave, saves int64
}

// saveCounts returns the keys changed since the view of the last
// successful save was taken, and how many saves succeeded (INFO's
// rdb_changes_since_last_save and rdb_saves).
func (srv *Server) saveCounts() (changes, saves int64) {
	s := &srv.saves
	s.mu.Lock()
	defer s.mu.Unlock()
	return srv.st.Stats().Changes.Load() - s.changesAtSave, s.saves
}

func cmdSave(x *ctx) {
	s := &x.srv.saves
	s.mu.Lock()
	busy := s.inProgress
	s.mu.Unlock()
	if busy {
		x.w.Error("ERR Background save already in progress")
		return
	}
	if err := x.srv.saveRDB(); err != nil {
		x.srv.log.Error("SAVE failed", "err", err)
		x.w.Error("ERR " + err.Error())
		return
	}
	x.w.SimpleString("OK")
}

func cmdBgsave(x *ctx) {
	schedule := false
	if len(x.args) > 1 {
		if len(x.args) > 2 || !optIs(x.arg(1), "SCHEDULE") {
			x.w.Error("ERR syntax error")
			return
		}
		schedule = true
	}
	srv := x.srv
	s := &srv.saves
	s.mu.Lock()
	if s.inProgress {
		if schedule {
			s.scheduled = true
			s.mu.Unlock()
			x.w.SimpleString("Background saving scheduled")
			return
		}
		s.mu.Unlock()
		x.w.Error("ERR Background save already in progress")
		return
	}
	srv.mu.Lock()
	if srv.closing {
		srv.mu.Unlock()
		s.mu.Unlock()
		x.w.Error("ERR the server is shutting down")
		return
	}
	// Shutdown waits for the save (it holds a view of the engine).
	srv.conns.Add(1)
	srv.mu.Unlock()
	s.inProgress = true
	s.lastStart = time.Now()
	s.mu.Unlock()
	go srv.bgsave()
	x.w.SimpleString("Background saving started")
}

// bgsave saves, and again while BGSAVE SCHEDULE asked for it meanwhile.
func (srv *Server) bgsave() {
	defer srv.conns.Done()
	s := &srv.saves
	for {
		err := srv.saveRDB()
		if err != nil {
			srv.log.Error("Background saving error", "err", err)
		} else {
			srv.log.Info("Background saving terminated with success")
		}
		s.mu.Lock()
		s.lastSecs = int64(time.Since(s.lastStart).Seconds())
		if !s.scheduled {
			s.inProgress = false
			s.mu.Unlock()
			return
		}
		s.scheduled = false
		s.lastStart = time.Now()
		s.mu.Unlock()
	}
}

// saveRDB writes the RDB file from one consistent view of the data, into a
// temporary file renamed over dir/dbfilename once complete and synced.
func (srv *Server) saveRDB() error {
	dir := srv.cfg.Dir()
	path := filepath.Join(dir, srv.cfg.DBFilename())
	tmp := filepath.Join(dir, fmt.Sprintf("temp-%d-%d.rdb", os.Getpid(), time.Now().UnixNano()))
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		srv.saveFailed()
		return fmt.Errorf("Failed opening the temp RDB file %s (in server root dir %s) for saving: %w", filepath.Base(tmp), dir, err)
	}
	changes := srv.st.Stats().Changes.Load()
	err = writeSnapshot(f, srv.st)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		srv.saveFailed()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	s := &srv.saves
	s.mu.Lock()
	s.failed = false
	s.lastTime = time.Now().Unix()
	s.changesAtSave = changes
	s.saves++
	s.mu.Unlock()
	return nil
}

func (srv *Server) saveFailed() {
	srv.saves.mu.Lock()
	srv.saves.failed = true
	srv.saves.mu.Unlock()
}

// WriteRDB writes every database's keys and the function libraries of st
// as an RDB file that Redis 7 loads, the keys from one consistent view of
// the store: what SAVE writes, for `cairn export`.
func WriteRDB(w io.Writer, st *store.Store) error { return writeSnapshot(w, st) }

// writeSnapshot writes every database's keys and the function libraries
// as an RDB file, the keys from one consistent view of the store.
func writeSnapshot(f io.Writer, st *store.Store) error { return writeSnapshotOf(f, st, true, true) }

// writeSnapshotOf writes an RDB file of the keys, the function libraries,
// or both (SYNC after REPLCONF rdb-filter-only).
func writeSnapshotOf(f io.Writer, st *store.Store, keys, functions bool) error {
	tx := st.Read(true)
	defer tx.Close()
	tx.SetTouch(false)
	fw := rdb.NewFileWriter(f, [][2]string{
		{"redis-ver", RedisVersion},
		{"redis-bits", strconv.Itoa(strconv.IntSize)},
		{"ctime", strconv.FormatInt(time.Now().Unix(), 10)},
		{"aof-base", "0"},
	})
	codes, err := st.FunctionLibraries()
	if err != nil {
		return fmt.Errorf("reading the function libraries: %w", err)
	}
	if !functions {
		codes = nil
	}
	for _, c := range codes {
		if err := fw.Function(c); err != nil {
			return err
		}
	}
	for db := range st.Databases() {
		if !keys {
			break
		}
		selected := false
		err := tx.Keys(db, []byte("*"), func(k []byte) error {
			key := bytes.Clone(k)
			v, deadline, ok, err := tx.ReadValue(db, key)
			if errors.Is(err, store.ErrNoRDBType) {
				// A sortedint has no form in the RDB format: it is
				// left out (docs/operations.md), not a failed save.
				return nil
			}
			if err != nil {
				return fmt.Errorf("reading key %q of db %d: %w", key, db, err)
			}
			if !ok {
				return nil
			}
			if !selected {
				selected = true
				if err := fw.SelectDB(db, uint64(max(st.DBSize(db), 0)), 0); err != nil {
					return err
				}
			}
			if deadline == 0 {
				deadline = -1
			}
			return fw.Key(key, store.ObjectOf(v), deadline)
		})
		if err != nil {
			return err
		}
	}
	return fw.Close()
}

// persistenceInfo is INFO persistence's fields of SAVE and BGSAVE.
func (srv *Server) persistenceInfo() [][2]string {
	s := &srv.saves
	s.mu.Lock()
	defer s.mu.Unlock()
	status := "ok"
	if s.failed {
		status = "err"
	}
	current := int64(-1)
	if s.inProgress {
		current = int64(time.Since(s.lastStart).Seconds())
	}
	last := s.lastSecs
	if s.lastStart.IsZero() {
		last = -1
	}
	return [][2]string{
		{"rdb_bgsave_in_progress", strconv.Itoa(boolToInt(s.inProgress))},
		{"rdb_last_bgsave_status", status},
		{"rdb_last_bgsave_time_sec", strconv.FormatInt(last, 10)},
		{"rdb_current_bgsave_time_sec", strconv.FormatInt(current, 10)},
	}
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
