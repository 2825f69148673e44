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
//   - ParseLongDouble is string2ld, the long double of INCRBYFLOAT and
//     HINCRBYFLOAT, with its accept/reject rules (see its caveat on range).
//
// Formatters (append to dst, never allocate beyond growing dst):
//
//   - AppendInt is ll2string.
//   - AppendFloat is d2string from Redis 7.2+: how ZSCORE, ZINCRBY and every
//     RESP3 double print.
//   - AppendHumanFloat is ld2string's human mode: how INCRBYFLOAT and
//     HINCRBYFLOAT print.
//
// Caveat: Redis computes INCRBYFLOAT in 80-bit long double. Go has no long
// double, so ParseLongDouble and AppendHumanFloat work in float64 while
// keeping Redis's accept/reject decisions and output shape; the last digits of
// an INCRBYFLOAT result can differ where long double and float64 round
// differently. LongDouble (ParseLongDoubleExact, Add, AppendHuman) emulates
// the long double exactly, with math/big, for the sums that must match
// digit for digit.
//
// The package must never depend on locale or on the C library: the rules of
// glibc's strtod/strtold/strtoul in the "C" locale are written out here.
package rconv
