// Package rdb encodes and decodes Redis's serialization formats: the
// pieces of the RDB file format (length and string encodings, LZF, the
// CRC64 Redis uses) and the payloads built from them that clients move
// between servers — DUMP/RESTORE's value payloads and FUNCTION DUMP's
// library payloads.
//
// It is pure: no I/O beyond the byte slices, readers and writers it is
// handed, no server state.
// The type and opcode numbers are Redis's (src/rdb.h) and frozen forever,
// like the constants of an on-disk format. Every decoder treats its input
// as hostile: a length is checked against the bytes that remain before
// anything is allocated for it, and a malformed payload is an error wrapping
// ErrCorrupt, never a panic.
//
// DUMP payloads (AppendValue, DecodeValue) are a type byte, the value and
// the trailer. DecodeValue reads every encoding of strings, lists, sets,
// sorted sets, hashes and streams that Redis 7.4 or an older Redis writes —
// plain, intset, listpack, ziplist, zipmap, quicklist, 7.4's hashes with
// field deadlines, and streams of Redis 5, 7.0 and 7.2 with their consumer
// groups. AppendValue writes plain forms, a quicklist of listpacks and
// Redis 7.0's stream under version 10, which every Redis 7 restores; only a
// hash with field deadlines needs 7.4's type and version 12.
//
// RDB files: ReadFile streams one from an io.Reader (versions 1 to 12),
// reporting AUX fields, databases, keys with their deadlines, function
// libraries, and the keys it skips (module types, by name) to
// callbacks, one value in memory at a time, and verifies the checksum.
// FileWriter writes version 10 files, which every Redis 7 loads.
package rdb
