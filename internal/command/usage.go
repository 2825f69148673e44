package command

import "strings"

// Usage writes a command's arguments as the Redis documentation prints its
// syntax line: optional parts in [ ], a required choice in < >, and a
// repeated part followed by [part ...], e.g. for ZUNIONSTORE
//
//	destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE <SUM | MIN | MAX>]
//
// An argument shows its display text where it has one, else its name.
func Usage(args []Arg) string {
	parts := make([]string, len(args))
	for i := range args {
		parts[i] = usage(&args[i])
	}
	return strings.Join(parts, " ")
}

func usage(a *Arg) string {
	var body string
	switch a.Type {
	case ArgPureTok:
		if a.Token == "" {
			body = `""`
		}
	case ArgOneOf, ArgBlock:
		sep := " "
		if a.Type == ArgOneOf {
			sep = " | "
		}
		subs := make([]string, len(a.Args))
		for i := range a.Args {
			subs[i] = usage(&a.Args[i])
		}
		body = strings.Join(subs, sep)
	default:
		body = a.Name
		if a.DisplayText != "" {
			body = a.DisplayText
		}
	}
	tokened := func(s string) string {
		if a.Token == "" {
			return s
		}
		if s == "" {
			return a.Token
		}
		return a.Token + " " + s
	}
	// A choice is marked as one unless the brackets of an optional choice
	// already enclose it alone, so that "AGGREGATE <SUM | MIN>" does not
	// read as AGGREGATE SUM or MIN.
	choice := a.Type == ArgOneOf && (!a.Optional || a.Token != "" || a.Multiple)
	var s string
	switch {
	case a.Multiple && a.MultipleToken:
		one := tokened(body)
		s = one + " [" + one + " ...]"
	case a.Multiple:
		many := body + " [" + body + " ...]"
		if choice {
			many = "<" + many + ">"
		}
		s = tokened(many)
	case choice:
		s = tokened("<" + body + ">")
	default:
		s = tokened(body)
	}
	if a.Optional {
		s = "[" + s + "]"
	}
	return s
}
