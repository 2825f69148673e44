package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/encoding"
)

// testMemberFilters is the member filter budget of the stores the tests
// open: room for a few hundred small filters, so that big collections in
// tests outgrow it and both paths, with and without a filter, run.
const testMemberFilters = 64 << 10

func TestMemberFilterNoFalseNegatives(t *testing.T) {
	r := newMemberFilters(8 << 20)
	f := r.create(1)
	total := 0
	for i := range filterMaxLayers {
		total += filterLayerCap(i)
	}
	for i := range total {
		f.add(r.hash(fmt.Appendf(nil, "m%d", i)))
	}
	if f.dropped.Load() || len(f.layers) != filterMaxLayers {
		t.Fatalf("after %d members: dropped %t, %d layers; want a full filter of %d layers", total, f.dropped.Load(), len(f.layers), filterMaxLayers)
	}
	for i := range total {
		if !f.mayHold(r.hash(fmt.Appendf(nil, "m%d", i))) {
			t.Fatalf("member m%d added but not found", i)
		}
	}
	// False positives: every layer full is the worst case. Each layer is
	// sized for under 0.5%; seven of them stay well under 10%.
	const probes = 200_000
	fp := 0
	for i := range probes {
		if f.mayHold(r.hash(fmt.Appendf(nil, "absent%d", i))) {
			fp++
		}
	}
	if rate := float64(fp) / probes; rate > 0.10 {
		t.Errorf("false positive rate %.3f with every layer full, want under 0.10", rate)
	}
	t.Logf("false positives with %d members in %d layers (%d KiB): %.4f", total, len(f.layers), f.bytes>>10, float64(fp)/probes)

	// One more member than the layers hold drops the filter: it says
	// "maybe" from then on and leaves the registry.
	f.add(r.hash([]byte("one too many")))
	if !f.dropped.Load() || !f.mayHold(r.hash([]byte("never added"))) || r.lookup(1) != nil || f.layers != nil {
		t.Errorf("overfull filter: dropped %t, lookup %v, %d layers; want dropped, maybe for everything, gone, its layers released", f.dropped.Load(), r.lookup(1), len(f.layers))
	}
	if n, b := r.usage(); n != 0 || b != 0 {
		t.Errorf("usage after the drop: %d filters, %d bytes; want none", n, b)
	}
}

func TestMemberFilterBudget(t *testing.T) {
	first := filterLayerBytes(0) + filterOverhead
	tests := []struct {
		name  string
		limit int64
		// filters is how many filters create makes; grow, how many
		// members then go into the newest.
		filters, grow int
		// want lists the versions left with a filter.
		want []uint64
	}{
		{"too small for one", first - 1, 1, 0, nil},
		{"room for two, oldest evicted", 2 * first, 3, 0, []uint64{2, 3}},
		{"growth evicts the oldest", first + filterLayerBytes(1) + first/2, 3, filterFirstLayer + 1, []uint64{3}},
		{"growth beyond the budget drops the grower", first + 100, 1, filterFirstLayer + 1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newMemberFilters(tc.limit)
			var last *memberFilter
			for v := range tc.filters {
				last = r.create(uint64(v + 1))
			}
			for i := range tc.grow {
				last.add(r.hash(fmt.Appendf(nil, "m%d", i)))
			}
			var got []uint64
			for v := range tc.filters {
				if r.lookup(uint64(v+1)) != nil {
					got = append(got, uint64(v+1))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("versions with a filter: %v, want %v", got, tc.want)
			}
			if _, b := r.usage(); b > tc.limit {
				t.Errorf("filters use %d bytes, over the budget of %d", b, tc.limit)
			}
		})
	}
}

// TestMemberFilterWrites runs random writes on sets, hashes and sorted sets
// that move members between versions in every way the store has (create,
// delete and re-create, RENAME, COPY, MOVE, SMOVE, SPOP's rewrite, the
// STORE commands, rolled-back commands), checking each reply against a
// model. A member missing from a filter would be written again as new: the
// replies, the size check and the filter check of Check (at cleanup) would
// catch it.
func TestMemberFilterWrites(t *testing.T) {
	for _, budget := range []int64{testMemberFilters, 4 << 10, 64 << 20} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			s := openCheckedStore(t, Options{Databases: 2, ReapInterval: time.Hour, KeyCacheSize: testKeyCache, MemberFilterSize: budget})
			rng := rand.New(rand.NewPCG(7, uint64(budget)))
			model := map[string]map[string]bool{} // key → members, for all types
			typ := map[string]encoding.Type{}
			keys := []string{"a", "b", "c", "d"}
			member := func() string { return fmt.Sprintf("m%d", rng.IntN(300)) }
			kind := []encoding.Type{encoding.TypeSet, encoding.TypeHash, encoding.TypeZSet}
			for step := range 4000 {
				k := keys[rng.IntN(len(keys))]
				if _, ok := typ[k]; !ok {
					typ[k] = kind[rng.IntN(len(kind))]
				}
				ms := make([]string, 1+rng.IntN(4))
				for i := range ms {
					ms[i] = member()
				}
				switch op := rng.IntN(20); {
				case op < 10:
					want := 0
					seen := map[string]bool{}
					for _, m := range ms {
						if !model[k][m] && !seen[m] {
							want++
						}
						seen[m] = true
					}
					got := writeTx(t, s, []string{k}, func(tx *Tx) (int64, error) { return filterAdd(tx, typ[k], k, ms) })
					if got != int64(want) {
						t.Fatalf("step %d: adding %v to %s %q: %d new, model says %d", step, ms, typ[k], k, got, want)
					}
					if model[k] == nil {
						model[k] = map[string]bool{}
					}
					for _, m := range ms {
						model[k][m] = true
					}
				case op < 13:
					writeTx(t, s, []string{k}, func(tx *Tx) (int64, error) { return filterRemove(tx, typ[k], k, ms) })
					for _, m := range ms {
						delete(model[k], m)
					}
				case op < 14:
					writeTx(t, s, []string{k}, func(tx *Tx) (bool, error) { return tx.Delete(0, []byte(k)) })
					delete(model, k)
				case op < 15 && len(model[k]) > 0:
					dst := keys[rng.IntN(len(keys))]
					writeTx(t, s, []string{k, dst}, func(tx *Tx) (bool, error) { return tx.Rename(0, []byte(k), []byte(dst), false) })
					if len(model[k]) > 0 && k != dst {
						model[dst], typ[dst] = model[k], typ[k]
						delete(model, k)
					}
				case op < 16:
					dst := keys[rng.IntN(len(keys))]
					if dst == k {
						continue
					}
					writeTx(t, s, []string{k, dst}, func(tx *Tx) (bool, error) { return tx.Copy(0, []byte(k), 0, []byte(dst), true) })
					if len(model[k]) > 0 && k != dst {
						model[dst], typ[dst] = clone(model[k]), typ[k]
					}
				case op < 17:
					// Away to db 1 and back: each MOVE copies under a new version.
					writeTx(t, s, []string{k}, func(tx *Tx) (bool, error) {
						if ok, err := tx.Move(0, []byte(k), 1); !ok || err != nil {
							return ok, err
						}
						return tx.Move(1, []byte(k), 0)
					})
				case op < 18 && typ[k] == encoding.TypeSet:
					dst := keys[rng.IntN(len(keys))]
					if typ[dst] != encoding.TypeSet && len(model[dst]) > 0 {
						continue
					}
					m := ms[0]
					moved := writeTx(t, s, []string{k, dst}, func(tx *Tx) (bool, error) { return tx.SMove(0, []byte(k), []byte(dst), []byte(m)) })
					if moved != model[k][m] {
						t.Fatalf("step %d: SMOVE %q %q %q = %t, model says %t", step, k, dst, m, moved, model[k][m])
					}
					if moved && k != dst {
						delete(model[k], m)
						if model[dst] == nil {
							model[dst] = map[string]bool{}
						}
						model[dst][m], typ[dst] = true, encoding.TypeSet
					}
				case op < 19 && typ[k] == encoding.TypeSet:
					// Popping most of a set rewrites the rest under a new version.
					n := int64(len(model[k]) * 3 / 4)
					popped := writeTx(t, s, []string{k}, func(tx *Tx) ([][]byte, error) { return tx.SPopCount(0, []byte(k), n) })
					for _, m := range popped {
						delete(model[k], string(m))
					}
				case op < 19 && typ[k] == encoding.TypeZSet:
					dst := keys[rng.IntN(len(keys))]
					writeTx(t, s, []string{k, dst}, func(tx *Tx) (int64, error) {
						return tx.ZRangeStore(0, []byte(dst), []byte(k), ZRange{Start: 0, Stop: -1, Count: -1})
					})
					if k != dst {
						delete(model, dst)
						if len(model[k]) > 0 {
							model[dst], typ[dst] = clone(model[k]), encoding.TypeZSet
						}
					}
				default:
					// A command that adds, then is rolled back.
					tx := s.Begin(byteSlices(k))
					mark := tx.StartCommand()
					if _, err := filterAdd(tx, typ[k], k, ms); err != nil {
						t.Fatal(err)
					}
					if err := tx.RollbackCommand(mark); err != nil {
						t.Fatal(err)
					}
					if err := tx.Commit(); err != nil {
						t.Fatal(err)
					}
					tx.Close()
				}
				if len(model[k]) == 0 {
					delete(model, k)
					delete(typ, k)
				}
			}
			if n := s.stats.FilteredReads.Load(); budget >= testMemberFilters && n == 0 {
				t.Errorf("no member lookup was answered by a filter")
			}
		})
	}
}

func clone(m map[string]bool) map[string]bool {
	c := make(map[string]bool, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// filterAdd adds members to a collection of type t; it returns how many
// were new.
func filterAdd(tx *Tx, t encoding.Type, key string, ms []string) (int64, error) {
	switch t {
	case encoding.TypeSet:
		return tx.SAdd(0, []byte(key), byteSlices(ms...))
	case encoding.TypeHash:
		var pairs [][]byte
		for _, m := range ms {
			pairs = append(pairs, []byte(m), []byte("v"))
		}
		return tx.HSet(0, []byte(key), pairs)
	default:
		var pairs []ZMember
		for i, m := range ms {
			pairs = append(pairs, ZMember{Member: []byte(m), Score: float64(i)})
		}
		res, err := tx.ZAdd(0, []byte(key), ZAddArgs{}, pairs)
		return res.Added, err
	}
}

func filterRemove(tx *Tx, t encoding.Type, key string, ms []string) (int64, error) {
	switch t {
	case encoding.TypeSet:
		return tx.SRem(0, []byte(key), byteSlices(ms...))
	case encoding.TypeHash:
		return tx.HDel(0, []byte(key), byteSlices(ms...))
	default:
		return tx.ZRem(0, []byte(key), byteSlices(ms...))
	}
}

// BenchmarkMemberAdd adds random members out of 100,000 to one collection,
// as redis-benchmark's ZADD, HSET and SADD do: about two in three adds find
// a new member, which a member filter answers without the engine.
func BenchmarkMemberAdd(b *testing.B) {
	kinds := []struct {
		name string
		t    encoding.Type
	}{{"zadd", encoding.TypeZSet}, {"hset", encoding.TypeHash}, {"sadd", encoding.TypeSet}}
	for _, k := range kinds {
		for _, filters := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/filters=%t", k.name, filters), func(b *testing.B) {
				s := openBenchStore(b, 0, nil)
				s.filters = nil
				if filters {
					s.filters = newMemberFilters(32 << 20)
				}
				rng := rand.New(rand.NewPCG(1, 2))
				key := []byte("k")
				ms := []string{""}
				for b.Loop() {
					ms[0] = fmt.Sprintf("element:%06d", rng.IntN(100_000))
					tx := s.Begin([][]byte{key})
					if _, err := filterAdd(tx, k.t, "k", ms); err != nil {
						b.Fatal(err)
					}
					if err := tx.Commit(); err != nil {
						b.Fatal(err)
					}
					tx.Close()
				}
				b.ReportMetric(float64(s.stats.FilteredReads.Load())/float64(b.N), "filtered/op")
			})
		}
	}
}
