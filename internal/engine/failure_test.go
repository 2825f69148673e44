package engine

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// logBuffer collects log output for assertions.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// walFault fails the operations its predicate picks while on.
type walFault struct {
	on errorfs.Toggle
}

func newFault(pick func(op errorfs.Op) bool) *walFault {
	f := &walFault{}
	f.on.Injector = errorfs.InjectorFunc(func(op errorfs.Op) error {
		if pick(op) {
			return errorfs.ErrInjected
		}
		return nil
	})
	return f
}

// onWAL picks the given operations on WAL files.
func onWAL(kinds ...errorfs.OpKind) func(op errorfs.Op) bool {
	return func(op errorfs.Op) bool {
		return strings.HasSuffix(op.Path, ".log") && slices.Contains(kinds, op.Kind)
	}
}

func newWALFault(kinds ...errorfs.OpKind) *walFault { return newFault(onWAL(kinds...)) }

func openFaulty(t *testing.T, fs vfs.FS, fault *walFault) (*Pebble, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	p, err := OpenPebble("", PebbleOptions{
		FS:        errorfs.Wrap(fs, &fault.on),
		CacheSize: 1 << 20,
		Logger:    slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, logs
}

func put(p *Pebble, k, v string, sync bool) error {
	b := p.NewBatch()
	defer b.Close()
	if err := b.Set([]byte(k), []byte(v)); err != nil {
		return err
	}
	return b.Commit(sync)
}

// closeBounded closes p, failing the test if Close does not return (Pebble
// can leave its commit mutex held after a WAL failure).
func closeBounded(t *testing.T, p *Pebble) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	select {
	case err := <-done:
		return err
	case <-time.After(closeWait + 3*time.Second):
		t.Fatal("Close hung after a failure")
		return nil
	}
}

func TestWALFailureRefusesWritesAndKeepsReads(t *testing.T) {
	syncs := onWAL(errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo)
	for _, tc := range []struct {
		name string
		pick func(op errorfs.Op) bool
		sync bool
	}{
		{"write fails, synced commits", onWAL(errorfs.OpFileWrite), true},
		{"sync fails, synced commits", syncs, true},
		{"write fails, unsynced commits", onWAL(errorfs.OpFileWrite), false},
		{"sync fails, unsynced commits", syncs, false},
		// A memtable rotation (the first memtable is 256 KiB) creates or
		// recycles a WAL, then syncs the directory: Pebble aborts the
		// process if either fails.
		{"WAL creation fails, unsynced commits", onWAL(errorfs.OpCreate, errorfs.OpReuseForWrite), false},
		{"directory sync fails, unsynced commits", func(op errorfs.Op) bool {
			return op.Path == "" && op.Kind == errorfs.OpFileSync
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fault := newFault(tc.pick)
			p, logs := openFaulty(t, vfs.NewMem(), fault)
			if err := put(p, "before", "1", true); err != nil {
				t.Fatal(err)
			}
			fault.on.On()

			// Commits go on until one fails (a synced one fails at once;
			// unsynced ones are acknowledged until the log flusher meets
			// the error, as appendfsync everysec allows), and none is
			// acknowledged after that.
			var failedAt = -1
			for i := 0; i < 5000 && failedAt < 0; i++ {
				err := put(p, fmt.Sprint("k", i), strings.Repeat("v", 1000), tc.sync)
				switch {
				case err == nil && tc.sync:
					t.Fatalf("synced commit %d acknowledged while the WAL fails", i)
				case err == nil:
				case !errors.Is(err, ErrFailed):
					t.Fatalf("commit %d: %v, want ErrFailed", i, err)
				default:
					failedAt = i
				}
			}
			if failedAt < 0 {
				t.Fatal("no commit failed while the WAL fails")
			}
			t.Logf("first refused commit: %d; %v", failedAt, p.Failed())
			for i := 0; i < 100; i++ {
				if err := put(p, "after", strings.Repeat("x", 20000), tc.sync); !errors.Is(err, ErrFailed) {
					t.Fatalf("commit after the failure: %v, want ErrFailed", err)
				}
			}
			if err := p.SyncWAL(); !errors.Is(err, ErrFailed) {
				t.Fatalf("SyncWAL after the failure: %v, want ErrFailed", err)
			}
			if err := p.Failed(); !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "injected error") {
				t.Fatalf("Failed() = %v", err)
			}

			if v, err := p.Get([]byte("before"), nil); err != nil || string(v) != "1" {
				t.Fatalf("Get after the failure = %q, %v", v, err)
			}
			s := p.NewSnapshot()
			if v, err := s.Get([]byte("before"), nil); err != nil || string(v) != "1" {
				t.Fatalf("snapshot Get after the failure = %q, %v", v, err)
			}
			it, err := s.NewIter(nil, nil)
			if err != nil || !it.First() {
				t.Fatalf("snapshot iterator after the failure: %v", err)
			}
			_ = it.Close()
			_ = s.Close()
			if st := p.Stats(); !hasStat(st, "engine_failed", "1") {
				t.Fatalf("Stats after the failure = %v", st)
			}
			if n := strings.Count(logs.String(), "storage engine failed"); n != 1 {
				t.Fatalf("failure logged %d times, want once:\n%s", n, logs)
			}
			if err := closeBounded(t, p); !errors.Is(err, ErrFailed) {
				t.Fatalf("Close after the failure: %v, want ErrFailed", err)
			}
		})
	}
}

func hasStat(st []Stat, name, value string) bool {
	for _, s := range st {
		if s.Name == name {
			return s.Value == value
		}
	}
	return false
}

func TestHealthyEngineReportsNotFailed(t *testing.T) {
	p := openMem(t)
	if err := p.Failed(); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); !hasStat(st, "engine_failed", "0") {
		t.Fatalf("Stats = %v", st)
	}
}

// TestSyncedCommitsSurviveACrashAfterAWALFailure checks the other half of
// the promise: what was acknowledged before the disk failed is still there
// after a crash and a restart.
func TestSyncedCommitsSurviveACrashAfterAWALFailure(t *testing.T) {
	mem := vfs.NewCrashableMem()
	fault := newWALFault(errorfs.OpFileWrite, errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo)
	p, _ := openFaulty(t, mem, fault)
	for i := 0; i < 50; i++ {
		if err := put(p, fmt.Sprint("k", i), fmt.Sprint("v", i), true); err != nil {
			t.Fatal(err)
		}
	}
	fault.on.On()
	if err := put(p, "lost", "x", true); !errors.Is(err, ErrFailed) {
		t.Fatalf("commit while the WAL fails: %v", err)
	}
	crashed := mem.CrashClone(vfs.CrashCloneCfg{})
	_ = closeBounded(t, p)

	q, err := OpenPebble("", PebbleOptions{FS: crashed, CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for i := 0; i < 50; i++ {
		if v, err := q.Get([]byte(fmt.Sprint("k", i)), nil); err != nil || string(v) != fmt.Sprint("v", i) {
			t.Fatalf("acknowledged k%d after the crash = %q, %v", i, v, err)
		}
	}
	if err := put(q, "new", "1", true); err != nil {
		t.Fatalf("the reopened engine refuses writes: %v", err)
	}
}

func TestGuardedTurnsPebblePanicsIntoFailure(t *testing.T) {
	injected := errors.New("disk on fire")
	for _, tc := range []struct {
		name       string
		panicWith  any
		wantFailed bool
		wantErr    error
	}{
		{"Fatalf", fatal{injected}, true, ErrFailed},
		{"error from a WAL write", injected, true, ErrFailed},
		{"pebble closed", fmt.Errorf("pebble: %w", pebble.ErrClosed), false, ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &health{log: slog.New(slog.NewTextHandler(&logBuffer{}, nil))}
			err := h.guard(func() error { panic(tc.panicWith) })
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("guard = %v, want %v", err, tc.wantErr)
			}
			if h.failed() != tc.wantFailed {
				t.Fatalf("failed = %v, want %v", h.failed(), tc.wantFailed)
			}
			if tc.wantFailed {
				ran := false
				if err := h.guard(func() error { ran = true; return nil }); !errors.Is(err, ErrFailed) || ran {
					t.Fatalf("guard on a failed engine ran f (%v) or returned %v", ran, err)
				}
			}
		})
	}
	t.Run("programming error is not hidden", func(t *testing.T) {
		h := &health{log: slog.New(slog.NewTextHandler(&logBuffer{}, nil))}
		defer func() {
			if r := recover(); r != "pebble: batch already applied" {
				t.Fatalf("recovered %v", r)
			}
			if h.failed() {
				t.Fatal("a programming error failed the engine")
			}
		}()
		_ = h.guard(func() error { panic("pebble: batch already applied") })
		t.Fatal("guard swallowed a programming error")
	})
}

func TestFatalfNeverExits(t *testing.T) {
	logs := &logBuffer{}
	h := &health{log: slog.New(slog.NewTextHandler(logs, nil))}
	l := pebbleLogger{h}

	// Inside the engine's own call into Pebble: the call gets an error.
	err := h.guard(func() error {
		l.Fatalf("pebble: fatal commit error: %v", "boom")
		t.Error("Fatalf returned")
		return nil
	})
	if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("guarded Fatalf: %v", err)
	}

	// On Pebble's own goroutine: it parks the goroutine, never returns.
	returned := make(chan struct{})
	go func() {
		l.Fatalf("MANIFEST sync failed: %v", "boom2")
		close(returned)
	}()
	select {
	case <-returned:
		t.Fatal("background Fatalf returned: Pebble would go on from an unrecoverable state")
	case <-time.After(50 * time.Millisecond):
	}
	if !strings.Contains(logs.String(), "background work stopped") {
		t.Fatalf("no log line for the parked goroutine:\n%s", logs)
	}
}

// TestConcurrentWritersAllSeeTheFailure checks that writers racing a WAL
// failure each get an answer: none is left waiting on Pebble's wedged commit
// pipeline.
func TestConcurrentWritersAllSeeTheFailure(t *testing.T) {
	for _, synced := range []bool{true, false} {
		t.Run(fmt.Sprintf("sync=%v", synced), func(t *testing.T) {
			fault := newWALFault(errorfs.OpFileWrite)
			p, _ := openFaulty(t, vfs.NewMem(), fault)
			const writers = 16
			var wg sync.WaitGroup
			errs := make(chan error, writers)
			start := make(chan struct{})
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for i := 0; ; i++ {
						if err := put(p, fmt.Sprint(w, ":", i), strings.Repeat("v", 1000), synced); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			close(start)
			time.Sleep(5 * time.Millisecond)
			fault.on.On()
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("writers still blocked 5s after the WAL failed")
			}
			close(errs)
			for err := range errs {
				if !errors.Is(err, ErrFailed) {
					t.Fatalf("writer ended with %v, want ErrFailed", err)
				}
			}
			_ = closeBounded(t, p)
		})
	}
}

// TestCloseAfterANonWALFailureKeepsUnsyncedCommits: when the engine failed
// for a reason other than its log (corruption, a MANIFEST error), closing
// still syncs the log, so writes acknowledged under appendfsync everysec
// survive a clean shutdown.
func TestCloseAfterANonWALFailureKeepsUnsyncedCommits(t *testing.T) {
	mem := vfs.NewCrashableMem()
	p, err := OpenPebble("", PebbleOptions{FS: mem, CacheSize: 1 << 20, Logger: slog.New(slog.NewTextHandler(&logBuffer{}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := put(p, "k", "v", false); err != nil {
		t.Fatal(err)
	}
	p.h.fail(errors.New("data corruption in 000005.sst"))
	if err := put(p, "k2", "v2", false); !errors.Is(err, ErrFailed) {
		t.Fatalf("commit after the failure: %v", err)
	}
	if err := closeBounded(t, p); !errors.Is(err, ErrFailed) {
		t.Fatalf("Close: %v", err)
	}
	q, err := OpenPebble("", PebbleOptions{FS: mem.CrashClone(vfs.CrashCloneCfg{}), CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if v, err := q.Get([]byte("k"), nil); err != nil || string(v) != "v" {
		t.Fatalf("unsynced commit after close = %q, %v", v, err)
	}
}
