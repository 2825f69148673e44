package store

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/encoding"
)

func TestSortedintAddRemRange(t *testing.T) {
	s, _ := openTestStore(t)
	k := []byte("si")
	var ids []uint64
	for i := uint64(0); i < 300; i++ {
		ids = append(ids, i*7, math.MaxUint64-i)
	}
	write(t, s, []string{"si"}, func(tx *Tx) error {
		n, err := tx.SIAdd(0, k, append(ids, 0, 7))
		if err == nil && n != 600 {
			t.Errorf("SIAdd = %d; want 600", n)
		}
		return err
	})
	tx := s.Read(false)
	all, err := tx.SIRange(0, k, SIRangeArgs{})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(ids)
	slices.Sort(want)
	if !slices.Equal(all, want) {
		t.Fatalf("SIRange: %d ids, first %v; want %d sorted", len(all), all[:3], len(want))
	}
	got, err := tx.SIRangeByValue(0, k, SIValueRange{Min: 14, Max: 35, MaxEx: true, Offset: 1, Count: 2})
	if err != nil || !slices.Equal(got, []uint64{21, 28}) {
		t.Fatalf("SIRangeByValue = %v, %v; want [21 28]", got, err)
	}
	got, err = tx.SIRangeByValue(0, k, SIValueRange{Min: math.MaxUint64 - 1, Max: math.MaxUint64, Reverse: true})
	if err != nil || !slices.Equal(got, []uint64{math.MaxUint64, math.MaxUint64 - 1}) {
		t.Fatalf("SIRangeByValue reverse at the top = %v, %v", got, err)
	}
	got, err = tx.SIRange(0, k, SIRangeArgs{Cursor: math.MaxUint64 - 1, Reverse: true, Limit: 1})
	if err != nil || !slices.Equal(got, []uint64{math.MaxUint64 - 2}) {
		t.Fatalf("SIRange below a cursor = %v, %v", got, err)
	}
	tx.Close()

	write(t, s, []string{"si"}, func(tx *Tx) error {
		n, err := tx.SIRem(0, k, []uint64{0, 0, 1, math.MaxUint64})
		if err == nil && n != 2 {
			t.Errorf("SIRem = %d; want 2", n)
		}
		return err
	})
	// DEL of a big one is range tombstones; the next key under the name
	// sees none of it.
	write(t, s, []string{"si"}, func(tx *Tx) error {
		_, err := tx.Delete(0, k)
		return err
	})
	write(t, s, []string{"si"}, func(tx *Tx) error {
		_, err := tx.SIAdd(0, k, []uint64{5})
		return err
	})
	tx = s.Read(false)
	defer tx.Close()
	if n, err := tx.SICard(0, k); err != nil || n != 1 {
		t.Fatalf("SICard after re-create = %d, %v; want 1", n, err)
	}
	ex, err := tx.SIExists(0, k, []uint64{5, 7})
	if err != nil || !slices.Equal(ex, []bool{true, false}) {
		t.Fatalf("SIExists = %v, %v", ex, err)
	}
}

func TestSortedintWrongType(t *testing.T) {
	s, _ := openTestStore(t)
	write(t, s, []string{"set"}, func(tx *Tx) error {
		_, err := tx.SAdd(0, []byte("set"), [][]byte{[]byte("1")})
		return err
	})
	tx := s.Begin([][]byte{[]byte("set")})
	defer tx.Close()
	if _, err := tx.SIAdd(0, []byte("set"), []uint64{1}); !errors.Is(err, ErrWrongType) {
		t.Fatalf("SIAdd on a set: %v", err)
	}
	if _, err := tx.SIRangeByValue(0, []byte("set"), SIValueRange{Min: 5, Max: 1}); !errors.Is(err, ErrWrongType) {
		t.Fatalf("empty SIRangeByValue on a set: %v", err)
	}
}

// TestCheckSortedint makes sure the checker catches a member record that
// is not an 8-byte id.
func TestCheckSortedint(t *testing.T) {
	s, _ := openTestStore(t)
	k := []byte("si")
	write(t, s, []string{"si"}, func(tx *Tx) error {
		_, err := tx.SIAdd(0, k, []uint64{1})
		return err
	})
	var sub []byte
	write(t, s, []string{"si"}, func(tx *Tx) error {
		c, err := tx.openSortedint(0, k)
		if err != nil {
			return err
		}
		sub = append(c.Prefix(encoding.FamilySub), 1, 2, 3)
		if err := tx.b.Set(sub, nil); err != nil {
			return err
		}
		// Keep the size right, so only the record's form is wrong.
		return tx.b.Delete(encoding.AppendSortedintMember(nil, c.Prefix(encoding.FamilySub), 1))
	})
	err := Check(s)
	if err == nil || !strings.Contains(err.Error(), "sortedint") {
		t.Fatalf("Check = %v; want a sortedint error", err)
	}
	// Repair, for the checker at the end of the test.
	write(t, s, []string{"si"}, func(tx *Tx) error {
		_, err := tx.Delete(0, k)
		return err
	})
}
