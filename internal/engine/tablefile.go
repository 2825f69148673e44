package engine

import (
	"os"
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Pebble writes a new table (a flush or a compaction output) through a
// 4 KiB bufio.Writer: with 8 KiB blocks that is two or three write(2)
// calls per block, each with the kernel's fixed cost. The engine gives
// those files a larger buffer of its own, so that a table goes to the
// kernel in tableWriteSize pieces.

// tableWriteSize is the size of the writes a new table reaches the file
// system in.
const tableWriteSize = 256 << 10

// tableCategories are the write categories Pebble creates new tables with.
var tableCategories = map[vfs.DiskWriteCategory]bool{
	"pebble-memtable-flush":    true,
	"pebble-compaction":        true,
	"pebble-blob-file-rewrite": true,
}

var tableBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, tableWriteSize)
	return &b
}}

// tableFile buffers the sequential writes of a table being built. Anything
// that needs the written bytes in the file (a sync, a read, a stat, a
// positioned write, closing) writes the buffer out first. After a failed
// write every later call reports that failure: the table is abandoned.
//
// Fd passes the descriptor through: Pebble v2's syncingFile uses it only to
// preallocate and syncs through SyncData and SyncTo, which flush. A Pebble
// that synced the descriptor directly would skip the buffer (v1 did).
type tableFile struct {
	vfs.File
	buf *[]byte
	err error
}

func newTableFile(f vfs.File) *tableFile {
	return &tableFile{File: f, buf: tableBuffers.Get().(*[]byte)}
}

// Write implements io.Writer.
func (f *tableFile) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n := len(p)
	b := *f.buf
	if len(b)+len(p) > cap(b) {
		if err := f.flush(); err != nil {
			return 0, err
		}
		b = *f.buf
		if len(p) >= cap(b) {
			if _, err := f.File.Write(p); err != nil {
				f.err = err
				return 0, err
			}
			return n, nil
		}
	}
	*f.buf = append(b, p...)
	return n, nil
}

func (f *tableFile) flush() error {
	if f.err != nil {
		return f.err
	}
	b := *f.buf
	if len(b) == 0 {
		return nil
	}
	if _, err := f.File.Write(b); err != nil {
		f.err = err
		return err
	}
	*f.buf = b[:0]
	return nil
}

func (f *tableFile) Close() error {
	err := f.flush()
	if f.buf != nil {
		*f.buf = (*f.buf)[:0]
		tableBuffers.Put(f.buf)
		f.buf = nil
		if f.err == nil {
			f.err = os.ErrClosed
		}
	}
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	return err
}

func (f *tableFile) Sync() error {
	if err := f.flush(); err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *tableFile) SyncData() error {
	if err := f.flush(); err != nil {
		return err
	}
	return f.File.SyncData()
}

func (f *tableFile) SyncTo(length int64) (bool, error) {
	if err := f.flush(); err != nil {
		return false, err
	}
	return f.File.SyncTo(length)
}

func (f *tableFile) Stat() (vfs.FileInfo, error) {
	if err := f.flush(); err != nil {
		return nil, err
	}
	return f.File.Stat()
}

func (f *tableFile) Read(p []byte) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.File.Read(p)
}

func (f *tableFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.File.ReadAt(p, off)
}

func (f *tableFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.File.WriteAt(p, off)
}
