package encoding

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// TestSortedintMemberOrder checks that the byte order of member sub-keys
// is the numeric order of their ids, and that they decode back.
func TestSortedintMemberOrder(t *testing.T) {
	prefix := AppendSubKeyPrefix(nil, FamilySub, 0, []byte("k"), 7)
	ids := []uint64{0, 1, 255, 256, 1 << 32, math.MaxUint64 - 1, math.MaxUint64}
	for i, id := range ids {
		k := AppendSortedintMember(nil, prefix, id)
		got, err := DecodeSortedintMember(k[len(prefix):])
		if err != nil || got != id {
			t.Fatalf("decode %d: %d, %v", id, got, err)
		}
		if i > 0 {
			prev := AppendSortedintMember(nil, prefix, ids[i-1])
			if bytes.Compare(prev, k) >= 0 {
				t.Fatalf("%d does not sort before %d", ids[i-1], id)
			}
		}
	}
	for _, bad := range [][]byte{nil, {1}, make([]byte, 9)} {
		if _, err := DecodeSortedintMember(bad); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("decode of %d bytes: %v; want ErrCorrupt", len(bad), err)
		}
	}
}

func TestSortedintTypeName(t *testing.T) {
	m := Meta{Type: TypeSortedint, Version: 3, Size: 2}
	got, err := DecodeMeta(AppendMeta(nil, &m))
	if err != nil || got.Type != TypeSortedint || got.Version != 3 || got.Size != 2 || TypeSortedint.String() != "sortedint" {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
}
