package command

import (
	"math"
	"slices"

	"github.com/cairndb/cairn/internal/rconv"
)

// CheckArity reports whether argc arguments (the command name included) fit
// the spec's arity: exactly Arity when positive, at least -Arity when
// negative. It is the check Redis makes before running any command.
func (s *Spec) CheckArity(argc int) bool {
	if s.Arity > 0 {
		return argc == s.Arity
	}
	return argc >= -s.Arity
}

// KeyIndices returns the indices in args (args[0] is the command name) of
// the arguments that are keys, or nil when there are none or the arguments
// are malformed. It never panics and every index it returns is within args.
//
// It follows Redis 7: the key specs are used when at least one of them names
// real keys (not KeyNotKey) and none is KeyVariableFlags; if they fail
// (a spec of unknown type, KeyIncomplete, or arguments that do not fit), or
// are not usable, KeysFunc decides. A spec without KeySpecs uses KeysFunc or
// else the legacy First/Last/Step. Keys come in key-spec order, which is why
// ZUNIONSTORE's destination precedes its sources.
func (s *Spec) KeyIndices(args [][]byte) []int {
	keys := s.AppendKeyIndices(nil, args)
	if len(keys) == 0 {
		return nil
	}
	return keys
}

// AppendKeyIndices is KeyIndices appending to dst, for callers that reuse a
// buffer on a hot path. On malformed arguments it returns dst unchanged.
func (s *Spec) AppendKeyIndices(dst []int, args [][]byte) []int {
	dst, _ = s.appendKeys(dst, args, nil)
	return dst
}

// KeyRef is one key of a command line: its index in the arguments and the
// key-spec flags the command uses it with, as COMMAND GETKEYSANDFLAGS
// reports them.
type KeyRef struct {
	Pos   int
	Flags KeyFlag
}

// KeyRefs returns the keys KeyIndices finds, each with its flags: those of
// the key spec that found it, or for a KeyVariableFlags spec what
// KeyFlagsFunc says of this call. Keys that only KeysFunc could find have
// no flags, as most of Redis's getkeys procs report none, unless
// KeysFuncFlags gives them. It returns nil when
// there are no keys or the arguments are malformed.
func (s *Spec) KeyRefs(args [][]byte) []KeyRef {
	var sc KeyScratch
	refs := s.AppendKeyRefs(nil, args, &sc)
	if len(refs) == 0 {
		return nil
	}
	return refs
}

// KeyScratch is reusable working space for AppendKeyRefs.
type KeyScratch struct{ keys, from []int }

// AppendKeyRefs is KeyRefs appending to dst and working in sc, so that a
// caller on a hot path (the ACL check of every command) allocates nothing
// once its buffers have grown.
func (s *Spec) AppendKeyRefs(dst []KeyRef, args [][]byte, sc *KeyScratch) []KeyRef {
	keys, fromSpecs := s.appendKeys(sc.keys[:0], args, &sc.from)
	sc.keys = keys
	from := sc.from
	if len(keys) == 0 {
		return dst
	}
	base := len(dst)
	dst = slices.Grow(dst, len(keys))[:base+len(keys)]
	refs := dst[base:]
	var funcFlags []KeyFlag
	if !fromSpecs && s.KeysFuncFlags != nil {
		funcFlags = s.KeysFuncFlags(args, keys)
	}
	for i, k := range keys {
		refs[i].Pos = k
		if !fromSpecs {
			if i < len(funcFlags) {
				refs[i].Flags = funcFlags[i]
			}
			continue
		}
		spec := from[i]
		refs[i].Flags = s.KeySpecs[spec].Flags
		if refs[i].Flags&KeyVariableFlags != 0 && s.KeyFlagsFunc != nil {
			refs[i].Flags = s.KeyFlagsFunc(args, spec)
		}
	}
	return dst
}

// appendKeys is AppendKeyIndices reporting whether the key specs found the
// keys; when they did and from is not nil, from receives the index of the
// key spec behind each key.
func (s *Spec) appendKeys(dst []int, args [][]byte, from *[]int) (keys []int, fromSpecs bool) {
	realKeys, varFlags := false, false
	for i := range s.KeySpecs {
		f := s.KeySpecs[i].Flags
		realKeys = realKeys || f&KeyNotKey == 0
		varFlags = varFlags || f&KeyVariableFlags != 0
	}
	// Redis distrusts variable-flag specs only because its getkeys_proc
	// reports per-call flags; with no KeysFunc the specs still find the
	// right positions, so use them rather than report no keys at all.
	if realKeys && (!varFlags || s.KeysFunc == nil) {
		if out, ok := s.appendSpecKeys(dst, args, from); ok {
			return out, true
		}
	}
	switch {
	case s.KeysFunc != nil:
		for _, i := range s.KeysFunc(args) {
			if i > 0 && i < len(args) {
				dst = append(dst, i)
			}
		}
		return dst, false
	case len(s.KeySpecs) == 0:
		return s.appendLegacyKeys(dst, args), false
	}
	return dst, false
}

// appendSpecKeys walks the key specs like Redis's getKeysUsingKeySpecs
// without GET_KEYSPEC_RETURN_PARTIAL: any failing spec voids them all.
// A keyword that is absent only skips its spec. from, when not nil,
// receives the index of the spec behind each key appended.
func (s *Spec) appendSpecKeys(dst []int, args [][]byte, from *[]int) ([]int, bool) {
	base := len(dst)
	if from != nil {
		*from = (*from)[:0]
	}
	argc := len(args)
	for i := range s.KeySpecs {
		ks := &s.KeySpecs[i]
		if ks.Flags&KeyNotKey != 0 {
			continue
		}
		var first int
		switch ks.Begin.Type {
		case BeginIndex:
			first = ks.Begin.Index
		case BeginKeyword:
			first = keywordEnd(args, ks.Begin.Keyword, ks.Begin.StartFrom)
			if first == 0 {
				continue
			}
		default:
			return dst[:base], false
		}

		var last int
		step := ks.Find.KeyStep
		switch ks.Find.Type {
		case FindRange:
			switch {
			case ks.Find.LastKey >= 0:
				last = first + ks.Find.LastKey
			case ks.Find.Limit == 0:
				last = argc + ks.Find.LastKey
			default:
				last = first + (argc-first)/ks.Find.Limit + ks.Find.LastKey
			}
		case FindKeyNum:
			at := first + ks.Find.KeyNumIdx
			if at < 0 || at >= argc {
				return dst[:base], false
			}
			// string2ll, then a cast to C's int: Redis computes
			// first + (int)numkeys - 1 in 32 bits, so 4294967298 keys
			// are 2 (the command itself then rejects the count).
			n, ok := rconv.ParseInt(args[at])
			if !ok || n < 0 {
				return dst[:base], false
			}
			first += ks.Find.FirstKey
			last = int(int32(first) + int32(n) - 1)
		default:
			return dst[:base], false
		}

		// Redis trusts its own tables for first >= 1 and step >= 1; a Spec
		// that skipped Table.Add gets the same answer as one out of bounds.
		if first < 1 || step < 1 || first >= argc || last >= argc || last < first {
			return dst[:base], false
		}
		for k := first; k <= last; k += step {
			dst = append(dst, k)
			if from != nil {
				*from = append(*from, i)
			}
		}
		if ks.Flags&KeyIncomplete != 0 {
			return dst[:base], false
		}
	}
	return dst, true
}

// keywordEnd returns the index after keyword, or 0 when it is absent. Like
// Redis it scans from startFrom up to, but not including, the last argument
// (a keyword there has no key after it), or for a negative startFrom from
// len(args)+startFrom down to, but not including, argument 1.
func keywordEnd(args [][]byte, keyword string, startFrom int) int {
	argc := len(args)
	start, end := startFrom, argc-1
	if startFrom <= 0 {
		start, end = argc+startFrom, 1
	}
	dir := 1
	if start > end {
		dir = -1
	}
	for i := start; i != end; i += dir {
		if i >= argc || i < 1 {
			break
		}
		if equalFoldASCII(args[i], keyword) {
			return i + 1
		}
	}
	return 0
}

// NumKeysFunc returns a KeysFunc that finds keys as Redis's genericGetKeys
// does: the getkeys_proc of the commands whose keys follow a count
// (ZUNIONSTORE, ZUNION, SINTERCARD, LMPOP, BZMPOP, ...), which Redis falls
// back to when their key specs fail. The count at countAt is read with C's
// atoi (see catoi), so COMMAND GETKEYS ZUNIONSTORE d 02 a b finds keys that
// the key specs, and the command itself, reject. The keys start at firstAt,
// step apart; a destination at storeAt (0: none) comes last.
func NumKeysFunc(storeAt, countAt, firstAt, step int) func(args [][]byte) []int {
	return func(args [][]byte) []int {
		if step < 1 || countAt >= len(args) || firstAt > len(args) {
			return nil
		}
		n := int(catoi(args[countAt]))
		if n < 1 || n > (len(args)-firstAt)/step {
			return nil
		}
		keys := make([]int, 0, n+1)
		for i := range n {
			keys = append(keys, firstAt+i*step)
		}
		if storeAt > 0 {
			keys = append(keys, storeAt)
		}
		return keys
	}
}

// catoi is glibc's atoi, (int)strtol(s, NULL, 10): white space, an
// optional sign, then decimal digits up to the first other byte (none at
// all reads 0); a value out of the range of long saturates, and the cast to
// int keeps the low 32 bits ("4294967298" is 2, "99999999999999999999"
// is -1).
func catoi(b []byte) int32 {
	i := 0
	for i < len(b) && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	// v is the magnitude, held at 1<<63 (LONG_MIN's) once past it.
	const limit = 1 << 63
	var v uint64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if v > (limit-uint64(b[i]-'0'))/10 {
			v = limit
			continue
		}
		v = v*10 + uint64(b[i]-'0')
	}
	var n int64
	switch {
	case neg && v == limit:
		n = math.MinInt64
	case neg:
		n = -int64(v)
	case v >= limit:
		n = math.MaxInt64
	default:
		n = int64(v)
	}
	return int32(n)
}

// appendLegacyKeys extracts keys from First/Last/Step like Redis's
// getKeysUsingLegacyRangeSpec: a range that runs past the arguments yields
// no keys at all, leaving the command to report its own syntax error.
func (s *Spec) appendLegacyKeys(dst []int, args [][]byte) []int {
	first, last, step := s.First, s.Last, s.Step
	if first < 1 || step < 1 {
		return dst
	}
	argc := len(args)
	if last < 0 {
		last += argc
	}
	base := len(dst)
	for k := first; k <= last; k += step {
		if k >= argc {
			return dst[:base]
		}
		dst = append(dst, k)
	}
	return dst
}

// hasKeys mirrors Redis's doesCommandHaveKeys, the test behind COMMAND
// GETKEYS's "The command has no key arguments".
func (s *Spec) hasKeys() bool {
	if s.KeysFunc != nil {
		return true
	}
	for i := range s.KeySpecs {
		if s.KeySpecs[i].Flags&KeyNotKey == 0 {
			return true
		}
	}
	return len(s.KeySpecs) == 0 && s.First > 0
}

// KeyRange returns the legacy (first, last, step) that COMMAND INFO reports:
// First/Last/Step when any is set, else the range Redis derives from the key
// specs. Redis keeps a single index/range spec as is, glues consecutive
// step-1 index/range specs into one range, and reports 0, 0, 0 when none
// qualifies.
func (s *Spec) KeyRange() (first, last, step int) {
	if s.First != 0 || s.Last != 0 || s.Step != 0 {
		return s.First, s.Last, s.Step
	}
	first, last, step, _ = s.derivedRange()
	return first, last, step
}

// derivedRange is Redis's populateCommandLegacyRangeSpec. movable reports
// what Redis marks as movablekeys on the way: any spec the legacy range
// cannot express.
func (s *Spec) derivedRange() (first, last, step int, movable bool) {
	specs := s.KeySpecs
	if len(specs) == 0 {
		return 0, 0, 0, s.KeysFunc != nil
	}
	if len(specs) == 1 && specs[0].Begin.Type == BeginIndex && specs[0].Find.Type == FindRange {
		ks := specs[0]
		first, last = ks.Begin.Index, ks.Find.LastKey
		if last >= 0 {
			last += first
		}
		return first, last, ks.Find.KeyStep, ks.Flags&KeyIncomplete != 0
	}
	found := false
	lastKey, prevLast := 0, 0
	for _, ks := range specs {
		if ks.Begin.Type != BeginIndex || ks.Find.Type != FindRange {
			movable = true
			continue
		}
		if ks.Find.KeyStep != 1 || (prevLast != 0 && prevLast != ks.Begin.Index-1) {
			movable = true
			continue
		}
		if ks.Flags&KeyIncomplete != 0 {
			movable = true
		}
		if !found || ks.Begin.Index < first {
			first = ks.Begin.Index
		}
		found = true
		abs := ks.Find.LastKey
		if abs >= 0 {
			abs += ks.Begin.Index
		}
		// Redis compares as unsigned so that a negative ("to the end")
		// last key beats any absolute one.
		if uint32(int32(abs)) > uint32(int32(lastKey)) {
			lastKey = abs
		}
		prevLast = lastKey
	}
	if !found {
		return 0, 0, 0, true
	}
	return first, lastKey, 1, movable
}

// ReportedFlags returns the flags COMMAND INFO shows: Flags without Cairn's
// own LockAll and the hidden Protected, plus movablekeys when the key specs
// need it, as Redis derives it.
func (s *Spec) ReportedFlags() Flag {
	f := s.Flags &^ (LockAll | Protected)
	if _, _, _, movable := s.derivedRange(); movable {
		f |= MovableKeys
	}
	return f
}

// Categories returns the spec's ACL categories including those Redis implies
// from its flags: @write, @read (not for scripting commands), @admin and
// @dangerous, @pubsub, @fast, @blocking, and @slow for anything not @fast.
func (s *Spec) Categories() Category {
	c, f := s.ACL, s.Flags
	if f&Write != 0 {
		c |= CatWrite
	}
	if f&ReadOnly != 0 && c&CatScripting == 0 {
		c |= CatRead
	}
	if f&Admin != 0 {
		c |= CatAdmin | CatDangerous
	}
	if f&PubSub != 0 {
		c |= CatPubSub
	}
	if f&Fast != 0 {
		c |= CatFast
	}
	if f&Blocking != 0 {
		c |= CatBlocking
	}
	if c&CatFast == 0 {
		c |= CatSlow
	}
	return c
}
