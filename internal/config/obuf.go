package config

import (
	"strconv"
	"strings"
)

// defaultOutputBufferLimits is Redis's default client-output-buffer-limit.
const defaultOutputBufferLimits = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"

// OutputBufferLimit is one client class's client-output-buffer-limit: a
// client whose pending output reaches Hard bytes, or stays at Soft bytes or
// more for longer than SoftSeconds, is disconnected. A zero limit is none.
type OutputBufferLimit struct {
	Hard, Soft  int64
	SoftSeconds int64
}

// The client classes of client-output-buffer-limit, in the order Redis
// shows them.
var outputBufferClasses = []string{"normal", "slave", "pubsub"}

// outputBufferClass is Redis's getClientTypeByName for the limit: the index
// of a class in outputBufferClasses, or -1 (master has no limit of its own).
func outputBufferClass(name string) int {
	switch {
	case asciiEqualFold(name, "normal"):
		return 0
	case asciiEqualFold(name, "slave"), asciiEqualFold(name, "replica"):
		return 1
	case asciiEqualFold(name, "pubsub"):
		return 2
	}
	return -1
}

// splitLimitWords undoes the quoting of a configuration file's single
// argument, as Redis splits a multi-argument setting given as one word.
func splitLimitWords(words []string) []string {
	if len(words) == 1 {
		return strings.Fields(words[0])
	}
	return words
}

// checkOutputBufferLimits validates groups of <class> <hard> <soft>
// <seconds> with Redis's reasons; all are refused if one is wrong.
func checkOutputBufferLimits(words []string) string {
	words = splitLimitWords(words)
	if len(words)%4 != 0 {
		return "Wrong number of arguments in buffer limit configuration."
	}
	for i := 0; i < len(words); i += 4 {
		if outputBufferClass(words[i]) < 0 {
			return "Invalid client class specified in buffer limit configuration."
		}
		_, hardOK := parseMemory(words[i+1])
		_, softOK := parseMemory(words[i+2])
		secs, secsOK := parseSoftSeconds(words[i+3])
		if !hardOK || !softOK || !secsOK || secs < 0 {
			return "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
	}
	return ""
}

// parseSoftSeconds reads the seconds as Redis does: strtoll (leading
// spaces and a sign allowed, nothing after the digits), stored in a C int.
func parseSoftSeconds(w string) (int64, bool) {
	w = cString(w)
	t := strings.TrimLeft(w, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	digits := len(t) - len(strings.TrimLeft(t, "0123456789"))
	if digits == 0 {
		// strtoll read nothing: the end pointer is the whole word, so
		// only an empty word (or spaces only, for Redis) passes, as 0.
		return 0, strings.TrimLeft(w, " \t\n\v\f\r") == ""
	}
	if digits != len(t) {
		return 0, false
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		// strtoll saturates; a C int keeps the low 32 bits: LLONG_MAX
		// becomes -1, LLONG_MIN 0.
		if neg {
			return 0, true
		}
		return -1, true
	} else if neg {
		v = -v
	}
	return int64(int32(v)), true
}

// mergeOutputBufferLimits applies validated groups to the current,
// normalized limits (three classes, four words each, memory in bytes).
func mergeOutputBufferLimits(cur, next []string) []string {
	out := append([]string(nil), cur...)
	if len(out) != 4*len(outputBufferClasses) {
		out = strings.Fields(defaultOutputBufferLimits)
	}
	next = splitLimitWords(next)
	for i := 0; i+3 < len(next); i += 4 {
		class := outputBufferClass(next[i])
		if class < 0 {
			continue
		}
		hard, _ := parseMemory(next[i+1])
		soft, _ := parseMemory(next[i+2])
		secs, _ := parseSoftSeconds(next[i+3])
		out[4*class] = outputBufferClasses[class]
		out[4*class+1] = strconv.FormatUint(hard, 10)
		out[4*class+2] = strconv.FormatUint(soft, 10)
		out[4*class+3] = strconv.FormatInt(secs, 10)
	}
	return out
}

// OutputBufferLimit returns the client-output-buffer-limit of a client
// class: "normal", "pubsub", or "slave"/"replica".
func (c *Config) OutputBufferLimit(class string) OutputBufferLimit {
	i := outputBufferClass(class)
	words := *c.outputBufferLimits.Load()
	if i < 0 || len(words) != 4*len(outputBufferClasses) {
		return OutputBufferLimit{}
	}
	hard, _ := strconv.ParseUint(words[4*i+1], 10, 64)
	soft, _ := strconv.ParseUint(words[4*i+2], 10, 64)
	secs, _ := strconv.ParseInt(words[4*i+3], 10, 64)
	return OutputBufferLimit{Hard: clampInt64(hard), Soft: clampInt64(soft), SoftSeconds: secs}
}

func clampInt64(u uint64) int64 {
	if u > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(u)
}
