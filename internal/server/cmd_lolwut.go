package server

import (
	"strconv"

	"github.com/cairndb/cairn/internal/lolwut"
	"github.com/cairndb/cairn/internal/rconv"
)

// cmdLolwut answers LOLWUT [VERSION v] [args...] as Redis 7 does: a
// version with art of its own (5: Georg Nees's Schotter; 6: a city of
// skyscrapers) draws it, any other — Redis 7's own included — shows only
// the version line. The art is Cairn's drawing of the same subjects
// (package lolwut), random as Redis's is.
func cmdLolwut(x *ctx) {
	ver := RedisVersion
	args := x.args[1:]
	if len(args) >= 2 && optIs(args[0], "VERSION") {
		n, ok := rconv.ParseInt(args[1])
		if !ok {
			x.errorReply("ERR value is not an integer or out of range")
			return
		}
		// Redis prints the number as an unsigned int.
		ver = strconv.FormatUint(uint64(uint32(n)), 10) + ".0.0"
		args = args[2:]
	}
	// Only the arguments the version's drawing reads are read, and they
	// must be integers, as in Redis.
	var nums []int64
	for _, a := range args[:min(len(args), lolwut.Params(ver))] {
		n, ok := rconv.ParseInt(a)
		if !ok {
			x.errorReply("ERR value is not an integer or out of range")
			return
		}
		nums = append(nums, n)
	}
	x.w.Verbatim("txt", lolwut.Render(ver, RedisVersion, nums))
}
