// Package rconv converts numbers to and from text exactly as Redis 7 does,
// because clients see the difference: which arguments a command accepts as an
// integer, a float or a cursor, and the bytes of every number in a reply.
//
// Parsers (each takes the raw argument, binary-safe, and never allocates on
// success for ordinary input):
//
//   - ParseInt is string2ll: the strict integer of INCRBY, EXPIRE, LRANGE...
//   - ParseCursor is the strtoul-based SCAN cursor parser.
//   - ParseFloat is string2d: the double of ZADD, ZINCRBY, GEOADD...
//   - ParseLongDouble is string2ld's accept/reject rules, with the value in
//     a float64 (see its caveat on range); ParseLongDoubleExact keeps the
//     whole long double (see LongDouble below).
//
// Formatters (append to dst, never allocate beyond growing dst):
//
//   - AppendInt is ll2string.
//   - AppendFloat is d2string from Redis 7.2+: how ZSCORE, ZINCRBY and every
//     RESP3 double print.
//   - LongDouble is Redis's 80-bit long double, which Go lacks: INCRBYFLOAT
//     and HINCRBYFLOAT read (ParseLongDoubleExact), add (Add) and print
//     (AppendHuman, ld2string's human mode) in it, emulated exactly with
//     math/big where an int64 does not hold the value.
//
// The package must never depend on locale or on the C library: the rules of
// glibc's strtod/strtold/strtoul in the "C" locale are written out here.
package rconv
