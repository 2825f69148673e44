package procs

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// load is a synthetic server: the command rate each processor count serves,
// from a given window on.
type load struct {
	from  int
	rates map[int]float64
}

// drive runs a climber over windows of the loads, with noise as a fraction
// of the rate, and returns the count chosen for each window.
func drive(t *testing.T, max, windows int, noise float64, loads []load) []int {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	li := 0
	return driveFunc(t, max, windows, func(w, procs int) float64 {
		for li+1 < len(loads) && w >= loads[li+1].from {
			li++
		}
		return loads[li].rates[procs] * (1 + noise*(2*rng.Float64()-1))
	})
}

// driveFunc runs a climber over windows whose rate rate gives.
func driveFunc(t *testing.T, max, windows int, rate func(w, procs int) float64) []int {
	t.Helper()
	c := newClimber(max)
	return driveClimber(t, &c, windows, func(w, procs int) (float64, time.Duration) { return rate(w, procs), 0 })
}

// driveClimber runs c over windows whose rate and median wait for a
// processor load gives.
func driveClimber(t *testing.T, c *climber, windows int, load func(w, procs int) (float64, time.Duration)) []int {
	t.Helper()
	max := c.max
	got := make([]int, windows)
	for w := range windows {
		rate, wait := load(w, c.procs)
		got[w] = c.step(rate, 1, wait)
		if got[w] < 1 || got[w] > max {
			t.Fatalf("window %d: count %d outside 1..%d", w, got[w], max)
		}
	}
	return got
}

// share is the fraction of windows in [from, to) spent at count n.
func share(counts []int, from, to, n int) float64 {
	k := 0
	for _, c := range counts[from:to] {
		if c == n {
			k++
		}
	}
	return float64(k) / float64(to-from)
}

func TestClimberSettles(t *testing.T) {
	oneBetter := map[int]float64{1: 100000, 2: 70000}
	twoBetter := map[int]float64{1: 240000, 2: 360000}
	tests := []struct {
		name    string
		max     int
		noise   float64
		loads   []load
		windows int
		// After window settle, at least minShare of the windows run at want.
		settle, want int
		minShare     float64
	}{
		{name: "one processor serves more", max: 2, loads: []load{{0, oneBetter}},
			windows: 600, settle: 30, want: 1, minShare: 0.95},
		{name: "two processors serve more", max: 2, loads: []load{{0, twoBetter}},
			windows: 600, settle: 30, want: 2, minShare: 0.95},
		{name: "a tie keeps the larger count", max: 2, loads: []load{{0, map[int]float64{1: 100000, 2: 100000}}},
			windows: 600, settle: 0, want: 2, minShare: 0.95},
		{name: "idle changes nothing", max: 2, loads: []load{{0, map[int]float64{1: 0, 2: 0}}},
			windows: 300, settle: 0, want: 2, minShare: 1},
		{name: "light load changes nothing", max: 4, loads: []load{{0, map[int]float64{1: 500, 2: 400, 3: 300, 4: 200}}},
			windows: 300, settle: 0, want: 4, minShare: 1},
		{name: "one processor only", max: 1, loads: []load{{0, oneBetter}},
			windows: 300, settle: 0, want: 1, minShare: 1},
		{name: "noisy", max: 2, noise: 0.03, loads: []load{{0, oneBetter}},
			windows: 600, settle: 30, want: 1, minShare: 0.9},
		{name: "a peak in the middle", max: 4, loads: []load{{0, map[int]float64{1: 50000, 2: 100000, 3: 90000, 4: 80000}}},
			windows: 900, settle: 100, want: 2, minShare: 0.85},
		{name: "the load changes", max: 2, loads: []load{{0, oneBetter}, {300, twoBetter}},
			windows: 600, settle: 330, want: 2, minShare: 0.9},
		{name: "and changes back", max: 2, loads: []load{{0, twoBetter}, {300, oneBetter}},
			windows: 600, settle: 330, want: 1, minShare: 0.9},
		// Starting from the maximum, only a climb back up can show the
		// tie rule: the rate at 1 stays the same, so this is no new load.
		{name: "a tie after a fall climbs back", max: 2, loads: []load{{0, oneBetter}, {300, map[int]float64{1: 100000, 2: 100000}}},
			windows: 1200, settle: 600, want: 2, minShare: 0.9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			counts := drive(t, tt.max, tt.windows, tt.noise, tt.loads)
			if got := share(counts, tt.settle, tt.windows, tt.want); got < tt.minShare {
				t.Errorf("%.0f%% of windows %d..%d at %d processors, want at least %.0f%%; counts %v",
					100*got, tt.settle, tt.windows, tt.want, 100*tt.minShare, counts)
			}
		})
	}
}

// A settled climb still probes now and then, but backs off: it spends
// little time away from the best count.
func TestClimberBacksOff(t *testing.T) {
	counts := drive(t, 2, 3000, 0, []load{{0, map[int]float64{1: 100000, 2: 70000}}})
	changes := 0
	for i := 1000; i < len(counts); i++ {
		if counts[i] != counts[i-1] {
			changes++
		}
	}
	// At the longest interval a probe comes every maxInterval windows and
	// changes the count twice (there and back).
	if most := 2 * (2000/maxInterval + 1); changes > most {
		t.Errorf("%d changes in 2000 settled windows, want at most %d", changes, most)
	}
}

// Loads that come and go, or drift, are not taken for a count that serves
// better or worse.
func TestClimberUnsteadyLoads(t *testing.T) {
	oneBetter := map[int]float64{1: 100000, 2: 70000}
	busy := func(w int) bool { return w%22 < 12 }
	t.Run("on and off", func(t *testing.T) {
		// Busy for 12 windows, idle for 10, as when a benchmark takes turns
		// with another server.
		counts := driveFunc(t, 2, 2000, func(w, procs int) float64 {
			if !busy(w) {
				return 0
			}
			return oneBetter[procs]
		})
		at1, n := 0, 0
		for w := 500; w < len(counts); w++ {
			if busy(w) {
				n++
				if counts[w] == 1 {
					at1++
				}
			}
		}
		if share := float64(at1) / float64(n); share < 0.85 {
			t.Errorf("%.0f%% of busy windows at 1 processor, want at least 85%%", 100*share)
		}
	})
	t.Run("a level that keeps moving", func(t *testing.T) {
		// Two processors serve twice what one does (as under appendfsync
		// always) and the load's level jumps by half every 10 windows:
		// each jump is a new load, but probing it each time would spend
		// a third of the time at the worse count.
		counts := driveFunc(t, 2, 4000, func(w, procs int) float64 {
			level := 1 + 0.5*float64(w/10%2)
			return level * map[int]float64{1: 20000, 2: 40000}[procs]
		})
		if got := share(counts, 1000, len(counts), 1); got > 0.05 {
			t.Errorf("%.0f%% of windows at 1 processor, want at most 5%%", 100*got)
		}
	})
	t.Run("drift", func(t *testing.T) {
		// Both counts serve the same, and the load climbs 2% a window
		// then falls back, or steps by half every 7 windows (a probe
		// takes 6): no probe may win, so the count stays.
		counts := driveFunc(t, 2, 1000, func(w, procs int) float64 {
			return 50000 * (1 + 0.02*float64(w%50))
		})
		counts = append(counts, driveFunc(t, 2, 1000, func(w, procs int) float64 {
			return 50000 * (1 + 0.5*float64(w/7%2))
		})...)
		// Probes visit 1 for at most settleWindows+probeWindows windows.
		run := 0
		for w, n := range counts {
			if run = run + 1; n != 1 {
				run = 0
			}
			if run > settleWindows+probeWindows {
				t.Fatalf("window %d: at 1 processor for %d windows; counts %v", w, run, counts)
			}
		}
	})
}

// Loads of two shapes take turns, each too short (20 windows, with 10 idle
// between) to be measured afresh every time: unpipelined clients, served
// best by one processor, and pipelines, served best by two. Once each shape
// has been learnt, its turns run at its count from their start.
func TestClimberRemembersShapes(t *testing.T) {
	type turn struct {
		depth float64
		rates map[int]float64
	}
	turns := []turn{
		{1, map[int]float64{1: 100000, 2: 70000}},
		{16, map[int]float64{1: 240000, 2: 360000}},
	}
	c := newClimber(2)
	right, busy := 0, 0
	for w := range 3000 {
		cycle := w % 60
		tu := turns[cycle/30]
		if cycle%30 >= 20 {
			c.step(0, 0, 0)
			continue
		}
		procs := c.procs
		c.step(tu.rates[procs], tu.depth, 0)
		if w >= 1000 {
			busy++
			if best := map[float64]int{1: 1, 16: 2}[tu.depth]; procs == best {
				right++
			}
		}
	}
	if share := float64(right) / float64(busy); share < 0.8 {
		t.Errorf("%.0f%% of busy windows at the shape's best count, want at least 80%%", 100*share)
	}
}

// Clients that send at their own pace (an open loop) get the same rate from
// every count that keeps up; one processor keeps up only by queueing the
// commands, which the wait for a processor shows. Clients that wait for each
// reply and are served faster on one processor, queueing a little more
// there, still get it.
func TestClimberWatchesTheWait(t *testing.T) {
	const (
		short = 150 * time.Microsecond
		long  = 1500 * time.Microsecond
	)
	openLoop := func(rng *rand.Rand) func(w, procs int) (float64, time.Duration) {
		return func(w, procs int) (float64, time.Duration) {
			// 3% noise makes one processor "win" now and then.
			rate := 19500 * (1 + 0.03*(2*rng.Float64()-1))
			if procs == 1 {
				return rate, long
			}
			return rate, short
		}
	}
	t.Run("an open loop one processor barely serves", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		c := newClimber(2)
		counts := driveClimber(t, &c, 3000, openLoop(rng))
		if got := share(counts, 0, len(counts), 1); got > 0.01 {
			t.Errorf("%.1f%% of windows at 1 processor, want at most 1%%", 100*got)
		}
		// A probe there is abandoned in its first window.
		for w := 1; w < len(counts); w++ {
			if counts[w] == 1 && counts[w-1] == 1 {
				t.Fatalf("windows %d and %d both at 1 processor; counts %v", w-1, w, counts)
			}
		}
	})
	t.Run("an open loop after a closed one that one processor served best", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		c := newClimber(2)
		closed := map[int]float64{1: 100000, 2: 70000}
		counts := driveClimber(t, &c, 2000, func(w, procs int) (float64, time.Duration) {
			if w < 1000 {
				return closed[procs], short
			}
			return openLoop(rng)(w, procs)
		})
		if got := share(counts, 500, 1000, 1); got < 0.9 {
			t.Errorf("closed loop: %.0f%% of windows at 1 processor, want at least 90%%", 100*got)
		}
		if got := share(counts, 1020, 2000, 1); got > 0.01 {
			t.Errorf("open loop: %.1f%% of windows at 1 processor, want at most 1%%; counts %v", 100*got, counts[1000:])
		}
	})
	t.Run("a closed loop one processor serves best though busy", func(t *testing.T) {
		// More clients than redis-benchmark's 50: they queue past
		// overloadWait on one processor, which still serves the most.
		// Waits that long bar one processor from a probe, so a climb at
		// two stays there; a climb already at one (a count learnt before)
		// stays there too. Either way the probes back off.
		load := func(w, procs int) (float64, time.Duration) {
			if procs == 1 {
				return 75000, 1100 * time.Microsecond
			}
			return 53000, 300 * time.Microsecond
		}
		for _, from := range []int{2, 1} {
			c := newClimber(2)
			c.procs = from
			counts := driveClimber(t, &c, 3000, load)
			if got := share(counts, 1000, len(counts), from); got < 0.97 {
				t.Errorf("from %d: %.1f%% of settled windows there, want at least 97%%", from, 100*got)
			}
			if c.interval != maxInterval {
				t.Errorf("from %d: back-off at %d windows, want it grown to %d", from, c.interval, maxInterval)
			}
		}
	})
	t.Run("an idle window in a probe decides nothing", func(t *testing.T) {
		// A stall with no commands served, during a probe to one
		// processor, must not count as that count's loss.
		c := newClimber(2)
		closed := map[int]float64{1: 100000, 2: 70000}
		for range 6 {
			c.step(closed[c.procs], 1, 0)
		}
		if c.phase != probing || c.procs != 1 {
			t.Fatalf("no probe to 1 processor after 6 windows (phase %d, procs %d)", c.phase, c.procs)
		}
		c.step(0, 1, 5*time.Millisecond)
		if c.shapes[0].procs != 0 {
			t.Errorf("an idle window was taken for a decision: shape memory %d", c.shapes[0].procs)
		}
	})
	// Clients that wait for each reply queue more on one processor and are
	// served faster there (SET and ZADD from redis-benchmark -c 50).
	for _, tt := range []struct {
		name     string
		one, two float64
		waitOne  time.Duration
		waitTwo  time.Duration
	}{
		{"SET", 75000, 53000, 300 * time.Microsecond, 160 * time.Microsecond},
		{"ZADD", 53000, 47000, 650 * time.Microsecond, 70 * time.Microsecond},
	} {
		t.Run("a closed loop one processor serves faster: "+tt.name, func(t *testing.T) {
			c := newClimber(2)
			counts := driveClimber(t, &c, 1000, func(w, procs int) (float64, time.Duration) {
				if procs == 1 {
					return tt.one, tt.waitOne
				}
				return tt.two, tt.waitTwo
			})
			if got := share(counts, 100, len(counts), 1); got < 0.9 {
				t.Errorf("%.0f%% of windows at 1 processor, want at least 90%%", 100*got)
			}
		})
	}
}

func TestMedianWait(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name   string
		counts []uint64
		bounds []float64
		want   time.Duration
	}{
		{"empty", []uint64{0, 0}, []float64{0, 1e-6, 1e-3}, 0},
		{"one bucket", []uint64{0, 5}, []float64{0, 1e-6, 1e-3}, time.Millisecond},
		{"middle of three", []uint64{1, 1, 1}, []float64{0, 1e-6, 1e-5, 1e-4}, 10 * time.Microsecond},
		{"lower half exactly", []uint64{2, 2}, []float64{0, 1e-6, 1e-3}, time.Microsecond},
		{"open last bucket", []uint64{0, 3}, []float64{0, 2, inf}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := median(tt.counts, tt.bounds); got != tt.want {
				t.Errorf("median = %v, want %v", got, tt.want)
			}
		})
	}
}

// The runtime reports waits: goroutines that queue for one processor show
// a wait of at least the time the others keep it.
func TestSchedWaitsSeesQueueing(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var s schedWaits
	s.window()
	stop := time.Now().Add(100 * time.Millisecond)
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for time.Now().Before(stop) {
				// Spin for about 1 ms, then let the others run.
				for t0 := time.Now(); time.Since(t0) < time.Millisecond; {
				}
				runtime.Gosched()
			}
		}()
	}
	for range 4 {
		<-done
	}
	if got := s.window(); got < 500*time.Microsecond {
		t.Errorf("median wait %v with 4 goroutines taking turns on 1 processor for 1 ms each, want at least 0.5 ms", got)
	}
}

func TestGovernorFix(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var served int64
	g := New(func() (int64, int64) { return served, served }, 3, nil)
	g.Fix(1)
	g.Start()
	defer g.Stop()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS = %d after Fix(1), want 1", got)
	}
	g.Fix(0)
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Fatalf("GOMAXPROCS = %d after Fix(0) with max 3, want 3", got)
	}
	g.Fix(2)
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Fatalf("GOMAXPROCS = %d after Fix(2), want 2", got)
	}
}

// With no maximum given, the climb stays within the count the runtime was
// running on, which follows a container's CPU limit; NumCPU counts every CPU
// of the host.
func TestGovernorDefaultMax(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	g := New(func() (int64, int64) { return 0, 0 }, 0, nil)
	g.Fix(0)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS = %d climbing from the default maximum, want the 1 it ran on", got)
	}
}

// Stop returns once the climb has ended, however often it is called, and
// the governor can start again.
func TestGovernorStartStop(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	g := New(func() (int64, int64) { return 0, 0 }, 2, nil)
	g.Stop()
	for range 2 {
		g.Start()
		g.Start()
		done := g.done
		g.Stop()
		select {
		case <-done:
		default:
			t.Fatal("Stop returned before the climb ended")
		}
		g.Stop()
	}
}

// Background jobs add processors while they run, at most maxBoost, and
// none to a count the user fixed.
func TestGovernorBackgroundBoost(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var jobs atomic.Int64
	g := New(func() (int64, int64) { return 0, 0 }, 2, nil)
	g.SetBackground(func() int { return int(jobs.Load()) })
	g.Start()
	defer g.Stop()
	// An idle load leaves the climb at its maximum, 2.
	waitForProcs(t, 2, "no jobs")
	jobs.Store(1)
	waitForProcs(t, 3, "one job")
	jobs.Store(5)
	waitForProcs(t, 2+maxBoost, "five jobs")
	jobs.Store(0)
	waitForProcs(t, 2, "jobs done")
	g.mu.Lock()
	g.c.procs, g.c.max = 1, 1 // a climb that settled on one processor
	g.mu.Unlock()
	jobs.Store(1)
	waitForProcs(t, 2, "one job, the climb at 1")
	g.Fix(1)
	jobs.Store(2)
	time.Sleep(3 * window)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS = %d with jobs running and procs fixed at 1, want 1", got)
	}
}

// Frequent waits for the disk (appendfsync always) add a processor like a
// background job, within the same bound; rare ones (everysec) do not.
func TestGovernorDiskWaitBoost(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var jobs atomic.Int64
	var syncs atomic.Uint64
	var rare atomic.Bool
	stopSyncing := make(chan struct{})
	defer close(stopSyncing)
	go func() {
		// 2,000 syncs a second, or one a second when rare.
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-stopSyncing:
				return
			case <-t.C:
				if !rare.Load() || i%1000 == 0 {
					syncs.Add(2)
				}
			}
		}
	}()
	g := New(func() (int64, int64) { return 0, 0 }, 2, nil)
	g.SetBackground(func() int { return int(jobs.Load()) })
	g.SetDiskWaits(syncs.Load)
	g.Start()
	defer g.Stop()
	waitForProcs(t, 3, "frequent syncs")
	jobs.Store(2)
	waitForProcs(t, 2+maxBoost, "frequent syncs and two jobs")
	jobs.Store(0)
	rare.Store(true)
	waitForProcs(t, 2, "rare syncs")
	// A window is 50 ms and one sync a second leaves most windows without
	// any: the count must stay at 2 through them.
	for range 10 {
		time.Sleep(window)
		if got := runtime.GOMAXPROCS(0); got != 2 {
			t.Fatalf("GOMAXPROCS = %d with one sync a second, want 2", got)
		}
	}
	g.Fix(1)
	rare.Store(false)
	time.Sleep(3 * window)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS = %d with frequent syncs and procs fixed at 1, want 1", got)
	}
}

// waitForProcs waits up to 5 s for GOMAXPROCS to become want.
func waitForProcs(t *testing.T, want int, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.GOMAXPROCS(0) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: GOMAXPROCS = %d, want %d", what, runtime.GOMAXPROCS(0), want)
		}
		time.Sleep(window / 2)
	}
}
