package server

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// benchGenerated is benchPipeline with a different command each time:
// gen(rng) returns the next one. It sends them 64 at a time over one
// connection after the setup commands.
func benchGenerated(b *testing.B, gen func(rng *rand.Rand) string, setup ...string) {
	ts := startServer(b)
	sendRaw := pipelineSender(b, ts.raw(b))
	send := func(cmds []string) { sendRaw(strings.Join(cmds, ""), len(cmds)) }
	for _, s := range setup {
		send([]string{s})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	b.ResetTimer()
	const batch = 64
	cmds := make([]string, 0, batch)
	for i := 0; i < b.N; i += batch {
		cmds = cmds[:0]
		for range min(batch, b.N-i) {
			cmds = append(cmds, gen(rng))
		}
		send(cmds)
	}
}

// denseHLLSetup fills key with 5,000 elements: dense, as in Redis.
func denseHLLSetup(key string) string {
	args := []string{"PFADD", key}
	for i := range 5000 {
		args = append(args, "fill:"+strconv.Itoa(i))
	}
	return encodeCommand(args...)
}

const hllKeys = 100

func pfadd10(rng *rand.Rand) string {
	args := []string{"PFADD", "hll:" + strconv.Itoa(rng.IntN(hllKeys))}
	for range 10 {
		args = append(args, "e:"+strconv.FormatUint(rng.Uint64(), 16))
	}
	return encodeCommand(args...)
}

func BenchmarkPFAddDense(b *testing.B) {
	var setup []string
	for i := range hllKeys {
		setup = append(setup, denseHLLSetup("hll:"+strconv.Itoa(i)))
	}
	benchGenerated(b, pfadd10, setup...)
}

func BenchmarkPFAddDenseUnchanged(b *testing.B) {
	benchPipeline(b, encodeCommand("PFADD", "hll", "fill:1", "fill:2", "fill:3"), denseHLLSetup("hll"))
}

func BenchmarkPFCountDense(b *testing.B) {
	benchPipeline(b, encodeCommand("PFCOUNT", "hll"), denseHLLSetup("hll"))
}

func BenchmarkSetBitRandom(b *testing.B) {
	benchGenerated(b, func(rng *rand.Rand) string {
		return encodeCommand("SETBIT", "bm", strconv.Itoa(rng.IntN(100_000_000)), strconv.Itoa(rng.IntN(2)))
	})
}

func BenchmarkGetBitRandom(b *testing.B) {
	benchGenerated(b, func(rng *rand.Rand) string {
		return encodeCommand("GETBIT", "bm", strconv.Itoa(rng.IntN(100_000_000)))
	}, encodeCommand("SETBIT", "bm", "99999999", "1"))
}
