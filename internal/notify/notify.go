// Package notify names Redis's keyspace notification classes and events:
// the class flags of the notify-keyspace-events setting, their parsing and
// formatting exactly as Redis's, and the channels an event is published
// on. It is pure data: the store records events, the server publishes them.
package notify

import (
	"errors"
	"strconv"
)

// Class is a set of notification classes, with Redis's bit values.
type Class uint32

// The classes, by their letter in notify-keyspace-events.
const (
	Keyspace Class = 1 << iota // K: publish on __keyspace@<db>__:<key>
	Keyevent                   // E: publish on __keyevent@<db>__:<event>
	Generic                    // g: DEL, EXPIRE, RENAME, ...
	String                     // $
	List                       // l
	Set                        // s
	Hash                       // h
	ZSet                       // z
	Expired                    // x: a key reclaimed for its deadline
	Evicted                    // e: a key evicted for maxmemory
	Stream                     // t
	KeyMiss                    // m: a read of a missing key
	Module                     // d
	New                        // n: a key created

	// All is "A": every class but the key-miss and new-key events.
	All = Generic | String | List | Set | Hash | ZSet | Expired | Evicted | Stream | Module
)

// ErrInvalid is Redis's error for an unknown class letter.
var ErrInvalid = errors.New("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")

var letters = []struct {
	c     byte
	class Class
	inAll bool
}{
	{'g', Generic, true}, {'$', String, true}, {'l', List, true}, {'s', Set, true},
	{'h', Hash, true}, {'z', ZSet, true}, {'x', Expired, true}, {'e', Evicted, true},
	{'t', Stream, true}, {'d', Module, true}, {'n', New, false},
	{'K', Keyspace, false}, {'E', Keyevent, false}, {'m', KeyMiss, false},
}

// Parse reads a notify-keyspace-events value.
func Parse(s string) (Class, error) {
	var c Class
next:
	for i := 0; i < len(s); i++ {
		if s[i] == 'A' {
			c |= All
			continue
		}
		for _, l := range letters {
			if l.c == s[i] {
				c |= l.class
				continue next
			}
		}
		return 0, ErrInvalid
	}
	return c, nil
}

// String formats c as Redis's CONFIG GET shows it: "A" for every class of
// All (and then no 'n'), the type letters otherwise, then K, E and m.
func (c Class) String() string {
	var b []byte
	if c&All == All {
		b = append(b, 'A')
	} else {
		for _, l := range letters {
			if (l.inAll || l.class == New) && c&l.class != 0 {
				b = append(b, l.c)
			}
		}
	}
	for _, l := range letters[len(letters)-3:] {
		if c&l.class != 0 {
			b = append(b, l.c)
		}
	}
	return string(b)
}

// Publishes reports whether events of class ev are published under the
// setting c: the class is on, and so is K or E.
func (c Class) Publishes(ev Class) bool {
	return c&ev != 0 && c&(Keyspace|Keyevent) != 0
}

// AppendKeyspaceChannel appends __keyspace@<db>__:<key>.
func AppendKeyspaceChannel(dst []byte, db int, key []byte) []byte {
	dst = append(dst, "__keyspace@"...)
	dst = strconv.AppendInt(dst, int64(db), 10)
	dst = append(dst, "__:"...)
	return append(dst, key...)
}

// AppendKeyeventChannel appends __keyevent@<db>__:<event>.
func AppendKeyeventChannel(dst []byte, db int, event string) []byte {
	dst = append(dst, "__keyevent@"...)
	dst = strconv.AppendInt(dst, int64(db), 10)
	dst = append(dst, "__:"...)
	return append(dst, event...)
}
