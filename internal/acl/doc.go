// Package acl is Cairn's access control, as Redis 7.2's ACL describes it:
// users with passwords and flags, each with a root selector and any number
// of further selectors; a selector allows commands (a bitset over command
// ids, built from +cmd, -cmd, +@category and -@category rules), keys (glob
// patterns with read, write or both permissions: ~p, %R~p, %W~p) and pub/sub
// channels (&p). A command runs when any of its user's selectors allows the
// command, every key it names and every channel it names.
//
// The package parses rules (ACL SETUSER, the config file's user lines, the
// aclfile), describes users back in the same syntax (ACL LIST, ACL SAVE),
// checks a command line against a user (Profile.Check), checks passwords,
// keeps the ACL LOG and makes ACL GENPASS passwords. It knows commands only
// through a Catalog built from the command table's specs, so every command,
// present or future, is covered by the same code: its categories come from
// the spec, its keys from the spec's key specs.
//
// It never sees the protocol and never touches clients: the server decides
// what to do with a denial (reply, log, disconnect).
//
// Concurrency: a User is shared by the connections authenticated as it; its
// Profile is immutable and replaced atomically by a change, so a check reads
// one pointer and never locks. A Registry serializes changes.
package acl
