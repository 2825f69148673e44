package command

// ReplyWriter is the part of a RESP reply writer that COMMAND output needs.
// The writer decides how each call is encoded for the connection's protocol:
// in RESP2 a Set is an array and a Map an array of 2n elements.
type ReplyWriter interface {
	Array(n int)
	Map(n int)
	Set(n int)
	Int(n int64)
	BulkString(s string)
	SimpleString(s string)
	NullBulk()
}

// WriteInfo writes one COMMAND INFO entry for s as Redis 7.0 does: a
// 10-element array of name, arity, flags, first key, last key, step, ACL
// categories, tips, key specs and subcommands. A nil s writes a null, which
// is what Redis answers for an unknown name.
//
// The sets and the empty subcommand list are Sets because that is how Redis
// 7.0 sends them in RESP3; a non-empty subcommand list is an Array.
// Subcommands appear in the order of s.Subcommands.
func WriteInfo(w ReplyWriter, s *Spec) {
	if s == nil {
		w.NullBulk()
		return
	}
	first, last, step := s.KeyRange()
	w.Array(10)
	w.BulkString(s.Name)
	w.Int(int64(s.Arity))
	writeNames(w, s.ReportedFlags().Names())
	w.Int(int64(first))
	w.Int(int64(last))
	w.Int(int64(step))
	writeNames(w, s.Categories().Names())
	w.Set(len(s.Tips))
	for _, tip := range s.Tips {
		w.BulkString(tip)
	}
	w.Set(len(s.KeySpecs))
	for i := range s.KeySpecs {
		writeKeySpec(w, &s.KeySpecs[i])
	}
	if len(s.Subcommands) == 0 {
		w.Set(0)
		return
	}
	w.Array(len(s.Subcommands))
	for _, sub := range s.Subcommands {
		WriteInfo(w, sub)
	}
}

func writeKeySpec(w ReplyWriter, ks *KeySpec) {
	if ks.Notes != "" {
		w.Map(4)
		w.BulkString("notes")
		w.BulkString(ks.Notes)
	} else {
		w.Map(3)
	}
	w.BulkString("flags")
	writeNames(w, ks.Flags.Names())

	w.BulkString("begin_search")
	w.Map(2)
	w.BulkString("type")
	switch ks.Begin.Type {
	case BeginIndex:
		w.BulkString("index")
		w.BulkString("spec")
		w.Map(1)
		w.BulkString("index")
		w.Int(int64(ks.Begin.Index))
	case BeginKeyword:
		w.BulkString("keyword")
		w.BulkString("spec")
		w.Map(2)
		w.BulkString("keyword")
		w.BulkString(ks.Begin.Keyword)
		w.BulkString("startfrom")
		w.Int(int64(ks.Begin.StartFrom))
	default:
		w.BulkString("unknown")
		w.BulkString("spec")
		w.Map(0)
	}

	w.BulkString("find_keys")
	w.Map(2)
	w.BulkString("type")
	switch ks.Find.Type {
	case FindRange:
		w.BulkString("range")
		w.BulkString("spec")
		w.Map(3)
		w.BulkString("lastkey")
		w.Int(int64(ks.Find.LastKey))
		w.BulkString("keystep")
		w.Int(int64(ks.Find.KeyStep))
		w.BulkString("limit")
		w.Int(int64(ks.Find.Limit))
	case FindKeyNum:
		w.BulkString("keynum")
		w.BulkString("spec")
		w.Map(3)
		w.BulkString("keynumidx")
		w.Int(int64(ks.Find.KeyNumIdx))
		w.BulkString("firstkey")
		w.Int(int64(ks.Find.FirstKey))
		w.BulkString("keystep")
		w.Int(int64(ks.Find.KeyStep))
	default:
		w.BulkString("unknown")
		w.BulkString("spec")
		w.Map(0)
	}
}

// WriteDocs writes the COMMAND DOCS value for s (the map that follows its
// name) as Redis 7.0 does: summary, since and group always, then
// complexity, doc_flags, deprecated_since, replaced_by, history, arguments
// and subcommands when present. Subcommands form a map from full name to
// their own docs, in the order of s.Subcommands.
func WriteDocs(w ReplyWriter, s *Spec) {
	n := 3
	for _, present := range [...]bool{
		s.Complexity != "",
		s.DocFlags != 0,
		s.DeprecatedSince != "",
		s.ReplacedBy != "",
		len(s.History) > 0,
		len(s.Args) > 0,
		len(s.Subcommands) > 0,
	} {
		if present {
			n++
		}
	}
	w.Map(n)
	// Redis sends a null where a (module) command lacks a summary or since.
	w.BulkString("summary")
	bulkOrNull(w, s.Summary)
	w.BulkString("since")
	bulkOrNull(w, s.Since)
	w.BulkString("group")
	w.BulkString(s.Group)
	if s.Complexity != "" {
		w.BulkString("complexity")
		w.BulkString(s.Complexity)
	}
	if s.DocFlags != 0 {
		w.BulkString("doc_flags")
		writeNames(w, s.DocFlags.Names())
	}
	if s.DeprecatedSince != "" {
		w.BulkString("deprecated_since")
		w.BulkString(s.DeprecatedSince)
	}
	if s.ReplacedBy != "" {
		w.BulkString("replaced_by")
		w.BulkString(s.ReplacedBy)
	}
	if len(s.History) > 0 {
		w.BulkString("history")
		w.Set(len(s.History))
		for _, h := range s.History {
			w.Array(2)
			w.BulkString(h.Since)
			w.BulkString(h.Changes)
		}
	}
	if len(s.Args) > 0 {
		w.BulkString("arguments")
		writeArgs(w, s.Args)
	}
	if len(s.Subcommands) > 0 {
		w.BulkString("subcommands")
		w.Map(len(s.Subcommands))
		for _, sub := range s.Subcommands {
			w.BulkString(sub.Name)
			WriteDocs(w, sub)
		}
	}
}

func bulkOrNull(w ReplyWriter, s string) {
	if s == "" {
		w.NullBulk()
		return
	}
	w.BulkString(s)
}

func writeArgs(w ReplyWriter, args []Arg) {
	w.Array(len(args))
	for i := range args {
		a := &args[i]
		keyLinked := a.Type == ArgKey || a.KeySpecIndex > 0
		nested := a.Type == ArgOneOf || a.Type == ArgBlock
		flags := 0
		for _, set := range [...]bool{a.Optional, a.Multiple, a.MultipleToken} {
			if set {
				flags++
			}
		}
		// A pure token always has one, though it may be empty (MIGRATE's "").
		hasToken := a.Token != "" || a.Type == ArgPureTok
		n := 2
		for _, present := range [...]bool{keyLinked, hasToken, a.Since != "", a.DeprecatedSince != "", flags > 0, nested, a.DisplayText != ""} {
			if present {
				n++
			}
		}
		w.Map(n)
		w.BulkString("name")
		w.BulkString(a.Name)
		w.BulkString("type")
		w.BulkString(string(a.Type))
		if keyLinked {
			w.BulkString("key_spec_index")
			w.Int(int64(a.KeySpecIndex))
		}
		if hasToken {
			w.BulkString("token")
			w.BulkString(a.Token)
		}
		if a.Since != "" {
			w.BulkString("since")
			w.BulkString(a.Since)
		}
		if a.DeprecatedSince != "" {
			w.BulkString("deprecated_since")
			w.BulkString(a.DeprecatedSince)
		}
		if flags > 0 {
			w.BulkString("flags")
			w.Set(flags)
			if a.Optional {
				w.SimpleString("optional")
			}
			if a.Multiple {
				w.SimpleString("multiple")
			}
			if a.MultipleToken {
				w.SimpleString("multiple_token")
			}
		}
		if nested {
			w.BulkString("arguments")
			writeArgs(w, a.Args)
		}
		if a.DisplayText != "" {
			w.BulkString("display_text")
			w.BulkString(a.DisplayText)
		}
	}
}

// writeNames writes names as a Set of simple strings, the form COMMAND
// INFO and DOCS use for flags and categories.
func writeNames(w ReplyWriter, names []string) {
	w.Set(len(names))
	for _, n := range names {
		w.SimpleString(n)
	}
}
