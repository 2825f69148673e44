// Package rdbimport loads a Redis RDB file into a Cairn store: the keys of
// every database with their deadlines, and the function libraries. It
// streams the file (internal/rdb's ReadFile) and writes keys in batches,
// each key written whole within one atomic commit, so memory stays bounded
// by one batch whatever the file's size.
package rdbimport

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/script"
	"github.com/cairndb/cairn/internal/store"
)

// Options tune an import.
type Options struct {
	// Size is the file's size in bytes, for the progress line's
	// percentage and ETA; 0 when unknown.
	Size int64
	// Progress, when not nil, receives a progress line (carriage-return
	// terminated) about twice a second.
	Progress io.Writer
	// BatchKeys and BatchBytes bound one commit (defaults 512 keys, 8 MB);
	// a larger value is committed alone.
	BatchKeys  int
	BatchBytes int
}

// Stats is what an import did.
type Stats struct {
	Version   int
	RedisVer  string
	Bytes     int64
	Keys      int64 // written
	Expired   int64 // read but already past their deadline, not written
	Functions int
	// Skipped counts keys not loaded, by module type name.
	Skipped    map[string]int64
	ModuleAux  map[string]int64
	PerDB      map[int]int64
	Duration   time.Duration
	Databases  []int
	AuxFields  map[string]string
	startedAt  time.Time
	lastReport time.Time
}

// pending is a key waiting for its batch's commit.
type pending struct {
	db       int
	key      []byte
	value    store.Value
	deadline int64
}

type importer struct {
	st    *store.Store
	opts  Options
	stats *Stats
	batch []pending
	size  int
	count *countingReader
}

// Check reads a whole RDB file from r without loading it, and returns the
// first error Import would meet in the file itself: a corrupt or truncated
// file, a bad checksum, a database beyond databases, a function library
// without a valid header. An import that checks its file first leaves the
// store untouched by a bad one.
func Check(r io.Reader, databases int) error {
	return rdb.ReadFile(r, &rdb.Handler{
		SelectDB: func(db int) error {
			if db < 0 || db >= databases {
				return fmt.Errorf("database %d out of range: this server has %d (setting databases)", db, databases)
			}
			return nil
		},
		Function: func(code []byte) error {
			if _, err := script.ParseLibraryHeader(code); err != nil {
				return fmt.Errorf("function library: %w", err)
			}
			return nil
		},
	})
}

// Import reads an RDB file from r into st. Keys already in st are replaced
// by the file's. An error leaves the batches committed before it in place
// (the file's earlier keys) and says where the file went wrong.
func Import(r io.Reader, st *store.Store, opts Options) (*Stats, error) {
	if opts.BatchKeys <= 0 {
		opts.BatchKeys = 512
	}
	if opts.BatchBytes <= 0 {
		opts.BatchBytes = 8 << 20
	}
	now := time.Now()
	im := &importer{st: st, opts: opts, count: &countingReader{r: r},
		stats: &Stats{Skipped: map[string]int64{}, ModuleAux: map[string]int64{}, PerDB: map[int]int64{},
			AuxFields: map[string]string{}, startedAt: now, lastReport: now}}
	err := rdb.ReadFile(im.count, &rdb.Handler{
		Header: func(v int) error { im.stats.Version = v; return nil },
		Aux: func(k, v []byte) error {
			im.stats.AuxFields[string(k)] = string(v)
			if string(k) == "redis-ver" {
				im.stats.RedisVer = string(v)
			}
			return nil
		},
		SelectDB: func(db int) error {
			if !st.ValidDB(db) {
				return fmt.Errorf("database %d out of range: this server has %d (setting databases)", db, st.Databases())
			}
			im.stats.Databases = append(im.stats.Databases, db)
			return nil
		},
		Key: im.key,
		Skipped: func(e *rdb.Entry, name string) error {
			im.stats.Skipped[name]++
			return nil
		},
		Function:  im.function,
		ModuleAux: func(name string) error { im.stats.ModuleAux[name]++; return nil },
	})
	if err == nil {
		err = im.flush()
	}
	im.stats.Bytes = im.count.n
	im.stats.Duration = time.Since(now)
	im.report(true)
	return im.stats, err
}

func (im *importer) key(e *rdb.Entry) error {
	if e.ExpireMs >= 0 && e.ExpireMs <= time.Now().UnixMilli() {
		im.stats.Expired++
		return nil
	}
	// The entry's slices are the reader's: the batch keeps a copy.
	v, n := store.ValueOf(e.Value.Clone()), e.Value.Size()
	deadline := e.ExpireMs
	if deadline < 0 {
		deadline = 0
	}
	im.batch = append(im.batch, pending{db: e.DB, key: bytes.Clone(e.Key), value: v, deadline: deadline})
	im.size += n + len(e.Key)
	if len(im.batch) >= im.opts.BatchKeys || im.size >= im.opts.BatchBytes {
		return im.flush()
	}
	im.report(false)
	return nil
}

// flush writes the pending keys in one commit.
func (im *importer) flush() error {
	if len(im.batch) == 0 {
		return nil
	}
	keys := make([][]byte, len(im.batch))
	for i, p := range im.batch {
		keys[i] = p.key
	}
	tx := im.st.Begin(keys)
	defer tx.Close()
	written := 0
	for _, p := range im.batch {
		ok, err := tx.WriteValue(p.db, p.key, p.value, p.deadline)
		if err != nil {
			return fmt.Errorf("writing key %q of db %d: %w", p.key, p.db, err)
		}
		if ok {
			im.stats.PerDB[p.db]++
			written++
		} else {
			im.stats.Expired++
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing %d keys: %w", len(im.batch), err)
	}
	im.stats.Keys += int64(written)
	im.batch, im.size = im.batch[:0], 0
	im.report(false)
	return nil
}

func (im *importer) function(code []byte) error {
	h, err := script.ParseLibraryHeader(code)
	if err != nil {
		return fmt.Errorf("function library: %w", err)
	}
	tx := im.st.Begin(nil)
	defer tx.Close()
	if err := tx.PutFunctionLibrary([]byte(h.Name), bytes.Clone(code)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("function library %s: %w", h.Name, err)
	}
	im.stats.Functions++
	return nil
}

// report writes the progress line, at most twice a second unless final.
func (im *importer) report(final bool) {
	if im.opts.Progress == nil {
		return
	}
	now := time.Now()
	if !final && now.Sub(im.stats.lastReport) < 500*time.Millisecond {
		return
	}
	im.stats.lastReport = now
	elapsed := now.Sub(im.stats.startedAt).Seconds()
	n := im.count.n
	rate := 0.0
	if elapsed > 0 {
		rate = float64(n) / elapsed
	}
	keys := im.stats.Keys + int64(len(im.batch))
	line := fmt.Sprintf("import: %s", mb(n))
	if im.opts.Size > 0 {
		line += fmt.Sprintf(" of %s (%.0f%%)", mb(im.opts.Size), 100*float64(n)/float64(im.opts.Size))
	}
	line += fmt.Sprintf(", %d keys, %s/s, %.0f keys/s", keys, mb(int64(rate)), float64(keys)/max(elapsed, 1e-9))
	if im.opts.Size > 0 && rate > 0 && !final {
		eta := time.Duration(float64(im.opts.Size-n) / rate * float64(time.Second))
		line += fmt.Sprintf(", ETA %s", eta.Round(time.Second))
	}
	end := "\r"
	if final {
		end = "\n"
	}
	fmt.Fprintf(im.opts.Progress, "\r%-78s%s", line, end)
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// Summary describes what an import loaded and skipped, one fact a line.
func (s *Stats) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "read %d bytes of an RDB version %d file", s.Bytes, s.Version)
	if s.RedisVer != "" {
		fmt.Fprintf(&b, " written by Redis %s", s.RedisVer)
	}
	fmt.Fprintf(&b, " in %s\n", s.Duration.Round(time.Millisecond))
	fmt.Fprintf(&b, "loaded %d keys", s.Keys)
	dbs := make([]int, 0, len(s.PerDB))
	for db := range s.PerDB {
		dbs = append(dbs, db)
	}
	sort.Ints(dbs)
	for i, db := range dbs {
		sep := ", "
		if i == 0 {
			sep = " ("
		}
		fmt.Fprintf(&b, "%sdb%d: %d", sep, db, s.PerDB[db])
	}
	if len(dbs) > 0 {
		b.WriteString(")")
	}
	fmt.Fprintf(&b, ", %d function libraries\n", s.Functions)
	if s.Expired > 0 {
		fmt.Fprintf(&b, "skipped %d keys already expired\n", s.Expired)
	}
	for i, m := range []map[string]int64{s.Skipped, s.ModuleAux} {
		names := make([]string, 0, len(m))
		for name := range m {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			what := "keys of type"
			if i == 1 {
				what = "module data of"
			}
			fmt.Fprintf(&b, "skipped %d %s %s (not supported by Cairn)\n", m[name], what, name)
		}
	}
	return b.String()
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
