package pubsub

import (
	"slices"
	"strconv"
	"testing"
)

func receivers(h *Hub[int], k Kind, ch string) []string {
	var out []string
	for _, r := range h.AppendReceivers(nil, k, []byte(ch)) {
		s := strconv.Itoa(r.To)
		if r.ByPattern {
			s += "/" + r.Pattern
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func TestSubscribeCountsAndDelivery(t *testing.T) {
	h := New[int]()
	steps := []struct {
		name  string
		do    func() (bool, int)
		ok    bool
		count int
	}{
		{"sub a", func() (bool, int) { return h.Subscribe(1, Global, "a") }, true, 1},
		{"sub a again", func() (bool, int) { return h.Subscribe(1, Global, "a") }, false, 1},
		{"psub a*", func() (bool, int) { return h.PSubscribe(1, "a*") }, true, 2},
		{"ssub a counts shard only", func() (bool, int) { return h.Subscribe(1, Shard, "a") }, true, 1},
		{"other sub a", func() (bool, int) { return h.Subscribe(2, Global, "a") }, true, 1},
		{"unsub unknown", func() (bool, int) { return h.Unsubscribe(1, Global, "zz") }, false, 2},
		{"punsub unknown", func() (bool, int) { return h.PUnsubscribe(2, "zz") }, false, 1},
	}
	for _, st := range steps {
		ok, n := st.do()
		if ok != st.ok || n != st.count {
			t.Fatalf("%s: got (%v, %d), want (%v, %d)", st.name, ok, n, st.ok, st.count)
		}
	}
	if got, want := receivers(h, Global, "a"), []string{"1", "1/a*", "2"}; !slices.Equal(got, want) {
		t.Fatalf("receivers of a: %v, want %v", got, want)
	}
	if got, want := receivers(h, Global, "ab"), []string{"1/a*"}; !slices.Equal(got, want) {
		t.Fatalf("receivers of ab: %v, want %v", got, want)
	}
	if got, want := receivers(h, Shard, "a"), []string{"1"}; !slices.Equal(got, want) {
		t.Fatalf("shard receivers of a: %v, want %v", got, want)
	}
	if got := receivers(h, Shard, "ab"); got != nil {
		t.Fatalf("shard channels ignore patterns, got %v", got)
	}
	if c, p, s := h.Stats(); c != 1 || p != 1 || s != 1 {
		t.Fatalf("Stats = %d %d %d", c, p, s)
	}
	if n := h.NumSub(Global, "a"); n != 2 {
		t.Fatalf("NumSub = %d", n)
	}
	if c, p, s := h.Counts(1); c != 1 || p != 1 || s != 1 {
		t.Fatalf("Counts(1) = %d %d %d", c, p, s)
	}
	removed, n := h.UnsubscribeAll(1, Global, false)
	if !slices.Equal(removed, []string{"a"}) || n != 1 {
		t.Fatalf("UnsubscribeAll = %v %d", removed, n)
	}
	if n := h.NumSub(Global, "a"); n != 1 {
		t.Fatalf("NumSub after = %d", n)
	}
	h.Drop(1)
	if h.Subscribed(1) || !h.Subscribed(2) {
		t.Fatal("Drop left subscriber 1 or took 2")
	}
	if c, p, s := h.Stats(); c != 1 || p != 0 || s != 0 {
		t.Fatalf("Stats after Drop = %d %d %d", c, p, s)
	}
	h.Unsubscribe(2, Global, "a")
	if h.Subscribed(2) || len(h.subs) != 0 || len(h.channels[Global]) != 0 {
		t.Fatal("an empty subscriber or channel was kept")
	}
}

func TestChannelsPattern(t *testing.T) {
	h := New[int]()
	for _, ch := range []string{"news.a", "news.b", "sport", "[x"} {
		h.Subscribe(1, Global, ch)
	}
	h.Subscribe(1, Shard, "news.s")
	for _, tc := range []struct {
		pat  []byte
		k    Kind
		want []string
	}{
		{nil, Global, []string{"[x", "news.a", "news.b", "sport"}},
		{[]byte("news.*"), Global, []string{"news.a", "news.b"}},
		{[]byte("\\[x"), Global, []string{"[x"}},
		{[]byte("*"), Shard, []string{"news.s"}},
		{[]byte("nomatch"), Shard, nil},
	} {
		got := h.Channels(tc.k, tc.pat)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Channels(%d, %q) = %q, want %q", tc.k, tc.pat, got, tc.want)
		}
	}
}

// TestManySubscriptions subscribes one subscriber to many channels and
// patterns and drops them all; every step is O(1) per name, so this is fast.
func TestManySubscriptions(t *testing.T) {
	const n = 100000
	h := New[int]()
	for i := range n {
		h.Subscribe(7, Global, "ch:"+strconv.Itoa(i))
		h.PSubscribe(7, "p:"+strconv.Itoa(i)+"*")
	}
	if c, p, _ := h.Counts(7); c != n || p != n {
		t.Fatalf("Counts = %d %d", c, p)
	}
	removed, left := h.UnsubscribeAll(7, Global, true)
	if len(removed) != n || left != n {
		t.Fatalf("UnsubscribeAll patterns removed %d, left %d", len(removed), left)
	}
	removed, left = h.UnsubscribeAll(7, Global, false)
	if len(removed) != n || left != 0 || h.Subscribed(7) {
		t.Fatalf("UnsubscribeAll channels removed %d, left %d", len(removed), left)
	}
}

func TestSubscriptions(t *testing.T) {
	h := New[int]()
	h.Subscribe(1, Global, "a")
	h.Subscribe(1, Shard, "s")
	h.PSubscribe(1, "p*")
	h.Subscribe(2, Global, "b")
	ch, pat := h.Subscriptions(1)
	slices.Sort(ch)
	if !slices.Equal(ch, []string{"a", "s"}) || !slices.Equal(pat, []string{"p*"}) {
		t.Errorf("Subscriptions(1) = %q, %q", ch, pat)
	}
	if ch, pat := h.Subscriptions(3); ch != nil || pat != nil {
		t.Errorf("Subscriptions of no subscriber = %q, %q", ch, pat)
	}
}
