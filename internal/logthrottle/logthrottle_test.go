package logthrottle

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log destination safe for the timer's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Split(strings.TrimSpace(s.b.String()), "\n")
}

func newLogger(window time.Duration) (*slog.Logger, *syncBuffer) {
	out := &syncBuffer{}
	h := slog.NewTextHandler(out, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})
	return slog.New(New(h, window)), out
}

// waitLines waits until the log has n lines, or fails.
func waitLines(t *testing.T, out *syncBuffer, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ls := out.lines()
		if len(ls) >= n || time.Now().After(deadline) {
			return ls
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestFloodBecomesOneLineAndASummary(t *testing.T) {
	const window = 100 * time.Millisecond
	log, out := newLogger(window)
	for i := range 800 {
		log.Error("command failed", "err", fmt.Sprintf("disk full %d", i))
	}
	if ls := out.lines(); len(ls) != 1 || ls[0] != `level=ERROR msg="command failed" err="disk full 0"` {
		t.Fatalf("during the window the log is %q, want only the first line", ls)
	}
	ls := waitLines(t, out, 2)
	want := `level=ERROR msg="command failed (repeated 799 times in the last 100ms)" err="disk full 799"`
	if len(ls) != 2 || ls[1] != want {
		t.Fatalf("after the window the log is %q, want the summary %q", ls, want)
	}
	// A line after the window passes through and opens a new one.
	log.Error("command failed", "err", "again")
	log.Error("command failed", "err", "and again")
	ls = waitLines(t, out, 4)
	if len(ls) != 4 || ls[2] != `level=ERROR msg="command failed" err=again` ||
		ls[3] != `level=ERROR msg="command failed (repeated 1 time in the last 100ms)" err="and again"` {
		t.Fatalf("second window: log is %q", ls)
	}
}

func TestKindsAreLevelAndMessage(t *testing.T) {
	log, out := newLogger(time.Hour)
	derived := log.With("client", 7).WithGroup("g")
	for range 3 {
		log.Error("a")
		log.Warn("a")
		log.Error("b")
		derived.Error("a") // shares the kind "ERROR a"
	}
	log.Info("ready", "addr", 1)
	log.Info("ready", "addr", 2) // informational lines are not throttled
	ls := out.lines()
	want := []string{"level=ERROR msg=a", "level=WARN msg=a", "level=ERROR msg=b", "level=INFO msg=ready addr=1", "level=INFO msg=ready addr=2"}
	if strings.Join(ls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("log is %q, want %q", ls, want)
	}
}

func TestSingleLineHasNoSummary(t *testing.T) {
	log, out := newLogger(20 * time.Millisecond)
	log.Warn("once")
	time.Sleep(100 * time.Millisecond)
	if ls := out.lines(); len(ls) != 1 || ls[0] != "level=WARN msg=once" {
		t.Fatalf("log is %q", ls)
	}
}

func TestTrackedKindsAreBounded(t *testing.T) {
	log, out := newLogger(time.Hour)
	h := log.Handler().(*Handler)
	for i := range maxKinds + 10 {
		log.Warn(fmt.Sprint("m", i))
	}
	// Kinds past the bound are not tracked: their repeats pass through.
	log.Warn(fmt.Sprint("m", maxKinds+5))
	if n := len(out.lines()); n != maxKinds+11 {
		t.Fatalf("%d lines, want %d", n, maxKinds+11)
	}
	h.st.mu.Lock()
	defer h.st.mu.Unlock()
	if len(h.st.kinds) != maxKinds {
		t.Fatalf("%d kinds tracked, want %d", len(h.st.kinds), maxKinds)
	}
}

func TestDisabledLevelsStayDisabled(t *testing.T) {
	out := &syncBuffer{}
	log := slog.New(New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn}), 0))
	if log.Enabled(t.Context(), slog.LevelInfo) || !log.Enabled(t.Context(), slog.LevelError) {
		t.Fatal("Enabled does not follow the wrapped handler")
	}
}
