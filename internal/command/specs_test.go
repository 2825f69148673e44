package command

// The specs below restate Redis 7.0's own descriptions of these commands
// (COMMAND INFO / COMMAND DOCS of redis-server 7.0.15), so the golden
// replies in testdata can be compared call for call.

func getSpec() *Spec {
	return &Spec{
		Name: "get", Arity: 2, Flags: ReadOnly | Fast, ACL: CatString,
		Group: "string", Since: "1.0.0", Summary: "Get the value of a key", Complexity: "O(1)",
		KeySpecs: []KeySpec{{Flags: KeyRO | KeyAccess, Begin: IndexSearch(1), Find: RangeKeys(0, 1, 0)}},
		Args:     []Arg{{Name: "key", Type: ArgKey}},
	}
}

func setSpec() *Spec {
	return &Spec{
		Name: "set", Arity: -3, Flags: Write | DenyOOM, ACL: CatString,
		Group: "string", Since: "1.0.0", Summary: "Set the string value of a key", Complexity: "O(1)",
		KeySpecs: []KeySpec{{
			Notes: "RW and ACCESS due to the optional `GET` argument",
			Flags: KeyRW | KeyAccess | KeyUpdate | KeyVariableFlags,
			Begin: IndexSearch(1), Find: RangeKeys(0, 1, 0),
		}},
		History: []HistoryEntry{
			{"2.6.12", "Added the `EX`, `PX`, `NX` and `XX` options."},
			{"6.0.0", "Added the `KEEPTTL` option."},
			{"6.2.0", "Added the `GET`, `EXAT` and `PXAT` option."},
			{"7.0.0", "Allowed the `NX` and `GET` options to be used together."},
		},
		Args: []Arg{
			{Name: "key", Type: ArgKey},
			{Name: "value", Type: ArgString},
			{Name: "condition", Type: ArgOneOf, Since: "2.6.12", Optional: true, Args: []Arg{
				{Name: "nx", Type: ArgPureTok, Token: "NX"},
				{Name: "xx", Type: ArgPureTok, Token: "XX"},
			}},
			{Name: "get", Type: ArgPureTok, Token: "GET", Since: "6.2.0", Optional: true},
			{Name: "expiration", Type: ArgOneOf, Optional: true, Args: []Arg{
				{Name: "seconds", Type: ArgInteger, Token: "EX", Since: "2.6.12"},
				{Name: "milliseconds", Type: ArgInteger, Token: "PX", Since: "2.6.12"},
				{Name: "unix-time-seconds", Type: ArgUnixTime, Token: "EXAT", Since: "6.2.0"},
				{Name: "unix-time-milliseconds", Type: ArgUnixTime, Token: "PXAT", Since: "6.2.0"},
				{Name: "keepttl", Type: ArgPureTok, Token: "KEEPTTL", Since: "6.0.0"},
			}},
		},
	}
}

func msetSpec() *Spec {
	return &Spec{
		Name: "mset", Arity: -3, Flags: Write | DenyOOM, ACL: CatString,
		Tips:     []string{"request_policy:multi_shard", "response_policy:all_succeeded"},
		KeySpecs: []KeySpec{{Flags: KeyOW | KeyUpdate, Begin: IndexSearch(1), Find: RangeKeys(-1, 2, 0)}},
	}
}

func xreadSpec() *Spec {
	return &Spec{
		Name: "xread", Arity: -4, Flags: ReadOnly | Blocking, ACL: CatStream,
		KeySpecs: []KeySpec{{Flags: KeyRO | KeyAccess, Begin: KeywordSearch("STREAMS", 1), Find: RangeKeys(-1, 1, 2)}},
	}
}

func zunionstoreSpec() *Spec {
	return &Spec{
		Name: "zunionstore", Arity: -4, Flags: Write | DenyOOM, ACL: CatSortedSet,
		Group: "sorted-set", Since: "2.0.0",
		Summary:    "Add multiple sorted sets and store the resulting sorted set in a new key",
		Complexity: "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.",
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Begin: IndexSearch(1), Find: RangeKeys(0, 1, 0)},
			{Flags: KeyRO | KeyAccess, Begin: IndexSearch(2), Find: KeyNumKeys(0, 1, 1)},
		},
		KeysFunc: NumKeysFunc(1, 2, 3, 1),
		Args: []Arg{
			{Name: "destination", Type: ArgKey},
			{Name: "numkeys", Type: ArgInteger},
			{Name: "key", Type: ArgKey, KeySpecIndex: 1, Multiple: true},
			{Name: "weight", Type: ArgInteger, Token: "WEIGHTS", Optional: true, Multiple: true},
			{Name: "aggregate", Type: ArgOneOf, Token: "AGGREGATE", Optional: true, Args: []Arg{
				{Name: "sum", Type: ArgPureTok, Token: "SUM"},
				{Name: "min", Type: ArgPureTok, Token: "MIN"},
				{Name: "max", Type: ArgPureTok, Token: "MAX"},
			}},
		},
	}
}

func evalSpec() *Spec {
	return &Spec{
		Name: "eval", Arity: -3, Flags: NoScript | Stale | SkipMonitor | NoMandatoryKeys, ACL: CatScripting,
		Group: "scripting", Since: "2.6.0", Summary: "Execute a Lua script server side",
		Complexity: "Depends on the script that is executed.",
		KeySpecs: []KeySpec{{
			Notes: "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE",
			Flags: KeyRW | KeyAccess | KeyUpdate, Begin: IndexSearch(2), Find: KeyNumKeys(0, 1, 1),
		}},
		KeysFunc: NumKeysFunc(0, 2, 3, 1),
		Args: []Arg{
			{Name: "script", Type: ArgString},
			{Name: "numkeys", Type: ArgInteger},
			{Name: "key", Type: ArgKey, Optional: true, Multiple: true},
			{Name: "arg", Type: ArgString, Optional: true, Multiple: true},
		},
	}
}

func migrateSpec() *Spec {
	return &Spec{
		Name: "migrate", Arity: -6, Flags: Write, ACL: CatKeyspace | CatDangerous,
		Tips: []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Begin: IndexSearch(3), Find: RangeKeys(0, 1, 0)},
			{Flags: KeyRW | KeyAccess | KeyDelete | KeyIncomplete, Begin: KeywordSearch("KEYS", -2), Find: RangeKeys(-1, 1, 0)},
		},
		// Like migrateGetKeys: the keys after KEYS when argument 3 is empty.
		KeysFunc: func(args [][]byte) []int {
			for i := 6; i < len(args); i++ {
				if equalFoldASCII(args[i], "keys") && len(args[3]) == 0 {
					var keys []int
					for k := i + 1; k < len(args); k++ {
						keys = append(keys, k)
					}
					return keys
				}
			}
			return []int{3}
		},
	}
}

func sortSpec() *Spec {
	return &Spec{
		Name: "sort", Arity: -2, Flags: Write | DenyOOM, ACL: CatSet | CatSortedSet | CatList | CatDangerous,
		Group: "generic", Since: "1.0.0", Summary: "Sort the elements in a list, set or sorted set",
		Complexity: "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).",
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Begin: IndexSearch(1), Find: RangeKeys(0, 1, 0)},
			{
				Notes: "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort",
				Flags: KeyRO | KeyAccess, Begin: UnknownSearch(), Find: UnknownKeys(),
			},
			{
				Notes: "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array",
				Flags: KeyOW | KeyUpdate, Begin: UnknownSearch(), Find: UnknownKeys(),
			},
		},
		// Like sortGetKeys, reduced to the STORE option.
		KeysFunc: func(args [][]byte) []int {
			keys := []int{1}
			for i := 2; i+1 < len(args); i++ {
				if equalFoldASCII(args[i], "store") {
					keys = append(keys, i+1)
				}
			}
			return keys
		},
		Args: []Arg{
			{Name: "key", Type: ArgKey},
			{Name: "pattern", Type: ArgPattern, KeySpecIndex: 1, Token: "BY", Optional: true},
			{Name: "offset_count", Type: ArgBlock, Token: "LIMIT", Optional: true, Args: []Arg{
				{Name: "offset", Type: ArgInteger},
				{Name: "count", Type: ArgInteger},
			}},
			{Name: "pattern", Type: ArgPattern, KeySpecIndex: 1, Token: "GET", Optional: true, Multiple: true, MultipleToken: true},
			{Name: "order", Type: ArgOneOf, Optional: true, Args: []Arg{
				{Name: "asc", Type: ArgPureTok, Token: "ASC"},
				{Name: "desc", Type: ArgPureTok, Token: "DESC"},
			}},
			{Name: "sorting", Type: ArgPureTok, Token: "ALPHA", Optional: true},
			{Name: "destination", Type: ArgKey, KeySpecIndex: 2, Token: "STORE", Optional: true},
		},
	}
}

func getsetSpec() *Spec {
	return &Spec{
		Name: "getset", Arity: 3, Flags: Write | DenyOOM | Fast, ACL: CatString,
		Group: "string", Since: "1.0.0", Summary: "Set the string value of a key and return its old value",
		Complexity: "O(1)", DocFlags: DocDeprecated, DeprecatedSince: "6.2.0",
		ReplacedBy: "`SET` with the `!GET` argument",
		KeySpecs:   []KeySpec{{Flags: KeyRW | KeyAccess | KeyUpdate, Begin: IndexSearch(1), Find: RangeKeys(0, 1, 0)}},
		Args:       []Arg{{Name: "key", Type: ArgKey}, {Name: "value", Type: ArgString}},
	}
}

func pfdebugSpec() *Spec {
	return &Spec{
		Name: "pfdebug", Arity: 3, Flags: Write | DenyOOM | Admin, ACL: CatHyperLogLog,
		Group: "hyperloglog", Since: "2.8.9", Summary: "Internal commands for debugging HyperLogLog values",
		Complexity: "N/A", DocFlags: DocSysCmd,
		KeySpecs: []KeySpec{{Flags: KeyRW | KeyAccess, Begin: IndexSearch(2), Find: RangeKeys(0, 1, 0)}},
		Args:     []Arg{{Name: "subcommand", Type: ArgString}, {Name: "key", Type: ArgKey}},
	}
}

func spublishSpec() *Spec {
	return &Spec{
		Name: "spublish", Arity: 3, Flags: PubSub | Loading | Stale | Fast,
		KeySpecs: []KeySpec{{Flags: KeyNotKey, Begin: IndexSearch(1), Find: RangeKeys(0, 1, 0)}},
	}
}

func pingSpec() *Spec {
	return &Spec{Name: "ping", Arity: -1, Flags: Fast, ACL: CatConnection}
}

func configSpec() *Spec {
	return &Spec{
		Name: "config", Arity: -2,
		Group: "server", Since: "2.0.0", Summary: "A container for server configuration commands",
		Complexity: "Depends on subcommand.",
		Subcommands: []*Spec{
			{
				Name: "config|get", Arity: -3, Flags: Admin | NoScript | Loading | Stale,
				Group: "server", Since: "2.0.0", Summary: "Get the values of configuration parameters",
				Args: []Arg{{Name: "parameter", Type: ArgString, Multiple: true}},
			},
			{
				Name: "config|help", Arity: 2, Flags: Loading | Stale,
				Group: "server", Since: "5.0.0", Summary: "Show helpful text about the different subcommands",
				Complexity: "O(1)",
			},
		},
	}
}

// testTable holds every spec above.
func testTable() *Table {
	t := NewTable()
	for _, s := range []*Spec{
		getSpec(), setSpec(), msetSpec(), xreadSpec(), zunionstoreSpec(), evalSpec(),
		migrateSpec(), sortSpec(), getsetSpec(), pfdebugSpec(), spublishSpec(), pingSpec(),
		configSpec(),
	} {
		t.Add(s)
	}
	return t
}
