package rbench

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Captured from Debian's redis-benchmark 7.0.15 against redis-server.
const sample = `"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
"PING_INLINE","74074.07","0.417","0.064","0.351","0.767","1.255","1.623"
"SET","76923.08","0.331","0.080","0.327","0.399","0.519","0.791"
"LPUSH (needed to benchmark LRANGE)","60606.06","0.549","0.032","0.535","0.783","1.351","1.607"
"LRANGE_100 (first 100 elements)","38461.54","0.870","0.320","0.855","1.335","2.415","2.911"
"MSET (10 keys)","42553.19","0.918","0.248","0.895","1.623","2.463","2.695"
`

func TestParseCSV(t *testing.T) {
	rows, err := ParseCSV(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("got %d rows, want 5", len(rows))
	}
	want := Result{Test: "SET", RPS: 76923.08, AvgMs: 0.331, MinMs: 0.080, P50Ms: 0.327, P95Ms: 0.399, P99Ms: 0.519, MaxMs: 0.791}
	if rows[1] != want {
		t.Errorf("row 1 = %+v, want %+v", rows[1], want)
	}
	var names []string
	for _, r := range rows {
		names = append(names, r.Name())
	}
	if wantNames := []string{"PING_INLINE", "SET", "LPUSH", "LRANGE_100", "MSET"}; !slices.Equal(names, wantNames) {
		t.Errorf("names = %v, want %v", names, wantNames)
	}
}

func TestParseCSVVariants(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
		check   func(t *testing.T, rows []Result)
	}{
		{
			name: "warning before header",
			in:   "WARNING: Could not fetch server CONFIG\n" + sample,
			check: func(t *testing.T, rows []Result) {
				if len(rows) != 5 {
					t.Errorf("got %d rows, want 5", len(rows))
				}
			},
		},
		{
			name: "throughput-only format",
			in:   "\"test\",\"rps\"\n\"GET\",\"1000.50\"\n",
			check: func(t *testing.T, rows []Result) {
				if len(rows) != 1 || rows[0].RPS != 1000.5 || !math.IsNaN(rows[0].P50Ms) || !math.IsNaN(rows[0].P99Ms) {
					t.Errorf("rows = %+v, want GET 1000.5 with NaN latencies", rows)
				}
			},
		},
		{
			name: "columns in another order",
			in:   "\"rps\",\"p99_latency_ms\",\"test\"\n\"5\",\"0.9\",\"INCR\"\n",
			check: func(t *testing.T, rows []Result) {
				if len(rows) != 1 || rows[0].Test != "INCR" || rows[0].RPS != 5 || rows[0].P99Ms != 0.9 {
					t.Errorf("rows = %+v", rows)
				}
			},
		},
		{
			name: "header only",
			in:   "\"test\",\"rps\"\n",
			check: func(t *testing.T, rows []Result) {
				if len(rows) != 0 {
					t.Errorf("rows = %+v, want none", rows)
				}
			},
		},
		{name: "empty", in: "", wantErr: "no CSV header"},
		{name: "no rps column", in: "\"test\",\"x\"\n\"SET\",\"1\"\n", wantErr: `no "rps" column`},
		{name: "bad rps", in: "\"test\",\"rps\"\n\"SET\",\"fast\"\n", wantErr: "rps \"fast\" is not a number"},
		{name: "negative rps", in: "\"test\",\"rps\"\n\"SET\",\"-1\"\n", wantErr: "is not a number"},
		{name: "run too short to time", in: "\"test\",\"rps\"\n\"SET\",\"inf\"\n", wantErr: "too short"},
		{name: "bad latency", in: "\"test\",\"rps\",\"p50_latency_ms\"\n\"SET\",\"1\",\"x\"\n", wantErr: "p50_latency_ms"},
		{name: "short row", in: "\"test\",\"x\",\"rps\"\n\"SET\"\n", wantErr: "has 1 fields"},
		{name: "empty name", in: "\"test\",\"rps\"\n\"\",\"1\"\n", wantErr: "empty test name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := ParseCSV(strings.NewReader(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, rows)
		})
	}
}

func TestFind(t *testing.T) {
	rows, err := ParseCSV(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := Find(rows, "lrange_100"); !ok || r.RPS != 38461.54 {
		t.Errorf("Find(lrange_100) = %+v, %v", r, ok)
	}
	if _, ok := Find(rows, "LRANGE_300"); ok {
		t.Error("Find(LRANGE_300) found a row that is not there")
	}
}

func TestArgs(t *testing.T) {
	o := Options{Host: "127.0.0.1", Port: 7000, Clients: 50, Requests: 1000, DataSize: 128, KeyspaceLen: 100000, Pipeline: 16, Tests: "set"}
	got := strings.Join(o.Args(), " ")
	want := "-h 127.0.0.1 -p 7000 -c 50 -n 1000 -d 128 -r 100000 -P 16 -t set --csv"
	if got != want {
		t.Errorf("Args = %q, want %q", got, want)
	}
	o.KeyspaceLen, o.Pipeline = 0, 0
	if got := strings.Join(o.Args(), " "); strings.Contains(got, "-r") || !strings.Contains(got, "-P 1 ") {
		t.Errorf("Args without -r and pipeline = %q", got)
	}
	if strings.Contains(strings.Join(o.Args(), " "), "--tls") {
		t.Errorf("Args without TLS = %q", o.Args())
	}
	o.TLS, o.CACert = true, "/tmp/ca.crt"
	if got := strings.Join(o.Args(), " "); !strings.HasSuffix(got, " --csv --tls --cacert /tmp/ca.crt") {
		t.Errorf("Args with TLS = %q", got)
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add(sample)
	f.Add("\"test\",\"rps\"\n\"GET\",\"1\"\n")
	f.Add("junk\n\"test\",\"rps\",\"p99_latency_ms\"\n\"a\",\"1\",\"2\"\n\"b\"\n")
	f.Add("\"test\"")
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := ParseCSV(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.Test == "" || math.IsNaN(r.RPS) || r.RPS < 0 {
				t.Fatalf("accepted an invalid row %+v", r)
			}
		}
	})
}

// TestRowWriter feeds redis-benchmark's output in pieces that split lines
// anywhere and checks that every row reaches onRow once, in order, as soon
// as its line ends.
func TestRowWriter(t *testing.T) {
	out := "warning: something\n" + sample
	for _, chunk := range []int{1, 7, 64, len(out)} {
		var got []string
		var buf bytes.Buffer
		w := &rowWriter{out: &buf, onRow: func(r Result) { got = append(got, r.Name()) }}
		for i := 0; i < len(out); i += chunk {
			piece := out[i:min(i+chunk, len(out))]
			n, err := w.Write([]byte(piece))
			if err != nil || n != len(piece) {
				t.Fatalf("chunk %d: Write = %d, %v", chunk, n, err)
			}
			// A row is delivered once its newline has been written, not before.
			if want := strings.Count(out[:i+len(piece)], "\n") - 2; max(want, 0) != len(got) {
				t.Fatalf("chunk %d: after %d bytes got %d rows, want %d", chunk, i+len(piece), len(got), max(want, 0))
			}
		}
		want := []string{"PING_INLINE", "SET", "LPUSH", "LRANGE_100", "MSET"}
		if !slices.Equal(got, want) {
			t.Errorf("chunk %d: rows %q, want %q", chunk, got, want)
		}
		if buf.String() != out {
			t.Errorf("chunk %d: output kept as %q", chunk, buf.String())
		}
	}
}

// TestRunOnRowWhileRunning runs a stand-in for redis-benchmark that prints
// a first row and then waits for a file that only onRow creates: Run
// passes only if the row reaches onRow while the tool is still running.
// (The stand-in's shell writes each line at once; that stdbuf does the
// same for redis-benchmark's stdio was checked by hand.)
func TestRunOnRowWhileRunning(t *testing.T) {
	if _, err := exec.LookPath("stdbuf"); err != nil {
		t.Skip("stdbuf not installed")
	}
	dir := t.TempDir()
	flag := filepath.Join(dir, "first-row-seen")
	script := filepath.Join(dir, "fake-benchmark")
	body := `#!/bin/sh
printf '%s\n' '"test","rps"' '"LPUSH (needed to benchmark LRANGE)","100"'
i=0
while [ ! -e ` + flag + ` ]; do
	i=$((i+1)); [ $i -gt 200 ] && { echo "no row seen" >&2; exit 1; }
	sleep 0.05
done
printf '%s\n' '"LRANGE_100 (first 100 elements)","50"'
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	var seen []string
	rows, err := Run(context.Background(), Options{Bin: script, Tests: "lrange_100", OnRow: func(r Result) {
		seen = append(seen, r.Name())
		if r.Name() == "LPUSH" {
			if err := os.WriteFile(flag, nil, 0o644); err != nil {
				t.Error(err)
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || !slices.Equal(seen, []string{"LPUSH", "LRANGE_100"}) {
		t.Errorf("rows %+v, seen %q", rows, seen)
	}
}
