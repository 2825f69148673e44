// Package pubsub is the registry behind Redis's publish/subscribe: which
// subscriber listens to which channel, pattern or shard channel, and who
// receives a published message.
//
// As in Redis's src/pubsub.c, one implementation serves both kinds of
// channel: a Kind selects the registry (Global for SUBSCRIBE/PUBLISH, Shard
// for SSUBSCRIBE/SPUBLISH), and patterns exist for Global channels only.
// Every operation is O(1) per channel or pattern except finding the
// receivers of a message, which, as in Redis, matches the message's channel
// against every subscribed pattern (O(patterns)), and listing channels.
//
// The package never delivers anything and never blocks on a subscriber: it
// answers who the receivers are, and the caller queues the message for
// each. Its lock is held only for map operations, never while calling out.
package pubsub

import (
	"sync"

	"github.com/cairndb/cairn/internal/glob"
)

// Kind selects the channel registry: Global channels (SUBSCRIBE, PUBLISH,
// with patterns) or Shard channels (SSUBSCRIBE, SPUBLISH, no patterns).
type Kind uint8

// The two registries.
const (
	Global Kind = iota
	Shard
	numKinds
)

// Hub holds every subscription of every subscriber. S identifies a
// subscriber (the server uses its connection). It is safe for concurrent
// use; the subscriptions of one subscriber are expected to be changed by
// one goroutine at a time (its connection's), which makes the counts it is
// given back exact.
type Hub[S comparable] struct {
	mu sync.RWMutex
	// channels maps, per kind, a channel to its subscribers.
	channels [numKinds]map[string]map[S]struct{}
	// patterns maps a pattern to its subscribers.
	patterns map[string]map[S]struct{}
	// subs is each subscriber's own view, for counts and unsubscribing
	// all.
	subs map[S]*subscriptions
}

// subscriptions is one subscriber's channels (per kind) and patterns.
type subscriptions struct {
	channels [numKinds]map[string]struct{}
	patterns map[string]struct{}
}

func (ss *subscriptions) empty() bool {
	return len(ss.channels[Global]) == 0 && len(ss.channels[Shard]) == 0 && len(ss.patterns) == 0
}

// New returns an empty hub.
func New[S comparable]() *Hub[S] {
	h := &Hub[S]{patterns: map[string]map[S]struct{}{}, subs: map[S]*subscriptions{}}
	for k := range h.channels {
		h.channels[k] = map[string]map[S]struct{}{}
	}
	return h
}

// count is the subscription count Redis reports in a kind's confirmations:
// channels plus patterns for Global, shard channels for Shard.
func (ss *subscriptions) count(k Kind) int {
	if ss == nil {
		return 0
	}
	if k == Shard {
		return len(ss.channels[Shard])
	}
	return len(ss.channels[Global]) + len(ss.patterns)
}

// Subscribe adds s to channel of kind k. It reports whether s was not
// subscribed yet, and s's subscription count for k afterwards (what Redis
// puts in the confirmation).
func (h *Hub[S]) Subscribe(s S, k Kind, channel string) (added bool, count int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ss := h.subs[s]
	if ss == nil {
		ss = &subscriptions{}
		h.subs[s] = ss
	}
	if ss.channels[k] == nil {
		ss.channels[k] = map[string]struct{}{}
	}
	if _, ok := ss.channels[k][channel]; !ok {
		added = true
		ss.channels[k][channel] = struct{}{}
		add(h.channels[k], channel, s)
	}
	return added, ss.count(k)
}

// Unsubscribe removes s from channel of kind k. It reports whether s was
// subscribed, and s's subscription count for k afterwards.
func (h *Hub[S]) Unsubscribe(s S, k Kind, channel string) (removed bool, count int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ss := h.subs[s]
	if ss != nil {
		if _, ok := ss.channels[k][channel]; ok {
			removed = true
			delete(ss.channels[k], channel)
			remove(h.channels[k], channel, s)
		}
	}
	count = ss.count(k)
	h.forgetIfEmpty(s, ss)
	return removed, count
}

// PSubscribe adds s to pattern. It reports whether s was not subscribed to
// it yet, and s's Global subscription count afterwards.
func (h *Hub[S]) PSubscribe(s S, pattern string) (added bool, count int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ss := h.subs[s]
	if ss == nil {
		ss = &subscriptions{}
		h.subs[s] = ss
	}
	if ss.patterns == nil {
		ss.patterns = map[string]struct{}{}
	}
	if _, ok := ss.patterns[pattern]; !ok {
		added = true
		ss.patterns[pattern] = struct{}{}
		add(h.patterns, pattern, s)
	}
	return added, ss.count(Global)
}

// PUnsubscribe removes s from pattern. It reports whether s was subscribed
// to it, and s's Global subscription count afterwards.
func (h *Hub[S]) PUnsubscribe(s S, pattern string) (removed bool, count int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ss := h.subs[s]
	if ss != nil {
		if _, ok := ss.patterns[pattern]; ok {
			removed = true
			delete(ss.patterns, pattern)
			remove(h.patterns, pattern, s)
		}
	}
	count = ss.count(Global)
	h.forgetIfEmpty(s, ss)
	return removed, count
}

// UnsubscribeAll removes s from every channel of kind k, or, with patterns
// set, from every pattern (k is then ignored). It returns what was removed,
// in no particular order, and s's subscription count for the kind once all
// are gone: the i-th removal's confirmation carries
// count + len(removed) - 1 - i, as Redis's one-by-one removal does.
func (h *Hub[S]) UnsubscribeAll(s S, k Kind, patterns bool) (removed []string, count int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ss := h.subs[s]
	if ss == nil {
		return nil, 0
	}
	if patterns {
		k = Global
		removed = make([]string, 0, len(ss.patterns))
		for p := range ss.patterns {
			removed = append(removed, p)
			remove(h.patterns, p, s)
		}
		ss.patterns = nil
	} else {
		removed = make([]string, 0, len(ss.channels[k]))
		for ch := range ss.channels[k] {
			removed = append(removed, ch)
			remove(h.channels[k], ch, s)
		}
		ss.channels[k] = nil
	}
	count = ss.count(k)
	h.forgetIfEmpty(s, ss)
	return removed, count
}

// Drop removes every subscription of s, of every kind, without telling
// anyone: for a connection that closes or is RESET.
func (h *Hub[S]) Drop(s S) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ss := h.subs[s]
	if ss == nil {
		return
	}
	for k := range ss.channels {
		for ch := range ss.channels[k] {
			remove(h.channels[k], ch, s)
		}
	}
	for p := range ss.patterns {
		remove(h.patterns, p, s)
	}
	delete(h.subs, s)
}

// Counts returns how many channels, patterns and shard channels s is
// subscribed to (CLIENT LIST's sub, psub and ssub).
func (h *Hub[S]) Counts(s S) (channels, patterns, shard int) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	ss := h.subs[s]
	if ss == nil {
		return 0, 0, 0
	}
	return len(ss.channels[Global]), len(ss.patterns), len(ss.channels[Shard])
}

// Subscribed reports whether s has any subscription at all (Redis's
// CLIENT_PUBSUB flag).
func (h *Hub[S]) Subscribed(s S) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.subs[s] != nil
}

// Stats returns the number of Global channels, patterns and Shard channels
// with at least one subscriber (INFO's pubsub_channels, pubsub_patterns,
// pubsubshard_channels; PUBSUB NUMPAT is the second).
func (h *Hub[S]) Stats() (channels, patterns, shard int) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.channels[Global]), len(h.patterns), len(h.channels[Shard])
}

// NumSub returns the number of subscribers of channel of kind k, patterns
// not counted (PUBSUB NUMSUB, SHARDNUMSUB).
func (h *Hub[S]) NumSub(k Kind, channel string) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.channels[k][channel])
}

// Channels returns the channels of kind k that have subscribers, those
// matching pattern when it is not nil (PUBSUB CHANNELS, SHARDCHANNELS), in
// no particular order.
func (h *Hub[S]) Channels(k Kind, pattern []byte) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []string
	for ch := range h.channels[k] {
		if pattern == nil || glob.MatchString(string(pattern), ch, false) {
			out = append(out, ch)
		}
	}
	return out
}

// Receiver is one delivery of a message: to a subscriber, directly or
// through the pattern it subscribed to.
type Receiver[S comparable] struct {
	To S
	// Pattern is the matching pattern when ByPattern is set (a pmessage).
	Pattern   string
	ByPattern bool
}

// AppendReceivers appends to dst every delivery a message published to
// channel of kind k makes: each subscriber of the channel, then, for Global
// channels, each subscriber of each pattern that matches it (one delivery
// per matching pattern, as Redis sends one pmessage per pattern). The
// number of deliveries is what PUBLISH returns.
func (h *Hub[S]) AppendReceivers(dst []Receiver[S], k Kind, channel []byte) []Receiver[S] {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for s := range h.channels[k][string(channel)] {
		dst = append(dst, Receiver[S]{To: s})
	}
	if k == Shard || len(h.patterns) == 0 {
		return dst
	}
	ch := string(channel)
	for p, subs := range h.patterns {
		if !glob.MatchString(p, ch, false) {
			continue
		}
		for s := range subs {
			dst = append(dst, Receiver[S]{To: s, Pattern: p, ByPattern: true})
		}
	}
	return dst
}

// forgetIfEmpty drops s's record once it has no subscription left, so a
// subscriber that unsubscribes from everything costs nothing.
func (h *Hub[S]) forgetIfEmpty(s S, ss *subscriptions) {
	if ss != nil && ss.empty() {
		delete(h.subs, s)
	}
}

func add[S comparable](m map[string]map[S]struct{}, name string, s S) {
	subs := m[name]
	if subs == nil {
		subs = map[S]struct{}{}
		m[name] = subs
	}
	subs[s] = struct{}{}
}

// remove takes s off name's subscribers, dropping the entry with its last
// subscriber so that abandoned channels cost no memory.
func remove[S comparable](m map[string]map[S]struct{}, name string, s S) {
	subs := m[name]
	delete(subs, s)
	if len(subs) == 0 {
		delete(m, name)
	}
}

// Subscriptions lists s's channels (global and shard) and patterns, in no
// particular order: what an ACL change checks before it lets a subscriber
// stay.
func (h *Hub[S]) Subscriptions(s S) (channels, patterns []string) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	ss := h.subs[s]
	if ss == nil {
		return nil, nil
	}
	for k := range ss.channels {
		for c := range ss.channels[k] {
			channels = append(channels, c)
		}
	}
	for p := range ss.patterns {
		patterns = append(patterns, p)
	}
	return channels, patterns
}
