// Package rbench runs redis-benchmark and reads its --csv output.
//
// redis-benchmark (7.0 and later) prints one CSV row per test with the
// throughput and the latency percentiles it measured:
//
//	"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
//	"SET","76923.08","0.331","0.080","0.327","0.399","0.519","0.791"
//
// Columns are located by their header names, so an older redis-benchmark that
// prints only "test","rps" still yields throughput, with the latencies NaN.
package rbench

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
)

// Result is one row of redis-benchmark's CSV output. Latencies are in
// milliseconds; a column the tool did not print is NaN.
type Result struct {
	Test  string // as printed, e.g. "SET" or "MSET (10 keys)"
	RPS   float64
	AvgMs float64
	MinMs float64
	P50Ms float64
	P95Ms float64
	P99Ms float64
	MaxMs float64
}

// Name returns the test's name without redis-benchmark's parenthesised note:
// "LRANGE_100 (first 100 elements)" → "LRANGE_100".
func (r Result) Name() string {
	name, _, _ := strings.Cut(r.Test, " ")
	return name
}

// ParseCSV reads redis-benchmark --csv output. Lines before the header (a
// warning printed to stdout by some versions) are skipped.
func ParseCSV(r io.Reader) ([]Result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read redis-benchmark output: %w", err)
	}
	start := bytes.Index(data, []byte(`"test"`))
	if start < 0 {
		return nil, errors.New("redis-benchmark output has no CSV header")
	}
	// The header starts at the beginning of the line holding "test".
	start = bytes.LastIndexByte(data[:start], '\n') + 1
	cr := csv.NewReader(bytes.NewReader(data[start:]))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read CSV header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	testCol, ok := col["test"]
	if !ok {
		return nil, errors.New(`CSV header has no "test" column`)
	}
	rpsCol, ok := col["rps"]
	if !ok {
		return nil, errors.New(`CSV header has no "rps" column`)
	}
	var out []Result
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read CSV line %d: %w", line, err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if testCol >= len(rec) || rpsCol >= len(rec) {
			return nil, fmt.Errorf("CSV line %d has %d fields, header has %d", line, len(rec), len(header))
		}
		res := Result{Test: rec[testCol]}
		if res.Test == "" {
			return nil, fmt.Errorf("CSV line %d has an empty test name", line)
		}
		if v, perr := strconv.ParseFloat(strings.TrimSpace(rec[rpsCol]), 64); perr == nil && math.IsInf(v, 1) {
			// redis-benchmark divides by an elapsed time that rounded to 0.
			return nil, fmt.Errorf("CSV line %d: %w", line, ErrTooShort)
		}
		if res.RPS, err = parseNumber(rec[rpsCol]); err != nil || math.IsNaN(res.RPS) {
			return nil, fmt.Errorf("CSV line %d: rps %q is not a number", line, rec[rpsCol])
		}
		for name, dst := range map[string]*float64{
			"avg_latency_ms": &res.AvgMs, "min_latency_ms": &res.MinMs,
			"p50_latency_ms": &res.P50Ms, "p95_latency_ms": &res.P95Ms,
			"p99_latency_ms": &res.P99Ms, "max_latency_ms": &res.MaxMs,
		} {
			*dst = math.NaN()
			i, ok := col[name]
			if !ok || i >= len(rec) {
				continue
			}
			v, err := parseNumber(rec[i])
			if err != nil {
				return nil, fmt.Errorf("CSV line %d: %s %q is not a number", line, name, rec[i])
			}
			*dst = v
		}
		out = append(out, res)
	}
	return out, nil
}

// ErrTooShort is returned when a run finished too fast for redis-benchmark
// to time it (it prints an rps of "inf"): run it again with more requests.
var ErrTooShort = errors.New("run too short to time (rps inf)")

func parseNumber(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsInf(v, 0) || v < 0 {
		return math.NaN(), fmt.Errorf("not a non-negative number: %q", s)
	}
	return v, nil
}

// Find returns the row whose name (see Result.Name) is name.
func Find(rows []Result, name string) (Result, bool) {
	for _, r := range rows {
		if strings.EqualFold(r.Name(), name) {
			return r, true
		}
	}
	return Result{}, false
}

// Options are the redis-benchmark arguments the harness uses.
type Options struct {
	Bin         string // path to redis-benchmark
	Host        string
	Port        int
	Clients     int    // -c
	Requests    int    // -n
	DataSize    int    // -d
	KeyspaceLen int    // -r; 0 leaves it out
	Pipeline    int    // -P
	Tests       string // -t, e.g. "set" or "lrange_100"
	// TLS connects over TLS (--tls), trusting the CA certificates in
	// CACert (--cacert); redis-benchmark needs to be built with TLS.
	TLS    bool
	CACert string

	// OnRow, if set, is called with each row as redis-benchmark prints it,
	// while it runs on to its next test: LRANGE_100 first runs an LPUSH
	// test of its own, and the harness marks where that ends. Run then
	// makes the tool's output line-buffered with coreutils' stdbuf (its
	// stdio holds a pipe's output until exit otherwise) and fails with
	// ErrNoStdbuf without it. Calls come from one goroutine, in order,
	// and end before Run returns.
	OnRow func(Result)
}

// ErrNoStdbuf is returned by Run when Options.OnRow is set and stdbuf is
// not on the PATH.
var ErrNoStdbuf = errors.New("stdbuf (coreutils) not found: needed to read redis-benchmark's rows as they are printed")

// Args returns the command-line arguments for o, in the order they are
// reported in RESULTS.md.
func (o Options) Args() []string {
	args := []string{
		"-h", o.Host, "-p", strconv.Itoa(o.Port),
		"-c", strconv.Itoa(o.Clients), "-n", strconv.Itoa(o.Requests),
		"-d", strconv.Itoa(o.DataSize),
	}
	if o.KeyspaceLen > 0 {
		args = append(args, "-r", strconv.Itoa(o.KeyspaceLen))
	}
	args = append(args, "-P", strconv.Itoa(max(o.Pipeline, 1)), "-t", o.Tests, "--csv")
	if o.TLS {
		args = append(args, "--tls")
		if o.CACert != "" {
			args = append(args, "--cacert", o.CACert)
		}
	}
	return args
}

// ErrUnknownCommand is wrapped by Run's error when the server refused a
// command of the test as unknown: the workload is not implemented there.
var ErrUnknownCommand = errors.New("server answered unknown command")

// Run runs redis-benchmark once and returns its rows. redis-benchmark exits
// non-zero at the first error reply; that becomes an error carrying its
// stderr, wrapping ErrUnknownCommand when the reply was "unknown command".
func Run(ctx context.Context, o Options) ([]Result, error) {
	cmd := exec.CommandContext(ctx, o.Bin, o.Args()...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	if o.OnRow != nil {
		stdbuf, err := exec.LookPath("stdbuf")
		if err != nil {
			return nil, ErrNoStdbuf
		}
		cmd = exec.CommandContext(ctx, stdbuf, append([]string{"-oL", o.Bin}, o.Args()...)...)
		cmd.Stdout = &rowWriter{out: &stdout, onRow: o.OnRow}
	}
	cmd.Stderr = &stderr
	err := cmd.Run()
	msg := strings.TrimSpace(stderr.String())
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("redis-benchmark -t %s: %w", o.Tests, ctx.Err())
		}
		if strings.Contains(msg, "unknown command") {
			return nil, fmt.Errorf("redis-benchmark -t %s: %w: %s", o.Tests, ErrUnknownCommand, lastLine(msg))
		}
		return nil, fmt.Errorf("redis-benchmark -t %s: %w: %s", o.Tests, err, lastLine(msg))
	}
	rows, err := ParseCSV(&stdout)
	if err != nil {
		return nil, fmt.Errorf("redis-benchmark -t %s: %w", o.Tests, err)
	}
	return rows, nil
}

// rowWriter keeps redis-benchmark's output in out and hands each CSV row
// after the header to onRow as soon as its line is complete.
type rowWriter struct {
	out    *bytes.Buffer
	onRow  func(Result)
	header []byte // the header line, once seen
	done   int    // bytes of out already split into lines
}

func (w *rowWriter) Write(p []byte) (int, error) {
	w.out.Write(p)
	for {
		rest := w.out.Bytes()[w.done:]
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := rest[:i+1]
		w.done += i + 1
		switch {
		case w.header == nil:
			if bytes.Contains(line, []byte(`"test"`)) {
				w.header = append([]byte(nil), line...)
			}
		default:
			// A line that does not parse is left for ParseCSV to report.
			rows, err := ParseCSV(bytes.NewReader(append(append([]byte(nil), w.header...), line...)))
			if err == nil && len(rows) == 1 {
				w.onRow(rows[0])
			}
		}
	}
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
