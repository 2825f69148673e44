package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cairndb/cairn/bench/internal/procs"
	"github.com/cairndb/cairn/bench/internal/stats"
)

// The rdb-import scenario (issue 23): `cairn import` of an RDB file that
// Redis wrote, against Redis loading the same file at start. It lives in
// the harness rather than in a program of its own because it needs what
// the harness has: the Cairn binary it builds, Debian's redis-server, the
// process group that cleans up, RESULTS.md and the smoke check.
//
// Redis makes the file: DEBUG POPULATE strings (whose zero-padded values
// Redis stores LZF-compressed) and, by pipelined commands, strings of
// random letters, some with a TTL, and hashes, lists, sets and sorted sets,
// most small (listpack-encoded in the file) and every twentieth big
// (hashtable, quicklist, skiplist), filled in passes and SAVEd until the
// file is about the size asked for.

const rdbImport = "rdb-import"

// What one group of the generated data holds; see rdbGroupCommands.
const (
	rdbPopulatePerGroup = 4   // DEBUG POPULATE strings
	rdbStringsPerGroup  = 4   // SETs of random letters
	rdbStringSize       = 100 // bytes of each string value
	rdbSmallElems       = 16  // elements of a small collection
	rdbBigElems         = 500 // elements of a big one
	rdbBigEvery         = 20  // every this many groups has big collections
	rdbExpireEvery      = 10  // every this many groups has a string with a TTL
	// rdbGroupGuess is a first guess at a group's bytes in the file; the
	// passes after the first use the measured figure.
	rdbGroupGuess = 3400
)

// importResult is the scenario's outcome.
type importResult struct {
	TargetSize int64
	FileSize   int64
	Keys       int64 // DBSIZE of Redis when it saved the file
	Groups     int
	Passes     int
	Generate   time.Duration // filling Redis and saving, all passes
	CairnCmd   string
	RedisCmd   string
	Imports    []importRun
	RedisReady []time.Duration // exec → first PONG, loading the file
	RedisRSS   int64           // Redis's peak RSS after loading the file
	CairnDisk  procs.DirUsage  // the first import's data directory
	Checked    bool            // Cairn started on an import and its DBSIZE matched
}

// importRun is one `cairn import`.
type importRun struct {
	Elapsed time.Duration // exec to exit
	PeakRSS int64
	Keys    int64 // as the summary reports
}

// rdbGroupCommands returns group g's commands: every key name and value follows from
// the group's number, so that a pass can go on where the last one stopped.
func rdbGroupCommands(g int) [][]any {
	rng := rand.New(rand.NewPCG(uint64(g), 0x1d6))
	letters := func(n int) string {
		const abc = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
		b := make([]byte, n)
		for i := range b {
			b[i] = abc[rng.IntN(len(abc))]
		}
		return string(b)
	}
	gs := strconv.Itoa(g)
	var cmds [][]any
	for k := range rdbStringsPerGroup {
		cmds = append(cmds, []any{"SET", "str:" + gs + ":" + strconv.Itoa(k), letters(rdbStringSize)})
	}
	if g%rdbExpireEvery == 0 {
		cmds = append(cmds, []any{"EXPIRE", "str:" + gs + ":0", 86400 * 30})
	}
	n := rdbSmallElems
	if g%rdbBigEvery == 0 {
		n = rdbBigElems
	}
	hash := []any{"HSET", "hash:" + gs}
	list := []any{"RPUSH", "list:" + gs}
	set := []any{"SADD", "set:" + gs}
	zset := []any{"ZADD", "zset:" + gs}
	for i := range n {
		is := strconv.Itoa(i)
		hash = append(hash, "f"+is, letters(16))
		list = append(list, letters(16))
		set = append(set, "m:"+is+":"+letters(6))
		zset = append(zset, rng.IntN(1_000_000), "m:"+is+":"+letters(6))
	}
	return append(cmds, hash, list, set, zset)
}

// rdbGroupKeys is the number of keys groups [0, groups) make, without the
// DEBUG POPULATE strings.
func rdbGroupKeys(groups int) int64 { return int64(groups) * (rdbStringsPerGroup + 4) }

// nextGroups is how many groups a pass should reach: the target over the
// bytes a group took so far (the guess before the first SAVE), at least
// one more than now.
func nextGroups(target, size int64, groups int) int {
	per := float64(rdbGroupGuess)
	if groups > 0 && size > 0 {
		per = float64(size) / float64(groups)
	}
	return max(int(float64(target)/per+0.5), groups+1)
}

// generateRDB fills a Redis with about s.RDBSize bytes of data as saved,
// and returns the directory holding its dump.rdb.
func (h *harness) generateRDB(ctx context.Context, r *importResult) (string, error) {
	dir, err := h.dataDir("redis-rdbgen")
	if err != nil {
		return "", err
	}
	rp, err := h.startRedis(ctx, "rdbgen", redisConfig{dir: dir, extra: []string{"--enable-debug-command", "yes"}})
	if err != nil {
		return "", err
	}
	defer rp.Stop(time.Minute)
	c := client(rp)
	defer c.Close()
	// DEBUG POPULATE and SAVE of a big dataset take longer than a
	// command's usual read timeout: they get a client that waits.
	slowOpts := *c.Options()
	slowOpts.ReadTimeout = -1
	slow := redis.NewClient(&slowOpts)
	defer slow.Close()
	t0 := time.Now()
	groups := 0
	file := filepath.Join(dir, "dump.rdb")
	for r.Passes = 1; ; r.Passes++ {
		want := nextGroups(r.TargetSize, r.FileSize, groups)
		if err := fillGroups(ctx, c, groups, want); err != nil {
			return "", err
		}
		groups = want
		if err := slow.Do(ctx, "DEBUG", "POPULATE", groups*rdbPopulatePerGroup, "pop", rdbStringSize).Err(); err != nil {
			return "", fmt.Errorf("DEBUG POPULATE: %w", err)
		}
		if err := slow.Save(ctx).Err(); err != nil {
			return "", fmt.Errorf("SAVE: %w", err)
		}
		st, err := os.Stat(file)
		if err != nil {
			return "", fmt.Errorf("redis wrote no dump.rdb: %w", err)
		}
		r.FileSize = st.Size()
		h.logf("%s: pass %d: %d groups, dump.rdb %s (target %s)", rdbImport, r.Passes, groups, fmtBytes(r.FileSize), fmtBytes(r.TargetSize))
		if r.FileSize >= r.TargetSize*9/10 || r.Passes == 4 {
			break
		}
	}
	r.Groups = groups
	r.Generate = time.Since(t0)
	if r.Keys, err = c.DBSize(ctx).Result(); err != nil {
		return "", fmt.Errorf("DBSIZE: %w", err)
	}
	if want := rdbGroupKeys(groups) + int64(groups*rdbPopulatePerGroup); r.Keys != want {
		return "", fmt.Errorf("redis has %d keys, want %d", r.Keys, want)
	}
	return dir, nil
}

// fillGroups writes groups [from, to) in pipelines.
func fillGroups(ctx context.Context, c *redis.Client, from, to int) error {
	pipe := c.Pipeline()
	for g := from; g < to; g++ {
		for _, cmd := range rdbGroupCommands(g) {
			pipe.Do(ctx, cmd...)
		}
		if pipe.Len() >= 400 || g == to-1 {
			if _, err := pipe.Exec(ctx); err != nil {
				return fmt.Errorf("fill groups %d..%d: %w", from, to-1, err)
			}
		}
	}
	return nil
}

// rdbImportScenario makes the file, then alternates `cairn import` into a
// fresh directory with Redis loading the file at start.
func (h *harness) rdbImportScenario(ctx context.Context) error {
	r := &importResult{TargetSize: h.set.RDBSize}
	h.res.Import = r
	h.logf("%s: making an RDB file of about %s with Redis", rdbImport, fmtBytes(r.TargetSize))
	rdir, err := h.generateRDB(ctx, r)
	if err != nil {
		return err
	}
	file := filepath.Join(rdir, "dump.rdb")
	h.logf("%s: %s, %d keys, made in %v", rdbImport, fmtBytes(r.FileSize), r.Keys, r.Generate.Round(time.Millisecond))
	for round := range h.set.ImportRounds {
		order := []string{"cairn", "redis"}
		if round%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, name := range order {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if name == "redis" {
				rp, err := h.startRedis(ctx, "rdbload", redisConfig{dir: rdir})
				if err != nil {
					return err
				}
				r.RedisCmd = commandLine(rp) + " (on a directory holding the file)"
				err = checkDBSize(ctx, rp, int(r.Keys))
				if rss, rerr := rp.PeakRSS(); rerr == nil {
					r.RedisRSS = max(r.RedisRSS, rss)
				}
				if _, serr := rp.Stop(time.Minute); err == nil {
					err = serr
				}
				if err != nil {
					return fmt.Errorf("redis loading the file: %w", err)
				}
				r.RedisReady = append(r.RedisReady, rp.Ready)
				h.logf("%s: round %d/%d redis first PONG after %v", rdbImport, round+1, h.set.ImportRounds, rp.Ready.Round(time.Millisecond))
				continue
			}
			run, err := h.importOnce(ctx, r, file, round == 0)
			if err != nil {
				return err
			}
			r.Imports = append(r.Imports, run)
			h.logf("%s: round %d/%d cairn import %v, %s/s, peak RSS %s", rdbImport, round+1, h.set.ImportRounds,
				run.Elapsed.Round(time.Millisecond), fmtBytes(int64(float64(r.FileSize)/run.Elapsed.Seconds())), fmtBytes(run.PeakRSS))
		}
	}
	return nil
}

// importOnce runs `cairn import` of file into a fresh directory; the first
// time, it also starts Cairn on the result and checks its DBSIZE. The
// directory is removed afterwards unless --keep: a full run's imports are
// gigabytes each.
func (h *harness) importOnce(ctx context.Context, r *importResult, file string, check bool) (importRun, error) {
	dir, err := h.dataDir("cairn-import")
	if err != nil {
		return importRun{}, err
	}
	if !h.opts.keep {
		defer os.RemoveAll(dir)
	}
	logPath := filepath.Join(h.work, "logs", "cairn-import.log")
	args := []string{"import", file, "--dir", dir}
	r.CairnCmd = "cairn import <dump.rdb> --dir <fresh dir>"
	run, out, err := runMeasured(ctx, h.cairnBin, args, logPath)
	if err != nil {
		return run, fmt.Errorf("cairn import: %w; last lines:\n%s", err, lastLines(out, 10))
	}
	if run.Keys, err = importedKeys(out); err != nil {
		return run, fmt.Errorf("cairn import: %w; last lines:\n%s", err, lastLines(out, 10))
	}
	if run.Keys != r.Keys {
		return run, fmt.Errorf("cairn import loaded %d keys, Redis had %d", run.Keys, r.Keys)
	}
	if !check {
		return run, nil
	}
	if r.CairnDisk, err = procs.DirSize(dir); err != nil {
		return run, err
	}
	cp, err := h.startCairn(ctx, "imported", cairnConfig{appendfsync: "everysec", cacheSize: h.set.MatrixCache, dir: dir})
	if err != nil {
		return run, err
	}
	err = checkDBSize(ctx, cp, int(r.Keys))
	if _, serr := cp.Stop(time.Minute); err == nil {
		err = serr
	}
	if err != nil {
		return run, fmt.Errorf("cairn on the imported directory: %w", err)
	}
	r.Checked = true
	return run, nil
}

// runMeasured runs bin to its end, its output to logPath, and returns how
// long it took and its peak RSS: VmHWM from /proc, read every 20 ms while
// it runs, or the kernel's maxrss at exit if that is higher (a peak
// between two readings).
func runMeasured(ctx context.Context, bin string, args []string, logPath string) (importRun, []byte, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return importRun{}, nil, fmt.Errorf("create %s: %w", logPath, err)
	}
	defer logf.Close()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return importRun{}, nil, fmt.Errorf("start %s: %w", bin, err)
	}
	var peak int64
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		for {
			if data, err := os.ReadFile(status); err == nil {
				if v, err := procs.StatusBytes(data, "VmHWM"); err == nil {
					peak = max(peak, v)
				}
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	err = cmd.Wait()
	run := importRun{Elapsed: time.Since(start)}
	close(done)
	wg.Wait()
	run.PeakRSS = peak
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		run.PeakRSS = max(run.PeakRSS, ru.Maxrss*1024) // kilobytes on Linux
	}
	out, rerr := os.ReadFile(logPath)
	if err == nil {
		err = rerr
	}
	return run, out, err
}

var importedRe = regexp.MustCompile(`(?m)^loaded (\d+) keys`)

// importedKeys reads the key count from `cairn import`'s summary.
func importedKeys(out []byte) (int64, error) {
	m := importedRe.FindAllSubmatch(out, -1)
	if len(m) == 0 {
		return 0, errors.New(`no "loaded N keys" line in the output`)
	}
	return strconv.ParseInt(string(m[len(m)-1][1]), 10, 64)
}

func lastLines(out []byte, n int) string {
	// Progress lines may end in a carriage return only.
	lines := strings.FieldsFunc(string(out), func(r rune) bool { return r == '\n' || r == '\r' })
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// importSummaries are the medians (with ranges) the report shows: the
// imports' seconds, MB/s of the file, keys/s and peak RSS, and Redis's
// load seconds, MB/s and keys/s.
type importSummaries struct {
	Secs, MBps, KeysPS, RSS        stats.Summary
	RedisSecs, RedisMBps, RedisKPS stats.Summary
}

func (t *importResult) summaries() importSummaries {
	mb := float64(t.FileSize) / (1 << 20)
	var secs, mbps, kps, rss []float64
	for _, run := range t.Imports {
		s := run.Elapsed.Seconds()
		secs, mbps, kps, rss = append(secs, s), append(mbps, mb/s), append(kps, float64(t.Keys)/s), append(rss, float64(run.PeakRSS))
	}
	var rsecs, rmbps, rkps []float64
	for _, d := range t.RedisReady {
		s := d.Seconds()
		rsecs, rmbps, rkps = append(rsecs, s), append(rmbps, mb/s), append(rkps, float64(t.Keys)/s)
	}
	return importSummaries{
		Secs: stats.Summarize(secs), MBps: stats.Summarize(mbps), KeysPS: stats.Summarize(kps), RSS: stats.Summarize(rss),
		RedisSecs: stats.Summarize(rsecs), RedisMBps: stats.Summarize(rmbps), RedisKPS: stats.Summarize(rkps),
	}
}

func (r *results) writeImport(b io.Writer) {
	t := r.Import
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	sm := t.summaries()
	p("## RDB import\n\n")
	p("`cairn import` of a %s dump.rdb (%s keys) that Redis wrote with SAVE, into a fresh data directory each time, against Redis loading the same file at start. ",
		fmtBytes(t.FileSize), fmtOps(float64(t.Keys)))
	p("The file holds, in groups: %d strings from DEBUG POPULATE (%d-byte zero-padded values, which Redis stores LZF-compressed), %d strings of %d random letters (one in %d groups with a TTL), and a hash, a list, a set and a sorted set of %d elements, or of %d in one group in %d (hashtable, quicklist, skiplist encodings rather than listpacks); %s groups, made in %s of filling and SAVE (%s). ",
		rdbPopulatePerGroup, rdbStringSize, rdbStringsPerGroup, rdbStringSize, rdbExpireEvery, rdbSmallElems, rdbBigElems, rdbBigEvery,
		fmtOps(float64(t.Groups)), plural(t.Passes, "pass", "passes"), fmtDur(t.Generate))
	p("Median (min–max) over %d rounds, Cairn and Redis alternating. Cairn's time runs from exec to exit (opening the store, reading, writing, the final flush and close); its peak RSS is VmHWM from /proc, read every 20 ms, or the kernel's maxrss at exit if higher. Redis's time runs from exec to its first +PONG (it answers -LOADING until the file is in). Every import is checked to report all keys; ",
		max(len(t.Imports), len(t.RedisReady)))
	if t.Checked {
		p("Cairn started on the first import's directory answered DBSIZE with all of them, as did each Redis.\n\n")
	} else {
		p("Cairn was not started on an import (the run stopped early).\n\n")
	}
	p("- Cairn: `%s`\n- Redis: `%s`\n\n", t.CairnCmd, t.RedisCmd)
	p("| | Cairn `cairn import` | Redis loading at start |\n|---|---:|---:|\n")
	p("| time, s | %s | %s |\n", fmtRange(sm.Secs, fmtFigure), fmtRange(sm.RedisSecs, fmtFigure))
	p("| MB/s of the file | %s | %s |\n", fmtRange(sm.MBps, fmtFigure), fmtRange(sm.RedisMBps, fmtFigure))
	p("| keys/s | %s | %s |\n", fmtRange(sm.KeysPS, fmtOps), fmtRange(sm.RedisKPS, fmtOps))
	p("| peak RSS | %s | %s (all the data in memory) |\n", fmtRange(sm.RSS, func(v float64) string { return fmtBytes(int64(v)) }), fmtBytes(t.RedisRSS))
	p("| on disk afterwards | %s | %s (dump.rdb) |\n\n", diskCell(t.CairnDisk, int(t.Keys)), fmtBytes(t.FileSize))
}

// importComplete is the smoke check of the scenario's result.
func importComplete(t *importResult, rounds int) error {
	if len(t.Imports) != rounds || len(t.RedisReady) != rounds || !t.Checked || t.Keys <= 0 || t.FileSize <= 0 || t.CairnDisk.Apparent <= 0 {
		return fmt.Errorf("smoke: rdb-import: %d imports and %d Redis loads of %d rounds, %d keys, file %d bytes, checked %v",
			len(t.Imports), len(t.RedisReady), rounds, t.Keys, t.FileSize, t.Checked)
	}
	for _, run := range t.Imports {
		if run.PeakRSS <= 0 || run.Elapsed <= 0 {
			return fmt.Errorf("smoke: rdb-import: incomplete run %+v", run)
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
