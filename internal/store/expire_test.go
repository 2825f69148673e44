package store

import (
	"fmt"
	"testing"
	"time"
)

// Key deadlines at the exact millisecond, as Redis has them: a stored
// deadline hides the key only once it is in the past (keyIsExpired:
// now > when), while EXPIRE with a deadline not in the future deletes the
// key at once (checkAlreadyExpired: when <= now). The columns of want are
// deadline - now = -1, 0, +1 (boundaryAheads).

// TestKeyDeadlineAtNow checks the reads and writes that look at a stored
// key deadline.
func TestKeyDeadlineAtNow(t *testing.T) {
	const d = 1_700_000_000_000
	type check func(t *testing.T, tx *Tx, key []byte) string
	// member reports whether key is among the keys fn lists.
	member := func(key []byte, fn func(add func([]byte) error) error) (bool, error) {
		found := false
		err := fn(func(k []byte) error {
			found = found || string(k) == string(key)
			return nil
		})
		return found, err
	}
	tests := []struct {
		name  string
		db    int // RANDOMKEY's key (k7) is alone in its db
		write bool
		fn    check
		want  [3]string
	}{
		{"GET", 0, false, func(t *testing.T, tx *Tx, k []byte) string {
			v, ok, err := tx.GetString(0, k)
			return result(t, err, fmt.Sprintf("%q %v", v, ok))
		}, [3]string{`"" false`, `"v" true`, `"v" true`}},
		{"EXISTS", 0, false, func(t *testing.T, tx *Tx, k []byte) string {
			ok, err := tx.Exists(0, k)
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"false", "true", "true"}},
		{"PTTL", 0, false, func(t *testing.T, tx *Tx, k []byte) string {
			dl, err := tx.Deadline(0, k)
			if err == nil && dl > 0 {
				dl -= tx.NowMs
			}
			return result(t, err, fmt.Sprint(dl))
		}, [3]string{"-2", "0", "1"}},
		{"OBJECT IDLETIME", 0, false, func(t *testing.T, tx *Tx, k []byte) string {
			_, ok, err := tx.IdleTime(0, k)
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"false", "true", "true"}},
		{"KEYS *", 0, false, func(t *testing.T, tx *Tx, k []byte) string {
			ok, err := member(k, func(add func([]byte) error) error { return tx.Keys(0, []byte("*"), add) })
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"false", "true", "true"}},
		{"KEYS pattern", 0, false, func(t *testing.T, tx *Tx, k []byte) string {
			ok, err := member(k, func(add func([]byte) error) error { return tx.Keys(0, append(k[:len(k):len(k)], '*'), add) })
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"false", "true", "true"}},
		{"SCAN", 0, false, func(t *testing.T, tx *Tx, k []byte) string {
			ok, err := member(k, func(add func([]byte) error) error {
				for cursor := uint64(0); ; {
					next, keys, err := tx.Scan(0, cursor, ScanArgs{Count: 1000})
					if err != nil {
						return err
					}
					for _, key := range keys {
						_ = add(key)
					}
					if cursor = next; cursor == 0 {
						return nil
					}
				}
			})
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"false", "true", "true"}},
		{"RANDOMKEY", 1, false, func(t *testing.T, tx *Tx, k []byte) string {
			key, ok, err := tx.RandomKey(1)
			return result(t, err, fmt.Sprintf("%q %v", key, ok))
		}, [3]string{`"" false`, `"k7" true`, `"k7" true`}},
		{"SET NX", 0, true, func(t *testing.T, tx *Tx, k []byte) string {
			r, err := tx.SetString(0, k, []byte("new"), SetArgs{Cond: SetNX})
			return result(t, err, fmt.Sprint(r.Written))
		}, [3]string{"true", "false", "false"}},
		{"PERSIST", 0, true, func(t *testing.T, tx *Tx, k []byte) string {
			ok, err := tx.Persist(0, k)
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"false", "true", "true"}},
		{"EXPIRE ahead", 0, true, func(t *testing.T, tx *Tx, k []byte) string {
			ok, err := tx.Expire(0, k, tx.NowMs+5000, ExpireAlways)
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"false", "true", "true"}},
		{"DEL", 0, true, func(t *testing.T, tx *Tx, k []byte) string {
			ok, err := tx.Delete(0, k)
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"false", "true", "true"}},
	}
	for col, ahead := range boundaryAheads {
		s, clock := openTestStore(t)
		clock.ms.Store(d - 10_000)
		for i, tc := range tests {
			set(t, s, tc.db, fmt.Sprintf("k%d", i), "v", SetArgs{ExpireMs: d})
		}
		clock.ms.Store(d - ahead)
		for i, tc := range tests {
			t.Run(fmt.Sprintf("%s/deadline%+d", tc.name, ahead), func(t *testing.T) {
				key := fmt.Sprintf("k%d", i)
				var got string
				if tc.write {
					got = writeTx(t, s, []string{key}, func(tx *Tx) (string, error) { return tc.fn(t, tx, []byte(key)), nil })
				} else {
					got = readTx(t, s, func(tx *Tx) (string, error) { return tc.fn(t, tx, []byte(key)), nil })
				}
				if got != tc.want[col] {
					t.Errorf("got %s, want %s", got, tc.want[col])
				}
			})
		}
	}
}

// TestReapKeyAtNow checks that the reaper takes a key only once its
// deadline has passed, as Redis's activeExpireCycleTryExpire (now > when)
// does.
func TestReapKeyAtNow(t *testing.T) {
	const d = 1_700_000_000_000
	for _, ahead := range boundaryAheads {
		t.Run(fmt.Sprintf("deadline%+d", ahead), func(t *testing.T) {
			s, clock := openTestStore(t)
			clock.ms.Store(d - 10_000)
			set(t, s, 0, "k", "v", SetArgs{ExpireMs: d})
			clock.ms.Store(d - ahead)
			n, err := s.ReapExpired(time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if ahead < 0 {
				want = 1
			}
			if n != want {
				t.Fatalf("reaped %d, want %d", n, want)
			}
		})
	}
}

// TestSetKeyDeadlineAtNow checks EXPIRE with a deadline at, before and
// after now: one not in the future deletes the key at once.
func TestSetKeyDeadlineAtNow(t *testing.T) {
	s, clock := openTestStore(t)
	for _, ahead := range boundaryAheads {
		t.Run(fmt.Sprintf("deadline%+d", ahead), func(t *testing.T) {
			key := fmt.Sprintf("k%+d", ahead)
			set(t, s, 0, key, "v", SetArgs{})
			ok := writeTx(t, s, []string{key}, func(tx *Tx) (bool, error) {
				return tx.Expire(0, []byte(key), tx.NowMs+ahead, ExpireAlways)
			})
			if !ok {
				t.Fatal("EXPIRE reported no change")
			}
			dl := readTx(t, s, func(tx *Tx) (int64, error) { return tx.Deadline(0, []byte(key)) })
			want := clock.ms.Load() + ahead
			if ahead <= 0 {
				want = TTLMissing
			}
			if dl != want {
				t.Fatalf("deadline %d, want %d", dl, want)
			}
			if ok := readTx(t, s, func(tx *Tx) (bool, error) { return tx.Exists(0, []byte(key)) }); ok != (ahead > 0) {
				t.Fatalf("EXISTS %v", ok)
			}
		})
	}
}

// A Tx with SetTouch(false) looks keys up without counting them as used,
// as Redis's TTL, TYPE, EXISTS and OBJECT do; one with the default counts.
func TestLookupWithoutTouch(t *testing.T) {
	s, clock := openTestStore(t)
	k := []byte("k")
	write(t, s, []string{"k"}, func(tx *Tx) error {
		_, err := tx.SetString(0, k, []byte("v"), SetArgs{})
		return err
	})
	idle := func() int64 {
		tx := s.Read(false)
		defer tx.Close()
		n, ok, err := tx.IdleTime(0, k)
		if err != nil || !ok {
			t.Fatalf("IdleTime: %v %v", ok, err)
		}
		return n
	}
	clock.advance(5 * time.Second)
	tx := s.Read(false)
	tx.SetTouch(false)
	if _, err := tx.Exists(0, k); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tx.Lookup(0, k); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Deadline(0, k); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	if n := idle(); n != 5 {
		t.Fatalf("idle %d s after untouched lookups, want 5", n)
	}
	tx = s.Read(false)
	if _, err := tx.Exists(0, k); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	if n := idle(); n != 0 {
		t.Fatalf("idle %d s after a lookup, want 0", n)
	}
}

// TestIdleTimeAfterWrites: a write is a use of its key, read first or not
// (a blind SET, an HSET): OBJECT IDLETIME counts from it, not from the
// server's start.
func TestIdleTimeAfterWrites(t *testing.T) {
	s, clock := openTestStore(t)
	clock.advance(100 * time.Second)
	idle := func(k string) int64 {
		tx := s.Read(false)
		defer tx.Close()
		n, ok, err := tx.IdleTime(0, []byte(k))
		if err != nil || !ok {
			t.Fatalf("IdleTime %s: %v %v", k, ok, err)
		}
		return n
	}
	write(t, s, []string{"k"}, func(tx *Tx) error {
		_, err := tx.SetString(0, []byte("k"), []byte("v"), SetArgs{})
		return err
	})
	write(t, s, []string{"h"}, func(tx *Tx) error {
		_, err := tx.HSet(0, []byte("h"), byteSlices("f", "v"))
		return err
	})
	clock.advance(3 * time.Second)
	if n := idle("k"); n != 3 {
		t.Errorf("idle %d s after SET 3 s ago, want 3", n)
	}
	if n := idle("h"); n != 3 {
		t.Errorf("idle %d s after HSET 3 s ago, want 3", n)
	}
	write(t, s, []string{"k"}, func(tx *Tx) error {
		_, err := tx.SetString(0, []byte("k"), []byte("w"), SetArgs{})
		return err
	})
	clock.advance(2 * time.Second)
	if n := idle("k"); n != 2 {
		t.Errorf("idle %d s after a second SET 2 s ago, want 2", n)
	}
	// A client that asked not to touch keys leaves an existing key's time.
	write(t, s, []string{"h"}, func(tx *Tx) error {
		tx.SetTouch(false)
		_, err := tx.HSet(0, []byte("h"), byteSlices("f", "w"))
		return err
	})
	if n := idle("h"); n != 5 {
		t.Errorf("idle %d s after an untouching HSET, want 5", n)
	}
}

// TestFreqUnderLFU: with LFU on, a new key's counter is 5 and a use takes
// it to 6 (Redis's LFU_INIT_VAL, and its increment, certain at 5); a write
// after the command's own lookup does not count twice; the counter loses
// one per lfu-decay-time minutes.
func TestFreqUnderLFU(t *testing.T) {
	s, clock := openTestStore(t)
	s.SetLFU(true, 10, 1)
	freq := func(k string) int64 {
		tx := s.Read(false)
		defer tx.Close()
		n, ok, err := tx.Freq(0, []byte(k))
		if err != nil || !ok {
			t.Fatalf("Freq %s: %v %v", k, ok, err)
		}
		return n
	}
	write(t, s, []string{"h"}, func(tx *Tx) error {
		_, err := tx.HSet(0, []byte("h"), byteSlices("f", "v"))
		return err
	})
	if n := freq("h"); n != 5 {
		t.Fatalf("freq %d after HSET of a new key, want 5", n)
	}
	write(t, s, []string{"h"}, func(tx *Tx) error {
		_, err := tx.HSet(0, []byte("h"), byteSlices("f", "w"))
		return err
	})
	if n := freq("h"); n != 6 {
		t.Fatalf("freq %d after a second HSET, want 6", n)
	}
	clock.advance(3 * time.Minute)
	if n := freq("h"); n != 3 {
		t.Fatalf("freq %d 3 minutes later, want 3", n)
	}
	s.SetLFU(true, 10, 0)
	if n := freq("h"); n != 6 {
		t.Fatalf("freq %d without decay, want 6", n)
	}
}
