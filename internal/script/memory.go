package script

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// DefaultMemoryLimit is how much a run may grow the heap when
// Options.MemoryLimit is nil: proto-max-bulk-len, the longest string a
// key can hold, and so the longest string .. builds (concat.go).
const DefaultMemoryLimit = 512 << 20

// A run's memory. gopher-lua allocates from Go's heap and has no allocator
// hook, and Go keeps no per-goroutine account, so a run's memory is
// measured as the growth of the live heap since the run began: a watchdog
// samples the heap while runs are in progress and, when one may be past
// its limit, confirms with a full collection (so that garbage never counts)
// before it stops the run through its context, as SCRIPT KILL does. The
// instruction that crossed the limit completes. What builds one string
// from others (.., string.rep, table.concat, string.format) refuses up
// front a result larger than the limit, as Lua refuses with "not enough
// memory", so `s = s .. s` cannot overshoot.
const (
	// memTick is how often the watchdog samples the heap.
	memTick = 5 * time.Millisecond
	// memIdle is how long the watchdog outlives the last run, so that a
	// stream of short scripts does not start one per run.
	memIdle = time.Second
	// bigRun is the heap growth past which a run's state is not pooled
	// (stale slots of its value stack may still hold what it built) and
	// its growth is reported to Options.Freed.
	bigRun = 32 << 20
)

// errMemory is the cause of a run's context when the watchdog stopped it.
var errMemory = errors.New("script memory limit reached")

// memoryReply is the error a run stopped for its memory replies with,
// before the script position suffix. OOM is Redis's code for a command
// refused for memory; the setting named is the server's.
func memoryReply(limit int64) string {
	return fmt.Sprintf("OOM Script used more memory than 'script-memory-limit' allows (%d bytes)", limit)
}

// memRun is one run under watch.
type memRun struct {
	base  uint64 // the live heap when it began
	limit uint64
	// objects is the heap (garbage included) when it began, and peak the
	// most it has grown beyond that: roughly what the run allocated.
	objects uint64
	peak    atomic.Uint64
	// seen is set once the watchdog has sampled the heap during the run.
	seen atomic.Bool
	// verdict, while the watchdog collects to judge the run, is closed
	// once it has; killed is set if the run was found past its limit.
	verdict atomic.Pointer[chan struct{}]
	killed  atomic.Bool
	cancel  context.CancelCauseFunc
}

// memWatch is the engine's watchdog over its runs' memory.
type memWatch struct {
	mu      sync.Mutex
	runs    map[*memRun]struct{}
	running bool // the watchdog goroutine is alive
	// live is the live heap (as of the last collection) the watchdog read
	// last: a new run's baseline, without a read of its own.
	live    atomic.Uint64
	objects atomic.Uint64
	// floor is the heap the last confirming collection left; the next one
	// waits until a quarter of a limit more has been allocated.
	floor uint64
}

// heapSamples are the watchdog's readings: the live heap as of the last
// collection, and everything allocated and not yet swept (live or not).
func heapSamples() []metrics.Sample {
	return []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
}

func readHeap(s []metrics.Sample) (live, objects uint64) {
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// runCancelKey carries the cancel function of a run's own context (see
// WithRunCancel).
type runCancelKey struct{}

// WithRunCancel returns ctx, a context made for one run and ended by
// cancel, carrying cancel: the memory watchdog then stops the run through
// it. Without it the watchdog derives a cancellable context of its own per
// run, whose registration with its parent costs a short script ~15% of its
// CPU.
func WithRunCancel(ctx context.Context, cancel context.CancelFunc) context.Context {
	return context.WithValue(ctx, runCancelKey{}, cancel)
}

// watch starts watching a run limited to limit bytes of growth; ctx is
// the run's context, which the returned one wraps unless it carries its
// own cancel function (WithRunCancel). done ends the watch and returns the
// run's largest growth seen; over, called before done, tells whether a run
// that ended is past its limit all the same; stopped tells whether the
// watchdog stopped it.
func (m *memWatch) watch(ctx context.Context, limit int64) (_ context.Context, over, stopped func() bool, done func() uint64) {
	var cancel context.CancelCauseFunc
	if own, ok := ctx.Value(runCancelKey{}).(context.CancelFunc); ok {
		// The run's owner ends its context after the run.
		cancel = func(cause error) {
			if cause != nil {
				own()
			}
		}
	} else {
		ctx, cancel = context.WithCancelCause(ctx)
	}
	r := &memRun{limit: uint64(limit), cancel: cancel}
	m.mu.Lock()
	if !m.running {
		// Idle until now: the last reading may be old.
		m.refresh()
		m.running = true
		go m.loop()
	}
	r.base, r.objects = m.live.Load(), m.objects.Load()
	if m.runs == nil {
		m.runs = make(map[*memRun]struct{})
	}
	m.runs[r] = struct{}{}
	m.mu.Unlock()
	return ctx, r.over, r.killed.Load, func() uint64 {
		m.mu.Lock()
		delete(m.runs, r)
		m.mu.Unlock()
		cancel(nil)
		return r.peak.Load()
	}
}

// refresh reads the heap for the next runs' baselines.
func (m *memWatch) refresh() {
	live, objects := readHeap(heapSamples())
	m.live.Store(live)
	m.objects.Store(objects)
}

func (m *memWatch) loop() {
	s := heapSamples()
	t := time.NewTicker(memTick)
	defer t.Stop()
	idle := time.Time{}
	for range t.C {
		m.mu.Lock()
		if len(m.runs) == 0 {
			if idle.IsZero() {
				idle = time.Now()
			} else if time.Since(idle) > memIdle {
				m.running = false
				m.mu.Unlock()
				return
			}
			m.mu.Unlock()
			continue
		}
		idle = time.Time{}
		m.mu.Unlock()
		m.check(s)
	}
}

// check samples the heap once and stops the runs past their limit.
func (m *memWatch) check(s []metrics.Sample) {
	live, objects := readHeap(s)
	m.live.Store(live)
	m.objects.Store(objects)
	suspect, minLimit := false, uint64(0)
	m.mu.Lock()
	for r := range m.runs {
		r.seen.Store(true)
		if pastLimit(r, live) {
			// A collection that ended during the run found it past.
			r.killed.Store(true)
			r.cancel(errMemory)
			continue
		}
		if objects > r.objects && objects-r.objects > r.peak.Load() {
			r.peak.Store(objects - r.objects)
		}
		if objects > r.base && objects-r.base > r.limit {
			suspect = true
		}
		if minLimit == 0 || r.limit < minLimit {
			minLimit = r.limit
		}
	}
	floor := m.floor
	m.mu.Unlock()
	// What was sampled counts garbage too: only a collection tells what a
	// run really holds. It is done at most once per quarter limit
	// allocated, so a run churning garbage near its limit costs a
	// collection per quarter limit, not one per tick.
	if !suspect || objects < floor+minLimit/4 {
		return
	}
	verdict := make(chan struct{})
	m.mu.Lock()
	for r := range m.runs {
		r.verdict.Store(&verdict)
	}
	m.mu.Unlock()
	runtime.GC()
	live, objects = readHeap(s)
	m.live.Store(live)
	m.objects.Store(objects)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.floor = objects
	for r := range m.runs {
		if pastLimit(r, live) {
			r.killed.Store(true)
			r.cancel(errMemory)
		}
	}
	close(verdict)
}

// pastLimit tells whether the live heap measured by a collection that
// ended after the run began is past the run's limit.
func pastLimit(r *memRun, live uint64) bool {
	return live > r.base && live-r.base > r.limit
}

// over tells whether the run, which has just ended with its result still
// held, has grown the heap past its limit: the watchdog stops a run only
// at its next instruction, and a run can end in the instruction that
// crossed the limit (return s .. s, or s = s .. s; return #s). So it waits
// for a judgement the watchdog has begun, and otherwise judges what is
// still live. A run shorter than the watchdog's tick is not checked: it
// had no time to allocate that much.
func (r *memRun) over() bool {
	if v := r.verdict.Load(); v != nil {
		<-*v
	}
	if r.killed.Load() {
		return true
	}
	if !r.seen.Load() {
		return false
	}
	s := heapSamples()
	live, objects := readHeap(s)
	if pastLimit(r, live) {
		// The runtime's own collection, during the run's last
		// instruction, measured it.
		return true
	}
	if objects <= r.base || objects-r.base <= r.limit {
		return false
	}
	runtime.GC()
	live, _ = readHeap(s)
	return pastLimit(r, live)
}

// capStrings makes table.concat refuse a result longer than the engine's
// maxString before it allocates it, as string.rep does: the watchdog could
// only stop the run after the allocation. (string.format, Cairn's own in
// strlib.go, checks the same bound itself.) Called last in installBase,
// so it wraps whatever table.concat is by then.
func (v *vm) capStrings() {
	if tab, ok := v.real.RawGetString("table").(*lua.LTable); ok {
		wrapCapped(v, tab, "concat", concatSize)
	}
}

// wrapCapped replaces t[name] by a function that raises "not enough
// memory" when size says the call's result would be longer than allowed.
func wrapCapped(v *vm, t *lua.LTable, name string, size func(L *lua.LState) int64) {
	orig := t.RawGetString(name)
	if orig == lua.LNil {
		return
	}
	t.RawSetString(name, v.L.NewFunction(func(L *lua.LState) int {
		if size(L) > v.e.maxString() {
			L.RaiseError("not enough memory")
		}
		return v.forward(L, orig)
	}))
}

// valueSize is the length of a value as a string, with numbers counted
// at their longest form.
func valueSize(val lua.LValue) int64 {
	switch x := val.(type) {
	case lua.LString:
		return int64(len(x))
	case lua.LNumber:
		return 32
	}
	return 0
}

// concatSize is the length table.concat(t, sep, i, j) would return; bad
// arguments count as nothing and are left to table.concat to refuse.
func concatSize(L *lua.LState) int64 {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		return 0
	}
	sep := int64(0)
	if s, ok := L.Get(2).(lua.LString); ok {
		sep = int64(len(s))
	}
	n := t.Len()
	i, j := 1, n
	if x, ok := L.Get(3).(lua.LNumber); ok {
		i = int(x)
	}
	if x, ok := L.Get(4).(lua.LNumber); ok {
		j = int(x)
	}
	i, j = max(i, 1), min(j, n)
	total := int64(0)
	for k := i; k <= j; k++ {
		total += valueSize(t.RawGetInt(k))
		if k < j {
			total += sep
		}
	}
	return total
}

// formatSize bounds string.format's result: the format, every argument as
// a string and a field width (at most 99 in Lua) per directive.
func formatSize(L *lua.LState) int64 {
	total := int64(0)
	for k := 1; k <= L.GetTop(); k++ {
		total += valueSize(L.Get(k)) + 100
	}
	return total
}
