package server

import (
	"strings"

	"github.com/cairndb/cairn/internal/bitops"
	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
)

// The bitmap commands. A bitmap is a Redis string: the handlers parse
// arguments as Redis's bitops.c does (same order of checks, same errors)
// and the store reads and writes the string's fragments; the bit logic is
// package bitops.

const (
	errBitOffset = "ERR bit offset is not an integer or out of range"
	errBitValue  = "ERR bit is not an integer or out of range"
	errBitArg    = "ERR The bit argument must be 1 or 0."
	errBitType   = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
)

func bitmapCommands() []cmdEntry {
	const cat = command.CatBitmap
	one := keys{1, 1, 1}
	bitop := def("bitop", -4, write|denyoom, keys{2, -1, 1}, cat, "bitmap", "2.6.0", "Performs bitwise operations on multiple strings, and stores the result.", cmdBitOp)
	bitop.spec.KeySpecs = []command.KeySpec{
		{Flags: ow | upd, Begin: command.IndexSearch(2), Find: command.RangeKeys(0, 1, 0)},
		{Flags: ro | acc, Begin: command.IndexSearch(3), Find: command.RangeKeys(-1, 1, 0)},
	}
	return []cmdEntry{
		withKeyFlags(def("setbit", 4, write|denyoom, one, cat, "bitmap", "2.2.0", "Sets or clears the bit at offset of the string value. Creates the key if it doesn't exist.", cmdSetBit), rw|acc|upd),
		withKeyFlags(def("getbit", 3, readonly|fast, one, cat, "bitmap", "2.2.0", "Returns a bit value by offset.", cmdGetBit), ro|acc),
		withKeyFlags(def("bitcount", -2, readonly, one, cat, "bitmap", "2.6.0", "Counts the number of set bits (population counting) in a string.", cmdBitCount), ro|acc),
		withKeyFlags(def("bitpos", -3, readonly, one, cat, "bitmap", "2.8.7", "Finds the first set (1) or clear (0) bit in a string.", cmdBitPos), ro|acc),
		bitop,
		withKeyNotes(withKeyFlags(def("bitfield", -2, write|denyoom, one, cat, "bitmap", "3.2.0", "Performs arbitrary bitfield integer operations on strings.", cmdBitField), rw|upd|acc|command.KeyVariableFlags),
			"This command allows both access and modification of the key"),
		withKeyFlags(def("bitfield_ro", -2, readonly|fast, one, cat, "bitmap", "6.0.0", "Performs arbitrary read-only bitfield integer operations on strings.", cmdBitFieldRO), ro|acc),
	}
}

// bitOffset parses a bit offset as Redis's getBitOffsetFromArgument: a
// non-negative integer addressing a byte below proto-max-bulk-len, or for
// BITFIELD (hash, with the field's width) "#n", meaning n*width. It
// replies and returns false on error.
func (x *ctx) bitOffset(arg []byte, hash bool, width int) (uint64, bool) {
	useHash := hash && width > 0 && len(arg) > 0 && arg[0] == '#'
	digits := arg
	if useHash {
		digits = arg[1:]
	}
	n, ok := rconv.ParseInt(digits)
	if ok && useHash {
		// As in C, the product wraps; a wrapped one is caught below or
		// names another bit, as in Redis.
		n *= int64(width)
	}
	if !ok || n < 0 || n>>3 >= x.maxStringLen() {
		x.errorReply(errBitOffset)
		return 0, false
	}
	return uint64(n), true
}

func cmdSetBit(x *ctx) {
	off, ok := x.bitOffset(x.arg(2), false, 0)
	if !ok {
		return
	}
	on, ok := rconv.ParseInt(x.arg(3))
	if !ok || on&^1 != 0 {
		x.errorReply(errBitValue)
		return
	}
	old, changed, err := x.tx.SetBit(x.db(), x.arg(1), off, on == 1)
	if err != nil {
		x.storeError(err)
		return
	}
	if changed {
		x.notify(notify.String, "setbit", x.arg(1))
	}
	x.w.Int(boolInt(old))
}

func cmdGetBit(x *ctx) {
	off, ok := x.bitOffset(x.arg(2), false, 0)
	if !ok {
		return
	}
	bit, found, err := x.tx.GetBit(x.db(), x.arg(1), off)
	if err != nil {
		x.storeError(err)
		return
	}
	x.missedIf(!found, x.arg(1))
	x.w.Int(boolInt(bit))
}

// bitUnit parses BIT or BYTE; it replies and returns false otherwise.
func (x *ctx) bitUnit(arg []byte) (isBit, ok bool) {
	switch optName(arg) {
	case "BIT":
		return true, true
	case "BYTE":
		return false, true
	}
	x.syntaxError()
	return false, false
}

func cmdBitCount(x *ctx) {
	// Redis 7.2 looks the key up first: an absent key counts 0 whatever
	// the arguments.
	sv, err := x.tx.OpenString(x.db(), x.arg(1), true)
	if err != nil {
		x.storeError(err)
		return
	}
	if !sv.Exists() {
		x.missed(x.arg(1))
		x.w.Int(0)
		return
	}
	var from, to int64
	switch len(x.args) {
	case 4, 5:
		start, ok1 := rconv.ParseInt(x.arg(2))
		if !ok1 {
			x.notInteger()
			return
		}
		end, ok2 := rconv.ParseInt(x.arg(3))
		if !ok2 {
			x.notInteger()
			return
		}
		if start < 0 && end < 0 && start > end {
			x.w.Int(0)
			return
		}
		isBit := false
		if len(x.args) == 5 {
			var ok bool
			if isBit, ok = x.bitUnit(x.arg(4)); !ok {
				return
			}
		}
		var ok bool
		if from, to, ok = bitops.Range(start, end, isBit, sv.Len()); !ok {
			x.w.Int(0)
			return
		}
	case 2:
		if sv.Len() == 0 {
			x.w.Int(0)
			return
		}
		from, to = 0, sv.Len()<<3-1
	default:
		x.syntaxError()
		return
	}
	n, err := bitops.Count(sv, from, to)
	x.replyInt(n, err)
}

func cmdBitPos(x *ctx) {
	bit, ok := rconv.ParseInt(x.arg(2))
	if !ok {
		x.notInteger()
		return
	}
	if bit != 0 && bit != 1 {
		x.errorReply(errBitArg)
		return
	}
	sv, err := x.tx.OpenString(x.db(), x.arg(1), true)
	if err != nil {
		x.storeError(err)
		return
	}
	if !sv.Exists() {
		// An absent key is an infinite run of zeros.
		x.missed(x.arg(1))
		x.w.Int(-bit)
		return
	}
	start, end := int64(0), int64(-1)
	isBit, endGiven := false, false
	switch len(x.args) {
	case 4, 5, 6:
		if start, ok = rconv.ParseInt(x.arg(3)); !ok {
			x.notInteger()
			return
		}
		if len(x.args) == 6 {
			if isBit, ok = x.bitUnit(x.arg(5)); !ok {
				return
			}
		}
		if len(x.args) >= 5 {
			if end, ok = rconv.ParseInt(x.arg(4)); !ok {
				x.notInteger()
				return
			}
			endGiven = true
		}
	case 3:
	default:
		x.syntaxError()
		return
	}
	from, to, ok := bitops.Range(start, end, isBit, sv.Len())
	if !ok {
		x.w.Int(-1)
		return
	}
	pos, err := bitops.Pos(sv, bit == 1, from, to)
	if err != nil {
		x.storeError(err)
		return
	}
	if pos < 0 && bit == 0 && !endGiven {
		// Without an end the string counts as padded with zeros on the
		// right: the first clear bit is just past the range.
		pos = (to>>3 + 1) << 3
	}
	x.w.Int(pos)
}

func cmdBitOp(x *ctx) {
	op, ok := bitops.ParseOp(x.arg(1))
	if !ok {
		x.syntaxError()
		return
	}
	switch {
	case op == bitops.Not && len(x.args) != 4:
		x.errorReply("ERR BITOP NOT must be called with a single source key.")
		return
	case (op == bitops.Diff || op == bitops.Diff1 || op == bitops.AndOr) && len(x.args) < 5:
		x.errorReply("ERR BITOP " + strings.ToUpper(string(x.arg(1))) + " must be called with at least two source keys.")
		return
	}
	dest, srcs := x.arg(2), x.args[3:]
	x.keyMiss(srcs...)
	n, deleted, err := x.tx.BitOp(x.db(), op, dest, srcs)
	if err != nil {
		x.storeError(err)
		return
	}
	switch {
	case n > 0:
		x.notify(notify.String, "set", dest)
	case deleted:
		x.notify(notify.Generic, "del", dest)
	}
	x.w.Int(n)
}

func cmdBitField(x *ctx)   { bitField(x, false) }
func cmdBitFieldRO(x *ctx) { bitField(x, true) }

// bitField is BITFIELD and, readOnly, BITFIELD_RO: the operations are all
// parsed (and checked) before the key is touched, as in Redis.
func bitField(x *ctx, readOnly bool) {
	var ops []bitops.FieldOp
	ow := bitops.Wrap
	write := false
	for j := 2; j < len(x.args); j++ {
		rem := len(x.args) - j - 1
		var kind bitops.FieldKind
		switch name := optName(x.arg(j)); {
		case name == "GET" && rem >= 2:
			kind = bitops.FieldGet
		case name == "SET" && rem >= 3:
			kind = bitops.FieldSet
		case name == "INCRBY" && rem >= 3:
			kind = bitops.FieldIncrBy
		case name == "OVERFLOW" && rem >= 1:
			j++
			switch optName(x.arg(j)) {
			case "WRAP":
				ow = bitops.Wrap
			case "SAT":
				ow = bitops.Sat
			case "FAIL":
				ow = bitops.Fail
			default:
				x.errorReply("ERR Invalid OVERFLOW type specified")
				return
			}
			continue
		default:
			x.syntaxError()
			return
		}
		op := bitops.FieldOp{Kind: kind, Overflow: ow}
		t := x.arg(j + 1)
		width, ok := int64(0), len(t) > 0 && (t[0] == 'i' || t[0] == 'u')
		if ok {
			op.Signed = t[0] == 'i'
			width, ok = rconv.ParseInt(t[1:])
		}
		if !ok || width < 1 || (op.Signed && width > 64) || (!op.Signed && width > 63) {
			x.errorReply(errBitType)
			return
		}
		op.Bits = int(width)
		if op.Offset, ok = x.bitOffset(x.arg(j+2), true, op.Bits); !ok {
			return
		}
		if kind != bitops.FieldGet {
			write = true
			if op.Value, ok = rconv.ParseInt(x.arg(j + 3)); !ok {
				x.notInteger()
				return
			}
			j++
		}
		j += 2
		ops = append(ops, op)
	}
	if write && readOnly {
		x.errorReply("ERR BITFIELD_RO only supports the GET subcommand")
		return
	}
	if !write {
		x.keyMiss(x.arg(1))
	}
	res, changed, err := x.tx.BitField(x.db(), x.arg(1), ops, write)
	if err != nil {
		x.storeError(err)
		return
	}
	if changed {
		x.notify(notify.String, "setbit", x.arg(1))
	}
	x.w.Array(len(res))
	for _, r := range res {
		if r.Nil {
			x.w.NullBulk()
		} else {
			x.w.Int(r.Value)
		}
	}
}
