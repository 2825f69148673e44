// Package logthrottle keeps a flood of identical log lines from drowning a
// log: a slog.Handler wrapper that lets the first line of a kind through,
// counts the repeats that follow within a window, and then writes one
// summary, "<message> (repeated N times in the last 10s)", instead of them.
//
// Only warnings and errors are throttled: floods come from faults, and the
// informational lines (one per listener at start, say) must all be seen.
// A line's kind is its level and message; attributes do not count, so
// "command failed" with a thousand different keys is one kind. The summary
// carries the attributes of the last repeat. A line seen again after its
// window has closed passes through and opens a new window.
//
// It never delays the first line of a kind and never drops a count: every
// window that suppressed lines ends with its summary, written from a timer
// when no further line of the kind arrives.
package logthrottle

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// DefaultWindow is how long repeats of a line are counted before their
// summary is written.
const DefaultWindow = 10 * time.Second

// minLevel is the lowest level throttled.
const minLevel = slog.LevelWarn

// maxKinds bounds the kinds tracked at once, so that lines with ever new
// messages cannot grow the handler without bound; past it, lines of new
// kinds pass through untracked.
const maxKinds = 1024

// Handler wraps another slog.Handler. Handlers derived with WithAttrs or
// WithGroup share their parent's counts.
type Handler struct {
	next slog.Handler
	st   *state
}

type state struct {
	window time.Duration
	mu     sync.Mutex
	kinds  map[kindKey]*window
}

type kindKey struct {
	level slog.Level
	msg   string
}

// window is one kind's open window: the repeats seen since its first line,
// the last of them (for the summary), and the handler that would have
// written it.
type window struct {
	count int
	last  slog.Record
	next  slog.Handler
}

// New returns a Handler writing to next and summarising the repeats of a
// line seen within every after it (DefaultWindow when window <= 0).
func New(next slog.Handler, every time.Duration) *Handler {
	if every <= 0 {
		every = DefaultWindow
	}
	return &Handler{next: next, st: &state{window: every, kinds: make(map[kindKey]*window)}}
}

// Enabled implements slog.Handler.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// WithAttrs implements slog.Handler.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &Handler{next: h.next.WithAttrs(as), st: h.st}
}

// WithGroup implements slog.Handler.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), st: h.st}
}

// Handle implements slog.Handler: the first line of a kind goes out, its
// repeats within the window are counted.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < minLevel {
		return h.next.Handle(ctx, r)
	}
	k := kindKey{r.Level, r.Message}
	st := h.st
	st.mu.Lock()
	if w, ok := st.kinds[k]; ok {
		w.count++
		w.last = r.Clone()
		w.next = h.next
		st.mu.Unlock()
		return nil
	}
	if len(st.kinds) < maxKinds {
		st.kinds[k] = &window{}
		time.AfterFunc(st.window, func() { st.close(k) })
	}
	st.mu.Unlock()
	return h.next.Handle(ctx, r)
}

// close ends kind k's window, writing the summary of its repeats if any.
func (st *state) close(k kindKey) {
	st.mu.Lock()
	w := st.kinds[k]
	delete(st.kinds, k)
	st.mu.Unlock()
	if w == nil || w.count == 0 {
		return
	}
	r := slog.NewRecord(w.last.Time, w.last.Level, summary(k.msg, w.count, st.window), w.last.PC)
	w.last.Attrs(func(a slog.Attr) bool {
		r.AddAttrs(a)
		return true
	})
	_ = w.next.Handle(context.Background(), r)
}

func summary(msg string, n int, window time.Duration) string {
	times := "times"
	if n == 1 {
		times = "time"
	}
	return fmt.Sprintf("%s (repeated %d %s in the last %s)", msg, n, times, window)
}
