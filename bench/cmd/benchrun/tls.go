package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairndb/cairn/bench/internal/procs"
	"github.com/cairndb/cairn/bench/internal/rbench"
	"github.com/cairndb/cairn/internal/tlsconf/tlstest"
)

// The tls scenario (issue 22): what TLS costs. Both servers listen on a
// plain port and a TLS port side by side, with certificates the harness
// makes at run time, and redis-benchmark runs GET and SET against each
// port, unpipelined and at -P 16: the TLS rows are the comparison with
// Redis the issue sets a target for, the plain rows beside them show what
// the TLS layer itself costs each server.

const tlsScenario = "tls"

var tlsWorkloads = []workload{
	{Name: "SET_TCP", Group: tlsScenario, Run: runBenchmark("set", false)},
	{Name: "SET_TLS", Group: tlsScenario, Run: runBenchmark("set", true)},
	{Name: "GET_TCP", Group: tlsScenario, Prefill: prefillStrings, Run: runBenchmark("get", false)},
	{Name: "GET_TLS", Group: tlsScenario, Prefill: prefillStrings, Run: runBenchmark("get", true)},
}

// runBenchmark runs redis-benchmark's test against the server's plain
// port, or with overTLS against its TLS port, trusting the CA the server
// was given.
func runBenchmark(test string, overTLS bool) func(context.Context, *harness, *procs.Process, int, int) (benchRun, error) {
	return func(ctx context.Context, h *harness, p *procs.Process, n, pipeline int) (benchRun, error) {
		o := rbench.Options{
			Bin: h.benchBin, Host: "127.0.0.1", Port: p.Port,
			Clients: h.set.Clients, Requests: n, DataSize: h.set.DataSize,
			KeyspaceLen: h.set.Keyspace, Pipeline: pipeline, Tests: test,
		}
		if overTLS {
			port, ca, err := tlsEndpoint(p.Args)
			if err != nil {
				return benchRun{}, err
			}
			o.Port, o.TLS, o.CACert = port, true, ca
		}
		rows, err := rbench.Run(ctx, o)
		if err != nil {
			return benchRun{}, err
		}
		r, ok := rbench.Find(rows, test)
		if !ok {
			return benchRun{}, fmt.Errorf("redis-benchmark printed no %s row", strings.ToUpper(test))
		}
		nan := math.NaN()
		return benchRun{Result: r, CPUus: nan, Delivered: nan, DeliveryP50Ms: nan, DeliveryP99Ms: nan}, nil
	}
}

// tlsEndpoint finds a server's TLS port and CA file in its arguments.
func tlsEndpoint(args []string) (port int, caFile string, err error) {
	ps, ok := argValue(args, "--tls-port")
	if !ok {
		return 0, "", errors.New("the server was started without --tls-port")
	}
	if port, err = strconv.Atoi(ps); err != nil || port <= 0 {
		return 0, "", fmt.Errorf("bad --tls-port %q", ps)
	}
	if caFile, ok = argValue(args, "--tls-ca-cert-file"); !ok {
		return 0, "", errors.New("the server was started without --tls-ca-cert-file")
	}
	return port, caFile, nil
}

// argValue returns the value following the last occurrence of name.
func argValue(args []string, name string) (string, bool) {
	for i := len(args) - 2; i >= 0; i-- {
		if args[i] == name {
			return args[i+1], true
		}
	}
	return "", false
}

// tlsServerArgs makes a CA and a server certificate for 127.0.0.1 in a
// fresh directory and returns the TLS arguments of two servers, each with
// its own free TLS port. Both servers take the same names.
func (h *harness) tlsServerArgs() (redisArgs, cairnArgs []string, err error) {
	dir, err := h.group.TempDir(h.work, "tls-")
	if err != nil {
		return nil, nil, err
	}
	f, err := tlstest.Generate(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("make TLS certificates: %w", err)
	}
	args := func() ([]string, error) {
		port, err := procs.FreePort()
		if err != nil {
			return nil, err
		}
		return tlsArgs(port, f.ServerCert, f.ServerKey, f.CACert), nil
	}
	if redisArgs, err = args(); err != nil {
		return nil, nil, err
	}
	if cairnArgs, err = args(); err != nil {
		return nil, nil, err
	}
	return redisArgs, cairnArgs, nil
}

// tlsArgs are the TLS settings both servers accept under the same names:
// a TLS port beside the plain one, no client certificates asked for.
func tlsArgs(port int, cert, key, ca string) []string {
	return []string{"--tls-port", strconv.Itoa(port), "--tls-cert-file", cert, "--tls-key-file", key,
		"--tls-ca-cert-file", ca, "--tls-auth-clients", "no"}
}

// waitTLS waits until the server answers PING on its TLS port: the harness
// saw it ready on the plain port, and the TLS listener may open a moment
// later. It returns the protocol and suite negotiated.
func waitTLS(ctx context.Context, p *procs.Process) (string, error) {
	port, ca, err := tlsEndpoint(p.Args)
	if err != nil {
		return "", err
	}
	pem, err := os.ReadFile(ca)
	if err != nil {
		return "", fmt.Errorf("read CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return "", fmt.Errorf("no certificate in %s", filepath.Base(ca))
	}
	cfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	var last error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		var state tls.ConnectionState
		if state, last = pingTLS(addr, cfg); last == nil {
			return tls.VersionName(state.Version) + " " + tls.CipherSuiteName(state.CipherSuite), nil
		}
	}
	return "", fmt.Errorf("%s: no PONG over TLS on port %d: %w", p.Name, port, last)
}

func pingTLS(addr string, cfg *tls.Config) (tls.ConnectionState, error) {
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: time.Second}, Config: cfg}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return tls.ConnectionState{}, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return tls.ConnectionState{}, err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return tls.ConnectionState{}, err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return tls.ConnectionState{}, fmt.Errorf("PING over TLS: got %q", strings.TrimSpace(line))
	}
	return c.(*tls.Conn).ConnectionState(), nil
}

// tlsDescriptions say what each workload of the scenario sends.
var tlsDescriptions = map[string]string{
	"SET_TCP": "`redis-benchmark -t set` on the plain port",
	"SET_TLS": "the same on the TLS port (`--tls --cacert <ca>`)",
	"GET_TCP": "`redis-benchmark -t get` on the plain port, every key set first",
	"GET_TLS": "the same on the TLS port",
}

// writeTLSIntro says what the tls scenario runs.
func writeTLSIntro(b *strings.Builder, mr *matrixResult) {
	b.WriteString("Each server listens on a plain port and a TLS port side by side, with a CA and an ECDSA P-256 server certificate the harness makes at run time, `tls-auth-clients no` (TLS 1.2 and 1.3 allowed, each server's default suites). The workloads:\n\n")
	for _, w := range tlsWorkloads {
		fmt.Fprintf(b, "- %s: %s\n", w.Name, tlsDescriptions[w.Name])
	}
	if mr.Note != "" {
		fmt.Fprintf(b, "\n%s Redis (OpenSSL) takes the client's first choice of suite, Cairn (Go) its own, so the two may encrypt with different ciphers under the same client.\n", mr.Note)
	}
	b.WriteString("\nredis-benchmark's connections do their TLS handshakes as its run starts, inside the timed part: in a run of a second or more that is a small share, in the tiny runs of --smoke it is most of it.\n\n")
}

// writeTLSCost sets the TLS rows against the plain ones: each server's
// throughput over TLS as a fraction of its plain-TCP throughput, and Cairn
// against Redis on each transport (the target is ≥ 0.7× over TLS).
func writeTLSCost(b *strings.Builder, mr *matrixResult, pipelines []int) {
	median := mr.medians
	b.WriteString("What TLS costs (median ops/s over the rounds): each server over TLS / over plain TCP, and Cairn / Redis on each (the target is ≥ 0.7× over TLS):\n\n")
	b.WriteString("| command | -P | Cairn TLS/TCP | Redis TLS/TCP | Cairn/Redis over TCP | Cairn/Redis over TLS |\n|---|---:|---:|---:|---:|---:|\n")
	for _, pl := range pipelines {
		for _, op := range []string{"SET", "GET"} {
			rt, ct := median(pl, op+"_TCP")
			rs, cs := median(pl, op+"_TLS")
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s |\n", op, pl, fmtRatio(cs/ct), fmtRatio(rs/rt), fmtRatio(ct/rt), fmtRatio(cs/rs))
		}
	}
	b.WriteString("\n")
}

// opensslSuite asks `openssl s_client` what a server negotiates with an
// OpenSSL client such as redis-benchmark: a Go client's offer differs, and
// each server picks the suite its own way (Go by its own preference,
// OpenSSL by the client's). Empty when openssl is not installed.
func opensslSuite(ctx context.Context, p *procs.Process) (string, error) {
	bin, err := exec.LookPath("openssl")
	if err != nil {
		return "", nil
	}
	port, ca, err := tlsEndpoint(p.Args)
	if err != nil {
		return "", err
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, "s_client", "-connect", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), "-CAfile", ca, "-brief")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("openssl s_client to %s: %w: %s", p.Name, err, lastLines(out, 3))
	}
	return parseSClient(out)
}

// parseSClient reads the protocol and suite from `openssl s_client
// -brief`'s report.
func parseSClient(out []byte) (string, error) {
	var proto, suite string
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Protocol version":
			proto = strings.TrimSpace(v)
		case "Ciphersuite":
			suite = strings.TrimSpace(v)
		}
	}
	if proto == "" || suite == "" {
		return "", fmt.Errorf("openssl s_client printed no protocol and suite: %s", lastLines(out, 3))
	}
	return proto + " " + suite, nil
}

// medians are the median ops/s of Redis and Cairn in the row of a workload
// at pipeline depth pl, NaN if there is none.
func (mr *matrixResult) medians(pl int, name string) (redis, cairn float64) {
	for _, row := range mr.Rows {
		if row.Pipeline == pl && row.Workload == name {
			sm := row.summary()
			return sm.Redis.Median, sm.Cairn.Median
		}
	}
	return math.NaN(), math.NaN()
}
