package engine

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Checkpoint implements Engine: Pebble's checkpoint, with the log synced
// first so that every write committed before the call is in the copy.
// Tables are hard-linked where dir is on the same file system as the
// data (a backup then costs no space until compactions replace the
// tables), and copied otherwise.
func (p *Pebble) Checkpoint(dir string) error {
	if p.closed.Load() {
		return ErrClosed
	}
	err := p.h.guardWrite(func() error { return p.db().Checkpoint(dir, pebble.WithFlushedWAL()) })
	if err != nil {
		return fmt.Errorf("engine checkpoint into %s: %w", dir, err)
	}
	return nil
}
