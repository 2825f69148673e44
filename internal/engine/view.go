package engine

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
)

// A view is a consistent read-only state of the store taken without a
// Pebble snapshot. Pebble's NewSnapshot and Snapshot.Close both take the
// database's mutex (the one commits and flushes take) to keep the list of
// snapshots, which costs a read command more than the reads themselves
// when every client does it. A Pebble iterator, though, is already a
// consistent view — it holds a sequence number and a reference to the
// memtables and files of its moment — and Iterator.Clone makes more
// iterators over exactly that state with other bounds. So a view is one
// unbounded iterator: Get is an exact-key prefix seek on it (the default
// comparer's prefix is the whole key, so the tables' bloom filters apply
// as they do to DB.Get), and NewIter is a clone.
//
// The iterator is opened by the first read, which is the moment the view
// shows. Holding it pins its memtables and files, where a snapshot would
// only keep compactions from dropping old versions: views are for reads
// that last one command.
type pebbleView struct {
	db *pebble.DB
	// it is nil until the first read; iters counts it while it is open.
	it    *pebble.Iterator
	iters *atomic.Int64
}

var viewPool = sync.Pool{New: func() any { return new(pebbleView) }}

// NewView implements Engine.
func (p *Pebble) NewView() Snapshot {
	if p.h.failed() {
		return frozenView{p.db(), p.iters}
	}
	v := viewPool.Get().(*pebbleView)
	v.db, v.iters = p.db(), p.iters
	return v
}

func (v *pebbleView) base() (*pebble.Iterator, error) {
	if v.it == nil {
		it, err := v.db.NewIter(nil)
		if err != nil {
			return nil, fmt.Errorf("engine view: %w", err)
		}
		v.it = it
		v.iters.Add(1)
	}
	return v.it, nil
}

// Fix implements Snapshot.
func (v *pebbleView) Fix() (bool, error) {
	if v.it != nil {
		return false, nil
	}
	_, err := v.base()
	return err == nil, err
}

// Get implements Reader.
func (v *pebbleView) Get(key, dst []byte) ([]byte, error) {
	it, err := v.base()
	if err != nil {
		return nil, err
	}
	var ok bool
	if len(key) == 0 {
		// Pebble's seeks want a non-empty key; nothing sorts before the
		// empty key, so it is the first if it exists.
		ok = it.First()
	} else {
		ok = it.SeekPrefixGE(key)
	}
	if !ok || !bytes.Equal(it.Key(), key) {
		if err := it.Error(); err != nil {
			return nil, fmt.Errorf("engine get: %w", err)
		}
		return nil, ErrNotFound
	}
	val, err := it.ValueAndErr()
	if err != nil {
		return nil, fmt.Errorf("engine get: %w", err)
	}
	return append(dst[:0], val...), nil
}

// NewIter implements Reader: a clone of the view's iterator, which sees
// the same state, within [lower, upper).
func (v *pebbleView) NewIter(lower, upper []byte) (Iterator, error) {
	it, err := v.base()
	if err != nil {
		return nil, err
	}
	c, err := it.Clone(pebble.CloneOptions{IterOptions: &pebble.IterOptions{LowerBound: lower, UpperBound: upper}})
	if err != nil {
		return nil, fmt.Errorf("engine iterator: %w", err)
	}
	v.iters.Add(1)
	return pebbleIter{c, v.iters}, nil
}

// Close implements Snapshot. Iterators the view made stay usable until
// they are closed themselves.
func (v *pebbleView) Close() error {
	var err error
	if v.it != nil {
		err = v.it.Close()
		v.iters.Add(-1)
	}
	*v = pebbleView{}
	viewPool.Put(v)
	return wrap("close view", err)
}
