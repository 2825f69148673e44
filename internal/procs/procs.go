// Package procs tunes the Go runtime's scheduler for the load Cairn serves:
// it sizes the processor count (GOMAXPROCS) by measuring which count serves
// more commands, and it keeps the runtime's monitor thread from being woken
// by every system call (monitor.go).
//
// More processors are not always faster. A client that sends one command
// and waits for its reply wakes its connection's goroutine once per
// command; with an idle processor to spare, each wake-up also wakes a thread
// to look for work, and on a small machine those threads take CPU from the
// rest of the system (the clients, the kernel's network stack) without
// serving anything. Measured on 2 cores with the load generator beside the
// server, unpipelined GETs ran about 30% faster on one processor than on
// two, while pipelined SETs, whose work is the engine's and runs in
// parallel, ran 50% faster on two.
//
// So the Governor climbs: while commands are flowing it tries a neighbouring
// count for a short probe and keeps it when it served more commands than the
// count before it, as .NET's thread pool sizes itself by hill climbing on
// throughput. Probes that change nothing back off, so a steady load settles
// and pays almost nothing for the search; a change in the load starts the
// search again. On a tie it keeps the larger count, which leaves background
// work (compactions) room beside the commands.
//
// Which count wins depends on the shape of the load more than on its size:
// on how many commands arrive with each read from a client (1 when clients
// wait for every reply, 16 for redis-benchmark -P 16). The climb remembers
// the count that won for each shape, and when the shape changes it goes
// straight to that count (or to the maximum for a shape not seen yet), so
// loads that come and go in turns, too short to be measured afresh each
// time, still run at their count.
//
// Throughput alone cannot judge a count when clients send at their own
// pace (an open loop: many independent clients, or a fixed-rate load
// generator): every count that keeps up serves the same rate, and one that
// barely keeps up does so by queueing commands. So the climb also watches
// how long goroutines wait for a processor (the runtime's scheduling
// latency). A count whose median wait reaches overloadWait is overloaded:
// a probe to it is abandoned in that window, and a climb settled there
// probes upwards at once instead of after its back-off (once, until a
// probe wins or the load changes: a busy count can still be the best one).
// Measured on 2
// cores at a fixed 19.5k GET/SET per second with data 4x the caches: one
// processor queued commands for a median 1.5 ms against 0.15 ms on two,
// and the probes to one processor, with the occasional noisy "win" there,
// stalled the load for 100-400 ms every few seconds. Clients that wait for
// each reply queue too, and more on fewer processors, while being served
// faster there: 50 clients sending SET one at a time waited 0.25-0.35 ms
// on one processor and 0.16 ms on two, ZADD 0.4-0.65 ms against 0.07-0.2
// ms. A rule that failed a probe whose wait grew threefold kept ZADD off
// one processor and cost it 12%, so only the absolute bound counts.
package procs

import (
	"log/slog"
	"runtime"
	"sync"
	"time"
)

// Tuning of the climb. A window is one measurement of the command rate.
const (
	window = 50 * time.Millisecond
	// A probe lets settleWindows pass after the change before it measures
	// probeWindows; the rate before it is the mean of the last probeWindows.
	settleWindows = 1
	probeWindows  = 2
	// A probe is tried after minInterval windows, doubled after every probe
	// that changed nothing, up to maxInterval.
	minInterval = 4
	maxInterval = 256
	// gain is how much more a probe must serve to win; a larger count wins
	// a tie within it (see the package doc).
	gain = 0.05
	// shift is the change in the rate, against the rate at the last
	// decision, that counts as a new load and restarts the search.
	shift = 0.3
	// minRate is the rate, in commands per second, under which the load is
	// too light to measure and nothing is tried.
	minRate = 1000
	// overloadWait is the median wait for a processor at which a count is
	// overloaded: a probe to it fails at once, and a climb settled at it
	// tries one more processor without waiting out its back-off.
	overloadWait = time.Millisecond
)

// Counters returns the commands served and the client reads that brought
// them, each counted since start (or since a reset, when both may drop).
type Counters func() (commands, reads int64)

// Background returns how many CPU-heavy background jobs (the engine's
// compactions) run now.
type Background func() int

// DiskWaits counts, since start, the waits for the disk that hold a
// thread: the engine's WAL syncs.
type DiskWaits func() uint64

// Governor adapts GOMAXPROCS between 1 and a maximum while it runs.
type Governor struct {
	counters   Counters
	background Background
	diskWaits  DiskWaits
	log        *slog.Logger

	mu    sync.Mutex
	fixed int // a count set by the user, or 0 to climb
	max   int
	c     climber
	stop  chan struct{}
	done  chan struct{}
}

// SetBackground makes the climb add a processor for each background job
// running, up to maxBoost. A job such as a compaction runs for seconds
// without blocking, and the Go scheduler lets it keep a processor for 10
// ms at a time: on one processor every command waits behind it, on two
// half of them do. Measured on 2 cores at a fixed 20k GET/SET per second
// with data 4x the caches, GET p99 was 16-18 ms climbing without it and
// 4-6 ms with it (6.8 ms at a fixed 2 processors, 3.4-3.7 ms at 4, where
// the kernel rather than the Go scheduler shares the cores among the
// threads and favours those that were waiting for the network). Leaving
// one-processor loads out of it (clients that wait for every reply) gained
// them nothing measurable and gave bench/run's bigger-than-memory p99 of
// 7.5 and 16.7 ms against 4.8. A count the user fixed is kept as it is.
// Call before Start.
func (g *Governor) SetBackground(b Background) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.background = b
}

// maxBoost bounds the processors added for background jobs.
const maxBoost = 2

// SetDiskWaits makes the governor add a processor, as for a background
// job, in every window with at least diskWaitRate waits for the disk a
// second: a load under appendfsync always, whose commits wait for WAL
// syncs. A thread in fdatasync keeps its processor until the runtime's
// monitor takes it back, 20 µs to 10 ms later, and the commands queue
// meanwhile. Measured on 2 cores with 50 clients sending SET one at a
// time, same run, 5 rounds: 29.7k–35.3k ops/s (median 31.6k) climbing up
// to 2 processors, 34.4k–40.2k (median 38.1k) with a third one allowed;
// unpipelined SET and GET under everysec, which syncs once a second, lost
// a little to the third processor, which is why it is not simply the
// maximum. A count the user fixed is kept as it is. Call before Start.
func (g *Governor) SetDiskWaits(w DiskWaits) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.diskWaits = w
}

// diskWaitRate is the rate of disk waits, per second, from which a window
// gets a processor more.
const diskWaitRate = 100

// New returns a governor that reads the load from counters.
// It climbs between 1 and maxProcs processors until Fix sets a count. For
// maxProcs <= 0 it takes the count the runtime runs on when New is called:
// GOMAXPROCS from the environment, or the runtime's default, which on Linux
// honours a cgroup CPU limit (NumCPU would count every CPU of the host).
func New(counters Counters, maxProcs int, log *slog.Logger) *Governor {
	if maxProcs <= 0 {
		maxProcs = runtime.GOMAXPROCS(0)
	}
	if log == nil {
		log = slog.Default()
	}
	return &Governor{counters: counters, log: log, max: maxProcs}
}

// Start begins climbing (or applies the fixed count) until Stop.
func (g *Governor) Start() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stop != nil {
		return
	}
	g.stop, g.done = make(chan struct{}), make(chan struct{})
	if g.fixed > 0 {
		runtime.GOMAXPROCS(g.fixed)
	} else {
		g.c = newClimber(g.max)
		runtime.GOMAXPROCS(g.c.procs)
	}
	go g.run(g.stop, g.done)
}

// Stop ends the climb and waits for it; the count stays where it was.
func (g *Governor) Stop() {
	g.mu.Lock()
	stop, done := g.stop, g.done
	g.stop = nil
	g.mu.Unlock()
	if stop != nil {
		close(stop)
	}
	// A second Stop, too, returns only once the climb has ended.
	if done != nil {
		<-done
	}
}

// Fix sets the processor count to n and pauses the climb, or, for n <= 0,
// sets the maximum and climbs again from it (once started).
func (g *Governor) Fix(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.fixed = max(n, 0)
	if g.fixed > 0 {
		runtime.GOMAXPROCS(g.fixed)
		return
	}
	g.c = newClimber(g.max)
	runtime.GOMAXPROCS(g.c.procs)
}

func (g *Governor) run(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(window)
	defer t.Stop()
	last, lastReads := g.counters()
	lastAt := time.Now()
	var lastWaits uint64
	if g.diskWaits != nil {
		lastWaits = g.diskWaits()
	}
	var sched schedWaits
	sched.window()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			// The clock is read with the count: the tick's own time can be
			// late by however long this goroutine waited for a processor,
			// which is longest at one processor under load.
			n, reads := g.counters()
			now := time.Now()
			wait := sched.window()
			elapsed := now.Sub(lastAt).Seconds()
			diskBound := false
			if g.diskWaits != nil {
				w := g.diskWaits()
				diskBound = float64(w-lastWaits)/elapsed >= diskWaitRate
				lastWaits = w
			}
			if n < last || reads < lastReads {
				// The counts were reset (CONFIG RESETSTAT): no rate this time.
				last, lastReads, lastAt = n, reads, now
				continue
			}
			rate := float64(n-last) / elapsed
			depth := float64(n-last) / float64(max(reads-lastReads, 1))
			last, lastReads, lastAt = n, reads, now
			g.mu.Lock()
			if g.stop != stop {
				// Stop has begun (and maybe a new Start): the climber is
				// no longer this loop's to step.
				g.mu.Unlock()
				return
			}
			before, after, inProbe := 0, 0, false
			boost := 0
			if g.fixed == 0 {
				before = g.c.procs
				after = g.c.step(rate, depth, wait)
				inProbe = g.c.phase == probing
				if g.background != nil {
					boost = max(g.background(), 0)
				}
				if diskBound {
					boost++
				}
				boost = min(boost, maxBoost)
				// The change is made under mu so that a Fix cannot land
				// between the decision and the change and be undone.
				if want := after + boost; want != runtime.GOMAXPROCS(0) {
					runtime.GOMAXPROCS(want)
				}
			}
			g.mu.Unlock()
			if after != before {
				g.log.Debug("procs", "from", before, "to", after, "boost", boost, "commands_per_sec", int64(rate), "sched_wait", wait, "probing", inProbe)
			}
		}
	}
}

// climber is the climb's state machine, apart from the clock and the
// runtime so that tests can drive it with rates.
//
// A probe measures the rate at the current count (before), then at the
// neighbour, then at the current count again (after). The neighbour wins
// only against both sides, and a probe whose two sides disagree, or that
// saw an idle window, decides nothing: the load changed under it. That is
// what keeps a load that comes and goes, or drifts, from being read as a
// count that serves better or worse.
type climber struct {
	max, procs int

	recent []float64 // the last probeWindows busy rates at procs
	// since counts busy windows since the last decision; interval is how
	// many must pass before the next probe.
	since, interval int
	// shiftWait is the interval a change of load sets: it doubles each
	// time one does, and only a probe that wins resets it, so a load whose
	// level keeps moving is not probed without end.
	shiftWait int
	// urged says that an overloaded count has already cut its wait for
	// the next probe: it does so once until a probe wins or the load
	// changes, so that a count that is best though busy keeps its
	// back-off.
	urged   bool
	decided float64 // the rate when the last decision was taken
	// down says which way the next probe goes where both ways are open.
	down bool

	// shape is the load's shape (see shapeOf) and shapes what the climb
	// learnt of each: the count that won there (0 for none yet) and the
	// wait before the next probe. newShape counts the windows in a row of
	// another shape.
	shape    int
	shapes   [shapeCount]shapeMemory
	newShape int

	phase  phase
	from   int       // the count the probe left
	to     int       // the neighbour it tries
	before float64   // the rate at from before the probe
	probe  float64   // the rate at the neighbour
	waited int       // windows since the last change of count
	rates  []float64 // the rates measured since then
}

// shapeMemory is what the climb keeps of one shape of load.
type shapeMemory struct{ procs, interval int }

// Shapes of load, by commands per client read: about 1 (every client waits
// for each reply), a few, or a pipeline.
const shapeCount = 3

func shapeOf(depth float64) int {
	switch {
	case depth < 2:
		return 0
	case depth < 8:
		return 1
	}
	return 2
}

// shapeWindows is how many windows in a row of another shape make it the
// load's shape.
const shapeWindows = 2

type phase uint8

const (
	steady    phase = iota
	probing         // at the neighbour
	returning       // back at from, measuring the after side
)

func newClimber(maxProcs int) climber {
	return climber{max: maxProcs, procs: maxProcs, interval: minInterval, shiftWait: minInterval}
}

// step takes the command rate of the window just ended, the commands per
// client read, and the median wait of a runnable goroutine for a processor,
// and returns the processor count for the next.
func (c *climber) step(rate, depth float64, wait time.Duration) int {
	shape := shapeOf(depth)
	if rate >= minRate && shape != c.shape {
		c.newShape++
	} else if rate >= minRate {
		c.newShape = 0
	}
	if c.phase != steady {
		switch {
		case c.newShape > 0:
			// Another shape of load: this probe measures nothing.
			c.inconclusive()
		case c.phase == probing && c.to < c.from && rate >= minRate && wait >= overloadWait:
			// Fewer processors make commands queue: whatever the rate
			// says, the probe has lost.
			c.procs = c.from
			c.decide(0, c.before)
		default:
			c.measure(rate)
		}
		return c.procs
	}
	if c.newShape >= shapeWindows {
		c.enterShape(shape)
		return c.procs
	}
	if rate < minRate {
		// Too light to measure; an idle gap also breaks the run of
		// windows a probe compares against (but the wait for the next
		// probe goes on across it).
		c.recent = c.recent[:0]
		return c.procs
	}
	if len(c.recent) == probeWindows {
		// Slide within the array rather than off its front, which would
		// reallocate every other window.
		c.recent = append(c.recent[:0], c.recent[1:]...)
	}
	c.recent = append(c.recent, rate)
	c.since++
	if wait >= overloadWait && c.procs < c.max && !c.urged {
		// Overloaded: try a processor more as soon as the rate is known.
		c.interval, c.down, c.urged = min(c.interval, probeWindows), false, true
	}
	if len(c.recent) < probeWindows {
		return c.procs
	}
	cur := mean(c.recent)
	if c.decided > 0 && relChange(cur, c.decided) > shift {
		// A new load: look again soon.
		c.interval = min(c.interval, c.shiftWait)
		c.urged = false
		c.shiftWait = min(2*c.shiftWait, maxInterval)
		c.decided = cur
	}
	if c.max <= 1 || c.since < c.interval {
		return c.procs
	}
	c.phase, c.from, c.before = probing, c.procs, cur
	c.to = c.neighbour()
	c.procs = c.to
	c.waited, c.rates = 0, c.rates[:0]
	return c.procs
}

// measure gathers a probe's windows at the neighbour and back at from.
func (c *climber) measure(rate float64) {
	if rate < minRate {
		c.inconclusive()
		return
	}
	c.waited++
	if c.waited > settleWindows {
		c.rates = append(c.rates, rate)
	}
	if len(c.rates) < probeWindows {
		return
	}
	if c.phase == probing {
		c.probe = mean(c.rates)
		c.phase, c.procs = returning, c.from
		c.waited, c.rates = 0, c.rates[:0]
		return
	}
	after := mean(c.rates)
	if relChange(c.before, after) > 2*gain {
		c.inconclusive()
		return
	}
	c.decide(c.probe, (c.before+after)/2)
}

// enterShape makes shape the load's and goes to the count that won there
// before, or to the maximum for a shape not met yet.
func (c *climber) enterShape(shape int) {
	c.shapes[c.shape].interval = c.interval
	c.shape, c.newShape = shape, 0
	m := c.shapes[shape]
	c.procs, c.interval = m.procs, m.interval
	if m.procs == 0 {
		c.procs, c.interval = c.max, minInterval
	}
	c.since, c.decided, c.urged = 0, 0, false
	c.recent = c.recent[:0]
}

// inconclusive ends a probe that the load changed under, at from. It backs
// off as a failed probe does: a load too unsteady to measure is not worth
// the probes.
func (c *climber) inconclusive() {
	c.phase, c.procs = steady, c.from
	c.interval = min(2*c.interval, maxInterval)
	c.down = !c.down
	c.since = 0
	c.recent = c.recent[:0]
}

// neighbour is the count to try next: one step, in the direction of the
// last win, turning after a probe that did not win, where both are open.
func (c *climber) neighbour() int {
	switch {
	case c.procs <= 1:
		return 2
	case c.procs >= c.max:
		return c.max - 1
	case c.down:
		return c.procs - 1
	default:
		return c.procs + 1
	}
}

// decide keeps the probed count if it served more than from (or, going up,
// about as much), and stays at from otherwise.
func (c *climber) decide(probe, base float64) {
	won := probe > base*(1+gain)
	keep := won || (c.to > c.from && probe >= base*(1-gain))
	if won {
		c.urged = false
		// A real gain: look further the same way soon.
		c.interval, c.shiftWait = minInterval, minInterval
		c.down = c.to < c.from
	} else {
		c.interval = min(2*c.interval, maxInterval)
		c.down = !c.down
	}
	c.decided = base
	if keep {
		c.procs, c.decided = c.to, probe
	}
	c.shapes[c.shape].procs = c.procs
	c.phase = steady
	c.since = 0
	c.recent = c.recent[:0]
}

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// relChange is |a-b| relative to the larger of the two.
func relChange(a, b float64) float64 {
	hi := max(a, b)
	if hi == 0 {
		return 0
	}
	d := a - b
	if d < 0 {
		d = -d
	}
	return d / hi
}
