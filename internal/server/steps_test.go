package server

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Expected replies of step tables (the keyspace, list, hash and set tests), besides int64,
// string, nil (a null inside an array) and []any, which must match exactly.
type (
	// replyErr is an error reply with exactly this text.
	replyErr string
	// replyNull is a null reply.
	replyNull struct{}
	// replyPairs is field/value pairs in any order: a flat array in RESP2,
	// a map in RESP3 (HGETALL), or a flat array in both (HSCAN's page).
	replyPairs map[string]string
	// replyAnyOrder is an array (or RESP3 set) of strings in any order.
	replyAnyOrder []string
	// replyCheck is a reply checked by a function, which says what is wrong.
	replyCheck func(reply any) string
	// replyScan is a SCAN reply: this cursor, and these keys in any order.
	replyScan struct {
		cursor string
		keys   []string
	}
)

// step is one command of a step table and the reply it must get.
type step struct {
	args []any
	want any
}

func stepOf(want any, args ...any) step { return step{args: args, want: want} }

// runSteps sends the steps in order and stops at the first reply that
// differs.
func runSteps(t *testing.T, c *redis.Client, steps []step) {
	t.Helper()
	for i, s := range steps {
		if msg := replyDiff(c, s.want, s.args...); msg != "" {
			t.Fatalf("step %d, %q: %s", i, s.args, msg)
		}
	}
}

// replyDiff sends one command and describes how its reply differs from
// want ("" when it does not).
func replyDiff(c *redis.Client, want any, args ...any) string {
	got, err := c.Do(context.Background(), args...).Result()
	if msg, done := diffErrOrNull(got, err, want); done {
		return msg
	}
	switch w := want.(type) {
	case replyPairs:
		if m, ok := replyPairsOf(got); !ok || !reflect.DeepEqual(m, map[string]string(w)) {
			return fmt.Sprintf("got %#v; want the pairs %v", got, w)
		}
	case replyAnyOrder:
		if g, ok := replyStrings(got); !ok || !sameStrings(g, w) {
			return fmt.Sprintf("got %#v; want, in any order, %q", got, []string(w))
		}
	case replyScan:
		arr, ok := got.([]any)
		if ok && len(arr) == 2 && arr[0] == w.cursor {
			if keys, ok := replyStrings(arr[1]); ok && sameStrings(keys, w.keys) {
				return ""
			}
		}
		return fmt.Sprintf("got %q; want cursor %q and, in any order, %q", got, w.cursor, w.keys)
	case replyCheck:
		return w(got)
	default:
		if !reflect.DeepEqual(got, want) {
			return fmt.Sprintf("got %#v; want %#v", got, want)
		}
	}
	return ""
}

// diffErrOrNull judges the replies every step table expects alike: an
// error reply, a null reply, and an error where neither was expected. done
// is false when the reply is a value for the caller to compare.
func diffErrOrNull(got any, err error, want any) (msg string, done bool) {
	var rerr redis.Error
	switch w := want.(type) {
	case replyErr:
		if !errors.As(err, &rerr) || err.Error() != string(w) {
			return fmt.Sprintf("got %#v, %v; want error %q", got, err, w), true
		}
		return "", true
	case replyNull:
		if !errors.Is(err, redis.Nil) {
			return fmt.Sprintf("got %#v, %v; want a null reply", got, err), true
		}
		return "", true
	}
	if err != nil {
		return fmt.Sprintf("unexpected error %v; want %#v", err, want), true
	}
	return "", false
}

// replyPairsOf reads field/value pairs from a flat array or a map.
func replyPairsOf(reply any) (map[string]string, bool) {
	m := map[string]string{}
	switch r := reply.(type) {
	case []any:
		if len(r)%2 != 0 {
			return nil, false
		}
		for i := 0; i < len(r); i += 2 {
			f, ok1 := r[i].(string)
			v, ok2 := r[i+1].(string)
			if !ok1 || !ok2 {
				return nil, false
			}
			if _, dup := m[f]; dup {
				return nil, false
			}
			m[f] = v
		}
	case map[any]any:
		for k, v := range r {
			f, ok1 := k.(string)
			s, ok2 := v.(string)
			if !ok1 || !ok2 {
				return nil, false
			}
			m[f] = s
		}
	default:
		return nil, false
	}
	return m, true
}

// replyStrings reads an array of strings.
func replyStrings(reply any) ([]string, bool) {
	arr, ok := reply.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(arr))
	for i, v := range arr {
		if out[i], ok = v.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// sameStrings reports whether got and want hold the same strings, in any
// order.
func sameStrings(got, want []string) bool {
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}
