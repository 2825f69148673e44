package server

import (
	"bytes"
	"math"
	"math/big"
	"slices"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
)

// SORT and SORT_RO, as Redis 7's sort.c behaves: the elements of a list,
// set or sorted set, ordered by their own value or by the values that BY
// finds in other keys (a string, or a hash's field with "->field"), or left
// in the collection's order when BY names no '*' ("nosort"); then LIMIT,
// then GET patterns, then STORE as a list.
//
// The keys that BY and GET name are read through the command's transaction.
// Their names come from the data, so no spec can declare them. A SORT
// without STORE (and SORT_RO) reads one snapshot; a SORT ... STORE whose
// patterns read other keys, or any SORT that does inside MULTI or a script,
// excludes every writer (beginSort, sortDerefs), so that what it reads is
// one state, as Redis's single thread sees it.

func sortCommands() []cmdEntry {
	const acl = command.CatSet | command.CatSortedSet | command.CatList | command.CatDangerous
	const summary = "Sort the elements in a list, set or sorted set"
	sortE := sortKeySpecs(def("sort", -2, write|denyoom, keys{1, 1, 1}, acl, "generic", "1.0.0", summary, cmdSort), true)
	sortRO := sortKeySpecs(def("sort_ro", -2, readonly, keys{1, 1, 1}, acl, "generic", "7.0.0", summary+". Read-only variant of SORT.", cmdSortRO), false)
	for _, e := range []cmdEntry{sortE, sortRO} {
		e.spec.Complexity = "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N)."
	}
	return []cmdEntry{sortE, sortRO}
}

// sortKeySpecs gives SORT (withStore) and SORT_RO Redis's key
// specifications: the sorted key, the keys BY and GET derive (unknown, so
// key extraction goes to sortGetKeys), and SORT's STORE destination.
func sortKeySpecs(e cmdEntry, withStore bool) cmdEntry {
	s := e.spec
	s.Flags |= command.MovableKeys
	s.KeySpecs = []command.KeySpec{
		{Flags: ro | acc, Begin: command.IndexSearch(1), Find: command.RangeKeys(0, 1, 0)},
		{Flags: ro | acc, Notes: "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort",
			Begin: command.UnknownSearch(), Find: command.UnknownKeys()},
	}
	if withStore {
		s.KeySpecs = append(s.KeySpecs, command.KeySpec{
			Flags: ow | upd, Notes: "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array",
			Begin: command.UnknownSearch(), Find: command.UnknownKeys()})
		s.KeysFunc = sortGetKeys
	} else {
		s.KeysFunc = func([][]byte) []int { return []int{1} } // Redis's sortROGetKeys
	}
	// As Redis's procs report them: the sorted key read, the destination
	// overwritten.
	s.KeysFuncFlags = func(_ [][]byte, keys []int) []command.KeyFlag {
		f := make([]command.KeyFlag, len(keys))
		for i := range f {
			f[i] = ro | acc
			if i > 0 {
				f[i] = ow | upd
			}
		}
		return f
	}
	return e
}

// sortGetKeys is Redis's sortGetKeys: the sorted key, and the destination
// of the last STORE, skipping the arguments of LIMIT, GET and BY.
func sortGetKeys(args [][]byte) []int {
	idx := []int{1}
	store := 0
	for i := 2; i < len(args); i++ {
		switch {
		case equalFold(args[i], "limit"):
			i += 2
		case equalFold(args[i], "get"), equalFold(args[i], "by"):
			i++
		case equalFold(args[i], "store") && i+1 < len(args):
			store = i + 1
		}
	}
	if store > 0 {
		idx = append(idx, store)
	}
	return idx
}

// equalFold compares an argument with a lower-case ASCII word.
func equalFold(b []byte, word string) bool {
	if len(b) != len(word) {
		return false
	}
	for i := range b {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}

// sortOptions is a parsed SORT command line.
type sortOptions struct {
	desc, alpha bool
	// start and count are LIMIT's (count -1: no limit).
	start, count int64
	// by is the BY pattern, nil without BY; dontsort is set once a BY
	// pattern has no '*' (and stays set, as in Redis).
	by       []byte
	dontsort bool
	gets     [][]byte
	// store is the STORE destination, nil without STORE.
	store []byte
}

// parseSortOptions reads the options from args[2:], replying with the
// error and returning false on a bad one, as Redis's parser does: the first
// fault wins.
func parseSortOptions(x *ctx, readonly bool) (sortOptions, bool) {
	o := sortOptions{count: -1}
	args := x.args
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		a := args[j]
		switch {
		case equalFold(a, "asc"):
			o.desc = false
		case equalFold(a, "desc"):
			o.desc = true
		case equalFold(a, "alpha"):
			o.alpha = true
		case equalFold(a, "limit") && left >= 2:
			start, ok1 := rconv.ParseInt(args[j+1])
			count, ok2 := rconv.ParseInt(args[j+2])
			if !ok1 || !ok2 {
				x.notInteger()
				return o, false
			}
			o.start, o.count = start, count
			j += 2
		case !readonly && equalFold(a, "store") && left >= 1:
			o.store = args[j+1]
			j++
		case equalFold(a, "by") && left >= 1:
			o.by = args[j+1]
			if bytes.IndexByte(o.by, '*') < 0 {
				o.dontsort = true
			} else if !x.sortKeyAccess() {
				x.errorReply("ERR BY option of SORT denied due to insufficient ACL permissions.")
				return o, false
			}
			j++
		case equalFold(a, "get") && left >= 1:
			if !x.sortKeyAccess() {
				x.errorReply("ERR GET option of SORT denied due to insufficient ACL permissions.")
				return o, false
			}
			o.gets = append(o.gets, args[j+1])
			j++
		default:
			x.syntaxError()
			return o, false
		}
	}
	return o, true
}

// derefsPattern reports whether pattern makes SORT read other keys: it has
// a '*' and is not "#".
func derefsPattern(p []byte) bool {
	return !(len(p) == 1 && p[0] == '#') && bytes.IndexByte(p, '*') >= 0
}

// sortDerefs reports whether a SORT or SORT_RO command line reads keys
// named by its BY or GET patterns, which no lock declared in advance can
// cover: such a command excludes every writer while it runs in a group
// (MULTI, a script), so that what it reads is one state.
func sortDerefs(spec *command.Spec, args [][]byte) bool {
	if spec.Name != "sort" && spec.Name != "sort_ro" {
		return false
	}
	for j := 2; j < len(args); j++ {
		switch {
		case equalFold(args[j], "limit"):
			j += 2
		case equalFold(args[j], "store"):
			j++
		case equalFold(args[j], "by") || equalFold(args[j], "get"):
			if j+1 < len(args) && derefsPattern(args[j+1]) {
				return true
			}
			j++
		}
	}
	return false
}

// sortOwnTx reports whether SORT runs in a transaction of its own rather
// than in its client's pipeline of writes (see beginSort).
func sortOwnTx(spec *command.Spec, args [][]byte) bool {
	return spec.Name == "sort" && (len(sortGetKeys(args)) == 1 || sortDerefs(spec, args))
}

// beginSort opens the transaction of a SORT on its own: without STORE it
// writes nothing and reads one snapshot, as SORT_RO; with STORE and
// patterns that read other keys it excludes every writer, since those keys
// cannot be locked in advance; otherwise it locks its two keys.
func (s *Server) beginSort(c *client, spec *command.Spec, args [][]byte) *store.Tx {
	switch {
	case len(sortGetKeys(args)) == 1:
		return s.st.Read(true)
	case sortDerefs(spec, args):
		return s.st.BeginAll()
	}
	return s.st.Begin(c.commandKeys(spec, args))
}

func cmdSort(x *ctx)   { sortGeneric(x, false) }
func cmdSortRO(x *ctx) { sortGeneric(x, true) }

// sortItem is one element being sorted: the element, and what it sorts by
// (a number, or for ALPHA with BY a string, nil when the key was missing).
type sortItem struct {
	elem  []byte
	score float64
	cmp   []byte
}

func sortGeneric(x *ctx, readonly bool) {
	o, ok := parseSortOptions(x, readonly)
	if !ok {
		return
	}
	db, key := x.db(), x.arg(1)
	info, found, err := x.tx.Lookup(db, key)
	if err != nil {
		x.storeError(err)
		return
	}
	typ := encoding.TypeList
	if !found {
		x.missed(key)
	} else {
		typ = info.Type
		if typ != encoding.TypeList && typ != encoding.TypeSet && typ != encoding.TypeZSet {
			x.errorReply(string(store.ErrWrongType))
			return
		}
	}
	dontsort := o.dontsort
	by := o.by
	if dontsort && typ == encoding.TypeSet && (o.store != nil || x.inScript()) {
		// A set has no order of its own: what a script or a STORE sees
		// must not depend on it, so Redis sorts it by value.
		dontsort, o.alpha, by = false, true, nil
	}
	size := int64(0)
	if found {
		size = int64(info.Size)
	}
	start := min(max(o.start, 0), size)
	count := min(max(o.count, -1), size)
	end := size - 1
	if count >= 0 {
		end = start + count - 1
	}
	if start >= size {
		start, end = size-1, size-2
	}
	end = min(end, size-1)

	items, err := sortLoad(x, typ, found, dontsort, o.desc, start, end, size)
	if err != nil {
		x.storeError(err)
		return
	}
	if dontsort && (typ == encoding.TypeList || typ == encoding.TypeZSet) {
		// The range was loaded directly: the output is all of it.
		end -= start
		start = 0
	}
	// The size came from the same state the elements did; a corrupt
	// collection must still not index past them.
	end = min(end, int64(len(items))-1)

	convErr := false
	if !dontsort {
		for i := range items {
			it := &items[i]
			val := it.elem
			if by != nil {
				v, ok, err := sortLookup(x, by, it.elem)
				if err != nil {
					x.storeError(err)
					return
				}
				if !ok {
					continue
				}
				val = v
			}
			if o.alpha {
				if by != nil {
					it.cmp = val
				}
				continue
			}
			score, ok := sortScore(val)
			if !ok {
				convErr = true
			}
			it.score = score
		}
		cmp := sortCompare(o.alpha, by != nil, o.store != nil)
		if o.desc {
			asc := cmp
			cmp = func(a, b sortItem) int { return -asc(a, b) }
		}
		if by != nil && (start != 0 || end != int64(len(items))-1) {
			// Redis sorts only what the LIMIT shows, with a partial
			// quicksort whose order of equal elements is its own.
			pqsort(items, cmp, int(start), int(end))
		} else {
			// glibc's qsort, a merge sort: equal elements keep
			// their order.
			slices.SortStableFunc(items, cmp)
		}
	}

	if convErr {
		x.errorReply("ERR One or more scores can't be converted into double")
		return
	}
	// Everything is read before the reply begins, so that a failing read
	// can still be the reply. missing marks the GETs that found nothing.
	n := max(end-start+1, 0)
	if len(o.gets) > 0 {
		n *= int64(len(o.gets))
	}
	out := make([][]byte, 0, n)
	var missing []bool
	if len(o.gets) > 0 {
		missing = make([]bool, 0, n)
	}
	for j := start; j <= end; j++ {
		elem := items[j].elem
		if len(o.gets) == 0 {
			out = append(out, elem)
			continue
		}
		for _, p := range o.gets {
			v, ok, err := sortLookup(x, p, elem)
			if err != nil {
				x.storeError(err)
				return
			}
			out = append(out, v)
			missing = append(missing, !ok)
		}
	}
	if o.store == nil {
		x.w.Array(len(out))
		for i, v := range out {
			if missing != nil && missing[i] {
				x.w.NullBulk()
			} else {
				x.w.Bulk(v)
			}
		}
		return
	}
	for i := range out {
		if missing != nil && missing[i] {
			// A STORE keeps an empty string for what GET did not find.
			out[i] = []byte{}
		}
	}
	existed := false
	if len(out) == 0 && x.tx.Notifies(notify.Generic) {
		existed, _ = x.tx.Exists(db, o.store)
	}
	stored, err := x.tx.ListStore(db, o.store, out)
	if err != nil {
		x.storeError(err)
		return
	}
	switch {
	case stored > 0:
		x.notify(notify.List, "sortstore", o.store)
	case existed:
		x.notify(notify.Generic, "del", o.store)
	}
	x.w.Int(int64(len(out)))
}

// inScript reports whether the command runs inside a script or function.
func (x *ctx) inScript() bool { return x.group != nil && x.group.kind != groupMulti }

// sortLoad reads the elements to sort. Without sorting, a list's or sorted
// set's range [start, end] (of the collection reversed, with desc) is all
// that is read; otherwise every element, in the collection's order.
func sortLoad(x *ctx, typ encoding.Type, found, dontsort, desc bool, start, end, size int64) ([]sortItem, error) {
	if !found {
		return nil, nil
	}
	db, key := x.db(), x.arg(1)
	var elems [][]byte
	ranged := dontsort && (typ == encoding.TypeList || typ == encoding.TypeZSet)
	switch {
	case ranged && end < start:
		return nil, nil
	case ranged && typ == encoding.TypeList:
		lo, hi := start, end
		if desc {
			lo, hi = size-1-end, size-1-start
		}
		v, err := x.tx.LRange(db, key, lo, hi)
		if err != nil {
			return nil, err
		}
		if desc {
			slices.Reverse(v)
		}
		elems = v
	case ranged:
		ms, err := x.tx.ZRange(db, key, store.ZRange{By: store.ZByRank, Rev: desc, Start: start, Stop: end, Count: -1})
		if err != nil {
			return nil, err
		}
		elems = make([][]byte, len(ms))
		for i, m := range ms {
			elems[i] = m.Member
		}
	case typ == encoding.TypeList:
		v, err := x.tx.LRange(db, key, 0, -1)
		if err != nil {
			return nil, err
		}
		elems = v
	case typ == encoding.TypeSet:
		err := x.tx.SMembers(db, key, func(n int64) { elems = make([][]byte, 0, n) },
			func(m []byte) { elems = append(elems, bytes.Clone(m)) })
		if err != nil {
			return nil, err
		}
	default:
		ms, err := x.tx.ZRange(db, key, store.ZRange{By: store.ZByRank, Start: 0, Stop: -1, Count: -1})
		if err != nil {
			return nil, err
		}
		elems = make([][]byte, len(ms))
		for i, m := range ms {
			elems[i] = m.Member
		}
	}
	items := make([]sortItem, len(elems))
	for i, e := range elems {
		items[i].elem = e
	}
	return items, nil
}

// sortLookup is Redis's lookupKeyByPattern: "#" is the element itself; a
// pattern without '*' finds nothing; otherwise the first '*' becomes the
// element, and "->field" after it names a field of a hash. Only a string
// (or, with a field, a hash's field) is found.
func sortLookup(x *ctx, pattern, elem []byte) ([]byte, bool, error) {
	if len(pattern) == 1 && pattern[0] == '#' {
		return elem, true, nil
	}
	k, field, ok := sortPatternKey(pattern, elem)
	if !ok {
		return nil, false, nil
	}
	db := x.db()
	info, found, err := x.tx.Lookup(db, k)
	if err != nil {
		return nil, false, err
	}
	if !found {
		x.missed(k)
		return nil, false, nil
	}
	if field != nil {
		if info.Type != encoding.TypeHash {
			return nil, false, nil
		}
		v, ok, err := x.tx.HGet(db, k, field)
		return ownValue(v), ok, err
	}
	if info.Type != encoding.TypeString {
		return nil, false, nil
	}
	v, ok, err := x.tx.GetString(db, k)
	return ownValue(v), ok, err
}

// ownValue copies a value the store lent, never returning nil: an empty
// value is a value, where nil means missing.
func ownValue(v []byte) []byte { return append(make([]byte, 0, len(v)), v...) }

// sortPatternKey substitutes elem for the first '*' of pattern, and splits
// off the hash field a "->field" after that '*' names (a non-empty one).
// ok is false for a pattern without '*'.
func sortPatternKey(pattern, elem []byte) (key, field []byte, ok bool) {
	star := bytes.IndexByte(pattern, '*')
	if star < 0 {
		return nil, nil, false
	}
	post := pattern[star+1:]
	if f := bytes.Index(post, []byte("->")); f >= 0 && f+2 < len(post) {
		field = post[f+2:]
		post = post[:f]
	}
	key = make([]byte, 0, star+len(elem)+len(post))
	key = append(append(append(key, pattern[:star]...), elem...), post...)
	return key, field, true
}

// sortScore converts a value to the number SORT sorts it by, as Redis's
// strtod call does: the value ends at its first NUL byte (a C string),
// leading white space is skipped, an empty value is 0, and anything else
// must be a whole number that neither overflows nor underflows (ERANGE)
// and is not NaN.
func sortScore(v []byte) (float64, bool) {
	if i := bytes.IndexByte(v, 0); i >= 0 {
		v = v[:i]
	}
	if len(v) == 0 {
		return 0, true
	}
	i := 0
	for i < len(v) && (v[i] == ' ' || (v[i] >= '\t' && v[i] <= '\r')) {
		i++
	}
	f, ok := rconv.ParseFloat(v[i:])
	if ok && f != 0 && math.Abs(f) < 0x1p-1022 && !exactFloat(v[i:], f) {
		// glibc reports a subnormal result that had to be rounded as
		// ERANGE too.
		return 0, false
	}
	return f, ok
}

// exactFloat reports whether the number written in s (strtod's syntax,
// already checked) is exactly f.
func exactFloat(s []byte, f float64) bool {
	var r big.Rat
	if _, ok := r.SetString(string(s)); !ok {
		return false
	}
	var fr big.Rat
	fr.SetFloat64(f)
	return r.Cmp(&fr) == 0
}

// sortCompare is Redis's sortCompare, ascending. Numbers compare by value,
// equal ones by their bytes. ALPHA compares the BY values (a missing one
// first) or the elements; a STORE compares bytes, a reply collates them as
// strcoll does in the C locale: as C strings, up to the first NUL.
func sortCompare(alpha, byPattern, storing bool) func(a, b sortItem) int {
	str := cstrCompare
	if storing {
		str = bytes.Compare
	}
	switch {
	case !alpha:
		return func(a, b sortItem) int {
			switch {
			case a.score > b.score:
				return 1
			case a.score < b.score:
				return -1
			}
			return bytes.Compare(a.elem, b.elem)
		}
	case byPattern:
		return func(a, b sortItem) int {
			switch {
			case a.cmp == nil && b.cmp == nil:
				return 0
			case a.cmp == nil:
				return -1
			case b.cmp == nil:
				return 1
			}
			return str(a.cmp, b.cmp)
		}
	default:
		return func(a, b sortItem) int { return str(a.elem, b.elem) }
	}
}

// cstrCompare compares a and b as C strings: each ends at its first NUL.
func cstrCompare(a, b []byte) int {
	if i := bytes.IndexByte(a, 0); i >= 0 {
		a = a[:i]
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return bytes.Compare(a, b)
}

// pqsort is Redis's pqsort (pqsort.c, from NetBSD's qsort): a quicksort
// that leaves unsorted the parts of v wholly outside [lrange, rrange]. Its
// exact steps are kept, so that equal elements end in the order Redis
// leaves them in.
func pqsort(v []sortItem, cmp func(a, b sortItem) int, lrange, rrange int) {
	pqsortPart(v, 0, len(v), cmp, lrange, rrange)
}

// pqsortPart sorts v[a:a+n].
func pqsortPart(v []sortItem, a, n int, cmp func(a, b sortItem) int, lrange, rrange int) {
	swap := func(i, j int) { v[i], v[j] = v[j], v[i] }
	vecswap := func(i, j, n int) {
		for k := range n {
			swap(i+k, j+k)
		}
	}
	// outside reports whether [lrange, rrange] misses v[lo:lo+k] entirely.
	outside := func(lo, k int) bool {
		return (lrange < lo && rrange < lo) || (lrange >= lo+k && rrange >= lo+k)
	}
	for {
		if n < 7 {
			for pm := a + 1; pm < a+n; pm++ {
				for pl := pm; pl > a && cmp(v[pl-1], v[pl]) > 0; pl-- {
					swap(pl, pl-1)
				}
			}
			return
		}
		pm := a + n/2
		if n > 7 {
			pl, pn := a, a+n-1
			if n > 40 {
				d := n / 8
				pl = med3(v, pl, pl+d, pl+2*d, cmp)
				pm = med3(v, pm-d, pm, pm+d, cmp)
				pn = med3(v, pn-2*d, pn-d, pn, cmp)
			}
			pm = med3(v, pl, pm, pn, cmp)
		}
		swap(a, pm)
		pa, pb := a+1, a+1
		pc, pd := a+n-1, a+n-1
		for {
			for pb <= pc {
				c := cmp(v[pb], v[a])
				if c > 0 {
					break
				}
				if c == 0 {
					swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				c := cmp(v[pc], v[a])
				if c < 0 {
					break
				}
				if c == 0 {
					swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			swap(pb, pc)
			pb++
			pc--
		}
		pn := a + n
		r := min(pa-a, pb-pa)
		vecswap(a, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		vecswap(pb, pn-r, r)
		if r = pb - pa; r > 1 && !outside(a, r) {
			pqsortPart(v, a, r, cmp, lrange, rrange)
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		// The right part by iteration, as Redis does.
		a, n = pn-r, r
		if outside(a, n) {
			return
		}
	}
}

// med3 is the index of the median of v[a], v[b] and v[c], as pqsort.c
// picks it.
func med3(v []sortItem, a, b, c int, cmp func(a, b sortItem) int) int {
	if cmp(v[a], v[b]) < 0 {
		switch {
		case cmp(v[b], v[c]) < 0:
			return b
		case cmp(v[a], v[c]) < 0:
			return c
		}
		return a
	}
	switch {
	case cmp(v[b], v[c]) > 0:
		return b
	case cmp(v[a], v[c]) < 0:
		return a
	}
	return c
}
