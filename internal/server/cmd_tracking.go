package server

import (
	"slices"
	"strconv"
	"strings"
)

// CLIENT TRACKING on|off [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN]
// [OPTOUT] [NOLOOP], with Redis's checks in Redis's order.
func cmdClientTracking(x *ctx) {
	c := x.cl
	st := &trackState{}
	for i := 3; i < len(x.args); i++ {
		more := i+1 < len(x.args)
		a := x.arg(i)
		switch {
		case optIs(a, "REDIRECT") && more:
			i++
			if st.redirect != 0 {
				x.errorReply("ERR A client can only redirect to a single other client")
				return
			}
			id, err := strconv.ParseInt(string(x.arg(i)), 10, 64)
			if err != nil {
				x.notInteger()
				return
			}
			if x.srv.clientByID(id) == nil {
				x.errorReply("ERR The client ID you want redirect to does not exist")
				return
			}
			st.redirect = id
		case optIs(a, "BCAST"):
			st.bcast = true
		case optIs(a, "OPTIN"):
			st.optin = true
		case optIs(a, "OPTOUT"):
			st.optout = true
		case optIs(a, "NOLOOP"):
			st.noloop = true
		case optIs(a, "PREFIX") && more:
			i++
			st.prefixes = append(st.prefixes, string(x.arg(i)))
		default:
			x.syntaxError()
			return
		}
	}
	switch {
	case optIs(x.arg(2), "ON"):
	case optIs(x.arg(2), "OFF"):
		x.srv.disableTracking(c)
		x.ok()
		return
	default:
		x.syntaxError()
		return
	}
	old := c.tracking()
	switch {
	case !st.bcast && len(st.prefixes) > 0:
		x.errorReply("ERR PREFIX option requires BCAST mode to be enabled")
		return
	case old != nil && old.bcast != st.bcast:
		x.errorReply("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
		return
	case st.bcast && (st.optin || st.optout):
		x.errorReply("ERR OPTIN and OPTOUT are not compatible with BCAST")
		return
	case st.optin && st.optout:
		x.errorReply("ERR You can't specify both OPTIN mode and OPTOUT mode")
		return
	case old != nil && (st.optin && old.optout || st.optout && old.optin):
		x.errorReply("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
		return
	}
	if st.bcast {
		var have []string
		if old != nil {
			have = old.prefixes
		}
		if msg := prefixCollision(have, st.prefixes); msg != "" {
			x.errorReply(msg)
			return
		}
		// A client in BCAST mode keeps the prefixes it had; with none
		// at all it hears of every key (the empty prefix).
		st.prefixes = append(append([]string(nil), have...), st.prefixes...)
		if len(st.prefixes) == 0 {
			st.prefixes = []string{""}
		}
		st.prefixes = uniqueStrings(st.prefixes)
	}
	x.srv.enableTracking(c, st)
	x.ok()
}

// prefixCollision is Redis's check that no two BCAST prefixes of a client
// overlap, one being a prefix of the other: new ones against those the
// client has, then against each other.
func prefixCollision(have, add []string) string {
	overlaps := func(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }
	for i, p := range add {
		for _, h := range have {
			if overlaps(h, p) && h != p {
				return "ERR Prefix '" + cstr(p) + "' overlaps with an existing prefix '" + cstr(h) + "'. Prefixes for a single client must not overlap."
			}
		}
		for _, q := range add[i+1:] {
			if overlaps(p, q) {
				return "ERR Prefix '" + cstr(p) + "' overlaps with another provided prefix '" + cstr(q) + "'. Prefixes for a single client must not overlap."
			}
		}
	}
	return ""
}

func uniqueStrings(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func cmdClientCaching(x *ctx) {
	st := x.cl.tracking()
	if st == nil {
		x.errorReply("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	}
	switch {
	case optIs(x.arg(2), "YES"):
		if !st.optin {
			x.errorReply("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
			return
		}
	case optIs(x.arg(2), "NO"):
		if !st.optout {
			x.errorReply("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
			return
		}
	default:
		x.syntaxError()
		return
	}
	x.cl.trkCaching = true
	x.ok()
}

func cmdClientGetRedir(x *ctx) {
	if st := x.cl.tracking(); st != nil {
		x.w.Int(st.redirect)
		return
	}
	x.w.Int(-1)
}

func cmdClientTrackingInfo(x *ctx) {
	c := x.cl
	st := c.tracking()
	flags := []string{"off"}
	if st != nil {
		flags[0] = "on"
		if st.bcast {
			flags = append(flags, "bcast")
		}
		if st.optin {
			flags = append(flags, "optin")
			if c.trkCaching {
				flags = append(flags, "caching-yes")
			}
		}
		if st.optout {
			flags = append(flags, "optout")
			if c.trkCaching {
				flags = append(flags, "caching-no")
			}
		}
		if st.noloop {
			flags = append(flags, "noloop")
		}
		if c.trkBroken.Load() {
			flags = append(flags, "broken_redirect")
		}
	}
	x.w.Map(3)
	x.w.BulkString("flags")
	x.w.Set(len(flags))
	for _, f := range flags {
		x.w.BulkString(f)
	}
	x.w.BulkString("redirect")
	if st != nil {
		x.w.Int(st.redirect)
	} else {
		x.w.Int(-1)
	}
	x.w.BulkString("prefixes")
	var prefixes []string
	if st != nil && st.bcast {
		prefixes = append(prefixes, st.prefixes...)
		slices.Sort(prefixes)
	}
	x.w.Array(len(prefixes))
	for _, p := range prefixes {
		x.w.BulkString(p)
	}
}
