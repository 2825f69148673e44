package server

// Replies of unbounded length: SRANDMEMBER, ZRANDMEMBER and HRANDFIELD
// with a negative count draw -count members with repeats, up to 2⁶³−1,
// and write them as they go. Such a handler must stop as soon as nobody
// can read the reply, or it would run, and hold its engine iterators,
// until the end of time (issue 18), and a shutdown would wait for it.

// streamCheckEvery is how many elements a streaming handler writes between
// two looks at its client.
const streamCheckEvery = 256

// clientGone reports whether the rest of a reply can no longer reach the
// client: it was killed (CLIENT KILL, shutdown, a failed sync), or a write
// to its socket failed (it hung up). A handler that sees it stop midway
// leaves a truncated reply, so it also ends the connection.
func (x *ctx) clientGone() bool {
	if x.cl.killed.Load() || x.w.Err() != nil {
		x.cl.quit = true
		return true
	}
	return false
}
