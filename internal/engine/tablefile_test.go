package engine

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// countingFile counts the writes that reach the file system.
type countingFile struct {
	vfs.File
	writes int
	fail   error
}

func (f *countingFile) Write(p []byte) (int, error) {
	if f.fail != nil {
		return 0, f.fail
	}
	f.writes++
	return f.File.Write(p)
}

// A table file holds the bytes written to it, in order, whatever their
// sizes, and hands them to the file system in few large writes; whatever
// looks at the file sees every byte written before.
func TestTableFile(t *testing.T) {
	tests := []struct {
		name      string
		sizes     []int
		maxWrites int
	}{
		{"small blocks", repeat(8<<10+5, 200), 7},
		{"one byte at a time", repeat(1, 1000), 1},
		{"exactly the buffer", []int{tableWriteSize, tableWriteSize}, 2},
		{"larger than the buffer", []int{10, 3 * tableWriteSize, 10}, 3},
		{"nothing", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := vfs.NewMem()
			raw, err := fs.Create("t.sst", "pebble-compaction")
			if err != nil {
				t.Fatal(err)
			}
			under := &countingFile{File: raw}
			f := newTableFile(under)
			var want bytes.Buffer
			for i, n := range tt.sizes {
				p := bytes.Repeat([]byte{byte(i)}, n)
				want.Write(p)
				if got, err := f.Write(p); err != nil || got != n {
					t.Fatalf("Write(%d bytes) = %d, %v", n, got, err)
				}
			}
			st, err := f.Stat()
			if err != nil || st.Size() != int64(want.Len()) {
				t.Fatalf("Stat: size %v, %v; want %d", st, err, want.Len())
			}
			if under.writes > tt.maxWrites {
				t.Errorf("%d writes reached the file, want at most %d", under.writes, tt.maxWrites)
			}
			if _, err := f.SyncTo(int64(want.Len())); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := fs.Open("t.sst")
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("file holds %d bytes (%v), want the %d written", len(got), err, want.Len())
			}
		})
	}
}

// A write the file system refuses fails the table: the call that wrote the
// buffer out and every later one report it.
func TestTableFileWriteFails(t *testing.T) {
	raw, err := vfs.NewMem().Create("t.sst", "pebble-compaction")
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	under := &countingFile{File: raw, fail: boom}
	f := newTableFile(under)
	if _, err := f.Write([]byte("buffered")); err != nil {
		t.Fatalf("a buffered write failed: %v", err)
	}
	if err := f.Sync(); !errors.Is(err, boom) {
		t.Fatalf("Sync = %v, want %v", err, boom)
	}
	if _, err := f.Write([]byte("more")); !errors.Is(err, boom) {
		t.Fatalf("Write after the failure = %v, want %v", err, boom)
	}
	if err := f.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close = %v, want %v", err, boom)
	}
}

func repeat(n, times int) []int {
	s := make([]int, times)
	for i := range s {
		s[i] = n
	}
	return s
}
