// Package digest computes Redis's DEBUG DIGEST and DEBUG DIGEST-VALUE: a
// SHA-1 based signature of a dataset or of single values that does not
// depend on the order Redis happens to hold unordered things in (keys, set
// members, hash fields, sorted-set members), and does depend on the order
// of ordered ones (list elements, stream entries). The algorithm is Redis
// 7's (debug.c), so that the same data gives the same digest in Cairn and
// in Redis: tests and tools compare a master's digest with a replica's, or
// a dataset before and after a reload.
//
// Two steps build every digest, both over a 20-byte state:
//   - xor: state ^= SHA1(data) — commutative, for unordered elements;
//   - mix: state = SHA1(state ^ SHA1(data)) — order-preserving.
//
// The package is pure: it reads values in package rdb's form and does no
// I/O.
package digest

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"

	"github.com/cairndb/cairn/internal/rdb"
)

// Sum is a digest: 20 bytes, all zero for nothing.
type Sum [sha1.Size]byte

// String is the digest as DEBUG DIGEST prints it: 40 lower-case hex digits.
func (d Sum) String() string { return hex.EncodeToString(d[:]) }

// xor folds the SHA-1 of data into d, commutatively.
func (d *Sum) xor(data []byte) {
	h := sha1.Sum(data)
	for i := range d {
		d[i] ^= h[i]
	}
}

// mix folds data into d so that order matters: d = SHA1(d ^ SHA1(data)).
func (d *Sum) mix(data []byte) {
	d.xor(data)
	*d = sha1.Sum(d[:])
}

// Redis's object type numbers (OBJ_STRING ...), which the digest mixes in.
const (
	objString = 0
	objList   = 1
	objSet    = 2
	objZSet   = 3
	objHash   = 4
	objStream = 6
)

// Value is DEBUG DIGEST-VALUE of one key: the digest of its value and of
// whether it has a deadline, starting from zero.
func Value(o rdb.Object, expires bool) Sum {
	var d Sum
	d.object(o, expires)
	return d
}

// KeyValue is one key's part of a dataset digest: its name mixed first,
// then its value as Value digests it.
func KeyValue(key []byte, o rdb.Object, expires bool) Sum {
	var d Sum
	d.mix(key)
	d.object(o, expires)
	return d
}

// object continues d with o, as Redis's xorObjectDigest does.
func (d *Sum) object(o rdb.Object, expires bool) {
	var typ uint32
	switch o.Kind {
	case rdb.KindList:
		typ = objList
	case rdb.KindSet:
		typ = objSet
	case rdb.KindZSet:
		typ = objZSet
	case rdb.KindHash:
		typ = objHash
	case rdb.KindStream:
		typ = objStream
	default:
		typ = objString
	}
	var aux [4]byte
	binary.BigEndian.PutUint32(aux[:], typ)
	d.mix(aux[:])
	switch o.Kind {
	case rdb.KindList:
		for _, e := range o.Items {
			d.mix(e)
		}
	case rdb.KindSet:
		for _, m := range o.Items {
			d.xor(m)
		}
	case rdb.KindZSet:
		for _, m := range o.ZSet {
			var e Sum
			e.mix(m.Member)
			e.mix([]byte(formatScore(m.Score)))
			d.xor(e[:])
		}
	case rdb.KindHash:
		for i := 0; i+1 < len(o.Pairs); i += 2 {
			var e Sum
			e.mix(o.Pairs[i])
			e.mix(o.Pairs[i+1])
			d.xor(e[:])
		}
	case rdb.KindStream:
		if o.Stream != nil {
			var id []byte
			for _, en := range o.Stream.Entries {
				id = strconv.AppendUint(id[:0], en.ID.Ms, 10)
				id = append(id, '.')
				id = strconv.AppendUint(id, en.ID.Seq, 10)
				d.mix(id)
				for _, f := range en.Fields {
					d.mix(f)
				}
			}
		}
	default:
		d.mix(o.String)
	}
	if expires {
		d.xor([]byte("!!expire!!"))
	}
}

// formatScore is C's "%.17g" of a score, as Redis formats it for the
// digest: Go's 'g' with 17 digits is the same but for the infinities.
func formatScore(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}

// Dataset accumulates DEBUG DIGEST over databases and their keys. The zero
// value is the digest of an empty dataset (forty zeros).
type Dataset struct{ sum Sum }

// StartDB begins database db's keys; call it once per database that has
// keys (an empty database leaves the digest alone), in database order.
func (s *Dataset) StartDB(db int) {
	var aux [4]byte
	binary.BigEndian.PutUint32(aux[:], uint32(db))
	s.sum.mix(aux[:])
}

// Add folds in one key's KeyValue, in any order (Redis xors the SHA-1
// of each key's digest into the dataset's).
func (s *Dataset) Add(kv Sum) { s.sum.xor(kv[:]) }

// Sum returns the dataset's digest.
func (s *Dataset) Sum() Sum { return s.sum }
