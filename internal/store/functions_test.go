package store

import (
	"slices"
	"testing"
)

func TestFunctionLibrariesPersist(t *testing.T) {
	s, _ := openTestStore(t)
	libs := func() []string {
		codes, err := s.FunctionLibraries()
		if err != nil {
			t.Fatal(err)
		}
		return stringsOf(codes)
	}
	if got := libs(); len(got) != 0 {
		t.Fatalf("new store has libraries %q", got)
	}
	steps := []struct {
		name string
		fn   func(tx *Tx) error
		want []string
	}{
		{"load two", func(tx *Tx) error {
			if err := tx.PutFunctionLibrary([]byte("b"), []byte("code b")); err != nil {
				return err
			}
			return tx.PutFunctionLibrary([]byte("a"), []byte("code a"))
		}, []string{"code a", "code b"}},
		{"replace", func(tx *Tx) error { return tx.PutFunctionLibrary([]byte("a"), []byte("code a2")) }, []string{"code a2", "code b"}},
		{"delete", func(tx *Tx) error { return tx.DeleteFunctionLibrary([]byte("b")) }, []string{"code a2"}},
		{"flush", func(tx *Tx) error { return tx.FlushFunctionLibraries() }, nil},
	}
	for _, st := range steps {
		if err := commit(s, nil, st.fn); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := libs(); !slices.Equal(got, st.want) {
			t.Fatalf("%s: libraries %q, want %q", st.name, got, st.want)
		}
	}
	// Libraries are not keys: they never show in the keyspace.
	if n := s.DBSize(0); n != 0 {
		t.Fatalf("DBSIZE = %d", n)
	}
}
