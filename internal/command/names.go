package command

// The tables below are in the order Redis prints each set, so COMMAND INFO
// and COMMAND DOCS list names in the same order as a real server.

var flagNames = [...]struct {
	flag Flag
	name string
}{
	{Write, "write"},
	{ReadOnly, "readonly"},
	{DenyOOM, "denyoom"},
	{Admin, "admin"},
	{PubSub, "pubsub"},
	{NoScript, "noscript"},
	{Blocking, "blocking"},
	{Loading, "loading"},
	{Stale, "stale"},
	{SkipMonitor, "skip_monitor"},
	{SkipSlowlog, "skip_slowlog"},
	{Asking, "asking"},
	{Fast, "fast"},
	{NoAuth, "no_auth"},
	{MayReplicate, "may_replicate"},
	{NoMandatoryKeys, "no_mandatory_keys"},
	{NoAsyncLoading, "no_async_loading"},
	{NoMulti, "no_multi"},
	{MovableKeys, "movablekeys"},
	{AllowBusy, "allow_busy"},
}

// categoryNames carry the '@' that COMMAND INFO prints; ACL rules and
// COMMAND LIST FILTERBY ACLCAT name categories without it.
var categoryNames = [...]struct {
	cat  Category
	name string
}{
	{CatKeyspace, "@keyspace"},
	{CatRead, "@read"},
	{CatWrite, "@write"},
	{CatSet, "@set"},
	{CatSortedSet, "@sortedset"},
	{CatList, "@list"},
	{CatHash, "@hash"},
	{CatString, "@string"},
	{CatBitmap, "@bitmap"},
	{CatHyperLogLog, "@hyperloglog"},
	{CatGeo, "@geo"},
	{CatStream, "@stream"},
	{CatPubSub, "@pubsub"},
	{CatAdmin, "@admin"},
	{CatFast, "@fast"},
	{CatSlow, "@slow"},
	{CatBlocking, "@blocking"},
	{CatDangerous, "@dangerous"},
	{CatConnection, "@connection"},
	{CatTransaction, "@transaction"},
	{CatScripting, "@scripting"},
}

var keyFlagNames = [...]struct {
	flag KeyFlag
	name string
}{
	{KeyRO, "RO"},
	{KeyRW, "RW"},
	{KeyOW, "OW"},
	{KeyRM, "RM"},
	{KeyAccess, "access"},
	{KeyUpdate, "update"},
	{KeyInsert, "insert"},
	{KeyDelete, "delete"},
	{KeyNotKey, "not_key"},
	{KeyIncomplete, "incomplete"},
	{KeyVariableFlags, "variable_flags"},
}

var docFlagNames = [...]struct {
	flag DocFlag
	name string
}{
	{DocDeprecated, "deprecated"},
	{DocSysCmd, "syscmd"},
}

// Names returns the Redis names of the flags in f, in Redis's order. LockAll
// has no Redis name and Protected is hidden, as Redis hides it: both are
// left out.
func (f Flag) Names() []string {
	var names []string
	for _, e := range flagNames {
		if f&e.flag != 0 {
			names = append(names, e.name)
		}
	}
	return names
}

// Names returns the categories in c as Redis prints them ("@read"), in
// Redis's order.
func (c Category) Names() []string {
	var names []string
	for _, e := range categoryNames {
		if c&e.cat != 0 {
			names = append(names, e.name)
		}
	}
	return names
}

// CategoryByName returns the category called name ("string", without '@'),
// matched as Redis's ACL code matches it, with strcasecmp (see
// equalFoldASCII).
func CategoryByName(name string) (Category, bool) {
	for _, e := range categoryNames {
		if equalFoldASCII(name, e.name[1:]) {
			return e.cat, true
		}
	}
	return 0, false
}

// Names returns the Redis names of the key flags in f ("RW", "access", ...),
// in Redis's order.
func (f KeyFlag) Names() []string {
	var names []string
	for _, e := range keyFlagNames {
		if f&e.flag != 0 {
			names = append(names, e.name)
		}
	}
	return names
}

// Names returns the Redis names of the documentation flags in f.
func (f DocFlag) Names() []string {
	var names []string
	for _, e := range docFlagNames {
		if f&e.flag != 0 {
			names = append(names, e.name)
		}
	}
	return names
}

// equalFoldASCII reports whether the argument a names the keyword b, as
// C's strcasecmp in the "C" locale compares them: a is read up to its first
// NUL byte, as a C string ends there ("STORE\x00x" is STORE), and only A-Z
// fold. strings.EqualFold would also fold Unicode (the long s 'ſ' matches
// 's'), so a keyword could match where Redis would not. b holds no NUL.
func equalFoldASCII[T string | []byte](a T, b string) bool {
	for i := 0; i < len(a); i++ {
		if a[i] == 0 {
			a = a[:i]
			break
		}
	}
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(b); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
