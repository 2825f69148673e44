package store

import (
	"fmt"

	"github.com/cairndb/cairn/internal/encoding"
)

// Function libraries are stored as data (see encoding.FunctionKey), so they
// survive restarts and a replica replaying the batches gets them too. The
// caller serializes changes to the set of libraries; these writes lock no
// key.

// PutFunctionLibrary writes a library's code under its name.
func (tx *Tx) PutFunctionLibrary(name, code []byte) error {
	if tx.b == nil {
		return fmt.Errorf("store: write in a read-only transaction")
	}
	return tx.b.Set(encoding.FunctionKey(name), code)
}

// DeleteFunctionLibrary deletes a library's record.
func (tx *Tx) DeleteFunctionLibrary(name []byte) error {
	if tx.b == nil {
		return fmt.Errorf("store: write in a read-only transaction")
	}
	return tx.b.Delete(encoding.FunctionKey(name))
}

// FlushFunctionLibraries deletes every library's record.
func (tx *Tx) FlushFunctionLibraries() error {
	if tx.b == nil {
		return fmt.Errorf("store: write in a read-only transaction")
	}
	lo := encoding.FunctionPrefix()
	return tx.b.DeleteRange(lo, encoding.PrefixEnd(lo))
}

// FunctionLibraries returns the code of every stored library, in name
// order.
func (s *Store) FunctionLibraries() ([][]byte, error) {
	lo := encoding.FunctionPrefix()
	it, err := s.eng.NewIter(lo, encoding.PrefixEnd(lo))
	if err != nil {
		return nil, err
	}
	var codes [][]byte
	for ok := it.First(); ok; ok = it.Next() {
		codes = append(codes, append([]byte(nil), it.Value()...))
	}
	if err := it.Error(); err != nil {
		it.Close()
		return nil, fmt.Errorf("read function libraries: %w", err)
	}
	return codes, it.Close()
}
